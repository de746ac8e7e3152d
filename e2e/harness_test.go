//go:build e2e

package e2e

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/kanri/kanri/internal/azureblob/azuritetest"
	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/emaildomain/dnstest"
)

const (
	chromiumPath = "/usr/bin/chromium"
	adminEmail   = "admin@example.com"
	adminPass    = "Admin-pass-123"
	// storeEnv chooses the store of the server under test: embedded
	// (default) or cosmos.
	storeEnv = "KANRI_E2E_STORE"
	// debugEnv, when set, logs the server output of every step.
	debugEnv = "KANRI_E2E_DEBUG"

	// The timeouts only guard against hangs: every wait ends as soon as
	// its condition holds, so a slow machine makes a step slower, never
	// failed. (A POST's page once took more than 15 s to fire its load
	// event beside a second suite and stress-ng --cpu 4.)
	startTimeout  = 2 * time.Minute
	stopTimeout   = time.Minute
	actionTimeout = time.Minute // clicks, fills, navigations
	expectTimeout = time.Minute // assertions (they pass as soon as they hold)
)

// storeUnderTest returns the store chosen by KANRI_E2E_STORE.
func storeUnderTest(t *testing.T) string {
	switch s := os.Getenv(storeEnv); s {
	case "", "embedded":
		return "embedded"
	case "cosmos":
		if os.Getenv("KANRI_SKIP_COSMOS") == "1" {
			t.Fatalf("%s=cosmos, but KANRI_SKIP_COSMOS=1 would skip the Cosmos test server: unset it", storeEnv)
		}
		return "cosmos"
	default:
		t.Fatalf("%s=%q: want embedded or cosmos", storeEnv, s)
		return ""
	}
}

// ---------------------------------------------------------------------------
// The server under test.

// server is a running kanri binary.
type server struct {
	URL   string // http://127.0.0.1:PORT
	Store string
	log   *lineLog // its stdout and stderr, line by line
	// DNS is the DNS server the console verifies domains against.
	DNS *dnstest.Server
	env []string // the environment it runs in, for another instance
	// debugURL is its Go profiler (KANRI_DEBUG_ADDR), from which a failed
	// step takes the stacks of every goroutine.
	debugURL string
}

// lineLog keeps the server's output lines.
type lineLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *lineLog) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
}

// mark returns a position for since.
func (l *lineLog) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lines)
}

// since returns the lines logged after mark, at most the last max.
func (l *lineLog) since(mark, max int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	lines := l.lines[min(mark, len(l.lines)):]
	if len(lines) > max {
		lines = lines[len(lines)-max:]
	}
	if len(lines) == 0 {
		return "(no output)"
	}
	return strings.Join(lines, "\n")
}

// startServer builds nothing (TestMain did) and runs kanri on the store,
// with a fresh data directory or Cosmos database, and a bootstrap admin.
// It stops the server with SIGTERM when t ends.
func startServer(t *testing.T, store string) *server {
	t.Helper()
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KANRI_") { // the test decides every setting
			env = append(env, kv)
		}
	}
	env = append(env,
		"KANRI_ADDR=127.0.0.1:0",
		"KANRI_DATA_DIR="+t.TempDir(),
		"KANRI_BOOTSTRAP_ADMIN_EMAIL="+adminEmail,
		"KANRI_BOOTSTRAP_ADMIN_PASSWORD="+adminPass,
		"KANRI_BCRYPT_COST=4",
		"KANRI_LOG_LEVEL=info",
		"KANRI_API_USAGE_FLUSH=100ms",
		"KANRI_DEBUG_ADDR=127.0.0.1:0",     // the stacks of a failed step
		"KANRI_SSO_ALLOW_PRIVATE=true",     // the tests' OpenID provider is on loopback
		"KANRI_WEBHOOK_ALLOW_PRIVATE=true", // so is the tests' webhook receiver
	)
	dns := dnstest.Start(t)
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	env = append(env, "KANRI_DNS_SERVER="+dns.Addr, "KANRI_SESSION_SECRET="+hex.EncodeToString(secret))
	if store == "cosmos" {
		cs := cosmostest.Start(t) // stopped after the server: cleanups run last first
		az := azuritetest.Start(t)
		env = append(env,
			"KANRI_BLOB=azure",
			"KANRI_AZURE_STORAGE_CONNECTION_STRING="+az.ConnectionString(),
			"KANRI_STORE=cosmos",
			"KANRI_COSMOS_ENDPOINT="+cs.Endpoint,
			"KANRI_COSMOS_KEY="+cs.Key(),
			fmt.Sprintf("KANRI_COSMOS_DATABASE=kanri-e2e-%d", time.Now().UnixNano()),
			"KANRI_COSMOS_INSECURE_SKIP_VERIFY=true",
		)
		t.Logf("store: cosmos (local Cosmos DB test server at %s), blobs: Azurite at %s", cs.Endpoint, az.Endpoint)
	} else {
		env = append(env, "KANRI_STORE=embedded", "KANRI_BLOB=local")
		t.Logf("store: embedded, blobs: local directory")
	}

	s := launch(t, store, env)
	s.DNS, s.env = dns, env
	return s
}

// another starts another instance of the server: on Cosmos DB it shares
// the first one's database and session secret (so a session signed in on
// one is valid on the other); the embedded store has one instance, the
// first.
func (s *server) another(t *testing.T) *server {
	t.Helper()
	if s.Store != "cosmos" {
		return s
	}
	env := slices.Clone(s.env)
	for i, kv := range env {
		if strings.HasPrefix(kv, "KANRI_DATA_DIR=") {
			env[i] = "KANRI_DATA_DIR=" + t.TempDir()
		}
	}
	other := launch(t, s.Store, env)
	other.DNS, other.env = s.DNS, env
	return other
}

// freshEnv is the environment of another server with a store and data
// directory of its own (on Cosmos DB a database of its own), sharing
// nothing with s: for launch, once its store is seeded.
func (s *server) freshEnv(t *testing.T) []string {
	t.Helper()
	env := slices.Clone(s.env)
	for i, kv := range env {
		switch {
		case strings.HasPrefix(kv, "KANRI_DATA_DIR="):
			env[i] = "KANRI_DATA_DIR=" + t.TempDir()
		case strings.HasPrefix(kv, "KANRI_COSMOS_DATABASE="):
			env[i] = fmt.Sprintf("KANRI_COSMOS_DATABASE=kanri-e2e-%d", time.Now().UnixNano())
		}
	}
	return env
}

// setting returns the value of a setting of env.
func setting(env []string, name string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// launch runs the server binary with env and waits until it listens.
func launch(t *testing.T, store string, env []string) *server {
	t.Helper()
	s := &server{Store: store, log: &lineLog{}}
	cmd := exec.Command(serverBin)
	cmd.Dir = t.TempDir()
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setPdeathsig(cmd.SysProcAttr)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", serverBin, err)
	}

	addr := make(chan string, 1)
	var readers sync.WaitGroup
	read := func(r io.Reader, watch bool) {
		defer readers.Done()
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			s.log.add(line)
			if !watch {
				continue
			}
			var rec struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "profiler listening" && rec.Addr != "" {
				s.setDebugURL("http://" + rec.Addr)
			}
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "kanri listening" && rec.Addr != "" {
				select {
				case addr <- rec.Addr:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, r)
	}
	readers.Add(2)
	go read(stdout, false)
	go read(stderr, true)
	exited := make(chan struct{})
	var waitErr error
	go func() {
		readers.Wait() // Wait only after the pipes are read to the end
		waitErr = cmd.Wait()
		close(exited)
	}()
	kill := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}

	select {
	case a := <-addr:
		s.URL = "http://" + a
	case <-exited:
		t.Fatalf("kanri exited before listening (%v); its output:\n%s", waitErr, s.log.since(0, 200))
	case <-time.After(startTimeout):
		kill()
		t.Fatalf("kanri did not log \"kanri listening\" within %s; its output:\n%s", startTimeout, s.log.since(0, 200))
	}
	t.Logf("kanri (%s store) listening at %s", store, s.URL)

	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
			if waitErr != nil {
				t.Errorf("kanri did not exit cleanly on SIGTERM: %v", waitErr)
			}
		case <-time.After(stopTimeout):
			kill()
			t.Errorf("kanri did not stop within %s of SIGTERM; killed", stopTimeout)
		}
		if t.Failed() {
			t.Logf("kanri output (last 100 lines):\n%s", s.log.since(0, 100))
		}
	})
	return s
}

// ---------------------------------------------------------------------------
// The browser.

// startBrowser runs the Playwright driver of .e2e/driver (built by
// e2e/setup.sh; nothing is ever downloaded) and launches Debian's Chromium.
func startBrowser(t *testing.T) playwright.Browser {
	t.Helper()
	driver := filepath.Join(repoRoot, ".e2e", "driver")
	for _, f := range []string{chromiumPath, filepath.Join(driver, "package", "cli.js"), filepath.Join(driver, "node")} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("%s is missing: run `make e2e` (or `bash e2e/setup.sh`) first to install Chromium and the Playwright driver", f)
		}
	}
	start := time.Now()
	pw, err := playwright.Run(&playwright.RunOptions{
		DriverDirectory:     driver,
		SkipInstallBrowsers: true,
		Stdout:              os.Stderr,
		Stderr:              os.Stderr,
	})
	if err != nil {
		t.Fatalf("starting the Playwright driver in %s: %v (run `make e2e` to rebuild it)", driver, err)
	}
	browser, err := pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath: playwright.String(chromiumPath),
		Headless:       playwright.Bool(true),
		Args: []string{
			"--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
			"--disable-background-networking", "--disable-component-update",
			"--disable-sync", "--no-first-run", "--disable-quic",
		},
	})
	if err != nil {
		_ = pw.Stop()
		t.Fatalf("launching %s: %v", chromiumPath, err)
	}
	t.Logf("chromium %s started in %s", browser.Version(), time.Since(start).Round(time.Millisecond))
	t.Cleanup(func() {
		_ = browser.Close()
		_ = pw.Stop()
	})
	return browser
}

// ---------------------------------------------------------------------------
// The suite: one server, one browser, sessions (browser contexts) of users.

type suite struct {
	srv     *server
	browser playwright.Browser
	expect  playwright.PlaywrightAssertions

	mu     sync.Mutex
	events []string // dialogs, page errors and console errors, in order
	passed map[string]bool
	// stepSessions are the sessions opened by the running step.
	stepSessions []*session
	userIDs      map[string]string // username -> id
	// front is the page last brought to the front. Headless Chromium may
	// stop rendering pages behind it, which stalls navigations and
	// screenshots there; every helper that acts on a page brings it forward.
	front playwright.Page

	// axe counts what the accessibility check found (see checkA11y).
	axe axeTally

	// The sessions the steps share: the operator's administrator, acme's
	// administrator alice, alice on a narrow screen, and the viewer vera.
	admin, alice, narrow, vera *session
}

// pagesOf returns the sessions ps point to that are open, for a step's
// failure screenshots.
func (s *suite) pagesOf(ps ...**session) func() []*session {
	return func() []*session {
		var out []*session
		for _, p := range ps {
			if *p != nil {
				out = append(out, *p)
			}
		}
		return out
	}
}

// focus brings page to the front unless it is already there.
//
// It must not hold s.mu while it waits for Chromium: playwright-go runs
// the console and page-error handlers (which take s.mu to record the
// event) on the goroutine that reads every answer from the driver, so an
// event arriving during the wait would block that goroutine and the
// answer with it, forever (seen under load, with a page of a stopped
// server logging its stream's reconnections).
func (s *suite) focus(t *testing.T, page playwright.Page) {
	t.Helper()
	s.mu.Lock()
	front := s.front
	s.mu.Unlock()
	if front == page {
		return
	}
	if err := page.BringToFront(); err != nil {
		t.Fatalf("bringing %s to the front: %v", page.URL(), err)
	}
	s.mu.Lock()
	s.front = page
	s.mu.Unlock()
}

// session is one signed-in (or not yet) browser context with its page.
type session struct {
	label string
	ctx   playwright.BrowserContext
	page  playwright.Page
	// base is the server the session uses when it is not the suite's
	// (a second instance); "" for the suite's.
	base string
}

// urlOf returns the URL of path on the server of p.
func (s *suite) urlOf(p *session, path string) string {
	if p.base != "" {
		return p.base + path
	}
	return s.url(path)
}

// newSession opens a browser context (its own cookies) with one page. Every
// confirm() is accepted; dialogs, uncaught page errors and console errors are
// recorded (never t.Fatal in an event handler: it would stop the event loop).
func (s *suite) newSession(t *testing.T, label string, viewport *playwright.Size) *session {
	t.Helper()
	return s.newSessionAt(t, label, viewport, "")
}

// newSessionAt is newSession on the server at base ("" for the suite's).
func (s *suite) newSessionAt(t *testing.T, label string, viewport *playwright.Size, base string) *session {
	t.Helper()
	if viewport == nil {
		viewport = &playwright.Size{Width: 1280, Height: 900}
	}
	url := s.srv.URL
	if base != "" {
		url = base
	}
	ctx, err := s.browser.NewContext(playwright.BrowserNewContextOptions{
		BaseURL:         playwright.String(url),
		Locale:          playwright.String("en-US"),
		Viewport:        viewport,
		AcceptDownloads: playwright.Bool(true),
	})
	if err != nil {
		t.Fatalf("new browser context: %v", err)
	}
	ctx.SetDefaultTimeout(float64(actionTimeout.Milliseconds()))
	ctx.SetDefaultNavigationTimeout(float64(actionTimeout.Milliseconds()))
	p := &session{label: label, ctx: ctx, base: base}
	p.page = s.newPage(t, p)
	s.stepSessions = append(s.stepSessions, p)
	return p
}

// newPage opens a page in the session's context (its cookies); p.label
// names it in the recorded events.
func (s *suite) newPage(t *testing.T, p *session) playwright.Page {
	t.Helper()
	page, err := p.ctx.NewPage()
	if err != nil {
		t.Fatalf("new page: %v", err)
	}
	page.OnDialog(func(d playwright.Dialog) {
		s.event(fmt.Sprintf("%s: dialog %s %q accepted", p.label, d.Type(), d.Message()))
		_ = d.Accept()
	})
	page.OnPageError(func(err error) {
		s.event(fmt.Sprintf("%s: PAGE ERROR %v", p.label, err))
	})
	page.OnConsole(func(m playwright.ConsoleMessage) {
		if m.Type() == "error" {
			s.event(fmt.Sprintf("%s: console error %s", p.label, m.Text()))
		}
	})
	return page
}

func (s *suite) event(e string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, e)
}

func (s *suite) eventsSince(mark int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.events[min(mark, len(s.events)):]...)
}

func (s *suite) eventMark() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.events)
}

// step runs one ordered scenario step as a subtest. It fails at once when a
// step it depends on did not pass (never a silent skip). When the step
// fails, it saves a full-page screenshot of each of its pages to
// e2e/screenshots/<test>-<step>[-<page>].png and logs the server output and
// browser events of the step. Uncaught page errors and Content Security
// Policy violations fail the step.
func (s *suite) step(t *testing.T, name string, deps []string, pages func() []*session, fn func(t *testing.T)) {
	t.Run(name, func(t *testing.T) {
		for _, d := range deps {
			if !s.passed[d] {
				t.Fatalf("cannot run: the earlier step %q did not pass", d)
			}
		}
		logMark, evMark := s.srv.log.mark(), s.eventMark()
		s.stepSessions = nil
		t.Cleanup(func() {
			evs := s.eventsSince(evMark)
			for _, e := range evs {
				if strings.Contains(e, "PAGE ERROR") || strings.Contains(e, "Content Security Policy") {
					t.Errorf("browser: %s", e)
				}
			}
			if !t.Failed() {
				s.passed[name] = true
				return
			}
			var ps []*session
			if pages != nil {
				ps = pages()
			}
			for _, p := range s.stepSessions {
				if !slices.Contains(ps, p) {
					ps = append(ps, p)
				}
			}
			for _, p := range ps {
				if p == nil || p.page == nil || p.page.IsClosed() {
					continue
				}
				file := sanitize(t.Name())
				if len(ps) > 1 {
					file += "-" + sanitize(p.label)
				}
				s.saveScreenshot(t, p.page, filepath.Join(repoRoot, "e2e", "screenshots", file+".png"))
			}
			if len(evs) > 0 {
				t.Logf("browser events of this step:\n  %s", strings.Join(evs, "\n  "))
			}
			t.Logf("kanri output during this step (last 80 lines):\n%s", s.srv.log.since(logMark, 80))
			s.srv.saveStacks(t, filepath.Join(repoRoot, "e2e", "screenshots", sanitize(t.Name())+"-goroutines.txt"))
		})
		fn(t)
		if os.Getenv(debugEnv) != "" {
			t.Logf("DEBUG\n%s", s.srv.log.since(logMark, 200))
		}
	})
}

// setDebugURL records where the server's profiler listens.
func (s *server) setDebugURL(u string) {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	s.debugURL = u
}

// saveStacks writes the stacks of every goroutine of the server to path,
// and logs those in Kanri's own code: where a step that timed out was
// waiting (a request, a background run) shows there.
func (s *server) saveStacks(t *testing.T, path string) {
	s.log.mu.Lock()
	u := s.debugURL
	s.log.mu.Unlock()
	if u == "" {
		t.Log("kanri's goroutines: no profiler address was logged")
		return
	}
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(u + "/debug/pprof/goroutine?debug=2")
	if err != nil {
		t.Logf("kanri's goroutines: %v", err)
		return
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Logf("kanri's goroutines: %v", err)
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Logf("kanri's goroutines: %v", err)
	}
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Logf("kanri's goroutines: %v", err)
	}
	var ours []string
	for _, g := range strings.Split(string(body), "\n\n") {
		if strings.Contains(g, "github.com/kanri/kanri/internal/") {
			ours = append(ours, g)
		}
	}
	t.Logf("kanri's goroutines (all in %s); the %d in its own code:\n%s", path, len(ours), strings.Join(ours, "\n\n"))
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func sanitize(s string) string { return unsafeChars.ReplaceAllString(s, "-") }

// screenshot saves a full-page screenshot for people to look at into
// e2e/screenshots/<store>/ and logs it. Each store has its folder: make
// test runs both stores' suites at the same time.
func (s *suite) screenshot(t *testing.T, page playwright.Page, file string) string {
	t.Helper()
	return s.saveScreenshot(t, page, filepath.Join(repoRoot, "e2e", "screenshots", s.srv.Store, file))
}

// saveScreenshot saves a full-page screenshot of page to path and logs it.
func (s *suite) saveScreenshot(t *testing.T, page playwright.Page, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Logf("screenshot: %v", err)
		return ""
	}
	if err := page.BringToFront(); err != nil {
		t.Logf("screenshot: %v", err)
	}
	s.mu.Lock()
	s.front = page
	s.mu.Unlock()
	if _, err := page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(path), FullPage: playwright.Bool(true)}); err != nil {
		t.Logf("screenshot %s failed: %v", path, err)
		return ""
	}
	t.Logf("screenshot (%s): %s", page.URL(), path)
	return path
}

// ---------------------------------------------------------------------------
// Helpers; each fails the step with what was expected.

func (p *session) tid(id string) playwright.Locator { return p.page.GetByTestId(id) }

// url turns a path into an absolute URL of the server.
func (s *suite) url(path string) string { return s.srv.URL + path }

// open navigates to path and checks the HTTP status of the page.
func (s *suite) open(t *testing.T, p *session, path string, status int) {
	t.Helper()
	s.focus(t, p.page)
	resp, err := p.page.Goto(path)
	if err != nil {
		t.Fatalf("%s: GET %s: %v", p.label, path, err)
	}
	if resp == nil {
		t.Fatalf("%s: GET %s: no response", p.label, path)
	}
	if resp.Status() != status {
		t.Fatalf("%s: GET %s answered %d (final URL %s), want %d", p.label, path, resp.Status(), p.page.URL(), status)
	}
	s.checkA11y(t, p)
}

// submit clicks a submit button and returns the response to the POST it
// sends to path (before any redirect).
func (s *suite) submit(t *testing.T, p *session, button playwright.Locator, path string) playwright.Response {
	t.Helper()
	s.focus(t, p.page)
	want := s.urlOf(p, path)
	resp, err := p.page.ExpectResponse(func(u string) bool { return u == want }, func() error { return button.Click() })
	if err != nil {
		t.Fatalf("%s: submitting to %s: %v", p.label, path, err)
	}
	if m := resp.Request().Method(); m != "POST" {
		t.Fatalf("%s: the first response of %s was to a %s, want the POST", p.label, path, m)
	}
	if err := waitLoaded(p); err != nil {
		t.Fatalf("%s: after POST %s: %v", p.label, path, err)
	}
	s.checkA11y(t, p)
	return resp
}

// waitLoaded waits until p's document has loaded. playwright-go reads the
// frame's load states and then listens for the next change: a "load" that
// comes in between (the redirected page committed and loaded meanwhile)
// is missed, and the wait would last its whole timeout. Waiting a second
// at a time reads the states again.
func waitLoaded(p *session) error {
	var err error
	for range 60 {
		err = p.page.WaitForLoadState(playwright.PageWaitForLoadStateOptions{State: playwright.LoadStateLoad, Timeout: playwright.Float(1000)})
		if !errors.Is(err, playwright.ErrTimeout) {
			return err
		}
	}
	return err
}

// waitURL waits until p's page is at a URL that matches accepts, and
// loaded. playwright-go's WaitForURL reads the frame's URL and then
// listens for the next navigation (and then, likewise, for the load): a
// navigation that commits in between is missed, and the wait would last
// its whole timeout (seen once, filtering the audit log). Waiting a second
// at a time reads the URL and the load states again.
func waitURL(p *session, matches func(string) bool) error {
	var err error
	for range 60 {
		err = p.page.WaitForURL(matches, playwright.PageWaitForURLOptions{Timeout: playwright.Float(1000)})
		if !errors.Is(err, playwright.ErrTimeout) {
			return err
		}
	}
	return err
}

// submitStatus is submit and a check of the status of the POST's response.
func (s *suite) submitStatus(t *testing.T, p *session, button playwright.Locator, path string, status int) {
	t.Helper()
	if got := s.submit(t, p, button, path).Status(); got != status {
		t.Fatalf("%s: POST %s answered %d, want %d (page now %s)", p.label, path, got, status, p.page.URL())
	}
}

func (s *suite) fill(t *testing.T, p *session, testID, value string) {
	t.Helper()
	s.focus(t, p.page)
	if err := p.tid(testID).Fill(value); err != nil {
		t.Fatalf("%s: filling %s on %s: %v", p.label, testID, p.page.URL(), err)
	}
}

func (s *suite) click(t *testing.T, p *session, testID string) {
	t.Helper()
	s.focus(t, p.page)
	if err := p.tid(testID).Click(); err != nil {
		t.Fatalf("%s: clicking %s on %s: %v", p.label, testID, p.page.URL(), err)
	}
}

func (s *suite) visible(t *testing.T, p *session, testID string) {
	t.Helper()
	if err := s.expect.Locator(p.tid(testID)).ToBeVisible(); err != nil {
		t.Fatalf("%s: %s not visible on %s: %v", p.label, testID, p.page.URL(), err)
	}
}

func (s *suite) absent(t *testing.T, p *session, testID string) {
	t.Helper()
	if err := s.expect.Locator(p.tid(testID)).ToHaveCount(0); err != nil {
		t.Fatalf("%s: %s should not be on %s: %v", p.label, testID, p.page.URL(), err)
	}
}

func (s *suite) hasText(t *testing.T, p *session, testID, want string) {
	t.Helper()
	if err := s.expect.Locator(p.tid(testID)).ToHaveText(want); err != nil {
		t.Fatalf("%s: %s on %s: %v", p.label, testID, p.page.URL(), err)
	}
}

func (s *suite) containsText(t *testing.T, p *session, testID, want string) {
	t.Helper()
	if err := s.expect.Locator(p.tid(testID)).ToContainText(want); err != nil {
		t.Fatalf("%s: %s on %s: %v", p.label, testID, p.page.URL(), err)
	}
}

func (s *suite) hasValue(t *testing.T, p *session, testID, want string) {
	t.Helper()
	if err := s.expect.Locator(p.tid(testID)).ToHaveValue(want); err != nil {
		t.Fatalf("%s: the value of %s on %s: %v", p.label, testID, p.page.URL(), err)
	}
}

func (s *suite) hasAttr(t *testing.T, p *session, loc playwright.Locator, what, attr, want string) {
	t.Helper()
	if err := s.expect.Locator(loc).ToHaveAttribute(attr, want); err != nil {
		t.Fatalf("%s: %s[%s] on %s: %v", p.label, what, attr, p.page.URL(), err)
	}
}

// atPath checks that the page is at path (any query).
func (s *suite) atPath(t *testing.T, p *session, path string) {
	t.Helper()
	re := regexp.MustCompile("^" + regexp.QuoteMeta(s.urlOf(p, path)) + `(\?.*)?$`)
	if err := s.expect.Page(p.page).ToHaveURL(re); err != nil {
		t.Fatalf("%s: want to be at %s: %v", p.label, path, err)
	}
	s.checkA11y(t, p)
}

// atURL waits until the page is at path with exactly the query parameters
// params (in any order; empty ones do not count), e.g. "q=bob".
func (s *suite) atURL(t *testing.T, p *session, path string, params ...string) {
	t.Helper()
	want := url.Values{}
	for _, kv := range params {
		k, v, _ := strings.Cut(kv, "=")
		want.Set(k, v)
	}
	matches := func(raw string) bool {
		u, err := url.Parse(raw)
		if err != nil || u.Path != path || s.urlOf(p, "") != u.Scheme+"://"+u.Host {
			return false
		}
		got := url.Values{}
		for k, vs := range u.Query() {
			if vs[0] != "" {
				got.Set(k, vs[0])
			}
		}
		return got.Encode() == want.Encode()
	}
	if err := waitURL(p, matches); err != nil {
		t.Fatalf("%s: want to be at %s?%s, not %s: %v", p.label, path, want.Encode(), p.page.URL(), err)
	}
	s.checkA11y(t, p)
}

// route intercepts the page's requests to path with handler.
func (s *suite) route(t *testing.T, p *session, path string, handler func(playwright.Route)) {
	t.Helper()
	if err := p.page.Route(s.urlOf(p, path), handler); err != nil {
		t.Fatalf("%s: route %s: %v", p.label, path, err)
	}
}

// unroute ends the interception of route.
func (s *suite) unroute(t *testing.T, p *session, path string) {
	t.Helper()
	if err := p.page.Unroute(s.urlOf(p, path)); err != nil {
		t.Fatalf("%s: unroute %s: %v", p.label, path, err)
	}
}

// back presses the browser's Back button and waits for the page to load.
func (s *suite) back(t *testing.T, p *session) {
	t.Helper()
	s.focus(t, p.page)
	if _, err := p.page.GoBack(); err != nil {
		t.Fatalf("%s: back from %s: %v", p.label, p.page.URL(), err)
	}
}

// forward presses the browser's Forward button and waits for the page to
// load.
func (s *suite) forward(t *testing.T, p *session) {
	t.Helper()
	s.focus(t, p.page)
	if _, err := p.page.GoForward(); err != nil {
		t.Fatalf("%s: forward from %s: %v", p.label, p.page.URL(), err)
	}
}

// signIn submits the sign-in form and returns the status of the POST.
func (s *suite) signIn(t *testing.T, p *session, org, username, password string) int {
	t.Helper()
	if !strings.HasSuffix(p.page.URL(), "/login") {
		s.open(t, p, "/login", 200)
	}
	s.fill(t, p, "login-tenant", org)
	s.fill(t, p, "login-username", username)
	s.fill(t, p, "login-password", password)
	return s.submit(t, p, p.tid("login-submit"), "/login").Status()
}

// signInOK signs in and checks the landing page.
func (s *suite) signInOK(t *testing.T, p *session, org, username, password, home string) {
	t.Helper()
	if st := s.signIn(t, p, org, username, password); st != 303 {
		msg, _ := p.tid("login-error").TextContent()
		t.Fatalf("%s: signing in as %s/%s answered %d, want 303 (login-error: %q)", p.label, org, username, st, msg)
	}
	s.atPath(t, p, home)
	s.visible(t, p, "user-menu")
}

// signInFails signs in and expects the generic failure (401, login-error).
func (s *suite) signInFails(t *testing.T, p *session, org, username, password string) string {
	t.Helper()
	if st := s.signIn(t, p, org, username, password); st != 401 {
		t.Fatalf("%s: signing in as %s/%s with a bad password answered %d, want 401", p.label, org, username, st)
	}
	s.visible(t, p, "login-error")
	msg, err := p.tid("login-error").TextContent()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(msg)
}

// userID reads a user's id from the edit link on the tenant's user list.
func (s *suite) userID(t *testing.T, p *session, tenantID, username string) string {
	t.Helper()
	if id := s.userIDs[username]; id != "" {
		return id
	}
	s.open(t, p, "/t/"+tenantID+"/users", 200)
	s.visible(t, p, "user-edit-"+username)
	href, err := p.tid("user-edit-" + username).GetAttribute("href")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`/users/([^/]+)/edit$`).FindStringSubmatch(href)
	if m == nil {
		t.Fatalf("the edit link of %s is %q: no user id in it", username, href)
	}
	s.userIDs[username] = m[1]
	return m[1]
}

// rowAttrs returns an attribute of every element matching loc.
func rowAttrs(t *testing.T, loc playwright.Locator, attr string) []string {
	t.Helper()
	all, err := loc.All()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(all))
	for _, el := range all {
		v, err := el.GetAttribute(attr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}
