package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/tenant"
)

func TestBadInputShowsFieldErrorsAndSavesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	staff := e.client(t).signIn("privileged", adminEmail)
	tests := []struct {
		name  string
		form  url.Values
		field string
	}{
		{"short name", url.Values{"name": {"ab"}, "displayName": {"X"}, "plan": {"free"}, "maxUsers": {"5"}}, "name"},
		{"bad chars", url.Values{"name": {"a b<c>"}, "displayName": {"X"}, "plan": {"free"}, "maxUsers": {"5"}}, "name"},
		{"taken", url.Values{"name": {"ACME"}, "displayName": {"X"}, "plan": {"free"}, "maxUsers": {"5"}}, "name"},
		{"bad plan", url.Values{"name": {"newco"}, "displayName": {"X"}, "plan": {"gold"}, "maxUsers": {"5"}}, "plan"},
		{"max users", url.Values{"name": {"newco"}, "displayName": {"X"}, "plan": {"free"}, "maxUsers": {"10001"}}, "maxUsers"},
		{"not a number", url.Values{"name": {"newco"}, "displayName": {"X"}, "plan": {"free"}, "maxUsers": {"ten"}}, "maxUsers"},
		{"no display name", url.Values{"name": {"newco"}, "displayName": {"  "}, "plan": {"free"}, "maxUsers": {"5"}}, "displayName"},
	}
	for _, tt := range tests {
		t.Run("tenant "+tt.name, func(t *testing.T) {
			resp, body := staff.post("/tenants", tt.form)
			wantStatus(t, "create", resp, http.StatusUnprocessableEntity)
			if !strings.Contains(body, `data-testid="field-error-`+tt.field+`"`) {
				t.Errorf("no error on %s", tt.field)
			}
			if v := tt.form.Get("displayName"); strings.TrimSpace(v) != "" && !strings.Contains(body, `value="`+v+`"`) {
				t.Error("the form lost the input")
			}
		})
	}
	list, _, _ := e.tenants.List(context.Background(), tenant.ListFilter{Status: "all"})
	if len(list) != 3 {
		t.Errorf("tenants after bad input: got %d, want 3", len(list))
	}

	admin := e.client(t).signIn("acme", "admin")
	userTests := []struct {
		name  string
		form  url.Values
		field string
	}{
		{"bad email", url.Values{"username": {"carol"}, "email": {"not-an-email"}, "displayName": {"C"}, "password": {password}}, "email"},
		{"weak password", url.Values{"username": {"carol"}, "email": {"c@acme.test"}, "displayName": {"C"}, "password": {"short"}}, "password"},
		{"taken username", url.Values{"username": {"BOB"}, "email": {"c@acme.test"}, "displayName": {"C"}, "password": {password}}, "username"},
		{"spaces in username", url.Values{"username": {"ca rol"}, "email": {"c@acme.test"}, "displayName": {"C"}, "password": {password}}, "username"},
	}
	for _, tt := range userTests {
		t.Run("user "+tt.name, func(t *testing.T) {
			resp, body := admin.post("/t/"+e.acme.ID+"/users", tt.form)
			wantStatus(t, "create", resp, http.StatusUnprocessableEntity)
			if !strings.Contains(body, `data-testid="field-error-`+tt.field+`"`) {
				t.Errorf("no error on %s", tt.field)
			}
			if strings.Contains(body, tt.form.Get("password")) && tt.form.Get("password") != "" {
				t.Error("the password was echoed back")
			}
		})
	}
	ten, _ := e.tenants.Get(context.Background(), e.acme.ID)
	if ten.UserCount != 2 {
		t.Errorf("acme userCount after refused creates: got %d, want 2", ten.UserCount)
	}
}

func TestStaleEditIsDetected(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(t).signIn("acme", "admin")
	path := "/t/" + e.acme.ID + "/users/" + e.acmeBob.ID
	_, page := c.get(path + "/edit")
	etag := formETag(page)
	resp, _ := c.post(path, url.Values{"etag": {etag}, "email": {"bob@acme.test"}, "displayName": {"Bob One"}})
	wantStatus(t, "first save", resp, http.StatusSeeOther)
	resp, body := c.post(path, url.Values{"etag": {etag}, "email": {"bob2@acme.test"}, "displayName": {"Bob Two"}})
	wantStatus(t, "stale save", resp, http.StatusConflict)
	for _, want := range []string{`data-testid="stale-notice"`, `value="Bob Two"`, `value="bob2@acme.test"`, `>Bob One<`} {
		if !strings.Contains(body, want) {
			t.Errorf("stale page lacks %s", want)
		}
	}
	bob, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID)
	if bob.DisplayName != "Bob One" {
		t.Errorf("stale save changed the user: %q", bob.DisplayName)
	}
	// Saving the kept input again, now on the current version, works.
	newETag := formETag(body)
	resp, _ = c.post(path, url.Values{"etag": {newETag}, "email": {"bob2@acme.test"}, "displayName": {"Bob Two"}})
	wantStatus(t, "save after stale", resp, http.StatusSeeOther)
}

func TestFormsKeepInputAndIDsAreChecked(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(t).signIn("acme", "admin")
	// Any username the policy allows can be stored.
	resp, _ := c.post("/t/"+e.acme.ID+"/users", url.Values{"username": {"sales/tokyo#1"}, "email": {"s@acme.test"}, "displayName": {"S"}, "password": {password}})
	wantStatus(t, "username with / and #", resp, http.StatusSeeOther)
	// At the user limit, the form comes back with the input and says why.
	ten, _ := e.tenants.Get(context.Background(), e.acme.ID)
	ten.MaxUsers = ten.UserCount
	e.st.Tenant(ten.ID).Tenants().Replace(context.Background(), ten)
	resp, body := c.post("/t/"+e.acme.ID+"/users", url.Values{"username": {"late"}, "email": {"late@acme.test"}, "displayName": {"Late Comer"}, "password": {password}})
	wantStatus(t, "create over the limit", resp, http.StatusConflict)
	for _, want := range []string{`data-testid="form-error"`, `value="late"`, `value="Late Comer"`, "maximum number of users"} {
		if !strings.Contains(body, want) {
			t.Errorf("over the limit: the page lacks %s", want)
		}
	}
	// Malformed and foreign ids are simply not found, without internal messages.
	for _, id := range []string{"user_%3Fx", "user_" + strings.Repeat("x", 300), "nope"} {
		resp, body := c.get("/t/" + e.acme.ID + "/users/" + id + "/edit")
		wantStatus(t, "edit of id "+id[:min(len(id), 12)], resp, http.StatusNotFound)
		if strings.Contains(body, "docstore") {
			t.Errorf("id %.12s: an internal message reached the page", id)
		}
	}
}

func TestEditSurvivesTheUsersSignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	path := "/t/" + e.acme.ID + "/users/" + e.acmeBob.ID
	_, page := admin.get(path + "/edit")
	form := url.Values{"etag": {formETag(page)}, "base_present": {"1"}, "base_email": {"bob@acme.test"}, "base_displayName": {"Bob"},
		"email": {"bob@acme.test"}, "displayName": {"Robert"}}
	e.client(t).signIn("acme", "bob") // rewrites bob's document
	resp, _ := admin.post(path, form)
	wantStatus(t, "save after the user signed in", resp, http.StatusSeeOther)
	bob, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID)
	if bob.DisplayName != "Robert" {
		t.Errorf("display name: got %q, want Robert", bob.DisplayName)
	}
}

// TestOperatorsConfirmRemovingTheLastAdmin checks that the operator's
// global administrator is warned before deactivating a customer tenant's
// last administrator, and must confirm it.
func TestOperatorsConfirmRemovingTheLastAdmin(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	adminID, err := e.users.IDByUsername(ctx, e.globex.ID, "admin")
	if err != nil {
		t.Fatal(err)
	}
	staff := e.client(t).signIn("privileged", adminEmail)
	path := "/t/" + e.globex.ID + "/users/" + adminID
	_, page := staff.get(path + "/edit")
	for _, want := range []string{`data-testid="last-admin-warning"`, `name="last_admin" value="1" required`} {
		if !strings.Contains(page, want) {
			t.Errorf("the last admin's page lacks %s", want)
		}
	}
	// One checkbox confirms either action: each button posts to its own.
	if got, want := strings.Count(page, `name="last_admin"`), 1; got != want {
		t.Errorf("last-administrator confirmations on the page: got %d, want %d", got, want)
	}
	for _, action := range []string{"deactivate", "delete"} {
		if want := `formaction="` + path + "/" + action + `"`; !strings.Contains(page, want) {
			t.Errorf("the last admin's page has no button with %s", want)
		}
	}
	resp, _ := staff.post(path+"/deactivate", url.Values{"etag": {formETag(page)}})
	wantStatus(t, "deactivate without confirming", resp, http.StatusSeeOther)
	if u, _ := e.users.Get(ctx, e.globex.ID, adminID); !u.IsActive {
		t.Fatalf("the last admin was deactivated without a confirmation")
	}
	resp, _ = staff.post(path+"/deactivate", url.Values{"last_admin": {"1"}})
	wantStatus(t, "deactivate, confirmed", resp, http.StatusSeeOther)
	if u, _ := e.users.Get(ctx, e.globex.ID, adminID); u.IsActive {
		t.Errorf("the confirmed deactivation was not made")
	}
	// A page of a user who is not the last administrator has no warning.
	_, page = staff.get("/t/" + e.acme.ID + "/users/" + e.acmeBob.ID + "/edit")
	if strings.Contains(page, `data-testid="last-admin-warning"`) {
		t.Errorf("a warning on the page of a user who is not the last admin")
	}
}

// TestActionFormsSendWhatTheyShow checks that the action forms of the user
// and tenant pages post the ETag and state they were rendered with, and
// that an action on something changed since is reported and not done.
func TestActionFormsSendWhatTheyShow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	admin := e.client(t).signIn("acme", "admin")
	path := "/t/" + e.acme.ID + "/users/" + e.acmeBob.ID
	_, page := admin.get(path + "/edit")
	bob, _ := e.users.Get(ctx, e.acme.ID, e.acmeBob.ID)
	for _, want := range []string{`name="etag" value="` + html.EscapeString(bob.ETag) + `"`, `name="state" value="` + html.EscapeString(bob.State()) + `"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the edit page's actions lack %s", want)
		}
	}
	// Someone else deactivates bob; this page still shows him active.
	if _, err := e.users.SetActive(ctx, e.acme.ID, bob.ID, kanri.Seen{}, false); err != nil {
		t.Fatal(err)
	}
	shown := url.Values{"etag": {bob.ETag}, "state": {bob.State()}}
	resp, _ := admin.post(path+"/deactivate", shown)
	wantStatus(t, "deactivate a user deactivated meanwhile", resp, http.StatusSeeOther)
	next, after := admin.get(resp.Header.Get("Location"))
	for next.StatusCode == http.StatusSeeOther {
		next, after = admin.get(next.Header.Get("Location"))
	}
	if want := "nothing was done"; !strings.Contains(after, want) {
		t.Errorf("the page after a stale action does not say %q", want)
	}
	if cur, _ := e.users.Get(ctx, e.acme.ID, bob.ID); cur.ETag == "" || cur.IsActive {
		t.Errorf("bob: got active=%v, want inactive", cur.IsActive)
	}
	// Only a sign-in's bookkeeping changed: the action goes ahead.
	cur, _ := e.users.Get(ctx, e.acme.ID, bob.ID)
	if _, err := e.users.Update(ctx, e.acme.ID, bob.ID, "", nil, kanri.UserInput{Email: cur.Email, DisplayName: "Bobby"}); err != nil {
		t.Fatal(err)
	}
	resp, _ = admin.post(path+"/reactivate", url.Values{"etag": {cur.ETag}, "state": {cur.State()}})
	wantStatus(t, "reactivate after an unrelated change", resp, http.StatusSeeOther)
	if now, _ := e.users.Get(ctx, e.acme.ID, bob.ID); !now.IsActive {
		t.Errorf("bob was not reactivated")
	}

	staff := e.client(t).signIn("privileged", adminEmail)
	_, list := staff.get("/tenants?q=acme")
	acme, _ := e.tenants.Get(ctx, e.acme.ID)
	if want := `name="etag" value="` + html.EscapeString(acme.ETag) + `"`; !strings.Contains(list, want) {
		t.Errorf("the tenant list's actions lack %s", want)
	}
}

// TestOwnAccountNotOffered checks that the user page offers no Deactivate
// or Delete on one's own account, while another user's page does, and that
// the server still refuses them.
func TestOwnAccountNotOffered(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(t).signIn("acme", "admin")
	base := "/t/" + e.acme.ID + "/users/"
	tests := []struct {
		name    string
		id      string
		offered bool
	}{
		{"own account", e.acmeAdmin.ID, false},
		{"another user", e.acmeBob.ID, true},
	}
	for _, tt := range tests {
		resp, page := c.get(base + tt.id + "/edit")
		wantStatus(t, tt.name, resp, http.StatusOK)
		for _, action := range []string{"deactivate", "delete"} {
			if got := strings.Contains(page, `data-testid="user-`+action+`"`); got != tt.offered {
				t.Errorf("%s: %s offered: got %v, want %v", tt.name, action, got, tt.offered)
			}
		}
	}
	for _, action := range []string{"deactivate", "delete"} {
		resp, _ := c.post(base+e.acmeAdmin.ID+"/"+action, url.Values{"etag": {""}})
		if resp.StatusCode < 400 {
			t.Errorf("%s of one's own account: got %d, want a refusal", action, resp.StatusCode)
		}
	}
	if u, err := e.users.Get(context.Background(), e.acme.ID, e.acmeAdmin.ID); err != nil || !u.IsActive || !u.DeletedAt.IsZero() {
		t.Errorf("own account after the refusals: %+v, %v", u, err)
	}
}

// TestDeactivationEndsSessions checks that a deactivated user's sessions
// end for good: reactivating the account does not bring them back.
func TestDeactivationEndsSessions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bob := e.client(t).signIn("acme", "bob")
	resp, _ := bob.get("/account")
	wantStatus(t, "bob's account before", resp, http.StatusOK)
	e.clock.Advance(time.Millisecond) // the test's clock stands still otherwise
	admin := e.client(t).signIn("acme", "admin")
	path := "/t/" + e.acme.ID + "/users/" + e.acmeBob.ID
	for _, action := range []string{"deactivate", "reactivate"} {
		_, page := admin.get(path + "/edit")
		resp, _ := admin.post(path+"/"+action, url.Values{"etag": {formETag(page)}})
		wantStatus(t, action, resp, http.StatusSeeOther)
	}
	if u, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID); !u.IsActive {
		t.Fatal("bob is not active again")
	}
	resp, _ = bob.get("/account")
	if got := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(got, "/login") {
		t.Errorf("bob's old session after deactivation and reactivation: %d to %q, want a redirect to /login", resp.StatusCode, got)
	}
	fresh := e.client(t).signIn("acme", "bob")
	resp, _ = fresh.get("/account")
	wantStatus(t, "bob signed in again", resp, http.StatusOK)
}
