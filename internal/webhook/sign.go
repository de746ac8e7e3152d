// Package webhook sends a tenant's events to the endpoints its
// administrators register, signed as the Standard Webhooks specification
// says (https://www.standardwebhooks.com, "Signature scheme").
package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The headers of a signed delivery.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// secretPrefix begins every secret as the specification writes them.
const secretPrefix = "whsec_"

// secretBytes is how long a secret's key is: the specification asks for
// 24 to 64 bytes.
const secretBytes = 32

// Secret is an endpoint's signing key.
type Secret []byte

// NewSecret returns a new random secret.
func NewSecret() Secret {
	b := make([]byte, secretBytes)
	rand.Read(b)
	return b
}

// String writes the secret as the specification does (whsec_ and the key
// in base64): what an administrator copies into their receiver.
func (s Secret) String() string { return secretPrefix + base64.StdEncoding.EncodeToString(s) }

// ParseSecret reads a secret written by String.
func ParseSecret(s string) (Secret, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, secretPrefix))
	if err != nil || !strings.HasPrefix(s, secretPrefix) || len(b) < 24 || len(b) > 64 {
		return nil, errors.New("webhook: not a whsec_ secret of 24 to 64 bytes")
	}
	return b, nil
}

// Sign returns the signature of a message: v1, and the HMAC-SHA256 of its
// id, its time in Unix seconds and its body, joined by dots, in base64.
func (s Secret) Sign(id string, at time.Time, body []byte) string {
	m := hmac.New(sha256.New, s)
	m.Write([]byte(id + "." + strconv.FormatInt(at.Unix(), 10) + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// SetHeaders sets a message's id, time and signatures on h: one signature
// per secret, space-separated, so that a receiver that still has an
// endpoint's previous secret (rotated, in its overlap) accepts it too.
func SetHeaders(h http.Header, id string, at time.Time, body []byte, secrets ...Secret) {
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		sigs = append(sigs, s.Sign(id, at, body))
	}
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(at.Unix(), 10))
	h.Set(HeaderSignature, strings.Join(sigs, " "))
}
