package kanri

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
)

// Document types of single sign-on (docs/sso.md).
const (
	// TypeIdentityProvider is the type of a tenant's OpenID Connect
	// provider.
	TypeIdentityProvider = "identity_provider"
	// TypeIdentity is the type of a provider's identity linked to a user:
	// one person, several ways to sign in (../shared/spec 003, pattern 3).
	TypeIdentity = "identity"
	// TypeSSOSettings is the type of a tenant's single sign-on settings,
	// one document (SSOSettingsID) in its partition.
	TypeSSOSettings = "sso_settings"
	// TypeSSOLogin is the type of a sign-in with a provider between its
	// start and the provider's answer, in the _system partition.
	TypeSSOLogin = "sso_login"
)

// SSOSettingsID is the id of a tenant's single sign-on settings.
const SSOSettingsID = "sso_settings"

// SSOLoginTTL is how long, in seconds, a sign-in with a provider may take
// between its start and the provider's answer.
const SSOLoginTTL = 600

// Limits of a provider's fields.
const (
	ProviderNameMax   = 60
	ProvidersMax      = 10
	ProviderURLMax    = 500
	ProviderFieldMax  = 200
	ProviderScopesMax = 20
)

// IdentityProvider is an OpenID Connect provider a tenant's users sign in
// with (Microsoft Entra ID, Google Workspace, Okta…).
type IdentityProvider struct {
	Doc
	// Name is what the sign-in button says ("Contoso").
	Name string `json:"name"`
	// Issuer is the provider's issuer URL, where its discovery document
	// is (Issuer + "/.well-known/openid-configuration").
	Issuer   string `json:"issuer"`
	ClientID string `json:"clientId"`
	// ClientSecret is the client's secret, sealed (never shown again).
	ClientSecret string `json:"clientSecret"`
	// Scopes are asked besides "openid".
	Scopes []string `json:"scopes"`
	// EmailClaim is the ID token's claim that carries the e-mail address
	// ("email" unless set).
	EmailClaim string `json:"emailClaim"`
	CreatedAt  Time   `json:"createdAt"`
	UpdatedAt  Time   `json:"updatedAt"`
}

// Identity links a provider's subject to a user of the tenant. Its id is
// IdentityID(provider, subject): a subject links to one user.
type Identity struct {
	Doc
	UserID     string `json:"userId"`
	ProviderID string `json:"providerId"`
	Subject    string `json:"subject"`
	// Email is the address the provider said when the identity was linked.
	Email      string `json:"email"`
	LinkedAt   Time   `json:"linkedAt"`
	LastUsedAt Time   `json:"lastUsedAt"`
}

// IdentityID returns the id of the identity of subject at the provider
// providerID.
func IdentityID(providerID, subject string) string {
	sum := sha256.Sum256([]byte(providerID + "\x00" + subject))
	return "identity_" + hex.EncodeToString(sum[:16])
}

// SSOSettings are a tenant's rules of single sign-on.
type SSOSettings struct {
	Doc
	// Required turns password and passkey sign-in off, except for the
	// users of BreakGlass.
	Required   bool     `json:"required"`
	BreakGlass []string `json:"breakGlass"`
	// CreateUsers creates a user at the first sign-in of an identity whose
	// e-mail is in a verified domain and no user has; NewUserRoles are
	// the roles ("service/role") such a user gets.
	CreateUsers  bool     `json:"createUsers"`
	NewUserRoles []string `json:"newUserRoles"`
	// TrustProviderMFA signs a user in with the provider alone; off, the
	// second step of Kanri (TOTP or passkey) follows as after a password.
	TrustProviderMFA bool `json:"trustProviderMfa"`
	UpdatedAt        Time `json:"updatedAt"`
}

// PasswordAllowed reports whether the user userID may sign in without the
// tenant's providers: always, unless single sign-on is required and they
// are not one of its break-glass administrators.
func (s *SSOSettings) PasswordAllowed(userID string) bool {
	return s == nil || !s.Required || slices.Contains(s.BreakGlass, userID)
}

// SSOLogin is a sign-in with a provider under way: the state the provider
// gives back, with the nonce its ID token must carry and the PKCE
// verifier of the code.
type SSOLogin struct {
	Doc
	KeyTenantID string `json:"keyTenantId"`
	ProviderID  string `json:"providerId"`
	Nonce       string `json:"nonce"`
	Verifier    string `json:"verifier"`
	// Next is the console's path the sign-in leads to; RedirectURI the
	// address the provider was told to answer at, which the code's
	// exchange must name again.
	Next        string `json:"next,omitempty"`
	RedirectURI string `json:"redirectUri"`
	TTL         int    `json:"ttl"`
}
