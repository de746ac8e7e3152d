package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestUsersChangeTheirOwnPassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// bob has no roles at all, yet manages his own password.
	bob := e.client(t).signIn("acme", "bob")
	other := e.client(t).signIn("acme", "bob")
	e.clock.Advance(time.Millisecond)
	resp, body := bob.get("/account")
	wantStatus(t, "account page", resp, http.StatusOK)
	if !strings.Contains(body, `data-testid="password-form"`) {
		t.Fatal("no password form")
	}
	tests := []struct {
		name  string
		form  url.Values
		field string
	}{
		{"wrong current", url.Values{"current": {"Wrong-pass-123"}, "password": {"Brand-new-pass-1"}, "confirm": {"Brand-new-pass-1"}}, "current"},
		{"mismatch", url.Values{"current": {password}, "password": {"Brand-new-pass-1"}, "confirm": {"Brand-new-pass-2"}}, "confirm"},
		{"weak", url.Values{"current": {password}, "password": {"weak"}, "confirm": {"weak"}}, "password"},
		{"unchanged", url.Values{"current": {password}, "password": {password}, "confirm": {password}}, "password"},
	}
	for _, tt := range tests {
		resp, body := bob.post("/account/password", tt.form)
		wantStatus(t, tt.name, resp, http.StatusUnprocessableEntity)
		if !strings.Contains(body, `data-testid="field-error-`+tt.field+`"`) {
			t.Errorf("%s: no error on %s", tt.name, tt.field)
		}
	}
	resp, _ = bob.post("/account/password", url.Values{"current": {password}, "password": {"Brand-new-pass-1"}, "confirm": {"Brand-new-pass-1"}})
	wantStatus(t, "change", resp, http.StatusSeeOther)
	_, body = bob.get("/account") // this session goes on, renewed
	if !strings.Contains(body, `data-testid="flash"`) {
		t.Error("no confirmation after the change")
	}
	resp, _ = other.get("/account")
	wantStatus(t, "bob's other session after the change", resp, http.StatusSeeOther)
	if _, _, err := e.client(t).signInErr("acme", "bob", password); err == nil {
		t.Error("the old password still signs in")
	}
	if _, _, err := e.client(t).signInErr("acme", "bob", "Brand-new-pass-1"); err != nil {
		t.Errorf("the new password: %v", err)
	}
}

// TestSomeoneWithoutPermissionsIsToldSo checks that a user with no role
// lands on a page that says they have no permissions yet (in the
// navigation and on the page), in both languages, and that a user with a
// role sees neither message.
func TestSomeoneWithoutPermissionsIsToldSo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		user string
		lang string
		want string // the message, or "" for none
	}{
		{"bob", "en", "You have no permissions in this organisation yet; ask an administrator to give you a role."},
		{"bob", "ja", "この組織ではまだ権限がありません。管理者にロールの付与を依頼してください。"},
		{"admin", "en", ""},
	}
	for _, tt := range tests {
		c := e.client(t).signIn("acme", tt.user)
		c.post("/lang", url.Values{"lang": {tt.lang}, "next": {"/account"}})
		resp, body := c.get("/")
		if tt.user == "bob" {
			wantStatus(t, tt.user+" home", resp, http.StatusSeeOther)
			if got := resp.Header.Get("Location"); got != "/account" {
				t.Fatalf("%s lands on %q, want /account", tt.user, got)
			}
		}
		_, body = c.get("/account")
		for _, id := range []string{"no-permissions", "nav-no-permissions"} {
			got := strings.Contains(body, `data-testid="`+id+`"`)
			if want := tt.want != ""; got != want {
				t.Errorf("%s (%s): %s shown: got %v, want %v", tt.user, tt.lang, id, got, want)
			}
		}
		if tt.want != "" && !strings.Contains(body, tt.want) {
			t.Errorf("%s (%s): the page lacks %q", tt.user, tt.lang, tt.want)
		}
	}
}
