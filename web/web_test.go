package web_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/crypto/bcrypt"

	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/domain"
	"github.com/kanri/kanri/internal/domain/dnstest"
	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/service"
	"github.com/kanri/kanri/internal/services"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/internal/user"
	"github.com/kanri/kanri/web"
)

const (
	adminEmail = "admin@example.com"
	password   = "Correct-horse-9"
)

// clock is a settable time source shared by the server and the test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// env is a running console over a fresh embedded store with two customer
// tenants, acme and globex, each with an administrator.
type env struct {
	srv       *httptest.Server
	echo      *echo.Echo
	st        *store.Store
	faults    *faultStore             // makes chosen writes lose their races
	calls     *docstore.CountingStore // counts the store calls of everything above
	tenants   *tenant.Service
	users     *user.Service
	roles     *role.Service
	catalog   *service.Service
	domains   *domain.Service
	keys      *apikey.Service
	usage     *apikey.Recorder
	dns       *dnstest.Server
	clock     *clock
	acme      *kanri.Tenant
	globex    *kanri.Tenant
	acmeBob   *kanri.User // a second acme user to act on
	acmeAdmin *kanri.User // acme's first user, so its administrator
	globUsr   *kanri.User
	globAdmin *kanri.User // globex's administrator
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvOver(t, func(ds docstore.Store) docstore.Store { return ds })
}

// newEnvOver is newEnv with the embedded store wrapped by wrap (a test's
// recorder or counter).
func newEnvOver(t testing.TB, wrap func(docstore.Store) docstore.Store) *env {
	t.Helper()
	ds, err := bolt.Open(t.TempDir(), docstore.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ds.Close() })
	calls := docstore.NewCounting(wrap(ds))
	faults := &faultStore{Store: calls}
	clk := &clock{t: time.Now()}
	dns := dnstest.Start(t)
	svcs := services.New(store.New(faults, nil), slog.New(slog.DiscardHandler), clk.Now, services.Options{
		Hasher: auth.Hasher{Cost: bcrypt.MinCost}, DNSServer: dns.Addr, UsageQueue: 1000,
	})
	st, ts, roles, us := svcs.Deps.Store, svcs.Tenants, svcs.Roles, svcs.Users
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system"})
	if _, err := roles.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := auth.Bootstrap(ctx, ts, us, roles, adminEmail, password); err != nil {
		t.Fatal(err)
	}
	e := &env{st: st, faults: faults, calls: calls, tenants: ts, users: us, roles: roles, catalog: svcs.Catalog, clock: clk, dns: dns,
		domains: svcs.Domains, keys: svcs.Keys, usage: svcs.Usage}
	e.domains.Timeout = 300 * time.Millisecond
	for _, name := range []string{"acme", "globex"} {
		ten, err := ts.Create(ctx, kanri.TenantInput{Name: name, DisplayName: name, Plan: kanri.PlanStandard, MaxUsers: 1000})
		if err != nil {
			t.Fatal(err)
		}
		admin, err := us.Create(ctx, ten.ID, kanri.UserInput{Username: "admin", Email: "admin@" + name + ".test", DisplayName: name + " admin", Password: password})
		if err != nil {
			t.Fatal(err)
		}
		if name == "acme" {
			e.acme, e.acmeAdmin = ten, admin
		} else {
			e.globex, e.globAdmin = ten, admin
		}
	}
	e.acmeBob, err = us.Create(ctx, e.acme.ID, kanri.UserInput{Username: "bob", Email: "bob@acme.test", DisplayName: "Bob", Password: password})
	if err != nil {
		t.Fatal(err)
	}
	e.globUsr, _ = us.Create(ctx, e.globex.ID, kanri.UserInput{Username: "gus", Email: "gus@globex.test", DisplayName: "Gus", Password: password})
	handler := web.New(web.Config{
		Deps: svcs.Deps, Services: *svcs, SessionSecret: []byte("0123456789abcdef0123456789abcdef"),
	})
	e.echo = handler.(*echo.Echo)
	e.srv = httptest.NewServer(handler)
	t.Cleanup(e.srv.Close)
	return e
}

// client is a browser-like client with its own cookies.
type client struct {
	t    testing.TB
	e    *env
	http *http.Client
	csrf string
}

func (e *env) client(t testing.TB) *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: t, e: e, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

var csrfPattern = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// get fetches path and remembers the page's CSRF token.
func (c *client) get(path string) (*http.Response, string) {
	c.t.Helper()
	resp, err := c.http.Get(c.e.srv.URL + path)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if m := csrfPattern.FindSubmatch(b); m != nil {
		c.csrf = string(m[1])
	}
	return resp, string(b)
}

// post submits a form with the client's CSRF token (unless the form sets
// _csrf itself).
func (c *client) post(path string, form url.Values) (*http.Response, string) {
	c.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if _, ok := form["_csrf"]; !ok {
		form.Set("_csrf", c.csrf)
	}
	resp, err := c.http.PostForm(c.e.srv.URL+path, form)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// signInErr signs the client in and reports whether that worked.
func (c *client) signInErr(tenantName, username, pass string) (*client, int, error) {
	c.get("/login")
	resp, _ := c.post("/login", url.Values{"tenant": {tenantName}, "username": {username}, "password": {pass}})
	if resp.StatusCode != http.StatusSeeOther {
		return c, resp.StatusCode, fmt.Errorf("sign in %s/%s: status %d", tenantName, username, resp.StatusCode)
	}
	return c, resp.StatusCode, nil
}

// signIn signs the client in and fails the test if that does not work.
func (c *client) signIn(tenantName, username string) *client {
	c.t.Helper()
	c.get("/login")
	resp, _ := c.post("/login", url.Values{"tenant": {tenantName}, "username": {username}, "password": {password}})
	if resp.StatusCode != http.StatusSeeOther {
		c.t.Fatalf("sign in %s/%s: got %d", tenantName, username, resp.StatusCode)
	}
	c.get(resp.Header.Get("Location")) // a page, for the new session's CSRF token
	return c
}

func wantStatus(t *testing.T, what string, resp *http.Response, want int) {
	t.Helper()
	if resp.StatusCode != want {
		t.Errorf("%s: got status %d, want %d", what, resp.StatusCode, want)
	}
}

// concrete fills a route's parameters.
func concrete(path string, e *env, tenantID string) string {
	r := strings.NewReplacer(":tenant", tenantID, ":id", pathID(path, e, tenantID))
	return r.Replace(path)
}

func pathID(path string, e *env, tenantID string) string {
	if strings.HasPrefix(path, "/tenants/") {
		return tenantID
	}
	if tenantID == e.globex.ID {
		return e.globUsr.ID
	}
	return e.acmeBob.ID
}

// routes returns every registered route but Echo's own.
func (e *env) routes() []*echo.Route {
	var out []*echo.Route
	for _, r := range e.echo.Routes() {
		if r.Method == echo.RouteNotFound {
			continue
		}
		out = append(out, r)
	}
	return out
}

func TestEveryRouteNeedsSignIn(t *testing.T) {
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
		if resp.StatusCode != http.StatusSeeOther || mustURL(resp.Header.Get("Location")).Path != "/login" {
			t.Errorf("%s without sign-in: got %d to %q, want 303 to /login", key, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	if n < 20 {
		t.Errorf("checked %d protected routes; the route table looks incomplete", n)
	}
}

func TestOtherTenantsRoutesAnswer404(t *testing.T) {
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

func TestBadInputShowsFieldErrorsAndSavesNothing(t *testing.T) {
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

func TestForgedTenantIDsInFormsAreIgnored(t *testing.T) {
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

func TestStaleEditIsDetected(t *testing.T) {
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

func TestSignInAndSessions(t *testing.T) {
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

func TestSecurityHeaders(t *testing.T) {
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

func TestAuditPageAndCSV(t *testing.T) {
	e := newEnv(t)
	c := e.client(t).signIn("acme", "admin")
	c.post("/t/"+e.acme.ID+"/users/"+e.acmeBob.ID+"/deactivate", url.Values{"etag": {""}})
	resp, body := c.get("/t/" + e.acme.ID + "/audit?action=user.")
	wantStatus(t, "audit page", resp, http.StatusOK)
	for _, want := range []string{`data-action="user.create"`, `data-action="user.deactivate"`} {
		if !strings.Contains(body, want) {
			t.Errorf("audit page lacks %s", want)
		}
	}
	if strings.Contains(body, `data-action="auth.login"`) {
		t.Error("the action filter let auth.login through")
	}
	resp, body = c.get("/t/" + e.acme.ID + "/audit.csv")
	wantStatus(t, "csv", resp, http.StatusOK)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Errorf("csv content type: %q", ct)
	}
	if !strings.HasPrefix(body, "\xEF\xBB\xBFtimestamp,action,status") || !strings.Contains(body, "user.deactivate") || !strings.Contains(body, "auth.login") {
		t.Errorf("csv body: %.300s", body)
	}
	if strings.Contains(body, "$2a$") {
		t.Error("the CSV contains a password hash")
	}
	_, body = c.get("/t/" + e.acme.ID + "/audit?user=admin")
	if !strings.Contains(body, `data-action="user.deactivate"`) {
		t.Error("filter by username: admin's deactivation is missing")
	}
	_, body = c.get("/t/" + e.acme.ID + "/audit?user=nobody")
	if !strings.Contains(body, `data-testid="audit-empty"`) {
		t.Error("filter by an unknown username: records shown")
	}
	resp, _ = c.get("/t/" + e.acme.ID + "/audit?from=yesterday")
	wantStatus(t, "bad date", resp, http.StatusUnprocessableEntity)
}

func TestJapaneseUI(t *testing.T) {
	e := newEnv(t)
	c := e.client(t)
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/login", nil)
	req.Header.Set("Accept-Language", "ja-JP,ja;q=0.9")
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `<html lang="ja">`) || !strings.Contains(string(b), "サインイン") {
		t.Error("Accept-Language ja did not give a Japanese page")
	}
	c.get("/login")
	resp, _ = c.post("/lang", url.Values{"lang": {"ja"}, "next": {"//evil.example/"}})
	if loc := resp.Header.Get("Location"); loc != "/" {
		t.Errorf("language switch redirect: got %q, want /", loc)
	}
	_, body := c.get("/login")
	if !strings.Contains(body, `<html lang="ja">`) {
		t.Error("the chosen language was not remembered")
	}
}

// formETag returns the value of a page's hidden etag field.
func formETag(page string) string {
	m := regexp.MustCompile(`name="etag" value="([^"]*)"`).FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

func mustURL(s string) *url.URL { u, _ := url.Parse(s); return u }

func cookieValue(cs []*http.Cookie, name string) string {
	for _, c := range cs {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

func TestFormsKeepInputAndIDsAreChecked(t *testing.T) {
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

// TestEveryPostNeedsTheCSRFToken walks every state-changing route as a
// global administrator, who could do anything, without the token.
func TestEveryPostNeedsTheCSRFToken(t *testing.T) {
	e := newEnv(t)
	c := e.client(t).signIn("privileged", adminEmail)
	n := 0
	for _, r := range e.routes() {
		if r.Method == http.MethodGet || r.Method == echo.RouteNotFound {
			continue
		}
		n++
		path := concrete(r.Path, e, e.acme.ID)
		resp, _ := c.post(path, url.Values{"_csrf": {""}, "tenant": {"acme"}, "username": {"admin"}, "password": {password}, "lang": {"ja"}})
		if strings.HasPrefix(r.Name, "api:") {
			// The API reads no cookie: a signed-in browser is nobody there,
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

func TestUsersChangeTheirOwnPassword(t *testing.T) {
	e := newEnv(t)
	// bob has no roles at all, yet manages his own password.
	bob := e.client(t).signIn("acme", "bob")
	other := e.client(t).signIn("acme", "bob")
	e.clock.Advance(time.Millisecond)
	resp, body := bob.get("/account")
	wantStatus(t, "account page", resp, http.StatusOK)
	if !strings.Contains(body, `data-testid="password-form"`) {
		t.Fatal("no password form")
	}
	tests := []struct {
		name  string
		form  url.Values
		field string
	}{
		{"wrong current", url.Values{"current": {"Wrong-pass-123"}, "password": {"Brand-new-pass-1"}, "confirm": {"Brand-new-pass-1"}}, "current"},
		{"mismatch", url.Values{"current": {password}, "password": {"Brand-new-pass-1"}, "confirm": {"Brand-new-pass-2"}}, "confirm"},
		{"weak", url.Values{"current": {password}, "password": {"weak"}, "confirm": {"weak"}}, "password"},
		{"unchanged", url.Values{"current": {password}, "password": {password}, "confirm": {password}}, "password"},
	}
	for _, tt := range tests {
		resp, body := bob.post("/account/password", tt.form)
		wantStatus(t, tt.name, resp, http.StatusUnprocessableEntity)
		if !strings.Contains(body, `data-testid="field-error-`+tt.field+`"`) {
			t.Errorf("%s: no error on %s", tt.name, tt.field)
		}
	}
	resp, _ = bob.post("/account/password", url.Values{"current": {password}, "password": {"Brand-new-pass-1"}, "confirm": {"Brand-new-pass-1"}})
	wantStatus(t, "change", resp, http.StatusSeeOther)
	_, body = bob.get("/account") // this session goes on, renewed
	if !strings.Contains(body, `data-testid="flash"`) {
		t.Error("no confirmation after the change")
	}
	resp, _ = other.get("/account")
	wantStatus(t, "bob's other session after the change", resp, http.StatusSeeOther)
	if _, _, err := e.client(t).signInErr("acme", "bob", password); err == nil {
		t.Error("the old password still signs in")
	}
	if _, _, err := e.client(t).signInErr("acme", "bob", "Brand-new-pass-1"); err != nil {
		t.Errorf("the new password: %v", err)
	}
}

// TestConfirmationsAreReadyBeforeForms checks that the script asking to
// confirm destructive forms runs before any form exists: a deferred script
// runs only after the page is parsed, and a click in between (a fast user,
// a loaded machine) submitted a deactivation without its question.
func TestConfirmationsAreReadyBeforeForms(t *testing.T) {
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

// TestActionFormsSendWhatTheyShow checks that the action forms of the user
// and tenant pages post the ETag and state they were rendered with, and
// that an action on something changed since is reported and not done.
func TestActionFormsSendWhatTheyShow(t *testing.T) {
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

// TestTenantEditShowsEveryError checks that an edit with a maxUsers that is
// not a number shows that error with the others, and keeps what was typed.
func TestTenantEditShowsEveryError(t *testing.T) {
	e := newEnv(t)
	staff := e.client(t).signIn("privileged", adminEmail)
	for _, path := range []string{"/tenants", "/tenants/" + e.acme.ID} {
		resp, body := staff.post(path, url.Values{"name": {"newco"}, "displayName": {""}, "plan": {"standard"}, "maxUsers": {"lots"}})
		wantStatus(t, path, resp, http.StatusUnprocessableEntity)
		for _, want := range []string{`data-testid="field-error-maxUsers"`, `data-testid="field-error-displayName"`, `value="lots"`} {
			if !strings.Contains(body, want) {
				t.Errorf("POST %s: the form lacks %s", path, want)
			}
		}
	}
}

// TestConsoleMiddlewareStaysInItsGroup checks that the CSRF check and the
// body limit belong to the console's group: a route of another group (the
// JSON API, uploads) gets neither unless it declares them.
func TestConsoleMiddlewareStaysInItsGroup(t *testing.T) {
	e := newEnv(t)
	e.echo.POST("/api/v1/probe", func(c echo.Context) error {
		n, _ := io.Copy(io.Discard, c.Request().Body)
		return c.String(http.StatusOK, fmt.Sprint(n))
	})
	big := strings.Repeat("x", 3<<20)
	resp, err := http.Post(e.srv.URL+"/api/v1/probe", "application/octet-stream", strings.NewReader(big))
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

// TestHistoryRestoreGetsTheWholePage checks that the Back button's request
// for a list that was filtered live gets the whole page, not the results
// fragment of the live search, and that responses vary on HX-Request.
func TestHistoryRestoreGetsTheWholePage(t *testing.T) {
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

func TestSignedInPagesAreNotStored(t *testing.T) {
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

// TestDeepLinksLeadThroughSignIn checks that a console URL opened without a
// session asks to sign in (and says a session ended only when one did),
// then leads to the page asked for; only paths of the console are followed.
func TestDeepLinksLeadThroughSignIn(t *testing.T) {
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

// TestSuspendedTenantIsMarked checks that on a suspended tenant's pages the
// switcher shows that tenant (marked) and a banner says it is suspended.
func TestSuspendedTenantIsMarked(t *testing.T) {
	e := newEnv(t)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", GlobalAdmin: true})
	if _, err := e.tenants.SetStatus(ctx, e.acme.ID, kanri.Seen{}, kanri.TenantSuspended); err != nil {
		t.Fatal(err)
	}
	staff := e.client(t).signIn("privileged", adminEmail)
	_, body := staff.get("/t/" + e.acme.ID + "/users")
	option := regexp.MustCompile(`<option value="` + e.acme.ID + `" selected>\s*acme \(acme\)\s*· Suspended\s*</option>`)
	if !option.MatchString(body) {
		t.Errorf("the switcher does not show acme, selected and marked suspended")
	}
	if !strings.Contains(body, `data-testid="tenant-status-banner"`) {
		t.Errorf("no banner on a suspended tenant's page")
	}
	_, body = staff.get("/t/" + e.globex.ID + "/users")
	if strings.Contains(body, `data-testid="tenant-status-banner"`) {
		t.Errorf("a banner on an active tenant's page")
	}
	if strings.Contains(body, `data-autosubmit`) {
		t.Errorf("the switcher navigates on change (arrow keys): it must wait for Go")
	}
}

// TestOperatorsConfirmRemovingTheLastAdmin checks that the operator's
// global administrator is warned before deactivating a customer tenant's
// last administrator, and must confirm it.
func TestOperatorsConfirmRemovingTheLastAdmin(t *testing.T) {
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

// TestLabelsAreInThePagesLanguage checks that built-in service and role
// names, stored in the spec's Japanese, are shown in English to English
// readers, and audit resource types in Japanese to Japanese readers.
func TestLabelsAreInThePagesLanguage(t *testing.T) {
	for _, s := range role.Catalog() {
		for _, key := range []string{"service." + s.ID, "service." + s.ID + ".description"} {
			if !i18n.Has(key) {
				t.Errorf("no translation of %s", key)
			}
		}
		for _, d := range s.Roles {
			for _, key := range []string{"role." + d.Key, "role." + d.Key + ".description"} {
				if !i18n.Has(key) {
					t.Errorf("no translation of %s", key)
				}
			}
		}
	}
	e := newEnv(t)
	c := e.client(t).signIn("acme", "admin")
	_, page := c.get("/t/" + e.acme.ID + "/roles")
	for _, want := range []string{"Tenant management", "Administrator", "Viewer", "Manages File management in its own tenant"} {
		if !strings.Contains(page, want) {
			t.Errorf("the English roles page lacks %q", want)
		}
	}
	for _, unwanted := range []string{"テナント管理サービス", ">管理者<", "閲覧者"} {
		if strings.Contains(page, unwanted) {
			t.Errorf("the English roles page shows %q", unwanted)
		}
	}
	c.post("/lang", url.Values{"lang": {"ja"}, "next": {"/"}})
	_, page = c.get("/t/" + e.acme.ID + "/audit")
	if !strings.Contains(page, "ユーザー: <span") {
		t.Errorf("the Japanese audit page does not name resource types in Japanese")
	}
}

// TestAuditChangesReadAsText checks that the audit page shows recorded
// values as text (escaped by the template, not as JSON), creations as "set
// to", and the username a failed sign-in tried.
func TestAuditChangesReadAsText(t *testing.T) {
	e := newEnv(t)
	c := e.client(t).signIn("acme", "admin")
	resp, _ := c.post("/t/"+e.acme.ID+"/users", url.Values{"username": {"xss"}, "email": {"xss@acme.test"}, "displayName": {`<img src=x onerror="alert(1)">`}, "password": {password}})
	wantStatus(t, "create", resp, http.StatusSeeOther)
	e.client(t).signInErr("acme", "mallory", "Wrong-pass-99")
	_, page := c.get("/t/" + e.acme.ID + "/audit")
	for _, want := range []string{
		`displayName: set to &lt;img src=x onerror=&#34;alert(1)&#34;&gt;`,
		`mallory (tried)`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the audit page lacks %s", want)
		}
	}
	for _, unwanted := range []string{`\u003c`, "null →", `<img src=x`} {
		if strings.Contains(page, unwanted) {
			t.Errorf("the audit page shows %s", unwanted)
		}
	}
}

// TestActionsThatCannotSucceedAreExplained checks that the console does not
// offer a Delete of a tenant that still has active users, nor a New user
// at the user limit, but says why.
func TestActionsThatCannotSucceedAreExplained(t *testing.T) {
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

// TestAnonymousErrorPagesCarryAWorkingToken checks that the language switch
// of an error page seen without a session works.
func TestAnonymousErrorPagesCarryAWorkingToken(t *testing.T) {
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
