package kanri

// TypeSecretFlash is the type of a new secret (an API key's or a webhook
// endpoint's) waiting, sealed, to be shown once on the page the console
// redirects to after creating or rotating what it opens.
const TypeSecretFlash = "secret_flash"

// SecretFlashTTL is how long, in seconds, a secret waits to be shown.
const SecretFlashTTL = 10 * 60

// SecretFlash is a new secret sealed with a key the store never sees (the
// visitor's session holds it), in the key's tenant partition of the API
// container. It is deleted when shown and expires unshown.
type SecretFlash struct {
	Doc
	// APIKeyID is the id of what the secret opens: an API key's, or a
	// webhook endpoint's (the field's name is from when only keys had one).
	APIKeyID string `json:"apiKeyId"`
	Rotated  bool   `json:"rotated"`
	Sealed   string `json:"sealed"` // AES-256-GCM, nonce first, base64
	TTL      int    `json:"ttl,omitempty"`
}
