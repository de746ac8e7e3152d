// Package sso signs a tenant's users in with the tenant's own OpenID
// Connect providers (docs/sso.md): the providers a tenant's administrator
// configures, the identities linked to its users, and its rules (single
// sign-on required, users created at their first sign-in, the provider's
// second factor trusted or Kanri's asked).
package sso

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/google/uuid"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/emaildomain"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/internal/user"
)

// Service keeps the tenants' providers and signs their users in with them.
type Service struct {
	app.Deps
	Tenants *tenant.Service
	Users   *user.Service
	Auth    *auth.Service
	Roles   *role.Service
	Domains *emaildomain.Service
	// Client reaches the providers (NewClient).
	Client *http.Client
	// AllowInsecure lets an issuer be a plain http:// URL (for local
	// testing, with NewClient(true)).
	AllowInsecure bool

	mu        sync.Mutex
	discovery map[string]*oidc.Provider // by issuer
}

// New returns the service over the other services, reaching the
// providers with client.
func New(d app.Deps, tenants *tenant.Service, users *user.Service, a *auth.Service, roles *role.Service, domains *emaildomain.Service, client *http.Client) *Service {
	return &Service{Deps: d, Tenants: tenants, Users: users, Auth: a, Roles: roles, Domains: domains, Client: client}
}

func providers(st *store.Store, tenantID string) *store.Repo[kanri.IdentityProvider, *kanri.IdentityProvider] {
	return store.Of[kanri.IdentityProvider](st.Tenant(tenantID), kanri.ContainerAuth, kanri.TypeIdentityProvider)
}

func identities(st *store.Store, tenantID string) *store.Repo[kanri.Identity, *kanri.Identity] {
	return store.Of[kanri.Identity](st.Tenant(tenantID), kanri.ContainerAuth, kanri.TypeIdentity)
}

func settings(st *store.Store, tenantID string) *store.Repo[kanri.SSOSettings, *kanri.SSOSettings] {
	return store.Of[kanri.SSOSettings](st.Tenant(tenantID), kanri.ContainerAuth, kanri.TypeSSOSettings)
}

// Providers returns a tenant's providers by name.
func (s *Service) Providers(ctx context.Context, tenantID string) ([]*kanri.IdentityProvider, error) {
	return providers(s.Store, tenantID).All(ctx, docstore.Query{OrderBy: "name", Limit: kanri.ProvidersMax})
}

// Provider returns one of a tenant's providers.
func (s *Service) Provider(ctx context.Context, tenantID, id string) (*kanri.IdentityProvider, error) {
	if !strings.HasPrefix(id, "idp_") || docstore.CheckKey(tenantID, id) != nil {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return providers(s.Store, tenantID).Get(ctx, id)
}

// ProviderInput is a provider as its form sends it. An empty
// ClientSecret on an edit keeps the secret.
type ProviderInput struct {
	Name, Issuer, ClientID, ClientSecret, Scopes, EmailClaim string
}

// ProviderInputOf returns the form of a provider, without its secret.
func ProviderInputOf(p *kanri.IdentityProvider) ProviderInput {
	return ProviderInput{Name: p.Name, Issuer: p.Issuer, ClientID: p.ClientID, Scopes: strings.Join(p.Scopes, " "), EmailClaim: p.EmailClaim}
}

// validate checks a provider's input and returns its scopes.
func (s *Service) validate(in *ProviderInput, creating bool) ([]string, error) {
	// The issuer is kept as typed, a trailing slash included: an ID
	// token's iss must be the very same string.
	in.Name, in.Issuer, in.ClientID = strings.TrimSpace(in.Name), strings.TrimSpace(in.Issuer), strings.TrimSpace(in.ClientID)
	in.ClientSecret, in.EmailClaim = strings.TrimSpace(in.ClientSecret), strings.TrimSpace(in.EmailClaim)
	f := kanri.Fields{}
	switch n := utf8.RuneCountInString(in.Name); {
	case n == 0:
		f["name"] = "validation.required"
	case n > kanri.ProviderNameMax || kanri.HasHidden(in.Name, false):
		f["name"] = "sso.name_invalid"
	}
	if u, err := url.Parse(in.Issuer); in.Issuer == "" {
		f["issuer"] = "validation.required"
	} else if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || len(in.Issuer) > kanri.ProviderURLMax ||
		!(u.Scheme == "https" || s.AllowInsecure && u.Scheme == "http") {
		f["issuer"] = "sso.issuer_invalid"
	}
	check := func(field, v string, required bool) {
		switch {
		case v == "" && required:
			f[field] = "validation.required"
		case len(v) > kanri.ProviderFieldMax || kanri.HasHidden(v, false):
			f[field] = "sso.field_invalid"
		}
	}
	check("clientId", in.ClientID, true)
	check("clientSecret", in.ClientSecret, creating)
	if in.EmailClaim == "" {
		in.EmailClaim = "email"
	}
	check("emailClaim", in.EmailClaim, true)
	var scopes []string
	for _, sc := range strings.Fields(in.Scopes) {
		if sc != oidc.ScopeOpenID && !slices.Contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	if len(scopes) == 0 {
		scopes = []string{"email", "profile"}
	}
	if len(scopes) > kanri.ProviderScopesMax || strings.ContainsFunc(strings.Join(scopes, ""), func(r rune) bool { return r <= ' ' || r == '"' || r == '\\' || r > '~' }) {
		f["scopes"] = "sso.scopes_invalid"
	}
	in.Scopes = strings.Join(scopes, " ")
	return scopes, f.Err()
}

// AddProvider adds a provider to a tenant; its secret is sealed.
func (s *Service) AddProvider(ctx context.Context, tenantID string, in ProviderInput) (*kanri.IdentityProvider, error) {
	scopes, err := s.validate(&in, true)
	if err != nil {
		return nil, err
	}
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, err
	}
	repo := providers(s.Store, tenantID)
	if all, err := s.Providers(ctx, tenantID); err != nil {
		return nil, err
	} else if len(all) >= kanri.ProvidersMax {
		return nil, kanri.E(kanri.ECONFLICT, "sso.too_many", kanri.ProvidersMax)
	}
	now := kanri.NewTime(s.Now())
	p := &kanri.IdentityProvider{
		Doc:  kanri.Doc{ID: "idp_" + strings.ReplaceAll(uuid.NewString(), "-", "")},
		Name: in.Name, Issuer: in.Issuer, ClientID: in.ClientID, Scopes: scopes, EmailClaim: in.EmailClaim,
		CreatedAt: now, UpdatedAt: now,
	}
	p.TenantID = tenantID
	p.ClientSecret = s.Auth.Sealer().Seal([]byte(in.ClientSecret), sealOwner(p))
	if err := repo.Create(ctx, p); err != nil {
		return nil, err
	}
	s.record(ctx, tenantID, p, "sso.provider_add", nil, fields(p))
	return p, nil
}

// UpdateProvider changes a tenant's provider as seen at etag (a stale
// edit is ESTALE). An empty secret keeps the one it has.
func (s *Service) UpdateProvider(ctx context.Context, tenantID, id, etag string, in ProviderInput) (*kanri.IdentityProvider, error) {
	scopes, err := s.validate(&in, false)
	if err != nil {
		return nil, err
	}
	var before map[string]any
	if _, err := s.Provider(ctx, tenantID, id); err != nil {
		return nil, err
	}
	moved := false
	p, err := providers(s.Store, tenantID).Modify(ctx, id, nil, func(p *kanri.IdentityProvider) error {
		if etag != "" && etag != p.ETag {
			return kanri.Stale()
		}
		// The secret goes only where it was given for: another issuer or
		// client needs it typed again.
		if (in.Issuer != p.Issuer || in.ClientID != p.ClientID) && in.ClientSecret == "" {
			return kanri.Invalid(kanri.Fields{"clientSecret": "sso.secret_again"})
		}
		moved = in.Issuer != p.Issuer
		before = fields(p)
		p.Name, p.Issuer, p.ClientID, p.Scopes, p.EmailClaim = in.Name, in.Issuer, in.ClientID, scopes, in.EmailClaim
		if in.ClientSecret != "" {
			p.ClientSecret = s.Auth.Sealer().Seal([]byte(in.ClientSecret), sealOwner(p))
			before["clientSecret"] = "(sealed)"
		}
		p.UpdatedAt = kanri.NewTime(s.Now())
		return nil
	})
	if err != nil {
		return nil, err
	}
	after := fields(p)
	if in.ClientSecret != "" {
		after["clientSecret"] = "(replaced)"
	}
	if moved {
		// Another issuer's subjects are other people: its identities
		// link again, through verified e-mail addresses.
		if err := s.unlinkAll(ctx, tenantID, p.ID); err != nil {
			return nil, err
		}
		after["identities"] = "(unlinked)"
	}
	s.record(ctx, tenantID, p, "sso.provider_update", before, after)
	return p, nil
}

// sealOwner binds a provider's sealed secret to its tenant and itself: a
// copy in another document, or another tenant (a restored copy), does not
// open.
func sealOwner(p *kanri.IdentityProvider) string { return p.TenantID + "/" + p.ID }

// RemoveProvider removes a tenant's provider as seen at etag, with the
// identities linked through it.
func (s *Service) RemoveProvider(ctx context.Context, tenantID, id, etag string) error {
	p, err := s.Provider(ctx, tenantID, id)
	if err != nil {
		return err
	}
	if etag != "" && etag != p.ETag {
		return kanri.Stale()
	}
	repo := providers(s.Store, tenantID)
	if err := repo.Delete(ctx, p.ID, p.ETag); err != nil {
		return err
	}
	if err := s.unlinkAll(ctx, tenantID, p.ID); err != nil {
		return err
	}
	s.record(ctx, tenantID, p, "sso.provider_remove", fields(p), nil)
	return nil
}

// unlinkAll removes the identities linked through the provider id.
func (s *Service) unlinkAll(ctx context.Context, tenantID, id string) error {
	ids := identities(s.Store, tenantID)
	for {
		linked, _, err := ids.Query(ctx, docstore.Query{Where: []docstore.Filter{docstore.Eq("providerId", id)}, OrderBy: "linkedAt", Limit: docstore.MaxBatchOps})
		if err != nil {
			return err
		}
		if len(linked) == 0 {
			break
		}
		for _, l := range linked {
			if err := ids.Delete(ctx, l.ID, ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
				return err
			}
		}
	}
	return nil
}

// Settings returns a tenant's single sign-on settings.
func (s *Service) Settings(ctx context.Context, tenantID string) (*kanri.SSOSettings, error) {
	return s.Auth.SSOSettings(ctx, tenantID)
}

// SettingsInput are the settings as their form sends them.
type SettingsInput struct {
	Required         bool
	BreakGlass       []string // usernames
	CreateUsers      bool
	NewUserRoles     []string // "service/role"
	TrustProviderMFA bool
}

// UpdateSettings changes a tenant's settings as seen at etag. Requiring
// single sign-on needs a provider and at least one break-glass
// administrator (a user with the tenant's administrator role), so that
// a provider that fails does not lock the organisation out; new users'
// roles are the tenant's roles other than its administrator's.
func (s *Service) UpdateSettings(ctx context.Context, t *kanri.Tenant, etag string, in SettingsInput) (*kanri.SSOSettings, error) {
	f := kanri.Fields{}
	var glass []string
	for _, name := range in.BreakGlass {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		id, err := s.Users.IDByUsername(ctx, t.ID, name)
		if kanri.IsCode(err, kanri.ENOTFOUND) {
			f["breakGlass"] = "sso.break_glass_unknown"
			continue
		} else if err != nil {
			return nil, err
		}
		if !slices.Contains(glass, id) {
			glass = append(glass, id)
		}
	}
	if in.Required && f["breakGlass"] == "" {
		if err := s.requirable(ctx, t, glass); err != nil {
			if kanri.ErrorCode(err) != kanri.EINVALID {
				return nil, err
			}
			f["required"], _ = kanri.ErrorMessage(err)
		}
	}
	var roles []string
	for _, r := range in.NewUserRoles {
		if !NewUserRole(s.Roles.Catalog, t, r) {
			f["newUserRoles"] = "sso.role_invalid"
		} else if !slices.Contains(roles, r) {
			roles = append(roles, r)
		}
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	if err := t.CheckOpen(); err != nil {
		return nil, err
	}
	repo := settings(s.Store, t.ID)
	var before map[string]any
	st, err := store.Retry(ctx, func() (*kanri.SSOSettings, error) {
		cur, err := s.Settings(ctx, t.ID)
		if err != nil {
			return nil, err
		}
		if etag != cur.ETag {
			return nil, kanri.Stale()
		}
		before = settingFields(cur)
		next := *cur
		next.Required, next.BreakGlass, next.CreateUsers, next.NewUserRoles, next.TrustProviderMFA = in.Required, glass, in.CreateUsers, roles, in.TrustProviderMFA
		next.UpdatedAt = kanri.NewTime(s.Now())
		if cur.ETag == "" {
			err = repo.Create(ctx, &next)
		} else {
			err = repo.Replace(ctx, &next)
		}
		return &next, store.Raced(err)
	})
	if err != nil {
		return nil, err
	}
	s.Audit.Record(ctx, audit.Entry{TenantID: t.ID, Action: "sso.settings_update", Resource: kanri.AuditResource{Type: kanri.AuditTenant, ID: t.ID, Name: t.Name}, Changes: audit.Diff(before, settingFields(st))})
	return st, nil
}

// requirable says why single sign-on cannot be required in t with the
// break-glass users glass (EINVALID), if it cannot.
func (s *Service) requirable(ctx context.Context, t *kanri.Tenant, glass []string) error {
	ps, err := s.Providers(ctx, t.ID)
	if err != nil {
		return err
	}
	if len(ps) == 0 {
		return kanri.E(kanri.EINVALID, "sso.required_needs_provider")
	}
	for _, id := range glass {
		held, err := s.Roles.ForUser(ctx, t.ID, id)
		if err != nil {
			return err
		}
		for _, ra := range held {
			if role.IsAdminRole(t, ra.ServiceID, ra.RoleName) { // the tenant's administrator, who manages users and roles
				return nil
			}
		}
	}
	return kanri.E(kanri.EINVALID, "sso.required_needs_break_glass")
}

// Identities returns the identities linked to a user.
func (s *Service) Identities(ctx context.Context, tenantID, userID string) ([]*kanri.Identity, error) {
	return identities(s.Store, tenantID).All(ctx, docstore.Query{Where: []docstore.Filter{docstore.Eq("userId", userID)}, OrderBy: "linkedAt", Limit: kanri.ProvidersMax * 4})
}

// Unlink removes an identity linked to a user: they no longer sign in
// with it (until it links again through a verified e-mail address).
func (s *Service) Unlink(ctx context.Context, tenantID, userID, id string) error {
	repo := identities(s.Store, tenantID)
	if !strings.HasPrefix(id, "identity_") || docstore.CheckKey(tenantID, id) != nil {
		return kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	if err := s.Roles.CheckChange(ctx, tenantID, userID); err != nil {
		return err // a global administrator's, changed by another
	}
	l, err := repo.Get(ctx, id)
	if err != nil {
		return err
	}
	if l.UserID != userID {
		return kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	if err := repo.Delete(ctx, l.ID, l.ETag); err != nil {
		return err
	}
	s.Audit.Record(ctx, audit.Entry{TenantID: tenantID, Action: "sso.unlink", Resource: kanri.AuditResource{Type: kanri.AuditUser, ID: userID},
		Changes: audit.Diff(map[string]any{"identity": l.Email, "providerId": l.ProviderID}, nil)})
	return nil
}

func fields(p *kanri.IdentityProvider) map[string]any {
	return map[string]any{"name": p.Name, "issuer": p.Issuer, "clientId": p.ClientID, "scopes": strings.Join(p.Scopes, " "), "emailClaim": p.EmailClaim}
}

func settingFields(st *kanri.SSOSettings) map[string]any {
	return map[string]any{
		"required": st.Required, "breakGlass": strings.Join(st.BreakGlass, ","), "createUsers": st.CreateUsers,
		"newUserRoles": strings.Join(st.NewUserRoles, ","), "trustProviderMfa": st.TrustProviderMFA,
	}
}

func (s *Service) record(ctx context.Context, tenantID string, p *kanri.IdentityProvider, action string, before, after map[string]any) {
	s.Audit.Record(ctx, audit.Entry{TenantID: tenantID, Action: action, Resource: kanri.AuditResource{Type: kanri.AuditIdentityProvider, ID: p.ID, Name: p.Name}, Changes: audit.Diff(before, after)})
}

// NewUserRole reports whether the role r ("service/role") may be given to
// the users single sign-on creates in t: a role of the catalog that
// administers nothing (no service's 管理者 or 全体管理者), so that the
// rules cannot hand out what only an administrator grants.
func NewUserRole(c *role.Catalog, t *kanri.Tenant, r string) bool {
	service, name, _ := strings.Cut(r, "/")
	d, ok := c.Find(service, name)
	return ok && !d.PrivilegedOnly() && name != role.Admin && name != role.GlobalAdmin && !role.IsAdminRole(t, service, name)
}
