package sso

import (
	"net/http"
	"time"

	"github.com/kanri/kanri/internal/netguard"
)

// NewClient returns the HTTP client that reaches the tenants' providers: a
// tenant's administrator types the issuer URL, so the client refuses
// loopback, private and link-local addresses (netguard) unless
// allowPrivate (for local testing). A provider's discovery, keys and token
// answer directly: no redirect is followed.
func NewClient(allowPrivate bool) *http.Client {
	return netguard.NewClient(allowPrivate, 15*time.Second)
}
