package kanri

// TypeSecretFlash is the type of a new API key secret waiting, sealed, to
// be shown once on the page the console redirects to after creating or
// rotating a key.
const TypeSecretFlash = "secret_flash"

// SecretFlashTTL is how long, in seconds, a secret waits to be shown.
const SecretFlashTTL = 10 * 60

// SecretFlash is a new secret sealed with a key the store never sees (the
// visitor's session holds it), in the key's tenant partition of the API
// container. It is deleted when shown and expires unshown.
type SecretFlash struct {
	Doc
	APIKeyID string `json:"apiKeyId"`
	Rotated  bool   `json:"rotated"`
	Sealed   string `json:"sealed"` // AES-256-GCM, nonce first, base64
	TTL      int    `json:"ttl,omitempty"`
}
