package web_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
)

// TestAPIConditionalGet answers a GET whose If-None-Match names the
// current ETag with 304 and no body, for a resource and for every list;
// another tag, or a change since, gets the answer again.
func TestAPIConditionalGet(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// TestAPISpeaksTheClientsLanguage answers in English unless the client asks
// for Japanese: role names in messages are the English labels, and role
// assignments keep the data model's ids and role names beside the role's
// English key and its label in the client's language.
func TestAPISpeaksTheClientsLanguage(t *testing.T) {
	t.Parallel()
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

// TestAPIMe shows the request's key, its tenant and its rate limit, and
// never the key's secret or hash.
func TestAPIMe(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, ten := range []*kanri.Tenant{e.acme, e.globex} {
		k, secret := e.apiKey(t, ten.ID, "read")
		a := e.api(t, http.MethodGet, "/api/v1/me", secret, nil)
		if a.status != http.StatusOK {
			t.Fatalf("me: %d %s", a.status, a.body)
		}
		var me struct {
			Key struct {
				ID, Name, Prefix string
				Scopes           []string
			}
			Tenant    struct{ ID, Name string }
			RateLimit struct {
				Limit         int
				Window        string
				WindowSeconds int
			}
		}
		a.decode(&me)
		if me.Key.ID != k.ID || me.Key.Name != k.Name || me.Key.Prefix != k.KeyPrefix || strings.Join(me.Key.Scopes, ",") != "read" {
			t.Errorf("%s: key %+v, want %s %q %s [read]", ten.Name, me.Key, k.ID, k.Name, k.KeyPrefix)
		}
		if me.Tenant.ID != ten.ID || me.Tenant.Name != ten.Name {
			t.Errorf("%s: tenant %+v", ten.Name, me.Tenant)
		}
		if got, want := me.RateLimit.Limit, k.RateLimit; got != want || me.RateLimit.Window != k.RateLimitWindow || me.RateLimit.WindowSeconds != int(k.Window()/time.Second) {
			t.Errorf("%s: rate limit %+v, want %d per %s", ten.Name, me.RateLimit, want, k.RateLimitWindow)
		}
		if body := string(a.body); strings.Contains(body, secret) || strings.Contains(body, k.KeyHash) || strings.Contains(body, "sha256") {
			t.Errorf("%s: /me shows the secret or its hash: %s", ten.Name, body)
		}
	}
}

// TestAPIRoleCatalogue lists the roles a tenant can give, by their
// stable English keys, with labels in the client's language; a customer
// tenant cannot give the global administrator.
func TestAPIRoleCatalogue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, read := e.apiKey(t, e.acme.ID, "read")
	for _, tc := range []struct{ lang, admin, service string }{
		{"", "Administrator", "Authentication and authorisation"},
		{"ja", "管理者", "認証認可サービス"},
	} {
		var list struct {
			Items   []map[string]any
			HasMore bool
		}
		e.api(t, http.MethodGet, "/api/v1/roles", read, nil, "Accept-Language", tc.lang).decode(&list)
		want := 0
		for _, s := range features.Roles().Services() {
			want += len(s.Roles) - 1 // all but 全体管理者, which only the operator's staff may hold
		}
		if got := len(list.Items); got != want || list.HasMore {
			t.Errorf("lang %q: %d roles (hasMore %v), want %d", tc.lang, got, list.HasMore, want)
		}
		found := false
		for _, r := range list.Items {
			if r["role"] == "global_admin" {
				t.Errorf("lang %q: a customer tenant is offered %v", tc.lang, r)
			}
			if r["serviceId"] == kanri.AuthServiceID && r["role"] == "admin" {
				found = true
				if r["label"] != tc.admin || r["serviceName"] != tc.service || r["roleName"] != role.Admin || r["id"] != "service_role_auth-service_admin" {
					t.Errorf("lang %q: auth-service admin %v, want label %q and service %q", tc.lang, r, tc.admin, tc.service)
				}
			}
		}
		if !found {
			t.Errorf("lang %q: no auth-service admin in %v", tc.lang, list.Items)
		}
	}
	// What the catalogue offers can be given.
	bob := "/api/v1/users/" + e.acmeBob.ID + "/roles"
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")
	if a := e.api(t, http.MethodPost, bob, rw, map[string]string{"serviceId": kanri.FileServiceID, "role": "viewer"}); a.status != http.StatusCreated {
		t.Errorf("give a catalogue role: %d %s", a.status, a.body)
	}
}

// keyOfNewAdmin returns a key made by a new administrator of acme, who is not its
// last: the key can deactivate or delete its own creator.
func (e *env) keyOfNewAdmin(t *testing.T, username string) (*kanri.User, string) {
	t.Helper()
	ctx := e.asAdmin(e.acme.ID)
	u, err := e.users.Create(ctx, e.acme.ID, kanri.UserInput{Username: username, Email: username + "@acme.test", DisplayName: username, Password: password})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.roles.Assign(ctx, role.Grant{Tenant: e.acme, UserID: u.ID, ServiceID: kanri.AuthServiceID, RoleName: role.Admin}); err != nil {
		t.Fatal(err)
	}
	e.apiKey(t, e.acme.ID, "read") // the API service
	by := audit.WithActor(context.Background(), audit.Actor{UserID: u.ID, UserName: u.Username, TenantID: e.acme.ID})
	_, secret, err := e.keys.Create(by, e.acme.ID, apikey.Input{Name: "by " + username, Scopes: []string{"read", "write"}})
	if err != nil {
		t.Fatal(err)
	}
	return u, secret
}

// TestAKeyDoesNotDisableItselfUnasked refuses to deactivate or delete the
// key's own creator (which disables the key) without confirm, changing
// nothing, and does it with confirm=disable-this-key.
func TestAKeyDoesNotDisableItselfUnasked(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct {
		method, action string
		want           int
	}{
		{http.MethodPost, "/deactivate", http.StatusOK},
		{http.MethodDelete, "", http.StatusNoContent},
	} {
		u, secret := e.keyOfNewAdmin(t, "carol"+strings.TrimPrefix(tc.action, "/"))
		path := "/api/v1/users/" + u.ID + tc.action
		p := wantProblem(t, tc.method+" "+path, e.api(t, tc.method, path, secret, nil), http.StatusConflict, "conflict")
		if p != nil && !strings.Contains(p["detail"].(string), "confirm=disable-this-key") {
			t.Errorf("%s %s: detail %q does not say how to confirm", tc.method, path, p["detail"])
		}
		// Any other value of confirm is a parameter the API does not take.
		p = wantProblem(t, tc.method+" "+path+"?confirm=yes", e.api(t, tc.method, path+"?confirm=yes", secret, nil), http.StatusBadRequest, "bad-request")
		if p != nil && !strings.Contains(p["detail"].(string), "confirm") {
			t.Errorf("%s %s?confirm=yes: detail %q does not name the parameter", tc.method, path, p["detail"])
		}
		if got, _ := e.users.Get(context.Background(), e.acme.ID, u.ID); !got.IsActive || !got.DeletedAt.IsZero() {
			t.Fatalf("%s %s refused, but the user changed: %+v", tc.method, path, got)
		}
		if a := e.api(t, tc.method, path+"?confirm=disable-this-key", secret, nil); a.status != tc.want {
			t.Fatalf("%s %s confirmed: got %d, want %d: %s", tc.method, path, a.status, tc.want, a.body)
		}
		wantProblem(t, "the key after its creator left", e.api(t, http.MethodGet, "/api/v1/me", secret, nil), http.StatusUnauthorized, "unauthenticated")
	}
}

// TestAPIDeleteUser soft-deletes a user as the console does: If-Match
// honoured, roles removed, the last administrator kept, another tenant's
// key shown nothing.
func TestAPIDeleteUser(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")
	_, globex := e.apiKey(t, e.globex.ID, "read", "write")
	bob := "/api/v1/users/" + e.acmeBob.ID
	if a := e.api(t, http.MethodPost, bob+"/roles", rw, map[string]string{"serviceId": "auth-service", "role": "viewer"}); a.status != http.StatusCreated {
		t.Fatalf("assign: %d %s", a.status, a.body)
	}
	wantProblem(t, "globex deletes acme's user", e.api(t, http.MethodDelete, bob, globex, nil), http.StatusNotFound, "not-found")
	wantProblem(t, "stale If-Match", e.api(t, http.MethodDelete, bob, rw, nil, "If-Match", `"old"`), http.StatusPreconditionFailed, "stale")
	if u, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID); !u.DeletedAt.IsZero() {
		t.Fatal("deleted through a stale If-Match or another tenant's key")
	}
	tag := e.api(t, http.MethodGet, bob, rw, nil).resp.Header.Get("ETag")
	if a := e.api(t, http.MethodDelete, bob, rw, nil, "If-Match", tag); a.status != http.StatusNoContent || len(a.body) != 0 {
		t.Fatalf("delete: %d %s", a.status, a.body)
	}
	u, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID)
	if u.DeletedAt.IsZero() || u.IsActive {
		t.Errorf("after delete: %+v", u)
	}
	if ras, _ := e.roles.ForUser(context.Background(), e.acme.ID, e.acmeBob.ID); len(ras) != 0 {
		t.Errorf("a deleted user keeps roles: %v", ras)
	}
	wantProblem(t, "delete again", e.api(t, http.MethodDelete, bob, rw, nil), http.StatusNotFound, "not-found")
	var list struct{ Items []map[string]any }
	e.api(t, http.MethodGet, "/api/v1/audit?action=user.delete", rw, nil).decode(&list)
	if len(list.Items) != 1 || !strings.HasPrefix(list.Items[0]["userName"].(string), "API key ") {
		t.Errorf("audit of the delete: %v", list.Items)
	}
	// The last administrator stays, confirmed or not (the console's rule).
	admin := "/api/v1/users/" + e.acmeAdmin.ID + "?confirm=disable-this-key"
	wantProblem(t, "delete the last administrator", e.api(t, http.MethodDelete, admin, rw, nil), http.StatusConflict, "conflict")
	if u, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeAdmin.ID); !u.DeletedAt.IsZero() {
		t.Error("the last administrator was deleted")
	}
}

// TestAPIIdempotencyKey makes a POST sent twice with one Idempotency-Key
// happen once, the second answer a replay of the first; the key with
// another request is 422, while its first request is served 409, after a
// 5xx free; keys are each API key's own.
func TestAPIIdempotencyKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	k, rw := e.apiKey(t, e.acme.ID, "read", "write")
	_, rw2 := e.apiKey(t, e.acme.ID, "read", "write")
	_, globex := e.apiKey(t, e.globex.ID, "read", "write")
	erin := map[string]string{"username": "erin", "email": "erin@acme.test", "displayName": "Erin", "password": password}
	creates := func() int {
		var list struct{ Items []map[string]any }
		e.api(t, http.MethodGet, "/api/v1/audit?action=user.create", rw, nil).decode(&list)
		return len(list.Items)
	}
	before := creates()

	first := e.api(t, http.MethodPost, "/api/v1/users", rw, erin, "Idempotency-Key", "create-erin")
	if first.status != http.StatusCreated || first.resp.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: %d %v %s", first.status, first.resp.Header, first.body)
	}
	again := e.api(t, http.MethodPost, "/api/v1/users", rw, erin, "Idempotency-Key", "create-erin")
	if got, want := again.status, first.status; got != want {
		t.Errorf("again: got %d, want %d", got, want)
	}
	for _, h := range []string{"Location", "ETag", "Content-Type"} {
		if got, want := again.resp.Header.Get(h), first.resp.Header.Get(h); got != want {
			t.Errorf("again: %s %q, want %q", h, got, want)
		}
	}
	if got, want := string(again.body), string(first.body); got != want {
		t.Errorf("again: body %s, want %s", got, want)
	}
	if got := again.resp.Header.Get("Idempotent-Replayed"); got != "true" {
		t.Errorf("again: Idempotent-Replayed %q, want true", got)
	}
	if got, want := creates(), before+1; got != want {
		t.Errorf("%d user.create records, want %d", got, want)
	}

	// The key with another request: another body, another path.
	other := map[string]string{"username": "erin2", "email": "erin2@acme.test", "displayName": "Erin", "password": password}
	for _, tc := range []struct {
		path string
		body any
	}{{"/api/v1/users", other}, {"/api/v1/users/" + e.acmeBob.ID + "/deactivate", nil}} {
		p := wantProblem(t, "reused for "+tc.path, e.api(t, http.MethodPost, tc.path, rw, tc.body, "Idempotency-Key", "create-erin"), http.StatusUnprocessableEntity, "invalid")
		if p != nil && !strings.Contains(p["detail"].(string), "Idempotency-Key") {
			t.Errorf("reused: detail %q", p["detail"])
		}
	}
	if u, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID); !u.IsActive {
		t.Error("a reused key's request was served")
	}
	// Another API key, and another tenant's, have keys of their own.
	if a := e.api(t, http.MethodPost, "/api/v1/users", rw2, other, "Idempotency-Key", "create-erin"); a.status != http.StatusCreated || a.resp.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("another key: %d %s", a.status, a.body)
	}
	if a := e.api(t, http.MethodPost, "/api/v1/users", globex, erin, "Idempotency-Key", "create-erin"); a.status != http.StatusCreated || a.resp.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("another tenant: %d %s", a.status, a.body)
	}

	// A key whose first request is still being served: 409, nothing done.
	busy := map[string]string{"username": "fay", "email": "fay@acme.test", "displayName": "Fay", "password": password}
	sent, _ := json.Marshal(busy)
	sum := sha256.Sum256(append([]byte("POST /api/v1/users\n"), sent...))
	if _, err := e.keys.ClaimIdempotency(context.Background(), k, "create-fay", hex.EncodeToString(sum[:])); err != nil {
		t.Fatal(err)
	}
	wantProblem(t, "while served", e.api(t, http.MethodPost, "/api/v1/users", rw, busy, "Idempotency-Key", "create-fay"), http.StatusConflict, "conflict")
	var users struct{ Items []map[string]any }
	e.api(t, http.MethodGet, "/api/v1/users?q=fay", rw, nil).decode(&users)
	if len(users.Items) != 0 {
		t.Errorf("created while its key was claimed: %v", users.Items)
	}

	// A 5xx is not kept: the key serves the request again.
	deactivate := "/api/v1/users/" + e.acmeBob.ID + "/deactivate"
	t.Run("busy", func(t *testing.T) {
		e.faults.contendOn(t, e.acmeBob.ID)
		wantProblem(t, "contended", e.api(t, http.MethodPost, deactivate, rw, nil, "Idempotency-Key", "off-bob"), http.StatusServiceUnavailable, "unavailable")
	})
	if a := e.api(t, http.MethodPost, deactivate, rw, nil, "Idempotency-Key", "off-bob"); a.status != http.StatusOK || a.resp.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("after a 503: %d %v %s", a.status, a.resp.Header, a.body)
	}
	if a := e.api(t, http.MethodPost, deactivate, rw, nil, "Idempotency-Key", "off-bob"); a.status != http.StatusOK || a.resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replayed deactivation: %d %v", a.status, a.resp.Header)
	}

	// A malformed key is refused, naming the header.
	for _, key := range []string{strings.Repeat("k", 256), "tab\there", "ключ"} {
		p := wantProblem(t, "key "+key[:3], e.api(t, http.MethodPost, "/api/v1/users", rw, busy, "Idempotency-Key", key), http.StatusUnprocessableEntity, "invalid")
		if errs, _ := p["errors"].(map[string]any); errs["Idempotency-Key"] == nil {
			t.Errorf("key %q: errors %v", key, p["errors"])
		}
	}
}
