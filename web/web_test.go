package web_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/crypto/bcrypt"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/archive"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/catalog"
	"github.com/kanri/kanri/internal/disk"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/docstore/docstoretest"
	"github.com/kanri/kanri/internal/emaildomain"
	"github.com/kanri/kanri/internal/emaildomain/dnstest"
	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/sso"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/support"
	"github.com/kanri/kanri/internal/telemetry"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/internal/user"
	"github.com/kanri/kanri/internal/userimport"
	"github.com/kanri/kanri/internal/webhook"
	"github.com/kanri/kanri/internal/wiring"
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
	faults    *faultStore                 // makes chosen writes lose their races
	calls     *docstoretest.CountingStore // counts the store calls of everything above
	tenants   *tenant.Service
	users     *user.Service
	signIns   *auth.Service
	roles     *role.Service
	catalog   *catalog.Service
	domains   *emaildomain.Service
	keys      *apikey.Service
	usage     *apikey.Recorder
	files     *files.Service
	archives  *archive.Service
	support   *support.Service
	sso       *sso.Service
	imports   *userimport.Service
	webhooks  *webhook.Service
	blobs     *blob.Bucket
	dns       *dnstest.Server
	clock     *clock
	acme      *kanri.Tenant
	globex    *kanri.Tenant
	acmeBob   *kanri.User // a second acme user to act on
	acmeAdmin *kanri.User // acme's first user, so its administrator
	globUsr   *kanri.User
	globAdmin *kanri.User // globex's administrator
	config    web.Config  // the server's, for a test that serves another
	// work is the features' workers, which the env does not run: a test
	// runs those it needs (runWork).
	work []app.Feature
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvOver(t, func(ds docstore.Store) docstore.Store { return ds })
}

// newEnvOver is newEnv with the embedded store wrapped by wrap (a test's
// recorder or counter).
func newEnvOver(t testing.TB, wrap func(docstore.Store) docstore.Store) *env {
	t.Helper()
	return newEnvWith(t, envOptions{wrap: wrap})
}

// envOptions change what newEnvWith builds.
type envOptions struct {
	// wrap wraps the embedded store (a test's recorder or counter).
	wrap func(docstore.Store) docstore.Store
	// metrics, tracer and metricsToken are the server's telemetry, as
	// cmd/kanri gives it (none when nil).
	metrics      *telemetry.Metrics
	tracer       trace.TracerProvider
	metricsToken string
	// trustedProxies are the server's (none when nil).
	trustedProxies []netip.Prefix
	// log is the services' and the server's logger (discarding when nil).
	log *slog.Logger
}

// newEnvWith is newEnv built as o says.
func newEnvWith(t testing.TB, o envOptions) *env {
	t.Helper()
	ds := bolttest.Open(t)
	if o.wrap == nil {
		o.wrap = func(ds docstore.Store) docstore.Store { return ds }
	}
	calls := docstoretest.NewCounting(o.wrap(ds))
	blobs := openBlobs(t)
	if o.tracer != nil {
		blobs.Observe(telemetry.BlobObserver(o.metrics, o.tracer.Tracer(telemetry.TracerName)))
	}
	faults := &faultStore{Store: calls}
	clk := &clock{t: time.Now()}
	dns := dnstest.Start(t)
	if o.log == nil {
		o.log = slog.New(slog.DiscardHandler)
	}
	svcs := wiring.New(store.New(faults, nil, features.Schema()), o.log, clk.Now, wiring.Options{Roles: features.Roles(),
		Hasher: auth.Hasher{Cost: bcrypt.MinCost}, DNSServer: dns.Addr, UsageQueue: 1000, Blobs: blobs, Metrics: o.metrics,
	})
	st, ts, roles, us := svcs.Deps.Store, svcs.Tenants, svcs.Roles, svcs.Users
	watchAudit(t, svcs.Deps.Audit)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system"})
	if _, err := roles.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := auth.Bootstrap(ctx, ts, us, roles, adminEmail, password); err != nil {
		t.Fatal(err)
	}
	e := &env{st: st, faults: faults, calls: calls, tenants: ts, users: us, signIns: svcs.Auth, roles: roles, catalog: svcs.Catalog, clock: clk, dns: dns,
		domains: svcs.Domains, keys: svcs.Keys, usage: svcs.Usage, files: svcs.Files, archives: svcs.Archives, support: svcs.Support, sso: svcs.SSO, imports: svcs.Imports, webhooks: svcs.Webhooks, blobs: blobs}
	t.Cleanup(svcs.Imports.Wait)
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
	var err error
	e.acmeBob, err = us.Create(ctx, e.acme.ID, kanri.UserInput{Username: "bob", Email: "bob@acme.test", DisplayName: "Bob", Password: password})
	if err != nil {
		t.Fatal(err)
	}
	e.globUsr, _ = us.Create(ctx, e.globex.ID, kanri.UserInput{Username: "gus", Email: "gus@globex.test", DisplayName: "Gus", Password: password})
	work, served := features.Start(svcs)
	e.work = work
	e.config = web.Config{
		Deps: svcs.Deps, Services: *svcs, Features: served, SessionSecret: []byte("0123456789abcdef0123456789abcdef"),
		Tracer: o.tracer, MetricsToken: o.metricsToken, TrustedProxies: o.trustedProxies,
	}
	handler := web.New(e.config)
	e.echo = handler.(*echo.Echo)
	e.srv = httptest.NewServer(handler)
	t.Cleanup(e.srv.Close)
	return e
}

// runWork runs the workers of the feature named name until the test ends.
func (e *env) runWork(t testing.TB, name string) {
	t.Helper()
	for _, f := range e.work {
		if f.Name != name {
			continue
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for _, w := range f.Work {
			wg.Go(func() { _ = w.Run(ctx) })
		}
		t.Cleanup(func() { cancel(); wg.Wait() })
		return
	}
	t.Fatalf("no feature %s has work", name)
}

// openBlobs opens a local blob store in a temporary directory.
func openBlobs(t testing.TB) *blob.Bucket {
	t.Helper()
	d, err := disk.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return blob.New(d)
}

// client is a browser-like client with its own cookies.
type client struct {
	t    testing.TB
	e    *env
	http *http.Client
	csrf string
	// base is the address the client reaches the server at: the test
	// server's, or another name of it (localClient).
	base string
}

func (e *env) client(t testing.TB) *client {
	jar, _ := cookiejar.New(nil)
	// The server's own transport, not http.DefaultTransport: the tests run
	// in parallel, and closing another test's server closes the idle
	// connections of http.DefaultTransport (httptest.Server.Close), which
	// can break a request of this test that was about to reuse one.
	return &client{t: t, e: e, base: e.srv.URL, http: &http.Client{Transport: e.srv.Client().Transport, Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// localClient is a client that reaches the server as localhost, a domain
// name, as a browser must for passkeys (at 127.0.0.1 there are none).
func (e *env) localClient(t testing.TB) *client {
	c := e.client(t)
	c.base = strings.Replace(e.srv.URL, "127.0.0.1", "localhost", 1)
	return c
}

var csrfPattern = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// get fetches path and remembers the page's CSRF token.
func (c *client) get(path string) (*http.Response, string) {
	c.t.Helper()
	resp, err := c.http.Get(c.base + path)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp, "" // a live stream: it never ends; closing it ends it
	}
	b, _ := io.ReadAll(resp.Body)
	if m := csrfPattern.FindSubmatch(b); m != nil {
		c.csrf = string(m[1])
	}
	return resp, string(b)
}

// landing follows the redirects from resp and returns the page they end
// on ("" when resp is no redirect).
func (c *client) landing(resp *http.Response) string {
	c.t.Helper()
	page := ""
	for loc, n := resp.Header.Get("Location"), 0; loc != "" && n < 10; n++ {
		var r *http.Response
		r, page = c.get(loc)
		loc = r.Header.Get("Location")
	}
	return page
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
	resp, err := c.http.PostForm(c.base+path, form)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// send makes a request with the given method and headers, with the
// client's CSRF token as its header (as scripts send it).
func (c *client) send(method, path string, body io.Reader, h http.Header) (*http.Response, string) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("X-CSRF-Token", c.csrf)
	for k, vs := range h {
		req.Header[k] = vs // a test's own token (or none) included
	}
	resp, err := c.http.Do(req)
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

// watchAudit fails the test for every audit record the test's flows write
// whose resource type the audit page does not offer as a filter
// (kanri.AuditResourceTypes), or whose action the page cannot name
// (audit.action.<action> in the catalog): the records of every feature a
// test drives are checked, not a list of them.
func watchAudit(t testing.TB, log *audit.Log) {
	var mu sync.Mutex
	var problems []string
	log.Observe(func(en audit.Entry) {
		var p []string
		if !kanri.IsAuditResourceType(en.Resource.Type) {
			p = append(p, en.Action+" of a "+en.Resource.Type+": not a declared resource type (kanri.AuditResourceTypes)")
		}
		if !i18n.Has("audit.action." + en.Action) {
			p = append(p, en.Action+": no label audit.action."+en.Action+" in the catalog")
		}
		mu.Lock()
		defer mu.Unlock()
		problems = append(problems, p...)
	})
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range slices.Compact(slices.Sorted(slices.Values(problems))) {
			t.Errorf("audit record %s", p)
		}
	})
}
