package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestAPIConditionalGet answers a GET whose If-None-Match names the
// current ETag with 304 and no body, for a resource and for every list;
// another tag, or a change since, gets the answer again.
func TestAPIConditionalGet(t *testing.T) {
	e := newEnv(t)
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")
	bob := "/api/v1/users/" + e.acmeBob.ID
	for _, path := range []string{bob, "/api/v1/users", "/api/v1/users?limit=1", bob + "/roles", "/api/v1/audit"} {
		first := e.api(t, http.MethodGet, path, rw, nil)
		tag := first.resp.Header.Get("ETag")
		if first.status != http.StatusOK || tag == "" || strings.HasPrefix(tag, "W/") {
			t.Errorf("GET %s: %d, ETag %q", path, first.status, tag)
			continue
		}
		for _, tc := range []struct {
			inm  string
			want int
		}{
			{tag, http.StatusNotModified},
			{`"other", ` + tag, http.StatusNotModified},
			{"W/" + tag, http.StatusNotModified},
			{"*", http.StatusNotModified},
			{`"other"`, http.StatusOK},
		} {
			a := e.api(t, http.MethodGet, path, rw, nil, "If-None-Match", tc.inm)
			if got := a.status; got != tc.want {
				t.Errorf("GET %s If-None-Match %s: got %d, want %d", path, tc.inm, got, tc.want)
			}
			if got := a.resp.Header.Get("ETag"); got != tag {
				t.Errorf("GET %s If-None-Match %s: ETag %q, want %q", path, tc.inm, got, tag)
			}
			if a.status == http.StatusNotModified && len(a.body) != 0 {
				t.Errorf("GET %s: 304 with a body: %s", path, a.body)
			}
		}
	}
	// A change makes the tags held stale: the answer comes again.
	before := e.api(t, http.MethodGet, bob, rw, nil).resp.Header.Get("ETag")
	listBefore := e.api(t, http.MethodGet, "/api/v1/users", rw, nil).resp.Header.Get("ETag")
	if a := e.api(t, http.MethodPatch, bob, rw, map[string]string{"displayName": "Robert"}); a.status != http.StatusOK {
		t.Fatalf("patch: %d %s", a.status, a.body)
	}
	for path, tag := range map[string]string{bob: before, "/api/v1/users": listBefore} {
		if a := e.api(t, http.MethodGet, path, rw, nil, "If-None-Match", tag); a.status != http.StatusOK || !strings.Contains(string(a.body), "Robert") {
			t.Errorf("GET %s after a change with the old tag: got %d %s, want 200 with the change", path, a.status, a.body)
		}
	}
}

// TestAPIListsLinkTheNextPage gives each page of a list hasMore and, while
// there is a next page, a Link header with its absolute URL, which a
// client follows to the end.
func TestAPIListsLinkTheNextPage(t *testing.T) {
	e := newEnv(t)
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")
	for _, path := range []string{"/api/v1/users?limit=1&sort=email", "/api/v1/audit?limit=1"} {
		next, pages, seen := e.srv.URL+path, 0, 0
		for next != "" && pages < 50 {
			u, err := url.Parse(next)
			if err != nil || u.Scheme != "http" || u.Host == "" {
				t.Fatalf("%s: Link URL %q is not absolute", path, next)
			}
			var page struct {
				Items   []map[string]any
				Next    string
				HasMore *bool
			}
			a := e.api(t, http.MethodGet, u.RequestURI(), rw, nil)
			a.decode(&page)
			pages, seen = pages+1, seen+len(page.Items)
			link := a.resp.Header.Get("Link")
			if page.HasMore == nil || *page.HasMore != (page.Next != "") {
				t.Errorf("%s page %d: hasMore %v with next %q", path, pages, page.HasMore, page.Next)
			}
			next = ""
			if page.Next == "" {
				if link != "" {
					t.Errorf("%s: last page has Link %q", path, link)
				}
				continue
			}
			target, ok := strings.CutPrefix(link, "<")
			target, rel, ok2 := strings.Cut(target, ">")
			if !ok || !ok2 || rel != `; rel="next"` {
				t.Fatalf("%s page %d: Link %q", path, pages, link)
			}
			if lu, _ := url.Parse(target); lu.Query().Get("next") != page.Next || lu.Query().Get("limit") != "1" {
				t.Errorf("%s page %d: Link %q does not carry next %q and the request's parameters", path, pages, link, page.Next)
			}
			next = target
		}
		if pages < 2 || seen != pages {
			t.Errorf("%s: %d pages of %d items, want at least 2 pages of one item", path, pages, seen)
		}
	}
}

// TestAPISpeaksTheClientsLanguage answers in English unless the client
// asks for Japanese: role names in messages are the English labels, and
// role assignments keep the spec's ids and role names beside the role's
// English key and its label in the client's language.
func TestAPISpeaksTheClientsLanguage(t *testing.T) {
	e := newEnv(t)
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")
	roles := "/api/v1/users/" + e.acmeBob.ID + "/roles"
	if a := e.api(t, http.MethodPost, roles, rw, map[string]string{"serviceId": "auth-service", "role": "viewer"}); a.status != http.StatusCreated {
		t.Fatalf("assign: %d %s", a.status, a.body)
	}
	for _, tc := range []struct {
		lang, label, detail string
	}{
		{"", "Viewer", "The role Global administrator can be granted only in the operator's tenant."},
		{"en-GB", "Viewer", "The role Global administrator can be granted only in the operator's tenant."},
		{"ja", "閲覧者", "全体管理者は管理会社テナントでのみ付与できます。"},
	} {
		var list struct{ Items []map[string]any }
		e.api(t, http.MethodGet, roles, rw, nil, "Accept-Language", tc.lang).decode(&list)
		if len(list.Items) != 1 {
			t.Fatalf("roles: %v", list.Items)
		}
		ra := list.Items[0]
		if got, want := ra["roleLabel"], tc.label; got != want {
			t.Errorf("Accept-Language %q: roleLabel %v, want %v", tc.lang, got, want)
		}
		if ra["role"] != "viewer" || ra["roleName"] != "閲覧者" || !strings.HasSuffix(ra["id"].(string), "_auth-service_閲覧者") {
			t.Errorf("Accept-Language %q: the assignment lost the spec's id, role name or key: %v", tc.lang, ra)
		}
		a := e.api(t, http.MethodPost, roles, rw, map[string]string{"serviceId": "auth-service", "role": "global_admin"}, "Accept-Language", tc.lang)
		if p := wantProblem(t, "global_admin", a, http.StatusForbidden, "forbidden"); p != nil && p["detail"] != tc.detail {
			t.Errorf("Accept-Language %q: detail %q, want %q", tc.lang, p["detail"], tc.detail)
		}
	}
}
