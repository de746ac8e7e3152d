package sso_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/sso"
	"github.com/kanri/kanri/internal/sso/ssotest"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/wiring"
)

const (
	pass     = "Correct-horse-battery-9"
	redirect = "http://kanri.test/login/sso/callback"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type fixture struct {
	ctx    context.Context
	svcs   *wiring.Set
	clock  *clock
	op     *ssotest.Provider
	tenant *kanri.Tenant
	idp    *kanri.IdentityProvider
	alice  *kanri.User
}

func setup(t *testing.T) *fixture {
	t.Helper()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	svcs := wiring.New(store.New(bolttest.Open(t), nil, features.Schema()), slog.New(slog.DiscardHandler), clk.now, wiring.Options{
		Roles: features.Roles(), Hasher: auth.Hasher{Cost: bcrypt.MinCost}, SSOAllowPrivate: true,
	})
	f := &fixture{ctx: audit.WithActor(t.Context(), audit.Actor{UserID: "system"}), svcs: svcs, clock: clk}
	f.op = ssotest.Start(t, clk.now)
	var err error
	if f.tenant, err = svcs.Tenants.Create(f.ctx, kanri.TenantInput{Name: "acme", DisplayName: "Acme", Plan: kanri.PlanStandard, MaxUsers: 10}); err != nil {
		t.Fatal(err)
	}
	if f.alice, err = svcs.Users.Create(f.ctx, f.tenant.ID, kanri.UserInput{Username: "alice", Email: "Alice@acme.test", DisplayName: "Alice", Password: pass}); err != nil {
		t.Fatal(err)
	}
	f.verify(t, f.tenant.ID, "acme.test")
	if f.idp, err = svcs.SSO.AddProvider(f.ctx, f.tenant.ID, sso.ProviderInput{Name: "Acme ID", Issuer: f.op.URL, ClientID: f.op.ClientID, ClientSecret: f.op.ClientSecret}); err != nil {
		t.Fatal(err)
	}
	f.op.SignIn(ssotest.User{Subject: "sub-alice", Email: "alice@acme.test", EmailVerified: true})
	return f
}

// verify gives the tenant the verified e-mail domain, as a DNS check
// would.
func (f *fixture) verify(t *testing.T, tenantID, domain string) {
	t.Helper()
	st := f.svcs.Deps.Store
	if err := st.Tenant(tenantID).Domains().Create(f.ctx, &kanri.Domain{Doc: kanri.Doc{ID: kanri.DomainID(domain)}, Domain: domain, Verified: true}); err != nil {
		t.Fatal(err)
	}
	if err := st.System().DomainClaims().Create(f.ctx, &kanri.DomainClaim{Doc: kanri.Doc{ID: kanri.DomainClaimID(domain)}, Domain: domain, OwnerID: tenantID}); err != nil {
		t.Fatal(err)
	}
}

// signIn runs a whole sign-in with the provider p of tenantID.
func (f *fixture) signIn(t *testing.T) (*sso.Result, error) {
	t.Helper()
	to, state, err := f.svcs.SSO.Begin(f.ctx, f.tenant.ID, f.idp.ID, redirect, "/next")
	if err != nil {
		return nil, err
	}
	code, got, err := f.op.Code(to)
	if err != nil {
		t.Fatal(err)
	}
	if got != state {
		t.Fatalf("state = %q, want %q", got, state)
	}
	return f.svcs.SSO.Finish(f.ctx, sso.Answer{State: state, Code: code})
}

// lastRefusal returns the reason of the tenant's last failed sign-in.
func (f *fixture) lastRefusal(t *testing.T) string {
	t.Helper()
	recs, _, err := f.svcs.Deps.Store.Tenant(f.tenant.ID).AuditLogs().Query(f.ctx, docstore.Query{
		Where: []docstore.Filter{docstore.Eq("action", "auth.login_failed")}, OrderBy: "timestamp", Desc: true, Limit: 1,
	})
	if err != nil || len(recs) == 0 {
		t.Fatalf("no refusal recorded: %v", err)
	}
	return recs[0].Details.Reason
}

func TestSignInLinksByVerifiedEmail(t *testing.T) {
	f := setup(t)
	r, err := f.signIn(t)
	if err != nil {
		t.Fatal(err)
	}
	if r.User.ID != f.alice.ID || r.Tenant.ID != f.tenant.ID || r.Second || r.Next != "/next" {
		t.Fatalf("got %s in %s (second %v, next %q), want alice in acme, no second step, /next", r.User.ID, r.Tenant.ID, r.Second, r.Next)
	}
	ids, err := f.svcs.SSO.Identities(f.ctx, f.tenant.ID, f.alice.ID)
	if err != nil || len(ids) != 1 || ids[0].Subject != "sub-alice" {
		t.Fatalf("identities = %v, %v; want the one of sub-alice", ids, err)
	}
	// The next sign-in finds the link, whatever the e-mail says now.
	f.op.SignIn(ssotest.User{Subject: "sub-alice", Email: "renamed@elsewhere.test"})
	if r, err = f.signIn(t); err != nil || r.User.ID != f.alice.ID {
		t.Fatalf("second sign-in: %v, %v; want alice", r, err)
	}
	// Unlinked, the identity no longer signs her in through the other address.
	if err := f.svcs.SSO.Unlink(f.ctx, f.tenant.ID, f.alice.ID, ids[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.signIn(t); !kanri.IsCode(err, kanri.EUNAUTHENTICATED) {
		t.Fatalf("after unlink: %v, want refused", err)
	}
}

func TestSignInRefusals(t *testing.T) {
	tests := []struct {
		name   string
		user   ssotest.User
		fault  ssotest.Fault
		want   error
		reason string
	}{
		{"wrong audience", ssotest.User{}, ssotest.Fault{Audience: "someone-else"}, sso.ErrRefused, "sso_refused:token:audience"},
		{"expired token", ssotest.User{}, ssotest.Fault{Expired: true}, sso.ErrRefused, "sso_refused:token:expired"},
		{"nonce mismatch", ssotest.User{}, ssotest.Fault{Nonce: "another-sign-in"}, sso.ErrRefused, "sso_refused:nonce"},
		{"key the provider does not publish", ssotest.User{}, ssotest.Fault{UnknownKey: true}, sso.ErrRefused, "sso_refused:token:signature"},
		{"unverified e-mail", ssotest.User{Subject: "s", Email: "alice@acme.test", EmailVerified: false}, ssotest.Fault{}, sso.ErrUnverified, "sso_refused:email_unverified"},
		{"no email_verified claim", ssotest.User{Subject: "s", Email: "alice@acme.test"}, ssotest.Fault{}, sso.ErrUnverified, "sso_refused:email_unverified"},
		{"e-mail outside the verified domains", ssotest.User{Subject: "s", Email: "alice@other.test", EmailVerified: true}, ssotest.Fault{}, sso.ErrDomain, "sso_refused:domain"},
		{"UserInfo of another subject", ssotest.User{Subject: "s", Email: "alice@acme.test", EmailVerified: true}, ssotest.Fault{ClaimsAtUserInfo: true, Subject: "someone-else"}, sso.ErrRefused, "sso_refused:token:userinfo_subject"},
		{"no such user", ssotest.User{Subject: "s", Email: "carol@acme.test", EmailVerified: "true"}, ssotest.Fault{}, sso.ErrNoUser, "sso_refused:no_user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := setup(t)
			if tt.user.Subject != "" {
				f.op.SignIn(tt.user)
			}
			f.op.Misbehave(tt.fault)
			_, err := f.signIn(t)
			if err != tt.want {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			if got := f.lastRefusal(t); got != tt.reason {
				t.Errorf("recorded reason %q, want %q", got, tt.reason)
			}
			if ids, _ := f.svcs.SSO.Identities(f.ctx, f.tenant.ID, f.alice.ID); len(ids) != 0 {
				t.Errorf("linked %d identities, want none", len(ids))
			}
		})
	}
}

func TestClaimsAtUserInfo(t *testing.T) {
	f := setup(t)
	f.op.Misbehave(ssotest.Fault{ClaimsAtUserInfo: true})
	r, err := f.signIn(t)
	if err != nil || r.User.ID != f.alice.ID {
		t.Fatalf("with the e-mail at the UserInfo endpoint: %v, %v; want alice", r, err)
	}
}

func TestStateIsUsedOnce(t *testing.T) {
	f := setup(t)
	to, state, err := f.svcs.SSO.Begin(f.ctx, f.tenant.ID, f.idp.ID, redirect, "")
	if err != nil {
		t.Fatal(err)
	}
	code, _, err := f.op.Code(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svcs.SSO.Finish(f.ctx, sso.Answer{State: state, Code: code}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svcs.SSO.Finish(f.ctx, sso.Answer{State: state, Code: code}); err != sso.ErrExpired {
		t.Fatalf("replayed state: %v, want %v", err, sso.ErrExpired)
	}
	for _, s := range []string{"", "made-up", strings.Repeat("x", 500), "../../etc"} {
		if _, err := f.svcs.SSO.Finish(f.ctx, sso.Answer{State: s, Code: code}); err != sso.ErrExpired {
			t.Errorf("state %q: %v, want %v", s, err, sso.ErrExpired)
		}
	}
}

func TestRotatedKeyIsFetched(t *testing.T) {
	f := setup(t)
	if _, err := f.signIn(t); err != nil {
		t.Fatal(err)
	}
	f.op.RotateKey()
	if _, err := f.signIn(t); err != nil {
		t.Fatalf("after the provider's key rotation: %v", err)
	}
}

func TestProviderDown(t *testing.T) {
	f := setup(t)
	f.op.Down(true)
	if _, _, err := f.svcs.SSO.Begin(f.ctx, f.tenant.ID, f.idp.ID, redirect, ""); err != sso.ErrUnavailable {
		t.Fatalf("Begin: %v, want %v", err, sso.ErrUnavailable)
	}
	if _, err := f.svcs.SSO.Test(f.ctx, f.tenant.ID, f.idp.ID); !kanri.IsCode(err, kanri.EINVALID) {
		t.Fatalf("Test: %v, want EINVALID saying what is wrong", err)
	}
	// Down between the start and the answer.
	f.op.Down(false)
	to, state, err := f.svcs.SSO.Begin(f.ctx, f.tenant.ID, f.idp.ID, redirect, "")
	if err != nil {
		t.Fatal(err)
	}
	code, _, err := f.op.Code(to)
	if err != nil {
		t.Fatal(err)
	}
	f.op.Down(true)
	if _, err := f.svcs.SSO.Finish(f.ctx, sso.Answer{State: state, Code: code}); err != sso.ErrUnavailable {
		t.Fatalf("Finish: %v, want %v", err, sso.ErrUnavailable)
	}
}

func TestTestConnection(t *testing.T) {
	f := setup(t)
	c, err := f.svcs.SSO.Test(f.ctx, f.tenant.ID, f.idp.ID)
	if err != nil {
		t.Fatal(err)
	}
	if c.Keys != 1 || c.Token != f.op.URL+"/token" {
		t.Errorf("got %+v, want 1 key and the token endpoint", c)
	}
}

func TestCreatesUsersWhenTheTenantSaysSo(t *testing.T) {
	f := setup(t)
	st, err := f.svcs.SSO.Settings(f.ctx, f.tenant.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svcs.SSO.UpdateSettings(f.ctx, f.tenant, st.ETag, sso.SettingsInput{CreateUsers: true, NewUserRoles: []string{"tenant-management/tenant_admin"}}); !kanri.IsCode(err, kanri.EINVALID) {
		t.Fatalf("the administrator's role for new users: %v, want EINVALID", err)
	}
	if _, err := f.svcs.SSO.UpdateSettings(f.ctx, f.tenant, st.ETag, sso.SettingsInput{CreateUsers: true}); err != nil {
		t.Fatal(err)
	}
	f.op.SignIn(ssotest.User{Subject: "sub-carol", Email: "carol@acme.test", Name: "Carol C", EmailVerified: true})
	r, err := f.signIn(t)
	if err != nil {
		t.Fatal(err)
	}
	if r.User.Username != "carol@acme.test" || r.User.DisplayName != "Carol C" {
		t.Fatalf("created %q (%q), want carol@acme.test (Carol C)", r.User.Username, r.User.DisplayName)
	}
	t2, _ := f.svcs.Tenants.Get(f.ctx, f.tenant.ID)
	if t2.UserCount != 2 {
		t.Errorf("userCount = %d, want 2", t2.UserCount)
	}
	// A stale edit of the settings is refused.
	if _, err := f.svcs.SSO.UpdateSettings(f.ctx, f.tenant, st.ETag, sso.SettingsInput{}); !kanri.IsCode(err, kanri.ESTALE) {
		t.Fatalf("stale edit: %v, want ESTALE", err)
	}
}

func TestRequiredTurnsPasswordsOffButBreakGlass(t *testing.T) {
	f := setup(t)
	bob, err := f.svcs.Users.Create(f.ctx, f.tenant.ID, kanri.UserInput{Username: "bob", Email: "bob@acme.test", DisplayName: "Bob", Password: pass})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.svcs.SSO.Settings(f.ctx, f.tenant.ID)
	// Bob is no administrator: he cannot be the only way in.
	if _, err := f.svcs.SSO.UpdateSettings(f.ctx, f.tenant, st.ETag, sso.SettingsInput{Required: true, BreakGlass: []string{"bob"}}); !kanri.IsCode(err, kanri.EINVALID) {
		t.Fatalf("required with a break-glass user who is no administrator: %v, want EINVALID", err)
	}
	if _, err := f.svcs.SSO.UpdateSettings(f.ctx, f.tenant, st.ETag, sso.SettingsInput{Required: true, BreakGlass: []string{"alice"}}); err != nil {
		t.Fatal(err)
	}
	rp := auth.RelyingParty("http://kanri.test")
	if _, _, _, err := f.svcs.Auth.SignIn(f.ctx, rp, "acme", "bob", pass); err != auth.ErrSSORequired {
		t.Fatalf("bob's password: %v, want %v", err, auth.ErrSSORequired)
	}
	if _, _, _, err := f.svcs.Auth.SignIn(f.ctx, rp, "acme", "bob", "wrong password!!"); err != auth.ErrSignIn {
		t.Fatalf("a wrong password: %v, want %v (the rule is said only to who knows the password)", err, auth.ErrSignIn)
	}
	if u, _, _, err := f.svcs.Auth.SignIn(f.ctx, rp, "acme", "alice", pass); err != nil || u.ID != f.alice.ID {
		t.Fatalf("alice (break-glass): %v, %v", u, err)
	}
	if got, _ := f.svcs.Users.Get(f.ctx, f.tenant.ID, bob.ID); got.Security.FailedLoginAttempts != 1 {
		t.Errorf("bob's failed attempts = %d, want 1 (the wrong password only)", got.Security.FailedLoginAttempts)
	}
}

func TestChoices(t *testing.T) {
	f := setup(t)
	for _, org := range []string{"acme", "someone@acme.test", " ACME "} {
		cs, err := f.svcs.SSO.Choices(f.ctx, org)
		if err != nil || len(cs) != 1 || cs[0].ID != f.idp.ID {
			t.Errorf("Choices(%q) = %v, %v; want Acme ID", org, cs, err)
		}
	}
	for _, org := range []string{"nobody", "x@unknown.test", "", "@", strings.Repeat("a", 300)} {
		if cs, err := f.svcs.SSO.Choices(f.ctx, org); err != nil || len(cs) != 0 {
			t.Errorf("Choices(%q) = %v, %v; want none", org, cs, err)
		}
	}
}

func TestProviderInput(t *testing.T) {
	f := setup(t)
	tests := []struct {
		name  string
		in    sso.ProviderInput
		field string
	}{
		{"no name", sso.ProviderInput{Issuer: "https://id.example", ClientID: "c", ClientSecret: "s"}, "name"},
		{"issuer not a URL", sso.ProviderInput{Name: "n", Issuer: "id.example", ClientID: "c", ClientSecret: "s"}, "issuer"},
		{"issuer with a query", sso.ProviderInput{Name: "n", Issuer: "https://id.example/?x=1", ClientID: "c", ClientSecret: "s"}, "issuer"},
		{"no secret", sso.ProviderInput{Name: "n", Issuer: "https://id.example", ClientID: "c"}, "clientSecret"},
		{"control character", sso.ProviderInput{Name: "n\x1b", Issuer: "https://id.example", ClientID: "c", ClientSecret: "s"}, "name"},
		{"bad scope", sso.ProviderInput{Name: "n", Issuer: "https://id.example", ClientID: "c", ClientSecret: "s", Scopes: "email \"x"}, "scopes"},
	}
	for _, tt := range tests {
		_, err := f.svcs.SSO.AddProvider(f.ctx, f.tenant.ID, tt.in)
		var ke *kanri.Error
		if !kanri.IsCode(err, kanri.EINVALID) || !asError(err, &ke) || ke.Fields[tt.field] == "" {
			t.Errorf("%s: %v, want EINVALID on %s", tt.name, err, tt.field)
		}
	}
	ps, _ := f.svcs.SSO.Providers(f.ctx, f.tenant.ID)
	if len(ps) != 1 {
		t.Errorf("%d providers, want the fixture's one", len(ps))
	}
	// The secret is sealed, and an edit without one keeps it.
	if strings.Contains(ps[0].ClientSecret, f.op.ClientSecret) {
		t.Fatal("the client secret is stored in clear")
	}
	if _, err := f.svcs.SSO.UpdateProvider(f.ctx, f.tenant.ID, f.idp.ID, f.idp.ETag, sso.ProviderInput{Name: "Renamed", Issuer: f.op.URL, ClientID: f.op.ClientID}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.signIn(t); err != nil {
		t.Fatalf("after an edit that kept the secret: %v", err)
	}
	if _, err := f.svcs.SSO.UpdateProvider(f.ctx, f.tenant.ID, f.idp.ID, f.idp.ETag, sso.ProviderInput{Name: "Stale", Issuer: f.op.URL, ClientID: f.op.ClientID}); !kanri.IsCode(err, kanri.ESTALE) {
		t.Fatalf("stale edit: %v, want ESTALE", err)
	}
}

func asError(err error, target **kanri.Error) bool {
	e, ok := err.(*kanri.Error)
	if ok {
		*target = e
	}
	return ok
}

// email_verified speaks of the email claim: another claim chosen as the
// e-mail links only when it says the same address.
func TestEmailClaimMustBeTheVerifiedOne(t *testing.T) {
	f := setup(t)
	p, err := f.svcs.SSO.UpdateProvider(f.ctx, f.tenant.ID, f.idp.ID, f.idp.ETag, sso.ProviderInput{Name: "Acme ID", Issuer: f.op.URL, ClientID: f.op.ClientID, EmailClaim: "name"})
	if err != nil {
		t.Fatal(err)
	}
	f.idp = p
	f.op.SignIn(ssotest.User{Subject: "mallory", Email: "mallory@elsewhere.test", EmailVerified: true, Name: "alice@acme.test"})
	if r, err := f.signIn(t); err != sso.ErrUnverified {
		t.Fatalf("another claim than the verified address: %v, %v; want %v", r, err, sso.ErrUnverified)
	}
	f.op.SignIn(ssotest.User{Subject: "alice", Email: "alice@acme.test", EmailVerified: true, Name: "Alice@acme.test"})
	if r, err := f.signIn(t); err != nil || r.User.ID != f.alice.ID {
		t.Fatalf("the claim saying the verified address: %v, %v; want alice", r, err)
	}
}

// A provider moved to another issuer (or client) needs its secret again,
// which never goes to the new one unasked, and its identities are
// unlinked: another issuer's subjects are other people.
func TestIssuerChangeUnlinksAndAsksForTheSecret(t *testing.T) {
	f := setup(t)
	f.op.SignIn(ssotest.User{Subject: "1", Email: "alice@acme.test", EmailVerified: true})
	if _, err := f.signIn(t); err != nil {
		t.Fatal(err)
	}
	other := ssotest.Start(t, f.clock.now)
	in := sso.ProviderInput{Name: "Acme ID", Issuer: other.URL, ClientID: other.ClientID}
	var ke *kanri.Error
	if _, err := f.svcs.SSO.UpdateProvider(f.ctx, f.tenant.ID, f.idp.ID, "", in); !asError(err, &ke) || ke.Fields["clientSecret"] != "sso.secret_again" {
		t.Fatalf("a new issuer without the secret: %v, want the secret asked for", err)
	}
	in.ClientSecret = other.ClientSecret
	if _, err := f.svcs.SSO.UpdateProvider(f.ctx, f.tenant.ID, f.idp.ID, "", in); err != nil {
		t.Fatal(err)
	}
	if ids, _ := f.svcs.SSO.Identities(f.ctx, f.tenant.ID, f.alice.ID); len(ids) != 0 {
		t.Fatalf("%d identities kept across the issuer's change, want 0", len(ids))
	}
	f.op = other
	other.SignIn(ssotest.User{Subject: "1", Email: "someone@elsewhere.test"})
	if r, err := f.signIn(t); err == nil {
		t.Fatalf("subject 1 of the new issuer signed in %s", r.User.Username)
	}
}

// Only the tenant's administrator (the auth service's 管理者) holds the
// door when single sign-on is required: another service's 管理者 does not
// count.
func TestBreakGlassIsTheTenantsAdministrator(t *testing.T) {
	f := setup(t)
	carol, err := f.svcs.Users.Create(f.ctx, f.tenant.ID, kanri.UserInput{Username: "carol", Email: "carol@acme.test", DisplayName: "Carol", Password: pass})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.svcs.Roles.Assign(f.ctx, role.Grant{Tenant: f.tenant, UserID: carol.ID, ServiceID: kanri.TenantManagementID, RoleName: role.Admin}); err != nil {
		t.Fatal(err)
	}
	st, _ := f.svcs.SSO.Settings(f.ctx, f.tenant.ID)
	if _, err := f.svcs.SSO.UpdateSettings(f.ctx, f.tenant, st.ETag, sso.SettingsInput{Required: true, BreakGlass: []string{"carol"}}); !kanri.IsCode(err, kanri.EINVALID) {
		t.Fatalf("another service's administrator as break-glass: %v, want EINVALID", err)
	}
	for _, r := range []string{kanri.TenantManagementID + "/" + role.Admin, kanri.FileServiceID + "/" + role.Admin} {
		if _, err := f.svcs.SSO.UpdateSettings(f.ctx, f.tenant, st.ETag, sso.SettingsInput{CreateUsers: true, NewUserRoles: []string{r}}); !kanri.IsCode(err, kanri.EINVALID) {
			t.Errorf("new users made %s: %v, want EINVALID", r, err)
		}
	}
}

// An identity whose user was deleted links again, through its verified
// address, to the user who has that address now.
func TestIdentityOfADeletedUserLinksAgain(t *testing.T) {
	f := setup(t)
	bea, err := f.svcs.Users.Create(f.ctx, f.tenant.ID, kanri.UserInput{Username: "bea", Email: "bea@acme.test", DisplayName: "Bea", Password: pass})
	if err != nil {
		t.Fatal(err)
	}
	f.op.SignIn(ssotest.User{Subject: "sub-bea", Email: "bea@acme.test", EmailVerified: true})
	if r, err := f.signIn(t); err != nil || r.User.ID != bea.ID {
		t.Fatalf("bea: %v, %v", r, err)
	}
	if _, err := f.svcs.Users.Delete(f.ctx, f.tenant.ID, bea.ID, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	again, err := f.svcs.Users.Create(f.ctx, f.tenant.ID, kanri.UserInput{Username: "bea2", Email: "bea@acme.test", DisplayName: "Bea", Password: pass})
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.signIn(t)
	if err != nil || r.User.ID != again.ID {
		t.Fatalf("after the deletion: %v, %v; want the new bea", r, err)
	}
}
