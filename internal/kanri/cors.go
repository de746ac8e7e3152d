package kanri

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"
)

// TypeAPISettings is the type of a tenant's API settings.
const TypeAPISettings = "api_settings"

// APISettingsID is the id of the tenant's API settings.
const APISettingsID = "api_settings"

// MaxCORSOrigins is how many origins a tenant may list.
const MaxCORSOrigins = 20

// APISettings are what a tenant's administrators set for its API beyond
// the keys: the web origins whose pages may call the API from a browser
// (CORS). None are listed by default, so browsers on other sites cannot
// read the API's answers.
type APISettings struct {
	Doc
	// CORSOrigins are origins such as https://app.acme.example, as
	// NormalizeOrigin returns them.
	CORSOrigins []string `json:"corsOrigins"`
	UpdatedAt   Time     `json:"updatedAt"`
}

// Allows reports whether origin is listed.
func (s *APISettings) Allows(origin string) bool {
	if s == nil {
		return false
	}
	for _, o := range s.CORSOrigins {
		if o == origin {
			return true
		}
	}
	return false
}

// TypeCORSOrigin is the type of the operator-wide index of listed origins.
const TypeCORSOrigin = "cors_origin"

// CORSOrigin records which tenants list an origin, in the _system
// partition: a browser's preflight request carries no API key, so its
// answer can only depend on whether some tenant lists the origin.
type CORSOrigin struct {
	Doc
	Origin  string   `json:"origin"`
	Tenants []string `json:"tenants"`
}

// CORSOriginID returns the id of an origin's index entry.
func CORSOriginID(origin string) string {
	h := sha256.Sum256([]byte(origin))
	return "cors_" + hex.EncodeToString(h[:16])
}

// NormalizeOrigin returns s as a browser sends it in an Origin header:
// http or https, a host, a port only when it is not the scheme's default,
// lower case, and nothing else (no path, query, fragment or user). It
// returns "" when s is not an origin.
func NormalizeOrigin(s string) string {
	s = strings.TrimSpace(s)
	u, err := url.Parse(s)
	if err != nil || len(s) > 200 || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" ||
		(u.Path != "" && u.Path != "/") || u.Hostname() == "" || strings.ContainsAny(u.Host, " *") {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	switch {
	case scheme != "http" && scheme != "https":
		return ""
	case scheme == "http" && port == "80", scheme == "https" && port == "443":
		port = ""
	}
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // IPv6
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}
