package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestUsersChangeTheirOwnPassword(t *testing.T) {
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
