// Package auth signs users in (passwords, lockout) and bootstraps the
// operator's tenant and first administrator.
package auth

import (
	"crypto/rand"
	"errors"
	"math/big"
	"sync"

	"golang.org/x/crypto/bcrypt"

	"github.com/kanri/kanri/internal/kanri"
)

// DefaultCost is the bcrypt cost of the data model
// (docs/data-model.md, "Secrets").
const DefaultCost = 12

// Hasher hashes and checks passwords with bcrypt.
type Hasher struct {
	// Cost is the bcrypt cost; tests lower it.
	Cost int
	// AfterCheck, when not nil, is called by Check once it has compared a
	// password, before Check returns. It is nil in production; tests block
	// in it to act while a sign-in is between its password check and what
	// it writes next, instead of hoping that a sleep lands there.
	AfterCheck func()
}

// Hash returns the bcrypt hash of a password that meets the policy.
func (h Hasher) Hash(password string) (string, error) {
	if msg := kanri.CheckPassword(password); msg != "" {
		return "", kanri.Invalid(kanri.Fields{"password": msg})
	}
	cost := h.Cost
	if cost == 0 {
		cost = DefaultCost
	}
	b, err := bcrypt.GenerateFromPassword([]byte(password), cost)
	return string(b), err
}

// Check reports whether password matches hash.
func (h Hasher) Check(hash, password string) bool {
	ok := bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
	if h.AfterCheck != nil {
		h.AfterCheck()
	}
	return ok
}

// dummyHashes holds, per cost, a hash that sign-ins for a missing user are
// checked against, so that they take as long as one for a real user.
var dummyHashes sync.Map // int → []byte

// waste spends the time of one password check at the hasher's cost.
func (h Hasher) waste(password string) {
	cost := h.Cost
	if cost == 0 {
		cost = DefaultCost
	}
	hash, ok := dummyHashes.Load(cost)
	if !ok {
		b, _ := bcrypt.GenerateFromPassword([]byte("no such user, no such password"), cost)
		hash, _ = dummyHashes.LoadOrStore(cost, b)
	}
	bcrypt.CompareHashAndPassword(hash.([]byte), []byte(password))
}

// GeneratePassword returns a random password that meets the policy.
func GeneratePassword() (string, error) {
	const (
		lower  = "abcdefghijkmnopqrstuvwxyz"
		upper  = "ABCDEFGHJKLMNPQRSTUVWXYZ"
		digits = "23456789"
		symbol = "-_.!#%+"
		all    = lower + upper + digits + symbol
	)
	sets := []string{lower, upper, digits, symbol}
	out := make([]byte, 20)
	for i := range out {
		set := all
		if i < len(sets) {
			set = sets[i]
		}
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(set))))
		if err != nil {
			return "", err
		}
		out[i] = set[n.Int64()]
	}
	// Shuffle so that the classes are not always first.
	for i := len(out) - 1; i > 0; i-- {
		j, err := rand.Int(rand.Reader, big.NewInt(int64(i+1)))
		if err != nil {
			return "", err
		}
		out[i], out[j.Int64()] = out[j.Int64()], out[i]
	}
	if kanri.CheckPassword(string(out)) != "" {
		return "", errors.New("auth: generated password misses the policy")
	}
	return string(out), nil
}
