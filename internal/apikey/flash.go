package apikey

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"strings"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// A new secret is shown once, on a page reached by a redirect after the
// POST that made it (so that reloading that page repeats nothing). Between
// the two it waits in the store, sealed with a random key that only the
// visitor's ticket holds: the store alone cannot open it, and the ticket
// (kept in the session) holds no secret. Showing it deletes it.

// errNoFlash says that a ticket finds no secret: shown already, expired,
// or never held.
var errNoFlash = kanri.E(kanri.ENOTFOUND, "error.not_found")

func flashes(st *store.Store, tenantID string) *store.Repo[kanri.SecretFlash, *kanri.SecretFlash] {
	return store.Of[kanri.SecretFlash](st.Tenant(tenantID), kanri.ContainerAPI, kanri.TypeSecretFlash)
}

// Hold keeps a new secret of the key (or webhook endpoint) keyID, sealed,
// until it is claimed once with the ticket returned (or
// kanri.SecretFlashTTL passes).
func (s *Service) Hold(ctx context.Context, tenantID, keyID, secret string, rotated bool) (ticket string, err error) {
	key := make([]byte, 32)
	rand.Read(key)
	sealed, err := seal(key, secret)
	if err != nil {
		return "", err
	}
	id := "asf_" + randomID()
	f := &kanri.SecretFlash{Doc: kanri.Doc{ID: id}, APIKeyID: keyID, Rotated: rotated, Sealed: sealed, TTL: kanri.SecretFlashTTL}
	if err := flashes(s.Store, tenantID).Create(ctx, f); err != nil {
		return "", err
	}
	return id + "." + base64.RawURLEncoding.EncodeToString(key), nil
}

// Claim returns the secret a ticket holds, once: the held secret is
// deleted, so that a second claim (a reload) finds nothing (ENOTFOUND).
// A ticket of another tenant finds nothing either.
func (s *Service) Claim(ctx context.Context, tenantID, ticket string) (keyID, secret string, rotated bool, err error) {
	id, k, ok := strings.Cut(ticket, ".")
	key, derr := base64.RawURLEncoding.DecodeString(k)
	if !ok || derr != nil || len(key) != 32 || !strings.HasPrefix(id, "asf_") || docstore.CheckKey(tenantID, id) != nil {
		return "", "", false, errNoFlash
	}
	repo := flashes(s.Store, tenantID)
	f, err := repo.Get(ctx, id)
	if err != nil {
		return "", "", false, err
	}
	// Only the claim that deletes it shows it: of two at once, one wins.
	if err := repo.Delete(ctx, id, f.ETag); kanri.IsCode(err, kanri.ESTALE) || kanri.IsCode(err, kanri.ENOTFOUND) {
		return "", "", false, errNoFlash
	} else if err != nil {
		return "", "", false, err
	}
	secret, err = open(key, f.Sealed)
	if err != nil {
		return "", "", false, errNoFlash
	}
	return f.APIKeyID, secret, f.Rotated, nil
}

func seal(key []byte, secret string) (string, error) {
	aead, err := gcm(key)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize())
	rand.Read(nonce)
	return base64.RawStdEncoding.EncodeToString(aead.Seal(nonce, nonce, []byte(secret), nil)), nil
}

func open(key []byte, sealed string) (string, error) {
	aead, err := gcm(key)
	if err != nil {
		return "", err
	}
	b, err := base64.RawStdEncoding.DecodeString(sealed)
	if err != nil || len(b) < aead.NonceSize() {
		return "", errNoFlash
	}
	plain, err := aead.Open(nil, b[:aead.NonceSize()], b[aead.NonceSize():], nil)
	return string(plain), err
}

func gcm(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

func randomID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
