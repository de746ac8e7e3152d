package web_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
)

// TestConfirmationsAreReadyBeforeForms checks that the script asking to
// confirm destructive forms runs before any form exists: a deferred script
// runs only after the page is parsed, and a click in between (a fast user,
// a loaded machine) submitted a deactivation without its question.
func TestConfirmationsAreReadyBeforeForms(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(t).signIn("acme", "admin")
	for _, path := range []string{"/login", "/t/" + e.acme.ID + "/users/" + e.acmeBob.ID + "/edit"} {
		cl := c
		if path == "/login" {
			cl = e.client(t)
		}
		_, body := cl.get(path)
		head, _, ok := strings.Cut(body, "</head>")
		if !ok {
			t.Fatalf("%s: no </head>", path)
		}
		if got, want := strings.Count(head, `<script src="/static/js/app.js"></script>`), 1; got != want {
			t.Errorf("%s: got %d blocking app.js scripts in <head>, want %d (not deferred, not async)", path, got, want)
		}
	}
}

// TestHistoryRestoreGetsTheWholePage checks that the Back button's request
// for a list that was filtered live gets the whole page, not the results
// fragment of the live search, and that responses vary on HX-Request.
func TestHistoryRestoreGetsTheWholePage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(t).signIn("acme", "admin")
	get := func(headers map[string]string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/t/"+e.acme.ID+"/users?q=bo", nil)
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := c.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	tests := []struct {
		name    string
		headers map[string]string
		whole   bool
	}{
		{"navigation", nil, true},
		{"live search", map[string]string{"HX-Request": "true"}, false},
		{"history restore", map[string]string{"HX-Request": "true", "HX-History-Restore-Request": "true"}, true},
		{"boosted", map[string]string{"HX-Request": "true", "HX-Boosted": "true"}, true},
	}
	for _, tt := range tests {
		resp, body := get(tt.headers)
		if got := strings.Contains(body, "<html"); got != tt.whole {
			t.Errorf("%s: got a whole page %v, want %v", tt.name, got, tt.whole)
		}
		if !strings.Contains(body, `data-testid="user-row-bob"`) {
			t.Errorf("%s: the results lack bob", tt.name)
		}
		if got := resp.Header.Values("Vary"); !slices.Contains(got, "HX-Request") {
			t.Errorf("%s: Vary %q lacks HX-Request", tt.name, got)
		}
	}
}

// TestActionsThatCannotSucceedAreExplained checks that the console does not
// offer a Delete of a tenant that still has active users, nor a New user
// at the user limit, but says why.
func TestActionsThatCannotSucceedAreExplained(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", GlobalAdmin: true})
	if _, err := e.tenants.Create(ctx, kanri.TenantInput{Name: "empty", DisplayName: "Empty", Plan: kanri.PlanFree, MaxUsers: 1}); err != nil {
		t.Fatal(err)
	}
	staff := e.client(t).signIn("privileged", adminEmail)
	_, page := staff.get("/tenants")
	if !regexp.MustCompile(`<button [^>]*disabled[^>]*data-testid="tenant-delete-acme"`).MatchString(page) ||
		!strings.Contains(page, `data-testid="tenant-undeletable-acme"`) {
		t.Errorf("acme, with active users, is offered a Delete without its reason")
	}
	if !strings.Contains(page, `action="/tenants/`+kanri.TenantIDFromName("empty")+`/delete"`) {
		t.Errorf("the empty tenant is not offered a Delete")
	}
	empty, _ := e.tenants.Get(ctx, kanri.TenantIDFromName("empty"))
	if _, err := e.users.Create(ctx, empty.ID, kanri.UserInput{Username: "only", Email: "only@empty.test", DisplayName: "Only", Password: password}); err != nil {
		t.Fatal(err)
	}
	_, page = staff.get("/t/" + empty.ID + "/users")
	if !regexp.MustCompile(`<button [^>]*disabled[^>]*data-testid="users-new"`).MatchString(page) || !strings.Contains(page, `data-testid="user-limit"`) {
		t.Errorf("a tenant at its user limit is offered New user without the reason")
	}
}

// TestFormErrorsAreAccessible checks that a field in error is marked
// invalid and described by its message, that a username with a space says
// so, and that an audit range ending before it starts is reported.
func TestFormErrorsAreAccessible(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(t).signIn("acme", "admin")
	resp, page := c.post("/t/"+e.acme.ID+"/users", url.Values{"username": {"two words"}, "email": {"tw@acme.test"}, "displayName": {"Two"}, "password": {password}})
	wantStatus(t, "a username with a space", resp, http.StatusUnprocessableEntity)
	input := regexp.MustCompile(`<input id="f-username"[^>]*>`).FindString(page)
	for _, want := range []string{`aria-invalid="true"`, `aria-describedby="e-username h-username"`} {
		if !strings.Contains(input, want) {
			t.Errorf("the username field %s lacks %s", input, want)
		}
	}
	if !strings.Contains(page, `id="e-username"`) || !strings.Contains(page, "cannot contain spaces") {
		t.Errorf("the username's message does not say what is wrong")
	}
	if email := regexp.MustCompile(`<input id="f-email"[^>]*>`).FindString(page); strings.Contains(email, "aria-invalid") {
		t.Errorf("a valid field is marked invalid: %s", email)
	}
	resp, page = c.get("/t/" + e.acme.ID + "/audit?from=2026-05-02&to=2026-05-01")
	wantStatus(t, "an audit range that ends before it starts", resp, http.StatusUnprocessableEntity)
	if !strings.Contains(page, "The end date is before the start date.") {
		t.Errorf("the audit page does not report the reversed range")
	}
}

// TestListsSortPageAndSayWhyTheyAreEmpty walks a user list by its headers,
// pages it both ways, and checks its totals and empty states.
func TestListsSortPageAndSayWhyTheyAreEmpty(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", GlobalAdmin: true})
	for i := range 23 {
		name := fmt.Sprintf("u%02d", i)
		if _, err := e.users.Create(ctx, e.acme.ID, kanri.UserInput{Username: name, Email: fmt.Sprintf("%c%s@acme.test", 'z'-i, name), DisplayName: name, Password: password}); err != nil {
			t.Fatal(err)
		}
	}
	c := e.client(t).signIn("acme", "admin")
	base := "/t/" + e.acme.ID + "/users"
	rows := regexp.MustCompile(`data-testid="user-row-([^"]+)"`)
	names := func(page string) []string {
		var out []string
		for _, m := range rows.FindAllStringSubmatch(page, -1) {
			out = append(out, m[1])
		}
		return out
	}
	_, page := c.get(base)
	if got := names(page); len(got) != 20 || got[0] != "admin" {
		t.Fatalf("first page: got %v", got)
	}
	if !strings.Contains(page, `data-testid="list-total">25 in all<`) {
		t.Errorf("the unfiltered list does not show its total of 25")
	}
	if !strings.Contains(page, `aria-sort="ascending"`) {
		t.Errorf("the username column is not marked as the sorted one")
	}
	next := html.UnescapeString(regexp.MustCompile(`href="([^"]+)" rel="next"`).FindStringSubmatch(page)[1])
	_, page2 := c.get(next)
	if got := names(page2); len(got) != 5 || got[4] != "u22" {
		t.Errorf("second page: got %v", got)
	}
	prev := html.UnescapeString(regexp.MustCompile(`href="([^"]+)" rel="prev"`).FindStringSubmatch(page2)[1])
	if _, back := c.get(prev); fmt.Sprint(names(back)) != fmt.Sprint(names(page)) {
		t.Errorf("Previous from the second page: got %v, want the first page", names(back))
	}
	// Sorted by e-mail, descending (the header's second click).
	_, sorted := c.get(base + "?sort=email&desc=1&size=50")
	if got := names(sorted); len(got) != 25 || got[0] != "u00" {
		t.Errorf("by e-mail, descending, 50 a page: got %v", got)
	}
	if !regexp.MustCompile(`<th class="optional" aria-sort="descending"><a href="[^"]*sort=email`).MatchString(sorted) {
		t.Errorf("the e-mail column is not marked descending")
	}
	// Empty: no match, or nothing yet.
	_, none := c.get(base + "?q=nobody")
	if !strings.Contains(none, `data-testid="users-empty"`) || strings.Contains(none, "list-total") {
		t.Errorf("a search without a match does not say so (or shows a total)")
	}
	empty, err := e.tenants.Create(ctx, kanri.TenantInput{Name: "empty", DisplayName: "Empty", Plan: kanri.PlanFree, MaxUsers: 5})
	if err != nil {
		t.Fatal(err)
	}
	staff := e.client(t).signIn("privileged", adminEmail)
	_, page = staff.get("/t/" + empty.ID + "/users")
	if !strings.Contains(page, `data-testid="users-none"`) || !strings.Contains(page, `data-testid="users-create-first"`) {
		t.Errorf("an empty tenant's list does not invite to create the first user")
	}
}

// TestRefusalsReturnToPagesAGetCanOpen checks that a refused action whose
// page was a form shown again after a POST (a URL that only answers POST)
// returns to the start page with its message, not to a 404.
func TestRefusalsReturnToPagesAGetCanOpen(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(t).signIn("acme", "admin")
	userPage := e.srv.URL + "/t/" + e.acme.ID + "/users/" + e.acmeBob.ID
	for _, tt := range []struct{ referer, want string }{
		{userPage, "/"}, // answers POST only
		{userPage + "/edit", userPage[len(e.srv.URL):] + "/edit"}, // a page
	} {
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/t/"+e.acme.ID+"/users/"+e.acmeAdmin.ID+"/delete",
			strings.NewReader(url.Values{"_csrf": {c.csrf}, "etag": {`"old"`}, "state": {"gone"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Referer", tt.referer)
		resp, err := c.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || got != tt.want {
			t.Errorf("refused action from %s: got %d to %q, want 303 to %q", tt.referer, resp.StatusCode, got, tt.want)
		}
	}
}

// TestFilteringAListClearsTheMessage filters lists in place (htmx) after
// an action whose message the page shows: the answer empties the message
// (out of band), and a full page still shows its own.
func TestFilteringAListClearsTheMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	users := "/t/" + e.acme.ID + "/users"
	admin.get(users)
	resp, _ := admin.post(users+"/"+e.acmeBob.ID+"/deactivate", nil)
	wantStatus(t, "deactivate", resp, http.StatusSeeOther)
	_, page := admin.get(users)
	if !strings.Contains(page, `data-testid="flash"`) || strings.Count(page, ` id="flash"`) != 1 {
		t.Fatalf("the page after the action (redirected to %q) shows no message, or more than one place for it", resp.Header.Get("Location"))
	}
	const cleared = `<div id="flash" hx-swap-oob="true"></div>`
	for _, path := range []string{users + "?q=bob", "/t/" + e.acme.ID + "/audit?action=user.deactivate", "/tenants?q=acme"} {
		c := admin
		if strings.HasPrefix(path, "/tenants") {
			c = e.client(t).signIn("privileged", adminEmail)
		}
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
		req.Header.Set("HX-Request", "true")
		resp, err := c.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := string(b); resp.StatusCode != http.StatusOK || !strings.Contains(got, cleared) {
			t.Errorf("%s filtered in place: %d, the message cleared %v", path, resp.StatusCode, strings.Contains(got, cleared))
		}
	}
	if _, page := admin.get(users + "?q=bob"); strings.Contains(page, "hx-swap-oob") {
		t.Error("a full page clears its own message")
	}
}

// TestTheNavigationMarksTheCurrentPage: the side navigation marks the
// page shown (aria-current="page"), and only it.
func TestTheNavigationMarksTheCurrentPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	for _, c := range []struct{ path, nav string }{
		{"/t/" + e.acme.ID + "/users", "nav-users"},
		{"/t/" + e.acme.ID + "/roles", "nav-roles"},
		{"/t/" + e.acme.ID + "/audit", "nav-audit"},
	} {
		_, page := admin.get(c.path)
		if got := strings.Count(page, `aria-current="page"`); got != 1 || !strings.Contains(page, `data-testid="`+c.nav+`" aria-current="page"`) {
			t.Errorf("%s: %d links marked current, want %s alone", c.path, got, c.nav)
		}
	}
}
