package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"hash/crc32"
	"math/big"
	"strings"
)

// The format of a secret, after GitHub's tokens: a prefix that says what
// it is, 32 random bytes in base62, and a CRC32 of them in base62, so that
// a mistyped or truncated key is refused before any store read, and
// secret scanners can recognise a leaked one.
const (
	SecretPrefix  = "ak_live_"
	randomLength  = 43 // 32 bytes in base62
	checkLength   = 6  // a CRC32 in base62
	SecretLength  = len(SecretPrefix) + randomLength + checkLength
	visiblePrefix = len(SecretPrefix) + 6 // what keyPrefix keeps in clear
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// encode62 writes n in base62, left-padded with zeros to width.
func encode62(n *big.Int, width int) string {
	var b []byte
	zero, base, mod := big.NewInt(0), big.NewInt(62), new(big.Int)
	n = new(big.Int).Set(n)
	for n.Cmp(zero) > 0 {
		n.DivMod(n, base, mod)
		b = append(b, base62[mod.Int64()])
	}
	for len(b) < width {
		b = append(b, '0')
	}
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// checksum returns the base62 CRC32 of the random part.
func checksum(random string) string {
	return encode62(big.NewInt(int64(crc32.ChecksumIEEE([]byte(random)))), checkLength)
}

// newSecret returns a new random secret.
func newSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	random := encode62(new(big.Int).SetBytes(b), randomLength)
	return SecretPrefix + random + checksum(random)
}

// WellFormed reports whether s has the form of a secret with a correct
// checksum. It reads nothing.
func WellFormed(s string) bool {
	if len(s) != SecretLength || !strings.HasPrefix(s, SecretPrefix) {
		return false
	}
	body := s[len(SecretPrefix):]
	for i := 0; i < len(body); i++ {
		if strings.IndexByte(base62, body[i]) < 0 {
			return false
		}
	}
	random := body[:randomLength]
	return checksum(random) == body[randomLength:]
}

// Hash returns what is stored of a secret: "sha256:" and the hex digest.
func Hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Prefix returns the part of a secret kept in clear to recognise it.
func Prefix(secret string) string { return secret[:visiblePrefix] }
