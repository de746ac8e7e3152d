package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
)

// signedOut reports whether the client's session no longer works: its
// next page sends it to sign in.
func signedOut(c *client) bool {
	resp, _ := c.get("/account")
	return resp.StatusCode == http.StatusSeeOther && mustURL(resp.Header.Get("Location")).Path == "/login"
}

var sessionEnd = regexp.MustCompile(`action="(/account/sessions/session_[0-9a-f]+/end)"`)

// TestSessionsAreListedAndEndedOneByOne: each sign-in is a session on the
// account page; ending another one signs that browser out at once while
// this one goes on; signing out ends only the session signing out; ending
// all others leaves this one.
func TestSessionsAreListedAndEndedOneByOne(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	laptop := e.client(t).signIn("acme", "admin")
	phone := e.client(t).signIn("acme", "admin")
	tablet := e.client(t).signIn("acme", "admin")
	resp, body := laptop.get("/account")
	wantStatus(t, "account", resp, http.StatusOK)
	if got, want := strings.Count(body, `data-testid="session-row"`), 3; got != want {
		t.Fatalf("the account page lists %d sessions, want %d", got, want)
	}
	if got := strings.Count(body, `data-testid="session-current"`); got != 1 {
		t.Errorf("%d sessions are marked current, want 1", got)
	}
	// Three sessions of one browser are told apart by their codes.
	codes := map[string]bool{}
	for _, m := range regexp.MustCompile(`data-testid="session-code">#(\w+)<`).FindAllStringSubmatch(body, -1) {
		codes[m[1]] = true
	}
	if len(codes) != 3 {
		t.Errorf("the sessions' codes: %v, want 3 different ones", codes)
	}
	ends := sessionEnd.FindAllStringSubmatch(body, -1)
	if len(ends) != 2 {
		t.Fatalf("%d end buttons, want 2 (not the current session's)", len(ends))
	}
	// End one of the others: exactly one of phone and tablet is signed out.
	resp, _ = laptop.post(ends[0][1], nil)
	wantStatus(t, "end a session", resp, http.StatusSeeOther)
	if out := []bool{signedOut(phone), signedOut(tablet)}; out[0] == out[1] {
		t.Fatalf("after ending one session: phone signed out %v, tablet %v; want exactly one", out[0], out[1])
	}
	if signedOut(laptop) {
		t.Fatal("ending another session signed this one out")
	}
	// A new device, then all others ended.
	desk := e.client(t).signIn("acme", "admin")
	resp, _ = laptop.post("/account/sessions/end-others", nil)
	wantStatus(t, "end the others", resp, http.StatusSeeOther)
	if !signedOut(desk) || !signedOut(phone) || !signedOut(tablet) || signedOut(laptop) {
		t.Error("ending the others did not sign out exactly the others")
	}
	// Each ending is in the audit log, as the user's own.
	recs, _, err := e.config.Services.Deps.Audit.Query(context.Background(), e.acme.ID, audit.Filter{Action: "user.sessions_end", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Resource.ID != e.acmeAdmin.ID {
		t.Errorf("%d records of one's own sessions ended, want 2 (one and the others)", len(recs))
	}
	// Signing out ends this session only.
	other := e.client(t).signIn("acme", "admin")
	resp, _ = laptop.post("/logout", nil)
	wantStatus(t, "sign out", resp, http.StatusSeeOther)
	if !signedOut(laptop) || signedOut(other) {
		t.Error("signing out did not end exactly this session")
	}
}

// TestAnotherUsersSessionCannotBeEnded: bob cannot end the admin's
// session by its id (404, and it goes on); globex's admin cannot either.
func TestAnotherUsersSessionCannotBeEnded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	admin := e.client(t).signIn("acme", "admin")
	_, body := e.client(t).signIn("acme", "admin").get("/account")
	target := sessionEnd.FindStringSubmatch(body)
	if target == nil {
		t.Fatal("no other session listed")
	}
	for _, who := range []*client{e.client(t).signIn("acme", "bob"), e.client(t).signIn("globex", "admin")} {
		resp, _ := who.post(target[1], nil)
		wantStatus(t, "end another user's session", resp, http.StatusNotFound)
	}
	if signedOut(admin) {
		t.Error("the admin was signed out by another user")
	}
	rs, _, err := e.st.Tenant(e.acme.ID).Sessions().Query(ctx, docstore.Query{Limit: 100})
	if err != nil || len(rs) < 3 {
		t.Errorf("sessions after refused ends: %d, %v", len(rs), err)
	}
}

// TestAnAdministratorSignsAUserOutEverywhere: ending bob's sessions from
// his page signs out both his browsers, is audited, and bob can sign in
// again.
func TestAnAdministratorSignsAUserOutEverywhere(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	bob1, bob2 := e.client(t).signIn("acme", "bob"), e.client(t).signIn("acme", "bob")
	page := "/t/" + e.acme.ID + "/users/" + e.acmeBob.ID
	_, body := admin.get(page + "/edit")
	if !strings.Contains(body, `data-testid="user-end-sessions"`) {
		t.Fatal("bob's page offers no way to sign him out")
	}
	resp, _ := admin.post(page+"/sessions/end", url.Values{"etag": {formETag(body)}})
	wantStatus(t, "end bob's sessions", resp, http.StatusSeeOther)
	if !signedOut(bob1) || !signedOut(bob2) || signedOut(admin) {
		t.Error("not exactly bob's sessions ended")
	}
	_, audit := admin.get("/t/" + e.acme.ID + "/audit")
	if !strings.Contains(audit, "user.sessions_end") {
		t.Error("ending bob's sessions is not audited")
	}
	if signedOut(e.client(t).signIn("acme", "bob")) {
		t.Error("bob cannot sign in again")
	}
}

// TestPasswordChangeEndsTheOtherSessions: a password change keeps the
// session that made it and ends the others, and the account page shows
// when the password was last changed.
func TestPasswordChangeEndsTheOtherSessions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	here, there := e.client(t).signIn("acme", "bob"), e.client(t).signIn("acme", "bob")
	here.get("/account")
	resp, _ := here.post("/account/password", url.Values{"current": {password}, "password": {"Brand-new-pass-7"}, "confirm": {"Brand-new-pass-7"}})
	wantStatus(t, "change password", resp, http.StatusSeeOther)
	if signedOut(here) || !signedOut(there) {
		t.Error("a password change did not end exactly the other sessions")
	}
	_, body := here.get("/account")
	if got := strings.Count(body, `data-testid="session-row"`); got != 1 {
		t.Errorf("%d sessions listed after the change, want 1", got)
	}
	if strings.Contains(body, `data-testid="account-last-password-change">—`) {
		t.Error("the account page does not show when the password was changed")
	}
}
