package sso

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/mail"
	"strings"
	"unicode/utf8"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/netguard"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/store"
)

// Why a sign-in with a provider was refused: the reason, after
// "sso_refused:", of its auth.login_failed record.
const (
	RefusedState       = "state"          // no sign-in under way with this state: never begun, used, or run out
	RefusedProvider    = "provider_error" // the provider answered with an error
	RefusedExchange    = "exchange"       // the code did not turn into tokens
	RefusedToken       = "token"          // the ID token did not verify (followed by ":" and why)
	RefusedNonce       = "nonce"          // the ID token is another sign-in's
	RefusedUnverified  = "email_unverified"
	RefusedDomain      = "domain" // the e-mail is not in one of the tenant's verified domains
	RefusedNoUser      = "no_user"
	RefusedUnavailable = "provider_down"
)

// Errors of a sign-in with a provider, as the sign-in page says them.
var (
	ErrExpired     = kanri.E(kanri.EUNAUTHENTICATED, "sso.expired")
	ErrRefused     = kanri.E(kanri.EUNAUTHENTICATED, "sso.refused")
	ErrUnverified  = kanri.E(kanri.EUNAUTHENTICATED, "sso.email_unverified")
	ErrDomain      = kanri.E(kanri.EUNAUTHENTICATED, "sso.email_domain")
	ErrNoUser      = kanri.E(kanri.EUNAUTHENTICATED, "sso.no_user")
	ErrUnavailable = kanri.E(kanri.EBUSY, "sso.provider_down")
)

func logins(st *store.Store) *store.Repo[kanri.SSOLogin, *kanri.SSOLogin] {
	return store.Of[kanri.SSOLogin](st.Tenant(kanri.SystemTenantID), kanri.ContainerAuth, kanri.TypeSSOLogin)
}

// Choice is a provider a sign-in page offers.
type Choice struct {
	TenantID, TenantName, ID, Name string
}

// Choices returns the providers of the organisation that org names: its
// sign-in name, or an e-mail address in one of its verified domains. An
// unknown organisation has none, as one without providers, so that the
// answer does not tell whether an organisation exists.
func (s *Service) Choices(ctx context.Context, org string) ([]Choice, error) {
	org = strings.TrimSpace(org)
	var t *kanri.Tenant
	var err error
	if _, domain, ok := strings.Cut(org, "@"); ok {
		t, err = s.domainOwner(ctx, strings.ToLower(domain))
	} else {
		t, err = s.Auth.TenantByName(ctx, org)
	}
	if kanri.IsCode(err, kanri.ENOTFOUND) || t != nil && !t.OpenAt(s.Now()) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ps, err := s.Providers(ctx, t.ID)
	if err != nil {
		return nil, err
	}
	out := make([]Choice, len(ps))
	for i, p := range ps {
		out[i] = Choice{TenantID: t.ID, TenantName: t.Name, ID: p.ID, Name: p.Name}
	}
	return out, nil
}

// domainOwner returns the tenant that verified domain.
func (s *Service) domainOwner(ctx context.Context, domain string) (*kanri.Tenant, error) {
	if domain == "" || len(domain) > 253 || docstore.CheckKey("x", kanri.DomainClaimID(domain)) != nil {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	c, err := s.Store.System().DomainClaims().Get(ctx, kanri.DomainClaimID(domain))
	if err != nil {
		return nil, err
	}
	if ok, err := s.verified(ctx, c.OwnerID, domain); err != nil || !ok {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return s.Store.Tenant(c.OwnerID).Profile(ctx)
}

// verified reports whether the tenant verified domain.
func (s *Service) verified(ctx context.Context, tenantID, domain string) (bool, error) {
	d, err := s.Store.Tenant(tenantID).Domains().Get(ctx, kanri.DomainID(domain))
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return false, nil
	}
	return err == nil && d.Verified && d.Domain == domain, err
}

// discover returns the provider at issuer, its discovery document read
// once per process (its keys are fetched again when a token names one it
// does not know: a rotation).
func (s *Service) discover(ctx context.Context, issuer string) (*oidc.Provider, error) {
	s.mu.Lock()
	p := s.discovery[issuer]
	s.mu.Unlock()
	if p != nil {
		return p, nil
	}
	p, err := oidc.NewProvider(oidc.ClientContext(context.WithoutCancel(ctx), s.Client), issuer)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.discovery == nil || len(s.discovery) >= maxDiscovered {
		s.discovery = map[string]*oidc.Provider{} // bounded: issuers typed again and again start it over
	}
	s.discovery[issuer] = p
	s.mu.Unlock()
	return p, nil
}

// maxDiscovered is how many issuers' discovery documents are kept.
const maxDiscovered = 1000

// forget drops what the service knows of issuer's discovery.
func (s *Service) forget(issuer string) {
	s.mu.Lock()
	delete(s.discovery, issuer)
	s.mu.Unlock()
}

// config returns the OAuth 2.0 client of p, answering at redirectURI.
func (s *Service) config(ctx context.Context, p *kanri.IdentityProvider, redirectURI string) (*oauth2.Config, *oidc.Provider, error) {
	secret, err := s.Auth.Sealer().Open(p.ClientSecret, sealOwner(p))
	if err != nil {
		return nil, nil, fmt.Errorf("sso: the client secret of %s: %w", p.ID, err)
	}
	op, err := s.discover(ctx, p.Issuer)
	if err != nil {
		return nil, nil, err
	}
	return &oauth2.Config{
		ClientID: p.ClientID, ClientSecret: string(secret), Endpoint: op.Endpoint(), RedirectURL: redirectURI,
		Scopes: append([]string{oidc.ScopeOpenID}, p.Scopes...),
	}, op, nil
}

// random returns n random bytes, base64url.
func random(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Begin starts a sign-in with a tenant's provider, answering at
// redirectURI and leading to next: it returns the provider's address to
// send the browser to and the state the provider gives back, which the
// caller keeps in the browser's session (a sign-in is finished only in
// the browser that began it). A provider that does not answer is
// ErrUnavailable.
func (s *Service) Begin(ctx context.Context, tenantID, providerID, redirectURI, next string) (to, state string, err error) {
	t, err := s.Tenants.Get(ctx, tenantID)
	if err != nil {
		return "", "", err
	}
	p, err := s.Provider(ctx, tenantID, providerID)
	if err != nil {
		return "", "", err
	}
	if !t.OpenAt(s.Now()) {
		return "", "", kanri.E(kanri.EFORBIDDEN, t.ClosedMessage(s.Now()))
	}
	cfg, _, err := s.config(ctx, p, redirectURI)
	if err != nil {
		s.Logger.Warn("sso: provider unavailable", "tenant", tenantID, "provider", p.ID, "issuer", p.Issuer, "err", err)
		return "", "", ErrUnavailable
	}
	state = random(32)
	l := &kanri.SSOLogin{
		Doc:         kanri.Doc{ID: "sso_" + state},
		KeyTenantID: tenantID, ProviderID: p.ID, Nonce: random(32), Verifier: oauth2.GenerateVerifier(), Next: next, RedirectURI: redirectURI,
		TTL: kanri.SSOLoginTTL,
	}
	if err := logins(s.Store).Create(ctx, l); err != nil {
		return "", "", err
	}
	return cfg.AuthCodeURL(state, oidc.Nonce(l.Nonce), oauth2.S256ChallengeOption(l.Verifier)), state, nil
}

// Answer is the provider's answer at the redirect URI.
type Answer struct {
	State, Code string
	// Error and Description are the provider's error, when it refused.
	Error, Description string
}

// Result is a finished sign-in with a provider: the user, their tenant,
// whether Kanri's second step follows, and the page it leads to.
type Result struct {
	User   *kanri.User
	Tenant *kanri.Tenant
	Second bool
	Next   string
}

// Finish ends the sign-in of the provider's answer a: the state is used
// once (and the redirect URI is the one it began with); the code is exchanged with its PKCE verifier; the ID
// token is verified (its signature by the provider's keys, its issuer,
// audience, expiry and nonce); then the identity signs in the user it is
// linked to, or is linked to the user of its e-mail address, which the
// provider must have verified and which must be in one of the tenant's
// verified domains, or creates that user when the tenant says so. Every
// refusal is audited with why.
func (s *Service) Finish(ctx context.Context, a Answer) (*Result, error) {
	l, err := s.take(ctx, a.State)
	if err != nil {
		return nil, err
	}
	t, err := s.Tenants.Get(ctx, l.KeyTenantID)
	if err != nil {
		return nil, err
	}
	refuse := func(why string, res kanri.AuditResource, err error) (*Result, error) {
		s.Audit.Record(ctx, audit.Entry{TenantID: t.ID, Action: "auth.login_failed", Resource: res, Reason: "sso_refused:" + why, Status: kanri.AuditFailure})
		return nil, err
	}
	anyone := kanri.AuditResource{Type: kanri.AuditUser}
	p, err := s.Provider(ctx, t.ID, l.ProviderID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return refuse(RefusedState, anyone, ErrExpired) // removed meanwhile
	} else if err != nil {
		return nil, err
	}
	if a.Error != "" {
		s.Logger.Info("sso: the provider refused", "tenant", t.ID, "provider", p.ID, "error", a.Error, "description", a.Description)
		return refuse(RefusedProvider+":"+clip(a.Error), anyone, ErrRefused)
	}
	cfg, op, err := s.config(ctx, p, l.RedirectURI)
	if err != nil {
		s.Logger.Warn("sso: provider unavailable", "tenant", t.ID, "provider", p.ID, "err", err)
		return refuse(RefusedUnavailable, anyone, ErrUnavailable)
	}
	cctx := oidc.ClientContext(ctx, s.Client)
	tok, err := cfg.Exchange(cctx, a.Code, oauth2.VerifierOption(l.Verifier))
	if err != nil {
		var re *oauth2.RetrieveError
		if !errors.As(err, &re) || re.Response != nil && re.Response.StatusCode >= 500 {
			s.Logger.Warn("sso: provider unavailable", "tenant", t.ID, "provider", p.ID, "err", err)
			return refuse(RefusedUnavailable, anyone, ErrUnavailable)
		}
		s.Logger.Info("sso: the code was refused", "tenant", t.ID, "provider", p.ID, "err", err)
		return refuse(RefusedExchange, anyone, ErrRefused)
	}
	raw, _ := tok.Extra("id_token").(string)
	idt, err := op.VerifierContext(cctx, &oidc.Config{ClientID: p.ClientID, Now: s.Now}).Verify(cctx, raw)
	if err != nil {
		why := tokenFault(err)
		s.Logger.Info("sso: the ID token did not verify", "tenant", t.ID, "provider", p.ID, "why", why, "err", err)
		if why == "keys" {
			s.forget(p.Issuer)
			return refuse(RefusedUnavailable, anyone, ErrUnavailable)
		}
		return refuse(RefusedToken+":"+why, anyone, ErrRefused)
	}
	if idt.Nonce != l.Nonce {
		return refuse(RefusedNonce, anyone, ErrRefused)
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return refuse(RefusedToken+":claims", anyone, ErrRefused)
	}
	if _, ok := claims[p.EmailClaim]; !ok {
		// Providers may give the claims at the UserInfo endpoint rather
		// than in the ID token (OpenID Connect Core 1.0, 5.4); its answer
		// counts only for the token's own subject (5.3.2).
		info, err := op.UserInfo(cctx, oauth2.StaticTokenSource(tok))
		if err != nil {
			s.Logger.Info("sso: the UserInfo endpoint did not answer", "tenant", t.ID, "provider", p.ID, "err", err)
			return refuse(RefusedUnavailable, anyone, ErrUnavailable)
		}
		var more map[string]any
		if info.Subject != idt.Subject || info.Claims(&more) != nil {
			return refuse(RefusedToken+":userinfo_subject", anyone, ErrRefused)
		}
		for k, v := range more {
			if _, ok := claims[k]; !ok {
				claims[k] = v
			}
		}
	}
	email, _ := claims[p.EmailClaim].(string)
	if verified, _ := claims["email"].(string); p.EmailClaim != "email" && !strings.EqualFold(email, verified) {
		// email_verified speaks of the email claim only: another claim
		// counts when it says the same address.
		email = ""
	}
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email || len(email) > kanri.UsernameMax {
		email = ""
	}
	u, err := s.linked(ctx, t, p, idt.Subject, email, claims)
	if err != nil {
		why, res := RefusedNoUser, kanri.AuditResource{Type: kanri.AuditUser, Name: email}
		switch {
		case errors.Is(err, ErrUnverified):
			why = RefusedUnverified
		case errors.Is(err, ErrDomain):
			why = RefusedDomain
		case errors.Is(err, ErrNoUser):
		default:
			return nil, err
		}
		return refuse(why, res, err)
	}
	st, err := s.Settings(ctx, t.ID)
	if err != nil {
		return nil, err
	}
	u, second, err := s.Auth.ProviderSignIn(ctx, t, u, p.Name, !st.TrustProviderMFA)
	if err != nil {
		return nil, err
	}
	return &Result{User: u, Tenant: t, Second: second, Next: l.Next}, nil
}

// take returns the sign-in under way with state and deletes it: of two
// answers with one state (a replay), one finds none.
func (s *Service) take(ctx context.Context, state string) (*kanri.SSOLogin, error) {
	id := "sso_" + state
	if state == "" || len(state) > 64 || docstore.CheckKey(kanri.SystemTenantID, id) != nil {
		return nil, ErrExpired
	}
	l, err := logins(s.Store).Take(ctx, id)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, ErrExpired
	}
	return l, err
}

// tokenFault names what is wrong with an ID token that did not verify.
func tokenFault(err error) string {
	var expired *oidc.TokenExpiredError
	msg := err.Error()
	switch {
	case errors.As(err, &expired):
		return "expired"
	case strings.Contains(msg, "audience"):
		return "audience"
	case strings.Contains(msg, "issuer"):
		return "issuer"
	case strings.Contains(msg, "fetching keys"):
		return "keys"
	case strings.Contains(msg, "signature"):
		return "signature"
	case strings.Contains(msg, "issued in the future") || strings.Contains(msg, "before"):
		return "not_yet_valid"
	}
	return "malformed"
}

// clip keeps a provider's error code short and printable for the record.
func clip(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r > '~' {
			return -1
		}
		return r
	}, s)
	if len(s) > 60 {
		s = s[:60]
	}
	return s
}

// emailVerified reports whether the provider verified the e-mail of
// claims: email_verified true (or "true", as some send it), or Microsoft
// Entra ID's xms_edov (the domain's owner verified it), since Entra sends
// no email_verified.
func emailVerified(claims map[string]any) bool {
	for _, k := range []string{"email_verified", "xms_edov"} {
		switch v := claims[k].(type) {
		case bool:
			if v {
				return true
			}
		case string:
			if strings.EqualFold(v, "true") || v == "1" {
				return true
			}
		}
	}
	return false
}

// linked returns the user the identity subject of p signs in: the one it
// is linked to, else the user of its e-mail address, which it is linked
// to now, else a new user when the tenant creates them.
func (s *Service) linked(ctx context.Context, t *kanri.Tenant, p *kanri.IdentityProvider, subject, email string, claims map[string]any) (*kanri.User, error) {
	ids := identities(s.Store, t.ID)
	id := kanri.IdentityID(p.ID, subject)
	now := kanri.NewTime(s.Now())
	if l, err := ids.Get(ctx, id); err == nil {
		u, err := s.user(ctx, t.ID, l.UserID)
		if err == nil && u.DeletedAt.IsZero() {
			l.LastUsedAt = now
			if err := ids.Replace(ctx, l); err != nil && !kanri.IsCode(err, kanri.ESTALE) {
				return nil, err
			}
			return u, nil
		}
		if err != nil && err != ErrNoUser {
			return nil, err
		}
		// Its user was deleted: the identity links again, through its
		// verified address, to whoever has it now.
		if err := ids.Delete(ctx, l.ID, l.ETag); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) && !kanri.IsCode(err, kanri.ESTALE) {
			return nil, err
		}
	} else if !kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, err
	}
	if email == "" || !emailVerified(claims) {
		return nil, ErrUnverified
	}
	_, domain, _ := strings.Cut(email, "@")
	if ok, err := s.verified(ctx, t.ID, strings.ToLower(domain)); err != nil {
		return nil, err
	} else if !ok {
		return nil, ErrDomain
	}
	var u *kanri.User
	r, err := s.Store.Tenant(t.ID).EmailAddresses().Get(ctx, kanri.EmailAddressID(email))
	switch {
	case err == nil:
		if u, err = s.user(ctx, t.ID, r.UserID); err != nil {
			return nil, err
		}
	case kanri.IsCode(err, kanri.ENOTFOUND):
		if u, err = s.create(ctx, t, email, claims); err != nil {
			return nil, err
		}
	default:
		return nil, err
	}
	l := &kanri.Identity{Doc: kanri.Doc{ID: id}, UserID: u.ID, ProviderID: p.ID, Subject: subject, Email: email, LinkedAt: now, LastUsedAt: now}
	if err := ids.Create(ctx, l); kanri.IsCode(err, kanri.ECONFLICT) {
		// Linked by a sign-in of the same identity meanwhile.
		if l, err = ids.Get(ctx, id); err != nil {
			return nil, err
		}
		return s.user(ctx, t.ID, l.UserID)
	} else if err != nil {
		return nil, err
	}
	s.Audit.Record(ctx, audit.Entry{TenantID: t.ID, Action: "sso.link", Resource: kanri.AuditResource{Type: kanri.AuditUser, ID: u.ID, Name: u.Username},
		Changes: audit.Diff(nil, map[string]any{"identity": email, "provider": p.Name})})
	return u, nil
}

// user returns the user an identity signs in (ErrNoUser when it is gone).
func (s *Service) user(ctx context.Context, tenantID, id string) (*kanri.User, error) {
	u, err := s.Users.Get(ctx, tenantID, id)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, ErrNoUser
	}
	return u, err
}

// create makes the user of email at their first sign-in, when the tenant
// creates users, with the tenant's roles for them; the password is one
// nobody knows (they sign in with the provider).
func (s *Service) create(ctx context.Context, t *kanri.Tenant, email string, claims map[string]any) (*kanri.User, error) {
	st, err := s.Settings(ctx, t.ID)
	if err != nil {
		return nil, err
	}
	if !st.CreateUsers {
		return nil, ErrNoUser
	}
	name, _ := claims["name"].(string)
	if name = strings.TrimSpace(name); name == "" || utf8.RuneCountInString(name) > kanri.DisplayNameMax || kanri.HasHidden(name, false) {
		name, _, _ = strings.Cut(email, "@")
	}
	u, err := s.Users.Create(ctx, t.ID, kanri.UserInput{Username: email, Email: email, DisplayName: name, Password: "Sso-" + random(24) + "-1a", Provisioned: true})
	if err != nil {
		if kanri.IsCode(err, kanri.EINVALID) || kanri.IsCode(err, kanri.ECONFLICT) {
			s.Logger.Info("sso: the user could not be created", "tenant", t.ID, "err", err)
			return nil, ErrNoUser
		}
		return nil, err
	}
	for _, r := range st.NewUserRoles {
		if !NewUserRole(s.Roles.Catalog, t, r) {
			continue
		}
		service, roleName, _ := strings.Cut(r, "/")
		if _, _, err := s.Roles.Assign(ctx, role.Grant{Tenant: t, UserID: u.ID, ServiceID: service, RoleName: roleName}); err != nil {
			s.Logger.Warn("sso: a new user's role was not given", "tenant", t.ID, "user", u.ID, "role", r, "err", err)
		}
	}
	return u, nil
}

// Check is what a test of a provider's connection found.
type Check struct {
	// Authorization and Token are the provider's endpoints; Keys how many
	// signing keys it publishes.
	Authorization, Token string
	Keys                 int
}

// Test fetches a provider's discovery document and its keys, afresh, and
// says what it found, or what is wrong (EINVALID with a message that
// names it).
func (s *Service) Test(ctx context.Context, tenantID, id string) (*Check, error) {
	p, err := s.Provider(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if _, err := s.Auth.Sealer().Open(p.ClientSecret, sealOwner(p)); err != nil {
		return nil, kanri.E(kanri.EINVALID, "sso.test_secret")
	}
	s.forget(p.Issuer)
	op, err := s.discover(ctx, p.Issuer)
	if err != nil {
		return nil, kanri.E(kanri.EINVALID, "sso.test_discovery", p.Issuer+"/.well-known/openid-configuration", short(err))
	}
	var meta struct {
		JWKS string `json:"jwks_uri"`
	}
	if err := op.Claims(&meta); err != nil || meta.JWKS == "" {
		return nil, kanri.E(kanri.EINVALID, "sso.test_no_jwks")
	}
	n, err := s.keys(ctx, meta.JWKS)
	if err != nil {
		return nil, kanri.E(kanri.EINVALID, "sso.test_jwks", meta.JWKS, short(err))
	}
	if n == 0 {
		return nil, kanri.E(kanri.EINVALID, "sso.test_no_keys", meta.JWKS)
	}
	ep := op.Endpoint()
	return &Check{Authorization: ep.AuthURL, Token: ep.TokenURL, Keys: n}, nil
}

// keys counts the signing keys of the key set at uri.
func (s *Service) keys(ctx context.Context, uri string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, uri, nil)
	if err != nil {
		return 0, err
	}
	res, err := s.Client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s", res.Status)
	}
	var set struct {
		Keys []struct {
			Kty string `json:"kty"`
			Use string `json:"use"`
		} `json:"keys"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&set); err != nil {
		return 0, fmt.Errorf("not a JSON Web Key Set: %w", err)
	}
	n := 0
	for _, k := range set.Keys {
		if k.Kty != "" && k.Use != "enc" {
			n++
		}
	}
	return n, nil
}

// short returns an error's text, cut to what a page shows.
func short(err error) string {
	msg := err.Error()
	if errors.Is(err, netguard.ErrPrivateAddress) {
		msg = "the provider's " + strings.TrimPrefix(netguard.ErrPrivateAddress.Error(), "the ")
	}
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return msg
}
