package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/kanri"
)

// TestBrowsersReadTheAPIOnlyFromListedOrigins lists origins on acme's
// browser access page and checks preflights and answers: nothing is
// allowed by default, a listed origin is, an origin another tenant lists
// lets a preflight through but never reads acme's answers, and an origin
// taken off the list stops at once.
func TestBrowsersReadTheAPIOnlyFromListedOrigins(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, acmeKey := e.apiKey(t, e.acme.ID, kanri.ScopeRead)
	_, globexKey := e.apiKey(t, e.globex.ID, kanri.ScopeRead)
	admin := e.client(t).signIn("acme", "admin")
	page := "/t/" + e.acme.ID + "/api-keys/cors"
	save := func(c *client, path, origins string) (*http.Response, string) {
		t.Helper()
		_, form := c.get(path)
		return c.post(path, url.Values{"origins": {origins}, "etag": {formETag(form)}})
	}
	preflight := func(origin string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodOptions, e.srv.URL+"/api/v1/users", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "GET")
		req.Header.Set("Access-Control-Request-Headers", "authorization")
		resp, err := e.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Errorf("preflight from %s: %d, want 204", origin, resp.StatusCode)
		}
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "" && !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Authorization") {
			t.Errorf("preflight from %s allows %q without the Authorization header", origin, got)
		}
		// A preflight is an answer like any: its request id and the
		// security headers.
		if resp.Header.Get("X-Request-Id") == "" || resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("preflight from %s: no request id or security headers: %v", origin, resp.Header)
		}
		return resp.Header.Get("Access-Control-Allow-Origin")
	}
	// refused is who may read a refusal given before any key is known (no
	// key: 401; no API version: 404).
	refused := func(path, origin string, status int) string {
		t.Helper()
		a := e.api(t, http.MethodGet, path, "", nil, "Origin", origin)
		if a.status != status {
			t.Fatalf("GET %s from %s without a key: %d, want %d", path, origin, a.status, status)
		}
		if !strings.Contains(a.resp.Header.Get("Vary"), "Origin") {
			t.Errorf("GET %s from %s: the refusal does not vary by Origin", path, origin)
		}
		if got := a.resp.Header.Get("Access-Control-Allow-Origin"); got != "" && !strings.Contains(a.resp.Header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") {
			t.Errorf("GET %s from %s: exposes %q", path, origin, a.resp.Header.Get("Access-Control-Expose-Headers"))
		}
		return a.resp.Header.Get("Access-Control-Allow-Origin")
	}
	readable := func(secret, origin string) string {
		t.Helper()
		a := e.api(t, http.MethodGet, "/api/v1/me", secret, nil, "Origin", origin)
		if a.status != http.StatusOK {
			t.Fatalf("GET /me from %s: %d", origin, a.status)
		}
		if !strings.Contains(a.resp.Header.Get("Vary"), "Origin") {
			t.Errorf("an answer to %s does not vary by Origin", origin)
		}
		return a.resp.Header.Get("Access-Control-Allow-Origin")
	}

	const app, other = "https://app.acme.example", "https://evil.example"
	if got := preflight(app); got != "" {
		t.Errorf("by default a preflight from %s is allowed (%q)", app, got)
	}
	if got := readable(acmeKey, app); got != "" {
		t.Errorf("by default %s reads acme's answers (%q)", app, got)
	}

	// A bad origin is refused with its message and nothing is saved.
	resp, body := save(admin, page, "https://app.acme.example/path")
	wantStatus(t, "a path", resp, http.StatusUnprocessableEntity)
	if !strings.Contains(body, "without a path, query or wildcard") || !strings.Contains(body, "https://app.acme.example/path") {
		t.Errorf("the refusal does not say why or loses the input")
	}
	resp, _ = save(admin, page, " HTTPS://App.Acme.Example:443 \nhttp://localhost:3000")
	wantStatus(t, "save", resp, http.StatusSeeOther)
	_, body = admin.get(page)
	for _, want := range []string{app, "http://localhost:3000"} {
		if !strings.Contains(body, `data-testid="cors-origin">`+want+`<`) {
			t.Errorf("the page does not list %s", want)
		}
	}

	if _, audit := admin.get("/t/" + e.acme.ID + "/audit"); !strings.Contains(audit, "apikey.cors_update") ||
		!strings.Contains(audit, "Browser origins (CORS): set to") {
		t.Errorf("the audit log does not say the origins changed, in words")
	}
	if got := preflight(app); got != app {
		t.Errorf("preflight from the listed %s: Allow-Origin %q", app, got)
	}
	if got := readable(acmeKey, app); got != app {
		t.Errorf("acme's answer to its listed %s: Allow-Origin %q", app, got)
	}
	if got := preflight(other); got != "" {
		t.Errorf("preflight from the unlisted %s: Allow-Origin %q", other, got)
	}
	// A refusal before the key is known can be read where a preflight
	// passes, so that the page learns why; nowhere else.
	for _, tc := range []struct {
		path   string
		status int
	}{{"/api/v1/me", http.StatusUnauthorized}, {"/api/v2/me", http.StatusNotFound}} {
		if got := refused(tc.path, app, tc.status); got != app {
			t.Errorf("%d to the listed %s: Allow-Origin %q", tc.status, app, got)
		}
		if got := refused(tc.path, other, tc.status); got != "" {
			t.Errorf("%d to the unlisted %s: Allow-Origin %q", tc.status, other, got)
		}
	}
	if got := readable(acmeKey, other); got != "" {
		t.Errorf("acme's answer to the unlisted %s: Allow-Origin %q", other, got)
	}
	// globex's key from acme's origin: the preflight passes (some tenant
	// lists it), the answer does not.
	if got := readable(globexKey, app); got != "" {
		t.Errorf("globex's answer to acme's origin: Allow-Origin %q", got)
	}

	// Another tenant's admin cannot see or change acme's list.
	globex := e.client(t).signIn("globex", "admin")
	if resp, _ := globex.get(page); resp.StatusCode != http.StatusNotFound {
		t.Errorf("globex's admin on acme's page: %d, want 404", resp.StatusCode)
	}

	// Off the list, the origin stops at once.
	resp, _ = save(admin, page, "")
	wantStatus(t, "emptied", resp, http.StatusSeeOther)
	if got := preflight(app); got != "" {
		t.Errorf("preflight after the list was emptied: %q", got)
	}
	if got := readable(acmeKey, app); got != "" {
		t.Errorf("answer after the list was emptied: %q", got)
	}
}

// TestCORSEditsAreNotLost saves the origins from two forms opened on one
// version: the second is told it is stale, keeps what it typed, and saves
// on a second try.
func TestCORSEditsAreNotLost(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.apiKey(t, e.acme.ID, kanri.ScopeRead)
	admin := e.client(t).signIn("acme", "admin")
	page := "/t/" + e.acme.ID + "/api-keys/cors"
	_, form := admin.get(page)
	etag := formETag(form)
	resp, _ := admin.post(page, url.Values{"origins": {"https://one.example"}, "etag": {etag}})
	wantStatus(t, "first", resp, http.StatusSeeOther)
	resp, body := admin.post(page, url.Values{"origins": {"https://two.example"}, "etag": {etag}})
	wantStatus(t, "second, stale", resp, http.StatusConflict)
	if !strings.Contains(body, `data-testid="stale-notice"`) || !strings.Contains(body, "https://two.example") {
		t.Fatalf("the stale form has no notice or lost the input")
	}
	resp, _ = admin.post(page, url.Values{"origins": {"https://two.example"}, "etag": {formETag(body)}})
	wantStatus(t, "second, again", resp, http.StatusSeeOther)
}

// TestListedOriginsReadEveryHeaderTheAPIDocuments checks that each header
// the OpenAPI document says an answer carries is one a listed origin's
// page may read: CORS hides every other but the safelisted ones.
func TestListedOriginsReadEveryHeaderTheAPIDocuments(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, secret := e.apiKey(t, e.acme.ID, kanri.ScopeRead)
	const app = "https://app.acme.example"
	if _, err := e.keys.SetCORSOrigins(e.asAdmin(e.acme.ID), e.acme.ID, "", []string{app}); err != nil {
		t.Fatal(err)
	}
	a := e.api(t, http.MethodGet, "/api/v1/me", secret, nil, "Origin", app)
	exposed := map[string]bool{}
	for _, h := range strings.Split(a.resp.Header.Get("Access-Control-Expose-Headers"), ",") {
		exposed[http.CanonicalHeaderKey(strings.TrimSpace(h))] = true
	}
	if a.resp.Header.Get("Access-Control-Allow-Origin") != app || len(exposed) < 10 {
		t.Fatalf("GET /me from %s: %v", app, a.resp.Header)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct{ Headers map[string]any }
		}
	}
	if err := json.Unmarshal(servedDocument.doc, &doc); err != nil {
		t.Fatal(err)
	}
	safelisted := map[string]bool{"Cache-Control": true, "Content-Language": true, "Content-Length": true, "Content-Type": true, "Expires": true, "Last-Modified": true, "Pragma": true,
		"Access-Control-Allow-Origin": true, "Access-Control-Expose-Headers": true} // CORS's own, which the browser reads

	for path, ops := range doc.Paths {
		for method, op := range ops {
			for status, r := range op.Responses {
				for name := range r.Headers {
					if n := http.CanonicalHeaderKey(name); !exposed[n] && !safelisted[n] {
						t.Errorf("%s %s %s carries %s, which listed origins cannot read", method, path, status, name)
					}
				}
			}
		}
	}
	for _, name := range []string{"Accept-Ranges", "Allow"} { // undocumented as headers, but answered
		if !exposed[name] {
			t.Errorf("listed origins cannot read %s", name)
		}
	}
}
