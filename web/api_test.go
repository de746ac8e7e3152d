package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
)

// apiKey makes the API service usable in a tenant and returns a new key's
// secret with the given scopes.
func (e *env) apiKey(t *testing.T, tenantID string, scopes ...string) (*kanri.APIKey, string) {
	t.Helper()
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true})
	if _, _, err := e.catalog.Assign(ctx, tenantID, kanri.AssignmentInput{ServiceID: kanri.APIServiceID}); err != nil {
		t.Fatal(err)
	}
	k, secret, err := e.keys.Create(e.asAdmin(tenantID), tenantID, apikey.Input{Name: "test " + strings.Join(scopes, "+"), Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	return k, secret
}

// asAdmin is a context acting as the administrator of acme or globex: a
// key does what its creator may.
func (e *env) asAdmin(tenantID string) context.Context {
	admin := e.acmeAdmin
	if tenantID == e.globex.ID {
		admin = e.globAdmin
	}
	return audit.WithActor(context.Background(), audit.Actor{UserID: admin.ID, UserName: admin.Username, TenantID: tenantID})
}

// apiCall is one API request's answer.
type apiCall struct {
	t      *testing.T
	resp   *http.Response
	body   []byte
	status int
}

// problem decodes a problem answer.
func (a apiCall) problem() map[string]any {
	a.t.Helper()
	if ct := a.resp.Header.Get("Content-Type"); ct != "application/problem+json" {
		a.t.Fatalf("content type %q, want application/problem+json: %s", ct, a.body)
	}
	var p map[string]any
	if err := json.Unmarshal(a.body, &p); err != nil {
		a.t.Fatal(err)
	}
	return p
}

func (a apiCall) decode(v any) {
	a.t.Helper()
	if err := json.Unmarshal(a.body, v); err != nil {
		a.t.Fatalf("%v: %s", err, a.body)
	}
}

// api calls the API with a key (none when empty); body, when not nil, is
// sent as JSON. The call is checked against the OpenAPI document: each
// way the request or its answer differs from it is an error of t.
func (e *env) api(t *testing.T, method, path, secret string, body any, headers ...string) apiCall {
	t.Helper()
	var sent []byte
	if s, ok := body.(string); ok {
		sent = []byte(s)
	} else if body != nil {
		sent, _ = json.Marshal(body)
	}
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(sent)
	}
	req, _ := http.NewRequest(method, e.srv.URL+path, r)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if secret != "" {
		req.Header.Set("Authorization", "Bearer "+secret)
	}
	given := map[string]bool{"Authorization": secret != ""} // a header named twice (Authorization with a secret) is sent twice
	for i := 0; i+1 < len(headers); i += 2 {
		if given[headers[i]] {
			req.Header.Add(headers[i], headers[i+1])
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
		given[headers[i]] = true
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	servedDocument.check(t, e.srv.URL, req, sent, resp, b)
	return apiCall{t: t, resp: resp, body: b, status: resp.StatusCode}
}

func wantProblem(t *testing.T, what string, a apiCall, status int, typ string) map[string]any {
	t.Helper()
	if a.status != status {
		t.Errorf("%s: got %d, want %d: %s", what, a.status, status, a.body)
		return nil
	}
	p := a.problem()
	// The type is the address of its description on the docs page of the
	// server called; the instance is the request's id, as a URN.
	wantType := a.resp.Request.URL.Scheme + "://" + a.resp.Request.URL.Host + "/api/v1/docs#problem-" + typ
	if p["type"] != wantType || p["status"] != float64(status) || p["title"] == "" {
		t.Errorf("%s: problem %v, want type %s", what, p, wantType)
	}
	if got, want := p["instance"], "urn:kanri:request:"+a.resp.Header.Get("X-Request-Id"); got != want || want == "urn:kanri:request:" {
		t.Errorf("%s: problem instance %v, want %s", what, got, want)
	}
	return p
}

func TestAPIKeysAuthenticate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	k, secret := e.apiKey(t, e.acme.ID, "read")
	swap := byte('0') // one character changed
	if secret[20] == '0' {
		swap = '1'
	}
	typo := secret[:20] + string(swap) + secret[21:]
	for _, tc := range []struct{ name, header string }{
		{"no header", ""},
		{"not bearer", "Basic " + secret},
		{"empty bearer", "Bearer "},
		{"one wrong character", "Bearer " + typo},
		{"unknown key", "Bearer " + mustNewSecret(t, e)},
	} {
		a := e.api(t, http.MethodGet, "/api/v1/users", "", nil, "Authorization", tc.header)
		wantProblem(t, tc.name, a, http.StatusUnauthorized, "unauthenticated")
		if !strings.HasPrefix(a.resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: no WWW-Authenticate", tc.name)
		}
		if strings.Contains(string(a.body), secret[8:20]) {
			t.Errorf("%s: the answer echoes the key", tc.name)
		}
	}
	if a := e.api(t, http.MethodGet, "/api/v1/users", secret, nil); a.status != http.StatusOK {
		t.Fatalf("a good key: %d %s", a.status, a.body)
	}
	// Deactivated, reactivated, expired, revoked.
	ctx := context.Background()
	e.keys.SetActive(ctx, e.acme.ID, k.ID, kanri.Seen{}, false)
	wantProblem(t, "deactivated", e.api(t, http.MethodGet, "/api/v1/users", secret, nil), http.StatusUnauthorized, "unauthenticated")
	e.keys.SetActive(ctx, e.acme.ID, k.ID, kanri.Seen{}, true)
	if a := e.api(t, http.MethodGet, "/api/v1/users", secret, nil); a.status != http.StatusOK {
		t.Errorf("reactivated: %d", a.status)
	}
	e.keys.Revoke(ctx, e.acme.ID, k.ID, kanri.Seen{})
	p := wantProblem(t, "revoked", e.api(t, http.MethodGet, "/api/v1/users", secret, nil), http.StatusUnauthorized, "unauthenticated")
	if p != nil && !strings.Contains(p["detail"].(string), "revoked") {
		t.Errorf("revoked: detail %q", p["detail"])
	}
	// Today in the tenant's time zone, where the key's last day is: the
	// UTC date is yesterday there for part of every day.
	today := e.clock.Now().In(e.acme.Location()).Format("2006-01-02")
	exp, expSecret, _ := e.keys.Create(e.asAdmin(e.acme.ID), e.acme.ID, apikey.Input{Name: "short", Scopes: []string{"read"}, ExpiresAt: today})
	if a := e.api(t, http.MethodGet, "/api/v1/users", expSecret, nil); a.status != http.StatusOK {
		t.Errorf("before expiry: %d", a.status)
	}
	e.clock.Advance(48 * time.Hour)
	p = wantProblem(t, "expired "+exp.Name, e.api(t, http.MethodGet, "/api/v1/users", expSecret, nil), http.StatusUnauthorized, "unauthenticated")
	if p != nil && !strings.Contains(p["detail"].(string), "expired") {
		t.Errorf("expired: detail %q", p["detail"])
	}
}

func mustNewSecret(t *testing.T, e *env) string {
	t.Helper()
	k, s, err := e.keys.Create(context.Background(), e.globex.ID, apikey.Input{Name: "gone", Scopes: []string{"read"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.keys.Revoke(context.Background(), e.globex.ID, k.ID, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAPIScopesAndService(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, read := e.apiKey(t, e.acme.ID, "read")
	_, write := e.apiKey(t, e.acme.ID, "write")
	wantProblem(t, "read key creates", e.api(t, http.MethodPost, "/api/v1/users", read, map[string]string{"username": "x"}), http.StatusForbidden, "forbidden")
	wantProblem(t, "write key lists", e.api(t, http.MethodGet, "/api/v1/users", write, nil), http.StatusForbidden, "forbidden")
	// A suspended API service takes the API away.
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", GlobalAdmin: true})
	if _, err := e.catalog.Suspend(ctx, e.acme.ID, kanri.APIServiceID, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	p := wantProblem(t, "suspended service", e.api(t, http.MethodGet, "/api/v1/users", read, nil), http.StatusForbidden, "forbidden")
	if p != nil && !strings.Contains(p["detail"].(string), "suspended") {
		t.Errorf("suspended: detail %q", p["detail"])
	}
}

func TestAPIUsers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")
	_, globex := e.apiKey(t, e.globex.ID, "read", "write")

	// Create, with every kind of bad input first.
	good := map[string]string{"username": "dave", "email": "dave@acme.test", "displayName": "Dave", "password": "Dave-pass-1234"}
	wantProblem(t, "bad JSON", e.api(t, http.MethodPost, "/api/v1/users", rw, `{"username":`), http.StatusBadRequest, "bad-request")
	wantProblem(t, "unknown field", e.api(t, http.MethodPost, "/api/v1/users", rw, `{"username":"x","isAdmin":true}`), http.StatusBadRequest, "bad-request")
	wantProblem(t, "two values", e.api(t, http.MethodPost, "/api/v1/users", rw, `{} {}`), http.StatusBadRequest, "bad-request")
	wantProblem(t, "wrong type", e.api(t, http.MethodPost, "/api/v1/users", rw, `{"username": 5}`), http.StatusBadRequest, "bad-request")
	wantProblem(t, "form body", e.api(t, http.MethodPost, "/api/v1/users", rw, nil, "Content-Type", "application/x-www-form-urlencoded"), http.StatusUnsupportedMediaType, "unsupported-media-type")
	big := `{"displayName":"` + strings.Repeat("x", 70<<10) + `"}`
	wantProblem(t, "oversized", e.api(t, http.MethodPost, "/api/v1/users", rw, big), http.StatusRequestEntityTooLarge, "too-large")
	p := wantProblem(t, "invalid", e.api(t, http.MethodPost, "/api/v1/users", rw, map[string]string{"username": "eve", "email": "nope", "displayName": "Eve", "password": "short"}), http.StatusUnprocessableEntity, "invalid")
	if errs, _ := p["errors"].(map[string]any); errs["email"] == nil || errs["password"] == nil {
		t.Errorf("field errors: %v", p["errors"])
	}
	created := e.api(t, http.MethodPost, "/api/v1/users", rw, good)
	if created.status != http.StatusCreated || created.resp.Header.Get("ETag") == "" || !strings.HasPrefix(created.resp.Header.Get("Location"), "/api/v1/users/user_") {
		t.Fatalf("create: %d %v %s", created.status, created.resp.Header, created.body)
	}
	var dave map[string]any
	created.decode(&dave)
	if dave["username"] != "dave" || dave["tenantId"] != e.acme.ID || dave["passwordHash"] != nil || strings.Contains(string(created.body), "security") {
		t.Errorf("created user: %s", created.body)
	}
	id := dave["id"].(string)
	wantProblem(t, "create again", e.api(t, http.MethodPost, "/api/v1/users", rw, good), http.StatusUnprocessableEntity, "invalid")

	// Read and list, paged.
	got := e.api(t, http.MethodGet, "/api/v1/users/"+id, rw, nil)
	tag := got.resp.Header.Get("ETag")
	if got.status != http.StatusOK || tag == "" {
		t.Fatalf("read: %d %s", got.status, got.body)
	}
	var page struct {
		Items []map[string]any
		Next  string
	}
	e.api(t, http.MethodGet, "/api/v1/users?limit=2", rw, nil).decode(&page)
	seen := len(page.Items)
	for page.Next != "" {
		next := page.Next
		page.Next = ""
		e.api(t, http.MethodGet, "/api/v1/users?limit=2&next="+url.QueryEscape(next), rw, nil).decode(&page)
		seen += len(page.Items)
	}
	if seen != 3 { // admin, bob, dave
		t.Errorf("listed %d users over the pages, want 3", seen)
	}
	wantProblem(t, "bad limit", e.api(t, http.MethodGet, "/api/v1/users?limit=1000", rw, nil), http.StatusBadRequest, "bad-request")
	for _, path := range []string{"/api/v1/users?next=garbage", "/api/v1/audit?next=garbage"} {
		p := wantProblem(t, "bad next", e.api(t, http.MethodGet, path, rw, nil), http.StatusUnprocessableEntity, "invalid")
		if d, _ := p["detail"].(string); !strings.Contains(d, "next") || strings.Contains(d, "first page") {
			t.Errorf("GET %s: detail %q, want it to name next and not promise a first page it does not show", path, d)
		}
	}

	// Update with If-Match: the right ETag saves, a stale one is 412.
	upd := e.api(t, http.MethodPatch, "/api/v1/users/"+id, rw, map[string]string{"displayName": "David"}, "If-Match", tag)
	if upd.status != http.StatusOK || upd.resp.Header.Get("ETag") == tag {
		t.Fatalf("update: %d %s", upd.status, upd.body)
	}
	wantProblem(t, "stale If-Match", e.api(t, http.MethodPatch, "/api/v1/users/"+id, rw, map[string]string{"displayName": "Dee"}, "If-Match", tag), http.StatusPreconditionFailed, "stale")
	if u, _ := e.users.Get(context.Background(), e.acme.ID, id); u.DisplayName != "David" {
		t.Errorf("after the stale update: %q", u.DisplayName)
	}
	// Deactivate (a stale If-Match changes nothing), then reactivate.
	wantProblem(t, "stale deactivate", e.api(t, http.MethodPost, "/api/v1/users/"+id+"/deactivate", rw, nil, "If-Match", tag), http.StatusPreconditionFailed, "stale")
	if a := e.api(t, http.MethodPost, "/api/v1/users/"+id+"/deactivate", rw, nil); a.status != http.StatusOK || !strings.Contains(string(a.body), `"isActive":false`) {
		t.Errorf("deactivate: %d %s", a.status, a.body)
	}
	if a := e.api(t, http.MethodPost, "/api/v1/users/"+id+"/reactivate", rw, nil); a.status != http.StatusOK || !strings.Contains(string(a.body), `"isActive":true`) {
		t.Errorf("reactivate: %d %s", a.status, a.body)
	}
	if a := e.api(t, http.MethodPost, "/api/v1/users/"+id+"/deactivate", rw, nil); a.status != http.StatusOK {
		t.Errorf("deactivate again: %d %s", a.status, a.body)
	}

	// Another tenant's key: acme's ids do not exist for it, a role dave
	// holds included.
	if a := e.api(t, http.MethodPost, "/api/v1/users/"+id+"/roles", rw, map[string]string{"serviceId": "auth-service", "role": "viewer"}); a.status != http.StatusCreated {
		t.Fatalf("give dave a role: %d %s", a.status, a.body)
	}
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, "/api/v1/users/" + id},
		{http.MethodPatch, "/api/v1/users/" + id},
		{http.MethodPost, "/api/v1/users/" + id + "/reactivate"},
		{http.MethodDelete, "/api/v1/users/" + id + "?confirm=disable-this-key"},
		{http.MethodGet, "/api/v1/users/" + id + "/roles"},
		{http.MethodGet, "/api/v1/users/" + id + "/roles/auth-service/viewer"},
		{http.MethodDelete, "/api/v1/users/" + id + "/roles/auth-service/viewer"},
	} {
		var body any
		if c.method == http.MethodPatch {
			body = map[string]string{"displayName": "pwned"}
		}
		wantProblem(t, "globex "+c.method+" "+c.path, e.api(t, c.method, c.path, globex, body), http.StatusNotFound, "not-found")
	}
	var list struct{ Items []map[string]any }
	e.api(t, http.MethodGet, "/api/v1/users?q=dave", globex, nil).decode(&list)
	if len(list.Items) != 0 {
		t.Errorf("globex lists acme's users: %v", list.Items)
	}
	if u, _ := e.users.Get(context.Background(), e.acme.ID, id); u.DisplayName != "David" || u.IsActive {
		t.Errorf("acme's user changed through globex's key: %+v", u)
	}
	wantProblem(t, "unknown route", e.api(t, http.MethodGet, "/api/v1/nothing", rw, nil), http.StatusNotFound, "not-found")
}

func TestAPIRolesAndAudit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")
	bob := "/api/v1/users/" + e.acmeBob.ID + "/roles"
	a := e.api(t, http.MethodPost, bob, rw, map[string]string{"serviceId": "auth-service", "role": "viewer"})
	if a.status != http.StatusCreated || !strings.Contains(string(a.body), `"role":"viewer"`) {
		t.Fatalf("assign: %d %s", a.status, a.body)
	}
	if a := e.api(t, http.MethodPost, bob, rw, map[string]string{"serviceId": "auth-service", "role": "viewer"}); a.status != http.StatusOK {
		t.Errorf("assign again: %d", a.status)
	}
	wantProblem(t, "unknown role", e.api(t, http.MethodPost, bob, rw, map[string]string{"serviceId": "auth-service", "role": "owner"}), http.StatusUnprocessableEntity, "invalid")
	wantProblem(t, "global admin in a customer tenant", e.api(t, http.MethodPost, bob, rw, map[string]string{"serviceId": "auth-service", "role": "global_admin"}), http.StatusForbidden, "forbidden")
	var roles struct{ Items []map[string]any }
	e.api(t, http.MethodGet, bob, rw, nil).decode(&roles)
	if len(roles.Items) != 1 || roles.Items[0]["serviceId"] != "auth-service" {
		t.Errorf("roles: %v", roles.Items)
	}
	// The new assignment's Location is the path that takes it back.
	if got, want := a.resp.Header.Get("Location"), bob+"/auth-service/viewer"; got != want {
		t.Errorf("assign: Location %q, want %q", got, want)
	}
	if a := e.api(t, http.MethodDelete, a.resp.Header.Get("Location"), rw, nil); a.status != http.StatusNoContent {
		t.Errorf("remove: %d %s", a.status, a.body)
	}
	// The last administrator keeps the role.
	wantProblem(t, "remove the last admin", e.api(t, http.MethodDelete, "/api/v1/users/"+e.acmeAdmin.ID+"/roles/auth-service/admin", rw, nil), http.StatusConflict, "conflict")

	// The audit log shows what the key did, as the key.
	var audits struct{ Items []map[string]any }
	e.api(t, http.MethodGet, "/api/v1/audit?action=role.&limit=10", rw, nil).decode(&audits)
	byKey := 0
	for _, r := range audits.Items {
		if strings.HasPrefix(r["userName"].(string), "API key test read+write (ak_live_") {
			byKey++
		}
	}
	if byKey != 2 { // the assign and the remove
		t.Errorf("audit records of the key: %d, want 2", byKey)
	}
	wantProblem(t, "bad date", e.api(t, http.MethodGet, "/api/v1/audit?from=yesterday", rw, nil), http.StatusUnprocessableEntity, "invalid")
}

func TestAPIRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.apiKey(t, e.acme.ID, "read")
	_, secret, err := e.keys.Create(e.asAdmin(e.acme.ID), e.acme.ID, apikey.Input{Name: "tight", Scopes: []string{"read"}, RateLimit: "3", RateLimitWindow: "1m"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		a := e.api(t, http.MethodGet, "/api/v1/users", secret, nil)
		if a.status != http.StatusOK {
			t.Fatalf("call %d: %d", i+1, a.status)
		}
		if got, want := a.resp.Header.Get("RateLimit-Remaining"), string(rune('2'-i)); got != want {
			t.Errorf("call %d: RateLimit-Remaining %q, want %q", i+1, got, want)
		}
	}
	a := e.api(t, http.MethodGet, "/api/v1/users", secret, nil)
	wantProblem(t, "over the limit", a, http.StatusTooManyRequests, "rate-limited")
	if a.resp.Header.Get("Retry-After") == "" || a.resp.Header.Get("RateLimit-Limit") != "3" || a.resp.Header.Get("RateLimit-Remaining") != "0" {
		t.Errorf("429 headers: %v", a.resp.Header)
	}
	e.clock.Advance(time.Minute)
	if a := e.api(t, http.MethodGet, "/api/v1/users", secret, nil); a.status != http.StatusOK {
		t.Errorf("the next window: %d", a.status)
	}
}

// TestAPIUsageIsLogged checks that calls reach the usage log (by route
// pattern, not raw path), the service usage and the console's pages.
func TestAPIUsageIsLogged(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	k, secret := e.apiKey(t, e.acme.ID, "read")
	e.api(t, http.MethodGet, "/api/v1/users/"+e.acmeBob.ID, secret, nil)
	e.clock.Advance(time.Second) // the test's clock stands still otherwise: equal times order by id
	e.api(t, http.MethodGet, "/api/v1/users/user_missing", secret, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := e.usage.Run(ctx); err != nil { // a stopped recorder writes what is queued
		t.Fatal(err)
	}
	calls, _, err := e.keys.Calls(context.Background(), e.acme.ID, apikey.CallFilter{KeyID: k.ID})
	if err != nil || len(calls) != 2 {
		t.Fatalf("logged calls: %v, %v", calls, err)
	}
	for _, c := range calls {
		if c.Endpoint != "/api/v1/users/:id" || c.Method != http.MethodGet || c.APIKeyID != k.ID {
			t.Errorf("logged call %+v", c)
		}
	}
	if calls[0].StatusCode != 404 || calls[1].StatusCode != 200 {
		t.Errorf("statuses newest first: %d, %d", calls[0].StatusCode, calls[1].StatusCode)
	}
	u, err := e.catalog.RecentUsage(context.Background(), e.acme.ID, kanri.APIServiceID, 1)
	if err != nil || u[0].Metrics[kanri.MetricAPICalls] != 2 {
		t.Errorf("service usage: %v, %v", u, err)
	}
	admin := e.client(t).signIn("acme", "admin")
	_, body := admin.get("/t/" + e.acme.ID + "/api-keys/usage")
	for _, want := range []string{`data-testid="usage-calls">2<`, `50.0%`, `data-endpoint="/api/v1/users/:id"`, `<td class="mono">GET /api/v1/users/:id</td><td>2</td>`} {
		if !strings.Contains(body, want) {
			t.Errorf("usage page: no %s", want)
		}
	}
	_, body = admin.get("/t/" + e.acme.ID + "/api-keys/" + k.ID + "?status=4xx")
	if n := strings.Count(body, `data-testid="usage-call"`); n != 1 {
		t.Errorf("4xx calls of the key: %d rows, want 1", n)
	}
	gl := e.client(t).signIn("globex", "admin")
	resp, _ := gl.get("/t/" + e.globex.ID + "/api-keys/" + k.ID)
	wantStatus(t, "globex opens acme's key", resp, http.StatusNotFound)
}

// TestOpenAPIDocumentsEveryRoute checks the OpenAPI document against the
// routes the server really has, both ways, and its references.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.api(t, http.MethodGet, "/api/v1/openapi.json", "", nil)
	if a.status != http.StatusOK {
		t.Fatalf("openapi.json: %d", a.status)
	}
	var doc struct {
		OpenAPI    string                               `json:"openapi"`
		Servers    []struct{ URL string }               `json:"servers"`
		Paths      map[string]map[string]map[string]any `json:"paths"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	a.decode(&doc)
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi: %q", doc.OpenAPI)
	}
	// The server is the absolute address of the API as it was reached;
	// the paths are under it.
	if want := e.srv.URL + "/api/v1"; len(doc.Servers) != 1 || doc.Servers[0].URL != want {
		t.Errorf("servers %+v, want one: %s", doc.Servers, want)
	}
	param := regexp.MustCompile(`:([A-Za-z]+)`)
	served := map[string]bool{}
	for _, r := range e.routes() {
		if strings.HasPrefix(r.Name, "api:") {
			p := strings.TrimPrefix(param.ReplaceAllString(r.Path, "{$1}"), "/api/v1")
			served[strings.ToLower(r.Method)+" "+p] = true
			op := doc.Paths[p][strings.ToLower(r.Method)]
			if op == nil {
				t.Errorf("%s %s is served but not documented", r.Method, r.Path)
				continue
			}
			if scope := strings.TrimPrefix(r.Name, "api:"); op["x-kanri-scope"] != scope {
				t.Errorf("%s %s: documented scope %v, served %s", r.Method, r.Path, op["x-kanri-scope"], scope)
			}
		}
	}
	for p, ops := range doc.Paths {
		for m := range ops {
			if !served[m+" "+p] {
				t.Errorf("%s %s is documented but not served", m, p)
			}
		}
	}
	if len(served) < 10 {
		t.Errorf("only %d API routes", len(served))
	}
	for _, ref := range regexp.MustCompile(`"#/components/schemas/([A-Za-z]+)"`).FindAllStringSubmatch(string(a.body), -1) {
		if doc.Components.Schemas[ref[1]] == nil {
			t.Errorf("reference to the undefined schema %s", ref[1])
		}
	}
	resp, body := e.client(t).get("/api/v1/docs")
	wantStatus(t, "docs page", resp, http.StatusOK)
	if !strings.Contains(body, `href="`+e.srv.URL+`/api/v1/openapi.json"`) || !strings.Contains(body, "/api/v1/users/{id}/roles") {
		t.Error("the docs page does not list the endpoints and link the document")
	}
}

// TestAPIKeyConsole creates a key in the console: the secret is shown
// once, never stored or logged, and revoking it in the console stops it.
func TestAPIKeyConsole(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.apiKey(t, e.acme.ID, "read") // makes the API usable
	admin := e.client(t).signIn("acme", "admin")
	base := "/t/" + e.acme.ID + "/api-keys"
	resp, body := admin.post(base, url.Values{"name": {""}, "rateLimit": {"abc"}, "rateLimitWindow": {"1h"}})
	wantStatus(t, "bad key form", resp, http.StatusUnprocessableEntity)
	for _, want := range []string{`data-testid="field-error-name"`, `data-testid="field-error-scopes"`, `data-testid="field-error-rateLimit"`, `value="abc"`} {
		if !strings.Contains(body, want) {
			t.Errorf("bad key form: no %s", want)
		}
	}
	resp, _ = admin.post(base, url.Values{"name": {"Nightly"}, "scopes": {"read", "write"}, "rateLimit": {"100"}, "rateLimitWindow": {"1m"}})
	wantStatus(t, "create", resp, http.StatusSeeOther)
	secretPage := resp.Header.Get("Location")
	if !strings.HasPrefix(secretPage, base+"/apikey_") || !strings.HasSuffix(secretPage, "/secret") {
		t.Fatalf("create redirects to %q, want the key's secret page", secretPage)
	}
	for _, ck := range resp.Cookies() {
		if strings.Contains(ck.Value, "ak_live_") {
			t.Errorf("cookie %s holds the secret in clear", ck.Name)
		}
	}
	resp, body = admin.get(secretPage)
	wantStatus(t, "the secret page", resp, http.StatusOK)
	if resp.Header.Get("Cache-Control") != "no-store" {
		t.Error("the secret page may be stored")
	}
	secret := regexp.MustCompile(`ak_live_[0-9A-Za-z]{49}`).FindString(body)
	if secret == "" || !apikey.WellFormed(secret) {
		t.Fatalf("no secret shown: %s", body)
	}
	// A reload shows no secret and makes no key.
	resp, body = admin.get(secretPage)
	if got, want := resp.Header.Get("Location"), base; resp.StatusCode != http.StatusSeeOther || got != want {
		t.Errorf("reload of the secret page: %d to %q, want 303 to %q", resp.StatusCode, got, want)
	}
	if strings.Contains(body, "ak_live_") {
		t.Error("a reload shows a secret")
	}
	if keys, _ := e.keys.List(context.Background(), e.acme.ID); len(keys) != 2 {
		t.Errorf("keys after create and reload: got %d, want 2", len(keys))
	}
	if a := e.api(t, http.MethodGet, "/api/v1/users", secret, nil); a.status != http.StatusOK {
		t.Fatalf("the new key: %d", a.status)
	}
	// Never again: not on the list, not in the audit log or its export.
	for _, path := range []string{base, "/t/" + e.acme.ID + "/audit", "/t/" + e.acme.ID + "/audit.csv"} {
		if _, b := admin.get(path); strings.Contains(b, secret) || strings.Contains(b, secret[len(secret)-20:]) {
			t.Errorf("%s shows the secret", path)
		}
	}
	keys, _ := e.keys.List(context.Background(), e.acme.ID)
	var k *kanri.APIKey
	for _, key := range keys {
		if key.Name == "Nightly" {
			k = key
		}
	}
	if k == nil || strings.Contains(k.KeyHash, secret) || k.RateLimit != 100 || k.RateLimitWindow != "1m" {
		t.Fatalf("stored key: %+v", k)
	}
	_, body = admin.get(base)
	if want := `data-testid="apikey-created-Nightly">` + kanri.DateOf(k.CreatedAt, e.acme.Location()) + "<"; !strings.Contains(body, want) {
		t.Errorf("the list does not show the creation date %s", want)
	}
	// Rotated: redirected to the new secret, once; a reload rotates
	// nothing and the secret in use keeps working.
	resp, _ = admin.post(base+"/"+k.ID+"/rotate", url.Values{"etag": {k.ETag}, "state": {kanri.KeyActive}})
	wantStatus(t, "rotate", resp, http.StatusSeeOther)
	if got, want := resp.Header.Get("Location"), base+"/"+k.ID+"/secret"; got != want {
		t.Fatalf("rotate redirects to %q, want %q", got, want)
	}
	_, body = admin.get(base + "/" + k.ID + "/secret")
	rotated := regexp.MustCompile(`ak_live_[0-9A-Za-z]{49}`).FindString(body)
	if rotated == "" || rotated == secret || !strings.Contains(body, `data-testid="apikey-rotated-grace"`) {
		t.Fatalf("rotated secret page: %s", body)
	}
	rotatedOnce, _ := e.keys.Get(context.Background(), e.acme.ID, k.ID)
	resp, _ = admin.get(base + "/" + k.ID + "/secret")
	wantStatus(t, "reload after rotate", resp, http.StatusSeeOther)
	if k, _ = e.keys.Get(context.Background(), e.acme.ID, k.ID); k.KeyHash != rotatedOnce.KeyHash {
		t.Error("a reload after rotate rotated again")
	}
	for _, s := range []string{secret, rotated} {
		if a := e.api(t, http.MethodGet, "/api/v1/users", s, nil); a.status != http.StatusOK {
			t.Errorf("after rotate, %s…: %d", s[:14], a.status)
		}
	}
	resp, _ = admin.post(base+"/"+k.ID+"/revoke", url.Values{"etag": {k.ETag}, "state": {kanri.KeyActive}})
	wantStatus(t, "revoke", resp, http.StatusSeeOther)
	wantProblem(t, "after revoke", e.api(t, http.MethodGet, "/api/v1/users", secret, nil), http.StatusUnauthorized, "unauthenticated")
	// A viewer sees keys but cannot create them.
	gl := e.client(t).signIn("globex", "admin")
	resp, _ = gl.post("/t/"+e.globex.ID+"/api-keys/"+k.ID+"/reactivate", nil)
	wantStatus(t, "globex reactivates acme's key", resp, http.StatusNotFound)
}

// TestAKeyDoesNoMoreThanItsCreator gives a user nothing but the right to
// manage API keys: their write key cannot do what they cannot, and stops
// when their account does.
func TestAKeyDoesNoMoreThanItsCreator(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.apiKey(t, e.acme.ID, "read") // makes the API usable
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true})
	dev, err := e.users.Create(ctx, e.acme.ID, kanri.UserInput{Username: "dev", Email: "dev@acme.test", DisplayName: "Dev", Password: password})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.roles.Assign(ctx, role.Grant{Tenant: e.acme, UserID: dev.ID, ServiceID: kanri.APIServiceID, RoleName: role.Admin}); err != nil {
		t.Fatal(err)
	}
	devCtx := audit.WithActor(context.Background(), audit.Actor{UserID: dev.ID, UserName: "dev", TenantID: e.acme.ID})
	_, secret, err := e.keys.Create(devCtx, e.acme.ID, apikey.Input{Name: "dev's", Scopes: []string{"read", "write"}})
	if err != nil {
		t.Fatal(err)
	}
	p := wantProblem(t, "make oneself admin", e.api(t, http.MethodPost, "/api/v1/users/"+dev.ID+"/roles", secret, map[string]string{"serviceId": "auth-service", "role": "admin"}), http.StatusForbidden, "forbidden")
	if p != nil && !strings.Contains(p["detail"].(string), "roles.update") {
		t.Errorf("detail: %q", p["detail"])
	}
	wantProblem(t, "list users", e.api(t, http.MethodGet, "/api/v1/users", secret, nil), http.StatusForbidden, "forbidden")
	if ras, _ := e.roles.ForUser(context.Background(), e.acme.ID, dev.ID); len(ras) != 1 {
		t.Errorf("dev's roles: %d, want the one given", len(ras))
	}
	// The admin's key works until the admin is deactivated.
	_, adminKey := e.apiKey(t, e.acme.ID, "read")
	if a := e.api(t, http.MethodGet, "/api/v1/users", adminKey, nil); a.status != http.StatusOK {
		t.Fatalf("the admin's key: %d", a.status)
	}
	if _, err := e.users.SetActive(ctx, e.acme.ID, e.acmeAdmin.ID, kanri.Seen{LastAdmin: true}, false); err != nil {
		t.Fatal(err)
	}
	wantProblem(t, "the creator deactivated", e.api(t, http.MethodGet, "/api/v1/users", adminKey, nil), http.StatusUnauthorized, "unauthenticated")
}

func TestAPIPreconditionsAndMethods(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")
	path := "/api/v1/users/" + e.acmeBob.ID
	tag := e.api(t, http.MethodGet, path, rw, nil).resp.Header.Get("ETag")
	for _, tc := range []struct {
		name, ifMatch string
		want          int
	}{
		{"weak tag", "W/" + tag, http.StatusPreconditionFailed},
		{"other tags", `"a", "b"`, http.StatusPreconditionFailed},
		{"list with the tag", `"a", ` + tag, http.StatusOK},
		{"any", "*", http.StatusOK},
	} {
		a := e.api(t, http.MethodPatch, path, rw, map[string]string{"displayName": "Bob " + tc.name}, "If-Match", tc.ifMatch)
		if a.status != tc.want {
			t.Errorf("If-Match %s: got %d, want %d", tc.ifMatch, a.status, tc.want)
		}
	}
	// Allow names HEAD wherever GET is allowed: HEAD is answered as GET.
	for _, tc := range []struct{ method, path, allow string }{
		{http.MethodPut, "/api/v1/users", "GET, HEAD, POST"},
		{http.MethodOptions, "/api/v1/users", "GET, HEAD, POST"},
		{http.MethodPut, path, "GET, HEAD, PATCH, DELETE"},
		{http.MethodGet, path + "/deactivate", "POST"},
		{http.MethodDelete, "/api/v1/audit", "GET, HEAD"},
	} {
		what := tc.method + " " + tc.path
		a := e.api(t, tc.method, tc.path, rw, nil)
		wantProblem(t, what, a, http.StatusMethodNotAllowed, "method-not-allowed")
		if got := a.resp.Header.Get("Allow"); got != tc.allow {
			t.Errorf("%s: Allow %q, want %q", what, got, tc.allow)
		}
	}
}

// TestRefusedCallsCostNoWrites checks that a key over its limit adds one
// logged call per window, not one per refused call.
func TestRefusedCallsCostNoWrites(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.apiKey(t, e.acme.ID, "read")
	k, secret, err := e.keys.Create(e.asAdmin(e.acme.ID), e.acme.ID, apikey.Input{Name: "tight", Scopes: []string{"read"}, RateLimit: "2", RateLimitWindow: "1h"})
	if err != nil {
		t.Fatal(err)
	}
	for range 6 {
		e.api(t, http.MethodGet, "/api/v1/users", secret, nil)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e.usage.Run(ctx)
	calls, _, _ := e.keys.Calls(context.Background(), e.acme.ID, apikey.CallFilter{KeyID: k.ID})
	if len(calls) != 3 {
		t.Errorf("logged %d calls, want the 2 answered and the first refused", len(calls))
	}
}

// TestAPIUnknownPathsAnswer404 checks that a path of no API version, or
// one the router does not take as written, is not found: 404 as a
// problem, before any key is asked for, never 401 or 405.
func TestAPIUnknownPathsAnswer404(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, secret := e.apiKey(t, e.acme.ID, kanri.ScopeRead)
	for _, tc := range []struct{ name, method, path, secret string }{
		{"another version without a key", http.MethodGet, "/api/v2/users", ""},
		{"another version with a key", http.MethodGet, "/api/v2/users", secret},
		{"another version, another method", http.MethodPost, "/api/v2/users", secret},
		{"no version", http.MethodGet, "/api/users", ""},
		{"an unreserved character percent-encoded", http.MethodGet, "/api/v1/%75sers", secret},
		{"an id's character percent-encoded", http.MethodGet, "/api/v1/users/" + e.acmeBob.ID[:5] + "%" + fmt.Sprintf("%02X", e.acmeBob.ID[5]) + e.acmeBob.ID[6:], secret},
	} {
		a := e.api(t, tc.method, tc.path, tc.secret, nil)
		wantProblem(t, tc.name, a, http.StatusNotFound, "not-found")
		if got := a.resp.Header.Get("Allow"); got != "" {
			t.Errorf("%s: Allow %q, want none", tc.name, got)
		}
		if got := a.resp.Header.Get("WWW-Authenticate"); got != "" {
			t.Errorf("%s: WWW-Authenticate %q: a key was asked for", tc.name, got)
		}
	}
}

// servedDoc returns the OpenAPI document a server serves, decoded.
func servedDoc(t *testing.T, e *env) map[string]any {
	t.Helper()
	a := e.api(t, http.MethodGet, "/api/v1/openapi.json", "", nil)
	var doc map[string]any
	a.decode(&doc)
	return doc
}

// TestOpenAPIEnumsSayTheirType walks the served document: every schema
// with an enum says the type of its values, as generators and linters
// need.
func TestOpenAPIEnumsSayTheirType(t *testing.T) {
	t.Parallel()
	doc := servedDoc(t, newEnv(t))
	var walk func(at string, v any)
	walk = func(at string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["enum"]; ok && v["type"] == nil {
				t.Errorf("%s: an enum without a type", at)
			}
			for k, x := range v {
				walk(at+"/"+k, x)
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprintf("%s/%d", at, i), x)
			}
		}
	}
	walk("#", doc)
}

// TestAPIResourcesThatChangeCanBeRead checks the served document: every
// resource that can be changed or deleted can be read (GET, or HEAD for
// a tus upload), so that the Location of one created answers GET.
func TestAPIResourcesThatChangeCanBeRead(t *testing.T) {
	t.Parallel()
	doc := servedDoc(t, newEnv(t))
	for path, ops := range doc["paths"].(map[string]any) {
		ops := ops.(map[string]any)
		if (ops["patch"] != nil || ops["delete"] != nil) && ops["get"] == nil && ops["head"] == nil {
			t.Errorf("%s can be changed or deleted, but not read", path)
		}
	}
}

// TestAPILocationsAnswerGET follows the Location of each kind of thing
// the API creates as a sub-resource (a role's assignment, a channel's
// member, a reaction): it answers GET with the thing, to the key's
// tenant only.
func TestAPILocationsAnswerGET(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignMessaging(t, e.acme.ID)
	e.assignMessaging(t, e.globex.ID)
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")
	_, globex := e.apiKey(t, e.globex.ID, "read", "write")
	ch := e.createChannel(t, rw, map[string]any{"name": "general"})
	msg := e.postMessage(t, rw, ch.ID, "hello")
	if _, _, err := e.roles.Assign(system(), role.Grant{Tenant: e.acme, UserID: e.acmeBob.ID, ServiceID: kanri.MessagingServiceID, RoleName: role.Viewer}); err != nil {
		t.Fatal(err) // who may read the channel may be added to it
	}
	for _, tc := range []struct {
		what, path string
		body       map[string]any
		want       string // in the GET's answer
	}{
		{"a role", "/api/v1/users/" + e.acmeBob.ID + "/roles", map[string]any{"serviceId": kanri.AuthServiceID, "role": "viewer"}, `"role":"viewer"`},
		{"a member", "/api/v1/channels/" + ch.ID + "/members", map[string]any{"userId": e.acmeBob.ID}, `"userId":"` + e.acmeBob.ID + `"`},
		{"a reaction", "/api/v1/channels/" + ch.ID + "/messages/" + msg.ID + "/reactions", map[string]any{"emoji": "👍"}, `"emoji":"👍","userIds":["` + e.acmeAdmin.ID + `"]`},
	} {
		a := e.api(t, http.MethodPost, tc.path, rw, tc.body)
		loc := a.resp.Header.Get("Location")
		if a.status != http.StatusCreated || !strings.HasPrefix(loc, tc.path+"/") {
			t.Errorf("%s: %d, Location %q", tc.what, a.status, loc)
			continue
		}
		got := e.api(t, http.MethodGet, loc, rw, nil)
		if got.status != http.StatusOK || !strings.Contains(string(got.body), tc.want) || got.resp.Header.Get("ETag") == "" {
			t.Errorf("%s: GET %s: %d %s, want 200 with %s", tc.what, loc, got.status, got.body, tc.want)
		}
		if a := e.api(t, http.MethodGet, loc, rw, nil, "If-None-Match", got.resp.Header.Get("ETag")); a.status != http.StatusNotModified {
			t.Errorf("%s: GET %s with its ETag: %d, want 304", tc.what, loc, a.status)
		}
		wantProblem(t, tc.what+" under another tenant's key", e.api(t, http.MethodGet, loc, globex, nil), http.StatusNotFound, "not-found")
		// Taken back, it is gone.
		if a := e.api(t, http.MethodDelete, loc, rw, nil); a.status != http.StatusNoContent {
			t.Errorf("%s: DELETE %s: %d %s", tc.what, loc, a.status, a.body)
		}
		wantProblem(t, tc.what+" taken back", e.api(t, http.MethodGet, loc, rw, nil), http.StatusNotFound, "not-found")
	}
	for _, path := range []string{
		"/api/v1/users/" + e.acmeBob.ID + "/roles/nothing/viewer",
		"/api/v1/users/" + e.acmeBob.ID + "/roles/" + kanri.AuthServiceID + "/owner",
		"/api/v1/channels/" + ch.ID + "/members/user_missing",
		"/api/v1/channels/" + ch.ID + "/messages/" + msg.ID + "/reactions/" + url.PathEscape("🦄"),
	} {
		wantProblem(t, "GET "+path, e.api(t, http.MethodGet, path, rw, nil), http.StatusNotFound, "not-found")
	}
}

// identifier is a value a code generator can name a constant after
// (disable-this-key: DISABLE_THIS_KEY).
var identifier = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// TestOpenAPIEnumsHaveReadableNames walks the served document: an enum
// with a value a generated client cannot name a constant after (an emoji,
// null, 1m) names every value in x-enum-varnames (upper-case identifiers, one
// per value, in its order, none twice) and says what each means in
// x-enum-descriptions.
func TestOpenAPIEnumsHaveReadableNames(t *testing.T) {
	t.Parallel()
	doc := servedDoc(t, newEnv(t))
	named := map[string]bool{}
	var walk func(at string, v any)
	walk = func(at string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if enum, ok := v["enum"].([]any); ok {
				readable := true
				for _, x := range enum {
					s, ok := x.(string)
					readable = readable && ok && identifier.MatchString(s)
				}
				names, _ := v["x-enum-varnames"].([]any)
				docs, _ := v["x-enum-descriptions"].([]any)
				switch {
				case !readable && len(names) != len(enum):
					t.Errorf("%s: enum %v, x-enum-varnames %v: want a name for each value", at, enum, names)
				case names != nil && len(docs) != len(names):
					t.Errorf("%s: x-enum-varnames %v, x-enum-descriptions %v: want one description for each", at, names, docs)
				}
				seen := map[any]bool{}
				for _, n := range names {
					if s, _ := n.(string); !regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`).MatchString(s) || seen[n] {
						t.Errorf("%s: x-enum-varnames %v: %v is no upper-case identifier, or is there twice", at, names, n)
					}
					seen[n] = true
					named[fmt.Sprint(n)] = true
				}
			}
			for k, x := range v {
				walk(at+"/"+k, x)
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprintf("%s/%d", at, i), x)
			}
		}
	}
	walk("#", doc)
	for _, want := range []string{"THUMBS_UP", "HEART", "JOINED", "NONE"} {
		if !named[want] {
			t.Errorf("no enum value is named %s", want)
		}
	}
}
