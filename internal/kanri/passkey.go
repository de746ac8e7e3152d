package kanri

import (
	"crypto/sha256"
	"encoding/hex"
)

// TypePasskey is the type of a user's passkey (a WebAuthn credential).
const TypePasskey = "passkey"

// TypePasskeyLookup is the type of the index entry, in the _system
// partition, from a passkey's credential id to its tenant and user: a
// passkey sign-in names no organisation.
const TypePasskeyLookup = "passkey_lookup"

// PasskeyNameMax is the most characters a passkey's name has.
const PasskeyNameMax = 60

// PasskeysMax is the most passkeys a user registers.
const PasskeysMax = 20

// Passkey is a public-key credential a user registered on one of their
// devices (docs/security.md, "Passkeys"). It signs a user in without a
// password, or is the second step after one. The private key never leaves
// the device; the document holds the public key.
type Passkey struct {
	Doc
	UserID string `json:"userId"`
	// Name is the user's name for it ("Work laptop").
	Name string `json:"name"`
	// CredentialID is the credential's id, base64url without padding.
	CredentialID string `json:"credentialId"`
	// PublicKey is the credential's public key (COSE), base64url.
	PublicKey       string   `json:"publicKey"`
	AttestationType string   `json:"attestationType"`
	Transports      []string `json:"transports,omitempty"`
	// AAGUID names the authenticator's model, hex.
	AAGUID string `json:"aaguid,omitempty"`
	// SignCount is the authenticator's counter at the last use: a count
	// that does not grow (when it ever did) says the key was copied.
	SignCount      uint32 `json:"signCount"`
	BackupEligible bool   `json:"backupEligible"`
	BackupState    bool   `json:"backupState"`
	CreatedAt      Time   `json:"createdAt"`
	LastUsedAt     Time   `json:"lastUsedAt"`
}

// PasskeyID returns the id of the passkey document (and of its lookup
// entry) of the credential id credentialID (raw bytes): a digest, since a
// credential id is up to 1,023 bytes.
func PasskeyID(credentialID []byte) string {
	sum := sha256.Sum256(credentialID)
	return "passkey_" + hex.EncodeToString(sum[:16])
}

// PasskeyLookup points from a credential to the passkey's tenant and user.
type PasskeyLookup struct {
	Doc
	KeyTenantID string `json:"keyTenantId"`
	UserID      string `json:"userId"`
}

// TypePasskeyCeremony is the type of a passkey ceremony begun, in the
// _system partition: its challenge, kept on the server so that an answer
// is taken once.
const TypePasskeyCeremony = "passkey_ceremony"

// PasskeyCeremonyTTL is how long, in seconds, a passkey ceremony's
// challenge holds.
const PasskeyCeremonyTTL = 300

// PasskeyCeremony is a passkey ceremony between its options and its end:
// what kind ("add", "signin", "step"), whose (the tenant and user of an
// addition or a second step; none for a sign-in with a passkey alone),
// and WebAuthn's state of it (its challenge), as JSON.
type PasskeyCeremony struct {
	Doc
	Kind        string `json:"kind"`
	KeyTenantID string `json:"keyTenantId,omitempty"`
	UserID      string `json:"userId,omitempty"`
	State       string `json:"state"`
	TTL         int    `json:"ttl"`
}
