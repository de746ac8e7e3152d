package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
)

var loginErrorPattern = regexp.MustCompile(`data-testid="login-error">([^<]*)<`)

// TestFailedSignInNamesTheSignInName checks that every failed sign-in,
// the display name given instead of the sign-in name among them, says
// which name to use, with the same words whatever was wrong, and that the
// form explains its organisation field.
func TestFailedSignInNamesTheSignInName(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system"})
	ten, err := e.tenants.Create(ctx, kanri.TenantInput{Name: "initech", DisplayName: "Initech Corporation", Plan: kanri.PlanStandard, MaxUsers: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.users.Create(ctx, ten.ID, kanri.UserInput{Username: "peter", Email: "peter@initech.test", DisplayName: "Peter", Password: password}); err != nil {
		t.Fatal(err)
	}
	messages := map[string]string{
		"en": "Check the organisation's sign-in name (e.g. acme), your username and your password.",
		"ja": "組織のサインイン名（例: acme）、ユーザー名、パスワードを確認してください。",
	}
	hints := map[string]string{
		"en": "The organisation's sign-in name, e.g. acme",
		"ja": "組織のサインイン名（例: acme）",
	}
	tests := []struct{ name, tenant, username, password string }{
		{"display name instead of sign-in name", "Initech Corporation", "peter", password},
		{"unknown organisation", "nosuchorg", "peter", password},
		{"unknown user", "initech", "nobody", password},
		{"wrong password", "initech", "peter", "Wrong-password-1"},
		{"user of another organisation", "acme", "peter", password},
	}
	for _, lang := range []string{"en", "ja"} {
		c := e.client(t)
		c.get("/login")
		c.post("/lang", url.Values{"lang": {lang}, "next": {"/login"}})
		_, form := c.get("/login")
		if got, want := html.UnescapeString(form), hints[lang]; !strings.Contains(got, want) || !strings.Contains(form, `aria-describedby="h-tenant"`) {
			t.Errorf("%s sign-in form: no hint %q described by the organisation field", lang, want)
		}
		for _, tt := range tests {
			resp, body := c.post("/login", url.Values{"tenant": {tt.tenant}, "username": {tt.username}, "password": {tt.password}})
			wantStatus(t, lang+" "+tt.name, resp, http.StatusUnauthorized)
			m := loginErrorPattern.FindStringSubmatch(body)
			if m == nil {
				t.Errorf("%s %s: no error message", lang, tt.name)
				continue
			}
			if got, want := html.UnescapeString(m[1]), messages[lang]; got != want {
				t.Errorf("%s %s: got %q, want %q", lang, tt.name, got, want)
			}
		}
	}
	// The sign-in name works.
	e.client(t).signIn("initech", "peter")
}

// TestAccountShowsTheSignInName checks that the account page shows the
// organisation's sign-in name beside its display name, and that the
// operator's tenant switcher shows each tenant's sign-in name.
func TestAccountShowsTheSignInName(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system"})
	ten, err := e.tenants.Create(ctx, kanri.TenantInput{Name: "initech", DisplayName: "Initech Corporation", Plan: kanri.PlanStandard, MaxUsers: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.users.Create(ctx, ten.ID, kanri.UserInput{Username: "peter", Email: "peter@initech.test", DisplayName: "Peter", Password: password}); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ tenant, username, display, want string }{
		{"initech", "peter", "Initech Corporation", "initech"},
		{"acme", "bob", "acme", "acme"},
		{"privileged", adminEmail, "", "privileged"},
	}
	for _, tt := range tests {
		c := e.client(t).signIn(tt.tenant, tt.username)
		resp, body := c.get("/account")
		wantStatus(t, tt.tenant+" account", resp, http.StatusOK)
		if got, want := signInNameOf(body), tt.want; got != want {
			t.Errorf("%s account: sign-in name %q, want %q", tt.tenant, got, want)
		}
		if !strings.Contains(body, "Use this to sign in") {
			t.Errorf("%s account: no explanation of the sign-in name", tt.tenant)
		}
		if tt.display != "" && !strings.Contains(body, "<dd>"+tt.display+"</dd>") {
			t.Errorf("%s account: no display name %q", tt.tenant, tt.display)
		}
	}
	staff := e.client(t).signIn("privileged", adminEmail)
	_, body := staff.get("/tenants")
	if !strings.Contains(body, "Initech Corporation (initech)") {
		t.Error("the tenant switcher does not show initech's sign-in name")
	}
}

var signInNamePattern = regexp.MustCompile(`data-testid="account-signin-name">([^<]*)<`)

func signInNameOf(body string) string {
	if m := signInNamePattern.FindStringSubmatch(body); m != nil {
		return m[1]
	}
	return ""
}

// TestTenantCreationSaysWhatToHandOver checks that the message of a new
// tenant tells the operator that its first user becomes its administrator
// and what to hand them: the absolute sign-in address and the sign-in name.
func TestTenantCreationSaysWhatToHandOver(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	staff := e.client(t).signIn("privileged", adminEmail)
	staff.get("/tenants/new")
	resp, _ := staff.post("/tenants", url.Values{"name": {"newco"}, "displayName": {"New Company"}, "plan": {"free"}, "maxUsers": {"5"}})
	wantStatus(t, "create", resp, http.StatusSeeOther)
	_, body := staff.get(resp.Header.Get("Location"))
	got := html.UnescapeString(body)
	for _, want := range []string{
		"first user becomes the organisation's administrator",
		"sign-in address " + e.srv.URL + "/login",
		"sign-in name newco",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the tenant's creation message does not say %q", want)
		}
	}
}
