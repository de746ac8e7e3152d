package auth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Sealer encrypts secrets at rest (the TOTP secrets) with AES-256-GCM. A
// sealed value names the version of its format and is bound to what it
// belongs to (the user's id as additional data), so that a value copied to
// another user's document does not open.
type Sealer struct {
	aead cipher.AEAD
	mac  []byte
}

// NewSealer returns a sealer with a 32-byte key.
func NewSealer(key []byte) (*Sealer, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("the two-factor key must be 32 bytes, not %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	mac, err := hkdf.Key(sha256.New, key, nil, "kanri recovery codes", 32)
	if err != nil {
		return nil, err
	}
	return &Sealer{aead: aead, mac: mac}, nil
}

// Digest returns a keyed digest (HMAC-SHA256) of value for owner: what is
// stored of a recovery code, useless without the key.
func (s *Sealer) Digest(value, owner string) string {
	h := hmac.New(sha256.New, s.mac)
	h.Write([]byte(owner))
	h.Write([]byte{0})
	h.Write([]byte(value))
	return hex.EncodeToString(h.Sum(nil))
}

// sealPrefix marks the format of a sealed value.
const sealPrefix = "v1:"

// Seal encrypts plain for owner.
func (s *Sealer) Seal(plain []byte, owner string) string {
	nonce := make([]byte, s.aead.NonceSize())
	rand.Read(nonce)
	return sealPrefix + base64.RawStdEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, []byte(owner)))
}

// ErrSealed is the error of a sealed value that does not open: another
// key, another owner, or damage.
var ErrSealed = errors.New("auth: the sealed value does not open with this key for this owner")

// Open decrypts a value sealed for owner.
func (s *Sealer) Open(sealed, owner string) ([]byte, error) {
	b64, ok := strings.CutPrefix(sealed, sealPrefix)
	if !ok {
		return nil, ErrSealed
	}
	b, err := base64.RawStdEncoding.DecodeString(b64)
	if err != nil || len(b) < s.aead.NonceSize() {
		return nil, ErrSealed
	}
	plain, err := s.aead.Open(nil, b[:s.aead.NonceSize()], b[s.aead.NonceSize():], []byte(owner))
	if err != nil {
		return nil, ErrSealed
	}
	return plain, nil
}
