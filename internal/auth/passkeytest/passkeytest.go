// Package passkeytest helps tests that play a WebAuthn authenticator with
// descope/virtualwebauthn.
package passkeytest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"

	"github.com/descope/virtualwebauthn"
)

// NewCredential returns a new P-256 credential whose public key every
// relying party accepts.
//
// virtualwebauthn v1.0.3 encodes the key's x and y coordinates with
// big.Int.Bytes, which drops leading zero bytes, so about one key in 64 has
// a coordinate shorter than the 32 bytes COSE requires (RFC 9053, section
// 7.1.1) and go-webauthn rightly refuses it ("EC2 key x or y coordinate has
// invalid length"). NewCredential draws keys until both coordinates are full
// length, then imports the key.
func NewCredential() virtualwebauthn.Credential {
	for {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			panic(err)
		}
		if len(k.X.Bytes()) != 32 || len(k.Y.Bytes()) != 32 {
			continue
		}
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			panic(err)
		}
		return virtualwebauthn.NewCredentialWithImportedKey(virtualwebauthn.KeyTypeEC2, der)
	}
}
