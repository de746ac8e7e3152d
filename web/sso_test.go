package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/sso"
	"github.com/kanri/kanri/internal/sso/ssotest"
	"github.com/kanri/kanri/views"
)

// withProvider gives acme a verified domain and an identity provider the
// test runs, and returns the provider and its id.
func (e *env) withProvider(t *testing.T) (*ssotest.Provider, string) {
	t.Helper()
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system"})
	e.sso.Client, e.sso.AllowInsecure = sso.NewClient(true), true // the provider is on loopback
	op := ssotest.Start(t, e.clock.Now)
	if err := e.st.Tenant(e.acme.ID).Domains().Create(ctx, &kanri.Domain{Doc: kanri.Doc{ID: kanri.DomainID("acme.test")}, Domain: "acme.test", Verified: true}); err != nil {
		t.Fatal(err)
	}
	if err := e.st.System().DomainClaims().Create(ctx, &kanri.DomainClaim{Doc: kanri.Doc{ID: kanri.DomainClaimID("acme.test")}, Domain: "acme.test", OwnerID: e.acme.ID}); err != nil {
		t.Fatal(err)
	}
	admin := e.client(t).signIn("acme", "admin")
	admin.get("/t/" + e.acme.ID + "/sso/providers/new")
	resp, _ := admin.post("/t/"+e.acme.ID+"/sso/providers", url.Values{
		"name": {"Acme ID"}, "issuer": {op.URL}, "clientId": {op.ClientID}, "clientSecret": {op.ClientSecret}, "scopes": {"email profile"},
	})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("adding the provider: status %d", resp.StatusCode)
	}
	ps, err := e.sso.Providers(ctx, e.acme.ID)
	if err != nil || len(ps) != 1 {
		t.Fatalf("providers: %v, %v", ps, err)
	}
	return op, ps[0].ID
}

// ssoSignIn runs a sign-in with acme's provider in c's browser and
// returns the callback's answer (the browser's redirects followed up to
// the provider's answer).
func (c *client) ssoSignIn(t *testing.T, op *ssotest.Provider, providerID string) *http.Response {
	t.Helper()
	_, page := c.get("/login/sso?org=acme")
	if !strings.Contains(page, `data-testid="sso-start-Acme ID"`) {
		t.Fatalf("the single sign-on page offers no provider:\n%s", page)
	}
	resp, _ := c.get(views.SSOStartPath(c.e.acme.ID, providerID, "", c.csrf))
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), op.URL+"/authorize?") {
		t.Fatalf("start: %d to %q, want the provider", resp.StatusCode, resp.Header.Get("Location"))
	}
	code, state, err := op.Code(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	resp, _ = c.get("/login/sso/callback?" + url.Values{"code": {code}, "state": {state}}.Encode())
	return resp
}

// TestSSOSignIn: acme's administrator adds a provider and tests it; bob
// signs in with it (linked through his verified address) and sees his
// identity on his page; the provider's answer delivered to another
// browser signs nobody in; an administrator unlinks it.
func TestSSOSignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	op, idp := e.withProvider(t)
	admin := e.client(t).signIn("acme", "admin")
	admin.get("/t/" + e.acme.ID + "/sso")
	if _, page := admin.post("/t/"+e.acme.ID+"/sso/providers/"+idp+"/test", url.Values{}); !strings.Contains(page, `data-testid="sso-check-ok"`) {
		t.Errorf("the connection test does not say it works:\n%s", page)
	}
	_, page := admin.get("/t/" + e.acme.ID + "/sso")
	if strings.Contains(page, op.ClientSecret) {
		t.Error("the page shows the client secret")
	}

	op.SignIn(ssotest.User{Subject: "bob-at-acme", Email: "bob@acme.test", EmailVerified: true})
	bob := e.client(t)
	resp := bob.ssoSignIn(t, op, idp)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") == "/login/sso" {
		t.Fatalf("callback: %d to %q, want signed in", resp.StatusCode, resp.Header.Get("Location"))
	}
	if _, page := bob.get("/account"); !strings.Contains(page, "bob@acme.test") {
		t.Fatal("bob is not signed in after single sign-on")
	}
	found := false
	for _, r := range e.supportRecords(t, e.acme.ID, "auth.login") {
		found = found || r.Details.Reason == "sso:Acme ID" && r.Resource.ID == e.acmeBob.ID
	}
	if !found {
		t.Error("no auth.login record of bob with sso:Acme ID")
	}

	// The answer (code and state) of a sign-in begun in one browser,
	// delivered to another, signs nobody in and spends nothing.
	mallory, victim := e.client(t), e.client(t)
	mallory.get("/login/sso?org=acme")
	resp, _ = mallory.get(views.SSOStartPath(e.acme.ID, idp, "", mallory.csrf))
	code, state, err := op.Code(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	resp, _ = victim.get("/login/sso/callback?" + url.Values{"code": {code}, "state": {state}}.Encode())
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login/sso" {
		t.Fatalf("another browser's answer: %d to %q, want back to /login/sso", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := victim.get("/account"); resp.StatusCode != http.StatusSeeOther {
		t.Fatal("another browser's answer signed the victim in")
	}

	// Bob's identity is on his page; unlinking it removes it.
	_, page = admin.get("/t/" + e.acme.ID + "/users/" + e.acmeBob.ID + "/edit")
	if !strings.Contains(page, `data-testid="identity-bob@acme.test"`) {
		t.Fatalf("bob's page lists no linked identity")
	}
	ids, _ := e.sso.Identities(context.Background(), e.acme.ID, e.acmeBob.ID)
	resp, _ = admin.post("/t/"+e.acme.ID+"/users/"+e.acmeBob.ID+"/identities/"+ids[0].ID+"/unlink", url.Values{"etag": {ids[0].ETag}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("unlink: status %d", resp.StatusCode)
	}
	if ids, _ := e.sso.Identities(context.Background(), e.acme.ID, e.acmeBob.ID); len(ids) != 0 {
		t.Errorf("%d identities after unlink, want 0", len(ids))
	}
}

// TestSSORefusalsAreShown: what the provider's answer lacks is said on
// the page, with no 500 and no session.
func TestSSORefusalsAreShown(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	op, idp := e.withProvider(t)
	tests := []struct {
		name  string
		user  ssotest.User
		fault ssotest.Fault
		down  bool
		want  int
		says  string
	}{
		{"outside the verified domains", ssotest.User{Subject: "x1", Email: "bob@elsewhere.test", EmailVerified: true}, ssotest.Fault{}, false, http.StatusUnauthorized, "sso.email_domain"},
		{"unverified", ssotest.User{Subject: "x2", Email: "bob@acme.test", EmailVerified: false}, ssotest.Fault{}, false, http.StatusUnauthorized, "sso.email_unverified"},
		{"wrong audience", ssotest.User{Subject: "x3", Email: "bob@acme.test", EmailVerified: true}, ssotest.Fault{Audience: "other"}, false, http.StatusUnauthorized, "sso.refused"},
		{"provider down at the answer", ssotest.User{Subject: "x4", Email: "bob@acme.test", EmailVerified: true}, ssotest.Fault{}, true, http.StatusServiceUnavailable, "sso.provider_down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op.SignIn(tt.user)
			op.Misbehave(tt.fault)
			c := e.client(t)
			c.get("/login/sso?org=acme")
			resp, _ := c.get(views.SSOStartPath(e.acme.ID, idp, "", c.csrf))
			code, state, err := op.Code(resp.Header.Get("Location"))
			if err != nil {
				t.Fatal(err)
			}
			op.Down(tt.down)
			defer op.Down(false)
			resp, page := c.get("/login/sso/callback?" + url.Values{"code": {code}, "state": {state}}.Encode())
			if resp.StatusCode != tt.want || !strings.Contains(page, `data-testid="sso-error"`) {
				t.Fatalf("got %d, want %d with the error shown", resp.StatusCode, tt.want)
			}
			if r, _ := c.get("/account"); r.StatusCode != http.StatusSeeOther {
				t.Error("signed in after a refusal")
			}
		})
	}
}

// TestSSOIsolation: one tenant's providers are not another's: globex's
// administrator reaches none of acme's, and a sign-in cannot start with
// acme's provider under globex.
func TestSSOIsolation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, idp := e.withProvider(t)
	glob := e.client(t).signIn("globex", "admin")
	for _, path := range []string{"/t/" + e.acme.ID + "/sso", "/t/" + e.globex.ID + "/sso/providers/" + idp + "/edit"} {
		if resp, _ := glob.get(path); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s as globex's administrator: %d, want 404", path, resp.StatusCode)
		}
	}
	for _, action := range []string{"/test", "/remove", ""} {
		path := "/t/" + e.globex.ID + "/sso/providers/" + idp + action
		glob.get("/t/" + e.globex.ID + "/sso")
		resp, _ := glob.post(path, url.Values{"name": {"x"}, "issuer": {"https://x.example"}, "clientId": {"c"}})
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("POST %s as globex's administrator: %d, want 404", path, resp.StatusCode)
		}
	}
	if ps, _ := e.sso.Providers(context.Background(), e.acme.ID); len(ps) != 1 || ps[0].Name != "Acme ID" {
		t.Errorf("acme's providers changed: %v", ps)
	}
	_, page := glob.get("/t/" + e.globex.ID + "/sso")
	if strings.Contains(page, "Acme ID") {
		t.Error("globex's page shows acme's provider")
	}
	c := e.client(t)
	c.get("/login/sso?org=globex")
	resp, _ := c.get(views.SSOStartPath(e.globex.ID, idp, "", c.csrf))
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login/sso" {
		t.Errorf("a sign-in with acme's provider under globex: %d to %q, want back to /login/sso", resp.StatusCode, resp.Header.Get("Location"))
	}
	if _, page := c.get("/login/sso?org=globex"); strings.Contains(page, "Acme ID") || !strings.Contains(page, `data-testid="sso-none"`) {
		t.Error("globex's sign-in offers acme's provider, or does not say it has none")
	}
}

// TestSSORequired: with single sign-on required, bob's right password is
// refused with the reason, acme's break-glass administrator's is not, and
// bob signs in with the provider.
func TestSSORequired(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	op, idp := e.withProvider(t)
	admin := e.client(t).signIn("acme", "admin")
	admin.get("/t/" + e.acme.ID + "/sso")
	st, _ := e.sso.Settings(context.Background(), e.acme.ID)
	resp, page := admin.post("/t/"+e.acme.ID+"/sso/settings", url.Values{"etag": {st.ETag}, "required": {"on"}, "breakGlass": {"bob"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(page, `data-testid="field-error-required"`) || !strings.Contains(page, `value="bob"`) {
		t.Fatalf("bob (no administrator) as the only break-glass user: %d, want 422 with the error and the input kept", resp.StatusCode)
	}
	resp, _ = admin.post("/t/"+e.acme.ID+"/sso/settings", url.Values{"etag": {st.ETag}, "required": {"on"}, "breakGlass": {"admin"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("saving the rules: %d", resp.StatusCode)
	}
	if _, code, _ := e.client(t).signInErr("acme", "bob", password); code != http.StatusForbidden {
		t.Errorf("bob's password with SSO required: %d, want 403", code)
	}
	if _, _, err := e.client(t).signInErr("acme", "admin", password); err != nil {
		t.Errorf("the break-glass administrator: %v", err)
	}
	op.SignIn(ssotest.User{Subject: "bob-at-acme", Email: "bob@acme.test", EmailVerified: true})
	if resp := e.client(t).ssoSignIn(t, op, idp); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") == "/login/sso" {
		t.Errorf("bob with the provider: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// TestSSOManagementIsTheAdministrators: who holds the tenant's settings
// but not sso.manage (テナント管理サービスの管理者) can neither add a
// provider nor change the rules: the provider decides who signs in as
// whom.
func TestSSOManagementIsTheAdministrators(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system"})
	carol, err := e.users.Create(ctx, e.acme.ID, kanri.UserInput{Username: "carol", Email: "carol@acme.test", DisplayName: "Carol", Password: password})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.roles.Assign(ctx, role.Grant{Tenant: e.acme, UserID: carol.ID, ServiceID: kanri.TenantManagementID, RoleName: role.Admin}); err != nil {
		t.Fatal(err)
	}
	c := e.client(t).signIn("acme", "carol")
	if resp, page := c.get("/t/" + e.acme.ID + "/sso"); resp.StatusCode != http.StatusOK || strings.Contains(page, `data-testid="sso-provider-new"`) {
		t.Fatalf("carol's single sign-on page: %d, want it read-only", resp.StatusCode)
	}
	for path, form := range map[string]url.Values{
		"/sso/providers":   {"name": {"Evil"}, "issuer": {"https://evil.example"}, "clientId": {"c"}, "clientSecret": {"s"}},
		"/sso/settings":    {"trustProviderMfa": {"on"}},
		"/sso/scim/token":  {},
		"/sso/scim/revoke": {},
	} {
		if resp, _ := c.post("/t/"+e.acme.ID+path, form); resp.StatusCode != http.StatusForbidden {
			t.Errorf("carol POST %s: %d, want 403", path, resp.StatusCode)
		}
	}
	if ps, _ := e.sso.Providers(ctx, e.acme.ID); len(ps) != 0 {
		t.Errorf("carol added %d providers", len(ps))
	}
}

// TestSSOStartNeedsThePagesToken: a link to start a sign-in that another
// site made (without the page's CSRF token) starts nothing: a browser
// signed in stays who it was (no login CSRF).
func TestSSOStartNeedsThePagesToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	op, idp := e.withProvider(t)
	op.SignIn(ssotest.User{Subject: "x", Email: "admin@acme.test", EmailVerified: true})
	bob := e.client(t).signIn("acme", "bob")
	for _, token := range []string{"", "forged"} {
		resp, _ := bob.get(views.SSOStartPath(e.acme.ID, idp, "/account", token))
		if resp.StatusCode != http.StatusSeeOther || strings.HasPrefix(resp.Header.Get("Location"), op.URL) {
			t.Errorf("a start with token %q: %d to %q, want back to the organisation form", token, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	if _, page := bob.get("/account"); !strings.Contains(page, "bob@acme.test") {
		t.Error("bob is no longer bob")
	}
}
