package web_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/user"
	webscim "github.com/kanri/kanri/web/scim"
)

func TestEveryRouteNeedsSignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(t)
	c.get("/login") // an anonymous session with a CSRF token
	n := 0
	for _, r := range e.routes() {
		key := r.Method + " " + r.Path
		if r.Name == "public" {
			continue
		}
		n++
		path := concrete(r.Path, e, e.acme.ID)
		var resp *http.Response
		if r.Method == http.MethodGet {
			resp, _ = c.get(path)
		} else {
			resp, _ = c.post(path, url.Values{"displayName": {"x"}})
		}
		if strings.HasPrefix(r.Name, "api:") { // a key, not a session: 401
			if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Content-Type") != "application/problem+json" {
				t.Errorf("%s without a key: got %d %s, want a 401 problem", key, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			continue
		}
		if r.Name == webscim.RouteName { // a token, not a session: SCIM's 401
			if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Content-Type") != "application/scim+json" {
				t.Errorf("%s without a token: got %d %s, want SCIM's 401", key, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			continue
		}
		if resp.StatusCode != http.StatusSeeOther || mustURL(resp.Header.Get("Location")).Path != "/login" {
			t.Errorf("%s without sign-in: got %d to %q, want 303 to /login", key, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	if n < 20 {
		t.Errorf("checked %d protected routes; the route table looks incomplete", n)
	}
}

// TestPublicRoutesNeedNoSignIn walks the other side of the route table: a
// visitor with neither a session nor a key reaches every public page (the
// sign-in pages, the health checks, the API's document and reference)
// without being sent to sign in or refused, and breaks none of them.
func TestPublicRoutesNeedNoSignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// A value for each parameter of a public route.
	params := strings.NewReplacer(":tag", "users", "/static*", "/static/css/app.css")
	n := 0
	for _, r := range e.routes() {
		if r.Name != "public" || r.Method != http.MethodGet {
			continue
		}
		n++
		path := params.Replace(r.Path)
		if strings.Contains(path, ":") {
			t.Errorf("GET %s: no value for its parameter here", r.Path)
			continue
		}
		resp, _ := e.client(t).get(path)
		login := strings.HasPrefix(resp.Header.Get("Location"), "/login") && !strings.HasPrefix(path, "/login")
		if resp.StatusCode >= 400 || login {
			t.Errorf("GET %s without a session: %d to %q, want it served", path, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	if n < 8 {
		t.Errorf("checked %d public pages; the route table looks incomplete", n)
	}
}

func TestOtherTenantsRoutesAnswer404(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(t).signIn("acme", "admin")
	for _, r := range e.routes() {
		if !strings.HasPrefix(r.Path, "/t/:tenant") {
			continue
		}
		for _, other := range []string{e.globex.ID, kanri.PrivilegedTenantID, "tenant_nonexistent", "x' OR 1=1"} {
			path := concrete(r.Path, e, url.PathEscape(other))
			var resp *http.Response
			var body string
			if r.Method == http.MethodGet {
				resp, body = c.get(path)
			} else {
				resp, body = c.post(path, url.Values{"displayName": {"hacked"}, "email": {"h@x.test"}, "password": {"Hacked-pass-123"}})
			}
			if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, `data-testid="error-page"`) {
				t.Errorf("%s %s as acme admin: got %d, want the 404 page", r.Method, path, resp.StatusCode)
			}
		}
	}
	gus, _ := e.users.Get(context.Background(), e.globex.ID, e.globUsr.ID)
	if gus.DisplayName != "Gus" || !gus.IsActive {
		t.Errorf("globex's user was changed through acme's session: %+v", gus)
	}
	// The operator's pages do not exist for a tenant's user.
	for _, r := range e.routes() {
		if !strings.HasPrefix(r.Path, "/tenants") && !strings.HasPrefix(r.Path, "/services") && r.Path != "/switch" {
			continue
		}
		path := concrete(r.Path, e, e.acme.ID)
		var resp *http.Response
		if r.Method == http.MethodGet {
			resp, _ = c.get(path)
		} else {
			resp, _ = c.post(path, nil)
		}
		wantStatus(t, r.Method+" "+path+" as a tenant user", resp, http.StatusNotFound)
	}
	ten, _ := e.tenants.Get(context.Background(), e.acme.ID)
	if ten.Status != kanri.TenantActive {
		t.Errorf("acme's admin changed acme's tenant record: %s", ten.Status)
	}
}

func TestStaffReachEveryTenant(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(t).signIn("privileged", adminEmail)
	for _, id := range []string{e.acme.ID, e.globex.ID} {
		resp, body := c.get("/t/" + id + "/users")
		wantStatus(t, "staff on "+id, resp, http.StatusOK)
		if !strings.Contains(body, `data-testid="user-row-admin"`) {
			t.Errorf("staff on %s: the user list lacks the tenant's admin", id)
		}
	}
	resp, body := c.get("/tenants")
	wantStatus(t, "tenants list", resp, http.StatusOK)
	for _, name := range []string{"acme", "globex", "privileged"} {
		if !strings.Contains(body, `data-testid="tenant-row-`+name+`"`) {
			t.Errorf("tenant list lacks %s", name)
		}
	}
}

func TestCSRFIsRequired(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(t).signIn("acme", "admin")
	path := "/t/" + e.acme.ID + "/users/" + e.acmeBob.ID + "/deactivate"
	for _, token := range []string{"", "wrong-token", strings.Repeat("A", 43)} {
		resp, body := c.post(path, url.Values{"_csrf": {token}})
		wantStatus(t, "POST with token "+token, resp, http.StatusForbidden)
		if !strings.Contains(body, `data-testid="error-page"`) {
			t.Error("missing CSRF: no error page")
		}
	}
	// The header works as well as the field (htmx sends the header).
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+path, strings.NewReader(""))
	req.Header.Set("X-CSRF-Token", c.csrf)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	wantStatus(t, "POST with the header token", resp, http.StatusSeeOther)
	bob, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID)
	if bob.IsActive {
		t.Error("the request with the header token did not deactivate bob")
	}
	// A token from another session is refused.
	other := e.client(t).signIn("acme", "admin")
	resp, _ = c.post("/t/"+e.acme.ID+"/users/"+e.acmeBob.ID+"/reactivate", url.Values{"_csrf": {other.csrf}})
	wantStatus(t, "POST with another session's token", resp, http.StatusForbidden)
}

func TestForgedTenantIDsInFormsAreIgnored(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(t).signIn("acme", "admin")
	resp, _ := c.post("/t/"+e.acme.ID+"/users", url.Values{
		"username": {"carol"}, "email": {"carol@acme.test"}, "displayName": {"Carol"}, "password": {password},
		"tenantId": {e.globex.ID}, "tenant": {e.globex.ID}, "id": {"user_forged"},
	})
	wantStatus(t, "create", resp, http.StatusSeeOther)
	ctx := context.Background()
	acmeUsers, _, _ := e.users.List(ctx, e.acme.ID, user.ListFilter{Search: "carol"})
	globexUsers, _, _ := e.users.List(ctx, e.globex.ID, user.ListFilter{Search: "carol"})
	if len(acmeUsers) != 1 || len(globexUsers) != 0 {
		t.Fatalf("carol: %d in acme, %d in globex; want 1 and 0", len(acmeUsers), len(globexUsers))
	}
	if acmeUsers[0].ID == "user_forged" || acmeUsers[0].TenantID != e.acme.ID {
		t.Errorf("forged fields were used: %+v", acmeUsers[0].Doc)
	}
}

func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	resp, _ := e.client(t).get("/login")
	for h, want := range map[string]string{
		"X-Frame-Options":        "DENY",
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "same-origin",
	} {
		if got := resp.Header.Get(h); got != want {
			t.Errorf("%s: got %q, want %q", h, got, want)
		}
	}
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "frame-ancestors 'none'", "script-src 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
}

// TestEveryPostNeedsTheCSRFToken walks every state-changing route as a
// global administrator, who could do anything, without the token.
func TestEveryPostNeedsTheCSRFToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID) // so that only the token can refuse its routes
	e.assignMessaging(t, e.acme.ID)
	c := e.client(t).signIn("privileged", adminEmail)
	n := 0
	for _, r := range e.routes() {
		if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions || r.Method == echo.RouteNotFound {
			continue
		}
		n++
		path := concrete(r.Path, e, e.acme.ID)
		var resp *http.Response
		if r.Method == http.MethodPost {
			resp, _ = c.post(path, url.Values{"_csrf": {""}, "tenant": {"acme"}, "username": {"admin"}, "password": {password}, "lang": {"ja"}})
		} else { // the tus routes: the token travels in a header
			resp, _ = c.send(r.Method, path, strings.NewReader("x"), http.Header{"X-Csrf-Token": {""}, "Tus-Resumable": {"1.0.0"}, "Content-Type": {"application/offset+octet-stream"}, "Upload-Offset": {"0"}})
		}
		if strings.HasPrefix(r.Name, "api:") || r.Name == webscim.RouteName {
			// The API and SCIM read no cookie: a signed-in browser is nobody there,
			// so a forged cross-site request cannot act through it.
			wantStatus(t, r.Method+" "+r.Path+" with a session but no key", resp, http.StatusUnauthorized)
			continue
		}
		wantStatus(t, r.Method+" "+r.Path+" without a CSRF token", resp, http.StatusForbidden)
	}
	if n < 15 {
		t.Errorf("checked %d state-changing routes; the route table looks incomplete", n)
	}
	ten, _ := e.tenants.Get(context.Background(), e.acme.ID)
	if ten.Status != kanri.TenantActive {
		t.Errorf("a request without a token changed acme: %s", ten.Status)
	}
}

// TestConsoleMiddlewareStaysInItsGroup checks that the CSRF check and the
// body limit belong to the console's group: a route of another group (the
// JSON API, uploads) gets neither unless it declares them.
func TestConsoleMiddlewareStaysInItsGroup(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.echo.POST("/api/v1/probe", func(c echo.Context) error {
		n, _ := io.Copy(io.Discard, c.Request().Body)
		return c.String(http.StatusOK, fmt.Sprint(n))
	})
	big := strings.Repeat("x", 3<<20)
	resp, err := e.srv.Client().Post(e.srv.URL+"/api/v1/probe", "application/octet-stream", strings.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	wantStatus(t, "a 3 MB POST without a CSRF token outside the console", resp, http.StatusOK)
	for _, tt := range []struct {
		name string
		body string
		want int
	}{
		{"a console POST without a CSRF token", "tenant=a", http.StatusForbidden},
		{"a 3 MB console POST", "tenant=" + big, http.StatusRequestEntityTooLarge},
	} {
		resp, err := e.client(t).http.Post(e.srv.URL+"/login", "application/x-www-form-urlencoded", strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		wantStatus(t, tt.name, resp, tt.want)
	}
}

func TestSignedInPagesAreNotStored(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(t).signIn("acme", "admin")
	for _, path := range []string{"/t/" + e.acme.ID + "/users", "/account", "/t/" + e.acme.ID + "/audit"} {
		resp, _ := c.get(path)
		if got, want := resp.Header.Get("Cache-Control"), "no-store"; got != want {
			t.Errorf("GET %s: Cache-Control %q, want %q", path, got, want)
		}
	}
}

// TestSessionCookiesAreEncrypted checks that the cookie does not show who
// is signed in, with a secret of only 32 bytes (the shortest accepted).
func TestSessionCookiesAreEncrypted(t *testing.T) {
	t.Parallel()
	e := newEnv(t) // a 32-byte secret
	c := e.client(t).signIn("acme", "admin")
	u, _ := url.Parse(e.srv.URL)
	var value string
	for _, ck := range c.http.Jar.Cookies(u) {
		if ck.Name == "kanri_session" {
			value = ck.Value
		}
	}
	if value == "" {
		t.Fatal("no session cookie")
	}
	// securecookie: base64(date|value|mac), value the base64 of the
	// (encrypted) gob of the session's values.
	outer, err := base64.URLEncoding.DecodeString(value)
	if err != nil {
		t.Fatal(err)
	}
	parts := bytes.SplitN(outer, []byte("|"), 3)
	if len(parts) != 3 {
		t.Fatalf("the cookie is not date|value|mac: %q", outer)
	}
	inner, err := base64.URLEncoding.DecodeString(string(parts[1]))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{e.acmeAdmin.ID, e.acme.ID, "uid", "tid"} {
		if bytes.Contains(inner, []byte(secret)) || bytes.Contains(outer, []byte(secret)) {
			t.Errorf("the session cookie shows %q", secret)
		}
	}
}

// TestAnonymousErrorPagesCarryAWorkingToken checks that the language switch
// of an error page seen without a session works.
func TestAnonymousErrorPagesCarryAWorkingToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(t)
	resp, body := c.get("/static/no-such-file.css")
	wantStatus(t, "an unknown asset", resp, http.StatusNotFound)
	if !strings.Contains(body, `action="/lang"`) {
		t.Fatalf("the error page has no language switch")
	}
	resp, _ = c.post("/lang", url.Values{"lang": {"ja"}, "next": {"/login"}})
	wantStatus(t, "the language switch of the error page", resp, http.StatusSeeOther)
}

// TestOperatorAuditStaysTheOperators: what the operator's staff did in
// the tenants is read by its global administrators only. A tenant's
// administrator neither reads the operator's log nor filters their own by
// tenant (403, not an empty page, so that a filter never seems to work
// where it cannot), and another of the operator's staff sees none of it.
func TestOperatorAuditStaysTheOperators(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.staffDeactivates(t, e.globex.ID, e.globUsr.ID)
	operatorLog := "/t/" + kanri.PrivilegedTenantID + "/audit"
	acme := e.client(t).signIn("acme", "admin")
	viewer := e.operatorViewer(t, "pat")
	tests := []struct {
		name   string
		c      *client
		path   string
		status int
	}{
		{"acme's admin, the operator's log", acme, operatorLog, http.StatusNotFound},
		{"acme's admin, the operator's log by tenant", acme, operatorLog + "?tenant=globex", http.StatusNotFound},
		{"acme's admin, the operator's export", acme, operatorLog + ".csv?tenant=globex", http.StatusNotFound},
		{"acme's admin, their log by tenant", acme, "/t/" + e.acme.ID + "/audit?tenant=globex", http.StatusForbidden},
		{"acme's admin, their log by their own tenant", acme, "/t/" + e.acme.ID + "/audit?tenant=" + e.acme.ID, http.StatusForbidden},
		{"acme's admin, their export by tenant", acme, "/t/" + e.acme.ID + "/audit.csv?tenant=globex", http.StatusForbidden},
		{"a viewer of the operator's, by tenant", viewer, operatorLog + "?tenant=globex", http.StatusForbidden},
		{"a viewer of the operator's, export by tenant", viewer, operatorLog + ".csv?tenant=globex", http.StatusForbidden},
		{"a viewer of the operator's", viewer, operatorLog, http.StatusOK},
		{"acme's admin, their log", acme, "/t/" + e.acme.ID + "/audit", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := tt.c.get(tt.path)
			wantStatus(t, tt.path, resp, tt.status)
			for _, leak := range []string{e.globex.ID, "gus", "user.deactivate", `data-testid="audit-filter-tenant"`} {
				if strings.Contains(body, leak) {
					t.Errorf("the page shows %s", leak)
				}
			}
		})
	}
}
