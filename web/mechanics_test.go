package web

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/views"
)

func TestListPageStartsOverOnABadToken(t *testing.T) {
	tests := []struct {
		name, query    string
		badToken       bool
		wantCalls      []string
		wantOnFirst    bool
		wantNotice     string
		wantNext       string
		wantFirst      string
		wantItemsCount int
	}{
		{"first page", "?q=a", false, []string{""}, true, "", "/x?cursor=n&q=a", "/x?q=a", 1},
		{"later page", "?q=a&cursor=tok", false, []string{"tok"}, false, "", "/x?cursor=n&q=a", "/x?q=a", 1},
		{"bad token", "?q=a&cursor=old", true, []string{"old", ""}, true, "validation.continuation", "/x?cursor=n&q=a", "/x?q=a", 1},
	}
	for _, tt := range tests {
		c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/x"+tt.query, nil), httptest.NewRecorder())
		var calls []string
		items, pg, err := listPage(c, "/x", func(token string) ([]int, string, error) {
			calls = append(calls, token)
			if tt.badToken && token != "" {
				return nil, "", kanri.E(kanri.EINVALID, "validation.continuation")
			}
			return []int{1}, "n", nil
		})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got, want := len(calls), len(tt.wantCalls); got != want || calls[0] != tt.wantCalls[0] || calls[len(calls)-1] != tt.wantCalls[len(tt.wantCalls)-1] {
			t.Errorf("%s: got calls %q, want %q", tt.name, calls, tt.wantCalls)
		}
		want := views.Paging{FirstURL: tt.wantFirst, NextURL: tt.wantNext, OnFirst: tt.wantOnFirst, Notice: tt.wantNotice}
		if pg != want || len(items) != tt.wantItemsCount {
			t.Errorf("%s: got %+v and %d items, want %+v and %d", tt.name, pg, len(items), want, tt.wantItemsCount)
		}
	}
}

func TestListPageReportsOtherErrors(t *testing.T) {
	c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/x", nil), httptest.NewRecorder())
	boom := errors.New("boom")
	if _, _, err := listPage(c, "/x", func(string) ([]int, string, error) { return nil, "", boom }); !errors.Is(err, boom) {
		t.Errorf("got %v, want %v", err, boom)
	}
}

func TestPageURL(t *testing.T) {
	q := url.Values{"q": {"a b"}, "cursor": {"old"}, "empty": {""}}
	tests := []struct{ cursor, want string }{
		{"", "/t/x/users?q=a+b"},
		{"n/1", "/t/x/users?cursor=n%2F1&q=a+b"},
	}
	for _, tt := range tests {
		if got := pageURL("/t/x/users", q, tt.cursor); got != tt.want {
			t.Errorf("cursor %q: got %q, want %q", tt.cursor, got, tt.want)
		}
	}
}

func TestEditFailed(t *testing.T) {
	stored := &kanri.User{Doc: kanri.Doc{ID: "user_1", ETag: `"2"`}, Email: "now@x.test", DisplayName: "Now"}
	inputOf := func(u *kanri.User) kanri.UserInput {
		return kanri.UserInput{Email: u.Email, DisplayName: u.DisplayName}
	}
	reload := func() (*kanri.User, error) { return stored, nil }
	tests := []struct {
		name       string
		err        error
		wantStatus int
		wantErr    bool
	}{
		{"stale", kanri.Stale(), http.StatusConflict, false},
		{"invalid", kanri.Invalid(kanri.Fields{"email": "validation.email"}), http.StatusUnprocessableEntity, false},
		{"other", kanri.E(kanri.EFORBIDDEN, "error.forbidden_body"), 0, true},
	}
	for _, tt := range tests {
		f := views.Edit[kanri.UserInput, *kanri.User]{ETag: `"1"`, Input: kanri.UserInput{Email: "mine@x.test"}}
		got, err := editFailed(&f, tt.err, reload, inputOf)
		if got != tt.wantStatus || (err != nil) != tt.wantErr {
			t.Errorf("%s: got %d, %v; want %d, error %v", tt.name, got, err, tt.wantStatus, tt.wantErr)
		}
		if f.Input.Email != "mine@x.test" {
			t.Errorf("%s: the input was not kept: %+v", tt.name, f.Input)
		}
		switch tt.name {
		case "stale":
			if f.Current != stored || f.ETag != `"2"` || f.Base.Email != "now@x.test" {
				t.Errorf("stale: got current %v etag %s base %+v, want the stored version", f.Current, f.ETag, f.Base)
			}
		case "invalid":
			if f.Errors["email"] != "validation.email" || f.ETag != `"1"` {
				t.Errorf("invalid: got errors %v etag %s", f.Errors, f.ETag)
			}
		}
	}
}

func TestUnreadableShowsEveryError(t *testing.T) {
	validate := func() error { return kanri.Invalid(kanri.Fields{"displayName": "validation.required"}) }
	if err := unreadable(nil, validate); err != nil {
		t.Errorf("nothing unreadable: got %v, want nil (validation is the service's)", err)
	}
	err := unreadable(kanri.Fields{"maxUsers": "validation.max_users"}, validate)
	got, want := kanri.ErrorFields(err), kanri.Fields{"maxUsers": "validation.max_users", "displayName": "validation.required"}
	if !kanri.IsCode(err, kanri.EINVALID) || len(got) != len(want) || got["maxUsers"] != want["maxUsers"] || got["displayName"] != want["displayName"] {
		t.Errorf("got %v, want invalid with %v", err, want)
	}
}

// TestPathsAreRouted checks that every URL the views and handlers build
// reaches a declared route, so that a renamed route cannot leave links to
// nowhere.
func TestPathsAreRouted(t *testing.T) {
	e := echo.New()
	(&Server{}).routes(e)
	declared := map[string]bool{}
	for _, r := range e.Routes() {
		if r.Method != echo.RouteNotFound {
			declared[r.Method+" "+r.Path] = true
		}
	}
	tests := []struct{ method, path, route string }{
		{http.MethodGet, views.TenantsPath(), "/tenants"},
		{http.MethodGet, views.TenantPath("new"), "/tenants/new"},
		{http.MethodGet, views.TenantPath("tenant_a") + "/edit", "/tenants/:id/edit"},
		{http.MethodPost, views.TenantPath("tenant_a") + "/suspend", "/tenants/:id/suspend"},
		{http.MethodGet, views.UsersPath("tenant_a"), "/t/:tenant/users"},
		{http.MethodGet, views.UserPath("tenant_a", "user_b") + "/edit", "/t/:tenant/users/:id/edit"},
		{http.MethodGet, views.UserPath("tenant_a", "user_b") + "/roles", "/t/:tenant/users/:id/roles"},
		{http.MethodGet, views.RolesPath("tenant_a"), "/t/:tenant/roles"},
		{http.MethodGet, views.RoleHoldersPath("tenant_a", "auth-service", "admin"), "/t/:tenant/roles/:service/:role"},
		{http.MethodGet, views.AuditPath("tenant_a"), "/t/:tenant/audit"},
		{http.MethodGet, views.AuditPath("tenant_a") + ".csv", "/t/:tenant/audit.csv"},
		{http.MethodGet, views.AccountPath(), "/account"},
	}
	for _, tt := range tests {
		c := e.NewContext(httptest.NewRequest(tt.method, tt.path, nil), httptest.NewRecorder())
		e.Router().Find(tt.method, tt.path, c)
		if got := c.Path(); got != tt.route || !declared[tt.method+" "+got] {
			t.Errorf("%s %s: routed to %q, want the declared route %q", tt.method, tt.path, got, tt.route)
		}
	}
}
