package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
)

func TestSignInAndSessions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(t)
	c.get("/login")
	before := c.http.Jar.Cookies(mustURL(e.srv.URL))
	resp, body := c.post("/login", url.Values{"tenant": {"acme"}, "username": {"admin"}, "password": {"wrong-Password-1"}})
	wantStatus(t, "bad password", resp, http.StatusUnauthorized)
	if !strings.Contains(body, `data-testid="login-error"`) || !strings.Contains(body, `value="acme"`) {
		t.Error("failed sign-in: no generic error, or the organisation was not kept")
	}
	resp, _ = c.post("/login", url.Values{"tenant": {"acme"}, "username": {"admin"}, "password": {password}})
	wantStatus(t, "sign in", resp, http.StatusSeeOther)
	if got, want := resp.Header.Get("Location"), "/t/"+e.acme.ID+"/users"; got != want {
		t.Errorf("after sign-in: to %q, want %q", got, want)
	}
	after := c.http.Jar.Cookies(mustURL(e.srv.URL))
	if cookieValue(before, "kanri_session") == cookieValue(after, "kanri_session") {
		t.Error("the session cookie did not change at sign-in")
	}
	for _, ck := range resp.Cookies() {
		if ck.Name == "kanri_session" && (!ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode) {
			t.Errorf("session cookie: HttpOnly %v SameSite %v", ck.HttpOnly, ck.SameSite)
		}
	}
	resp, _ = c.get("/t/" + e.acme.ID + "/users")
	wantStatus(t, "signed in", resp, http.StatusOK)

	// Idle timeout.
	e.clock.Advance(31 * time.Minute)
	resp, _ = c.get("/t/" + e.acme.ID + "/users")
	if resp.StatusCode != http.StatusSeeOther || mustURL(resp.Header.Get("Location")).Path != "/login" {
		t.Errorf("after 31 idle minutes: got %d to %q, want the sign-in page", resp.StatusCode, resp.Header.Get("Location"))
	}

	// Deactivating a user ends their next request.
	c2 := e.client(t).signIn("acme", "bob")
	e.users.SetActive(context.Background(), e.acme.ID, e.acmeBob.ID, kanri.Seen{}, false)
	resp, _ = c2.get("/t/" + e.acme.ID + "/users")
	wantStatus(t, "deactivated user's next request", resp, http.StatusSeeOther)

	// Logout ends this session and every copy of it.
	c3 := e.client(t).signIn("acme", "admin")
	e.clock.Advance(time.Millisecond)
	stolen := e.client(t)
	stolen.http.Jar.SetCookies(mustURL(e.srv.URL), c3.http.Jar.Cookies(mustURL(e.srv.URL)))
	resp, _ = stolen.get("/t/" + e.acme.ID + "/users")
	wantStatus(t, "a copied cookie before logout", resp, http.StatusOK)
	resp, _ = c3.post("/logout", nil)
	wantStatus(t, "logout", resp, http.StatusSeeOther)
	resp, _ = c3.get("/t/" + e.acme.ID + "/users")
	wantStatus(t, "after logout", resp, http.StatusSeeOther)
	resp, _ = stolen.get("/t/" + e.acme.ID + "/users")
	wantStatus(t, "a copied cookie after logout", resp, http.StatusSeeOther)

	// A password reset ends the user's sessions.
	e.clock.Advance(time.Millisecond)
	bobAgain := e.client(t)
	e.users.SetActive(context.Background(), e.acme.ID, e.acmeBob.ID, kanri.Seen{}, true)
	bobAgain.signIn("acme", "bob")
	e.clock.Advance(time.Millisecond)
	e.users.ResetPassword(context.Background(), e.acme.ID, e.acmeBob.ID, kanri.Seen{}, "Brand-new-pass-1")
	resp, _ = bobAgain.get("/")
	wantStatus(t, "after a password reset", resp, http.StatusSeeOther)
	if loc := resp.Header.Get("Location"); loc != "/login" {
		t.Errorf("after a password reset: to %q, want /login", loc)
	}
}

// TestDeepLinksLeadThroughSignIn checks that a console URL opened without a
// session asks to sign in (and says a session ended only when one did),
// then leads to the page asked for; only paths of the console are followed.
func TestDeepLinksLeadThroughSignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	page := "/t/" + e.acme.ID + "/audit?action=user."
	c := e.client(t)
	resp, _ := c.get(page)
	loc := resp.Header.Get("Location")
	if got, want := mustURL(loc).Query().Get("next"), page; resp.StatusCode != http.StatusSeeOther || got != want {
		t.Fatalf("GET %s without a session: got %d to %q, want the sign-in page with next=%q", page, resp.StatusCode, loc, want)
	}
	_, body := c.get(loc)
	if !strings.Contains(body, "Please sign in.") || strings.Contains(body, "session has ended") {
		t.Errorf("a first visit is told its session ended, or not asked to sign in")
	}
	if want := `name="next" value="` + html.EscapeString(page) + `"`; !strings.Contains(body, want) {
		t.Errorf("the sign-in form lacks %s", want)
	}
	tests := []struct{ next, want string }{
		{page, page},
		{"//evil.example/x", "/t/" + e.acme.ID + "/users"},
		{"https://evil.example/", "/t/" + e.acme.ID + "/users"},
		{"/\\evil.example", "/t/" + e.acme.ID + "/users"},
		{"", "/t/" + e.acme.ID + "/users"},
	}
	for _, tt := range tests {
		c := e.client(t)
		c.get("/login")
		resp, _ := c.post("/login", url.Values{"tenant": {"acme"}, "username": {"admin"}, "password": {password}, "next": {tt.next}})
		if got := resp.Header.Get("Location"); got != tt.want {
			t.Errorf("sign in with next %q: got to %q, want %q", tt.next, got, tt.want)
		}
	}
	// A session that ended says so.
	c = e.client(t).signIn("acme", "admin")
	e.clock.Advance(31 * time.Minute)
	resp, _ = c.get(page)
	_, body = c.get(resp.Header.Get("Location"))
	if !strings.Contains(body, "session has ended") {
		t.Errorf("an ended session is not told so")
	}
}

// TestStartPageIsOneTheUserMayOpen checks that a user is sent after sign-in
// (and from /) to the first page they may open: never "Not allowed".
func TestStartPageIsOneTheUserMayOpen(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", GlobalAdmin: true})
	if _, err := e.users.Create(ctx, e.acme.ID, kanri.UserInput{Username: "nora", Email: "nora@acme.test", DisplayName: "Nora", Password: password}); err != nil {
		t.Fatal(err) // no roles at all
	}
	tests := []struct{ tenant, user, want string }{
		{"privileged", adminEmail, "/tenants"},
		{"acme", "admin", "/t/" + e.acme.ID + "/users"},
		{"acme", "nora", "/account"},
	}
	for _, tt := range tests {
		c := e.client(t)
		c.get("/login")
		resp, _ := c.post("/login", url.Values{"tenant": {tt.tenant}, "username": {tt.user}, "password": {password}})
		if got := resp.Header.Get("Location"); got != tt.want {
			t.Errorf("%s/%s signs in to %q, want %q", tt.tenant, tt.user, got, tt.want)
		}
		resp, _ = c.get("/")
		if got := resp.Header.Get("Location"); got != tt.want {
			t.Errorf("%s/%s: / leads to %q, want %q", tt.tenant, tt.user, got, tt.want)
		}
		resp, _ = c.get(tt.want)
		wantStatus(t, tt.user+"'s start page", resp, http.StatusOK)
	}
}

// TestAClosedOrganisationSaysWhy: the right password of a user whose
// organisation's subscription has ended (before the expiry worker ran,
// too) or which the operator suspended says so, and is not counted as a
// failed attempt, so retrying never locks the account; a wrong password
// says only that something was wrong; a signed-in user whose organisation
// closed is told why on the sign-in page; a locked account says until
// when.
func TestAClosedOrganisationSaysWhy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	loc := e.fresh(t, e.acme.ID).Location()
	tomorrow := e.clock.Now().In(loc).AddDate(0, 0, 1)
	got := e.setTenant(t, e.acme.ID, func(in *kanri.TenantInput) { in.EndDate = tomorrow.Format(kanri.DateLayout) })
	e.clock.Advance(got.Subscription.EndDate.Sub(e.clock.Now()) - 5*time.Minute)
	bob := e.client(t).signIn("acme", "bob")
	e.clock.Advance(10 * time.Minute) // past the end; the worker has not run
	for i := range auth.MaxFailedAttempts + 1 {
		c := e.client(t)
		c.get("/login")
		resp, page := c.post("/login", url.Values{"tenant": {"acme"}, "username": {"bob"}, "password": {password}})
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(page, "subscription has ended") {
			t.Fatalf("attempt %d with the right password: %d, want 403 saying the subscription ended", i+1, resp.StatusCode)
		}
	}
	c := e.client(t)
	c.get("/login")
	resp, page := c.post("/login", url.Values{"tenant": {"acme"}, "username": {"bob"}, "password": {"wrong-password-1"}})
	if resp.StatusCode != http.StatusUnauthorized || strings.Contains(page, "subscription") {
		t.Errorf("a wrong password of a closed organisation: %d, want 401 telling nothing of it", resp.StatusCode)
	}
	if u, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID); u.Security.FailedLoginAttempts != 1 || !u.Security.LockedUntil.IsZero() {
		t.Errorf("bob has %d failed attempts (locked until %v), want the wrong one only", u.Security.FailedLoginAttempts, u.Security.LockedUntil)
	}
	// The signed-in session ends, and says why.
	resp, _ = bob.get("/account")
	if _, page := bob.get("/login"); !strings.Contains(page, "subscription has ended") {
		t.Errorf("a session of a closed organisation is not told why it ended (%d)", resp.StatusCode)
	}

	// Renewed, then suspended by the operator.
	e.setTenant(t, e.acme.ID, func(in *kanri.TenantInput) {
		in.EndDate = e.clock.Now().In(loc).AddDate(1, 0, 0).Format(kanri.DateLayout)
	})
	cur := e.fresh(t, e.acme.ID)
	if _, err := e.tenants.SetStatus(system(), e.acme.ID, kanri.Seen{ETag: cur.ETag, State: cur.Status}, kanri.TenantSuspended); err != nil {
		t.Fatal(err)
	}
	c = e.client(t)
	c.get("/login")
	if resp, page := c.post("/login", url.Values{"tenant": {"acme"}, "username": {"bob"}, "password": {password}}); resp.StatusCode != http.StatusForbidden || !strings.Contains(page, "is suspended") {
		t.Errorf("the right password of a suspended organisation: %d, want 403 saying it is suspended", resp.StatusCode)
	}

	// A locked account says until when, in the organisation's zone.
	if _, err := e.tenants.SetStatus(system(), e.acme.ID, kanri.Seen{}, kanri.TenantActive); err != nil {
		t.Fatal(err)
	}
	for range auth.MaxFailedAttempts {
		c.post("/login", url.Values{"tenant": {"acme"}, "username": {"bob"}, "password": {"wrong-password-1"}})
	}
	until := e.clock.Now().Add(auth.LockoutDuration).In(loc).Format("2006-01-02 15:04 MST")
	if resp, page := c.post("/login", url.Values{"tenant": {"acme"}, "username": {"bob"}, "password": {password}}); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(page, "locked") || !strings.Contains(page, until) {
		t.Errorf("a locked account: %d, want 401 saying it is locked until %s", resp.StatusCode, until)
	}
}

// TestMembersStartWhereTheyWork: a member of messaging only starts at
// Channels, of the files only at Files, and someone without roles at
// their account.
func TestMembersStartWhereTheyWork(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignMessaging(t, e.acme.ID)
	e.assignFiles(t, e.acme.ID)
	home := func(user string) string {
		t.Helper()
		c := e.client(t)
		c.get("/login")
		resp, _ := c.post("/login", url.Values{"tenant": {"acme"}, "username": {user}, "password": {password}})
		return resp.Header.Get("Location")
	}
	if got, want := home("bob"), "/account"; got != want {
		t.Errorf("bob without roles starts at %q, want %q", got, want)
	}
	if _, _, err := e.roles.Assign(system(), role.Grant{Tenant: e.acme, UserID: e.acmeBob.ID, ServiceID: kanri.FileServiceID, RoleName: role.Member}); err != nil {
		t.Fatal(err)
	}
	if got, want := home("bob"), "/t/"+e.acme.ID+"/files"; got != want {
		t.Errorf("bob, a files member, starts at %q, want %q", got, want)
	}
	if _, _, err := e.roles.Assign(system(), role.Grant{Tenant: e.acme, UserID: e.acmeBob.ID, ServiceID: kanri.MessagingServiceID, RoleName: role.Member}); err != nil {
		t.Fatal(err)
	}
	if got, want := home("bob"), "/t/"+e.acme.ID+"/channels"; got != want {
		t.Errorf("bob, a messaging member, starts at %q, want %q", got, want)
	}
}
