package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/wiring"
)

const loadPassword = "Load-test-pass-1"

// BenchmarkHTTPLoad runs the real binary on an embedded store of 100
// tenants × 1,000 users and loads it over HTTP as the operator's global
// administrator:
//
//   - UserList: 16 clients read one tenant's user list for 10 s;
//   - APIList, APIUser: 16 programs list users, or read one user, through
//     the API for 10 s with a key the operator's administrator made;
//   - Mixed: 200 clients read the users (with and without a search),
//     audit, roles and tenant pages for KANRI_LOAD_SECONDS (60 unless set)
//     while 4 others create users.
//
// It reports requests per second, p50 and p99 latency, and the requests
// that failed or took over 2 s. Run it with `make bench` or
// `go test ./internal/bench -run '^$' -bench HTTPLoad -benchtime 1x`.
// KANRI_SHORT_LOAD_SECONDS shortens the 10 s runs, and KANRI_BENCH_BIN
// names a binary to load instead of building cmd/kanri (to compare two
// versions on the same seed).
func BenchmarkHTTPLoad(b *testing.B) {
	dir := b.TempDir()
	apiSecret := seedHTTP(b, dir)
	bin := os.Getenv("KANRI_BENCH_BIN")
	if bin == "" {
		bin = filepath.Join(b.TempDir(), "kanri")
		build := exec.Command("go", "build", "-o", bin, "../../cmd/kanri")
		if out, err := build.CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
	}
	args := []string{"-addr", "127.0.0.1:0", "-data-dir", dir, "-bcrypt-cost", "4"}
	profiles := os.Getenv("KANRI_BENCH_PROFILE")
	if profiles != "" {
		args = append(args, "-debug-addr", "127.0.0.1:0")
	}
	srv := exec.Command(bin, args...)
	stderr, _ := srv.StderrPipe()
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	addr, debugAddr := "", ""
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		var rec struct{ Msg, Addr string }
		if json.Unmarshal(lines.Bytes(), &rec) == nil && rec.Msg == "profiler listening" {
			debugAddr = rec.Addr
		}
		if json.Unmarshal(lines.Bytes(), &rec) == nil && rec.Msg == "kanri listening" {
			addr = rec.Addr
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	if addr == "" {
		b.Fatal("the server did not start")
	}
	base := "http://" + addr
	seconds := 60
	if v, err := strconv.Atoi(os.Getenv("KANRI_LOAD_SECONDS")); err == nil && v > 0 {
		seconds = v
	}
	short := 10 * time.Second
	if v, err := strconv.Atoi(os.Getenv("KANRI_SHORT_LOAD_SECONDS")); err == nil && v > 0 {
		short = time.Duration(v) * time.Second
	}
	users := "/t/tenant_t000/users"
	b.Run("UserList", func(b *testing.B) {
		for b.Loop() {
			stop := profile(b, debugAddr, profiles, "userlist", 8)
			r := loadRun(b, base, 16, short, []string{users}, 0)
			stop()
			r.report(b)
		}
	})
	b.Run("APIList", func(b *testing.B) {
		for b.Loop() {
			r := apiLoad(b, base+"/api/v1/users?limit=20", apiSecret, 16, short)
			r.report(b)
		}
	})
	b.Run("APIUser", func(b *testing.B) {
		for b.Loop() {
			r := apiLoad(b, base+"/api/v1/users/user_0001", apiSecret, 16, short)
			r.report(b)
		}
	})
	b.Run("Mixed", func(b *testing.B) {
		for b.Loop() {
			pages := []string{users, users + "?q=user05", "/t/tenant_t000/audit", "/t/tenant_t000/roles", "/tenants", users + "?status=active&sort=email"}
			writers := 4
			if v, err := strconv.Atoi(os.Getenv("KANRI_LOAD_WRITERS")); err == nil && v >= 0 {
				writers = v
			}
			clients := 200
			if v, err := strconv.Atoi(os.Getenv("KANRI_LOAD_CLIENTS")); err == nil && v > 0 {
				clients = v
			}
			stop := profile(b, debugAddr, profiles, "mixed", seconds*3/4)
			r := loadRun(b, base, clients, time.Duration(seconds)*time.Second, pages, writers)
			stop()
			r.report(b)
		}
	})
}

// profile, when KANRI_BENCH_PROFILE names a directory, records a CPU
// profile of the server for the first seconds of a load run into
// dir/name.pprof (read it with go tool pprof). The returned function
// waits for it.
func profile(b *testing.B, debugAddr, dir, name string, seconds int) (wait func()) {
	if dir == "" || debugAddr == "" {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", debugAddr, seconds))
		if err != nil {
			b.Errorf("profile: %v", err)
			return
		}
		defer resp.Body.Close()
		f, err := os.Create(filepath.Join(dir, name+".pprof"))
		if err != nil {
			b.Errorf("profile: %v", err)
			return
		}
		defer f.Close()
		io.Copy(f, resp.Body)
	}()
	return func() { <-done }
}

type loadResult struct {
	byPage           map[string][]time.Duration
	latencies        []time.Duration
	errors, timeouts int64
	creates          int64
	elapsed          time.Duration
}

func (r loadResult) report(b *testing.B) {
	slices.Sort(r.latencies)
	pct := func(p float64) float64 {
		if len(r.latencies) == 0 {
			return 0
		}
		return float64(r.latencies[int(float64(len(r.latencies)-1)*p)].Microseconds()) / 1000
	}
	b.ReportMetric(float64(len(r.latencies))/r.elapsed.Seconds(), "req/s")
	b.ReportMetric(pct(0.50), "p50_ms")
	b.ReportMetric(pct(0.99), "p99_ms")
	b.ReportMetric(float64(r.errors), "errors")
	b.ReportMetric(float64(r.timeouts), "timeouts")
	b.ReportMetric(float64(r.creates), "creates")
	b.ReportMetric(0, "ns/op")
	for page, ls := range r.byPage {
		slices.Sort(ls)
		b.Logf("%-45s %6d requests, p50 %v, p99 %v", page, len(ls), ls[len(ls)/2].Round(time.Microsecond*100), ls[(len(ls)-1)*99/100].Round(time.Microsecond*100))
	}
}

// apiLoad has clients call target with an API key for d: each call is
// authenticated, rate limited and logged by the server.
func apiLoad(b *testing.B, target, secret string, clients int, d time.Duration) loadResult {
	transport := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	client := &http.Client{Transport: transport, Timeout: 2 * time.Second}
	var mu sync.Mutex
	var res loadResult
	var errs, timeouts atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			var mine []time.Duration
			for ctx.Err() == nil {
				t0 := time.Now()
				req, _ := http.NewRequest(http.MethodGet, target, nil)
				req.Header.Set("Authorization", "Bearer "+secret)
				resp, err := client.Do(req)
				switch {
				case err != nil && ctx.Err() != nil:
				case err != nil:
					timeouts.Add(1)
				default:
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						errs.Add(1)
					}
					mine = append(mine, time.Since(t0))
				}
			}
			mu.Lock()
			res.latencies = append(res.latencies, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	res.errors, res.timeouts = errs.Load(), timeouts.Load()
	res.byPage = map[string][]time.Duration{target: res.latencies}
	return res
}

// loadRun signs in clients+writers sessions, then for d has each client
// GET the pages in turn and each writer create users.
func loadRun(b *testing.B, base string, clients int, d time.Duration, pages []string, writers int) loadResult {
	transport := &http.Transport{MaxIdleConnsPerHost: clients + writers, MaxConnsPerHost: clients + writers}
	var mu sync.Mutex
	var res loadResult
	var errs, timeouts, creates atomic.Int64
	sessions := make([]*http.Client, clients+writers)
	tokens := make([]string, clients+writers)
	for i := range sessions {
		sessions[i], tokens[i] = signInHTTP(b, base, transport)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			var mine []time.Duration
			perPage := map[string][]time.Duration{}
			for n := i; ctx.Err() == nil; n++ {
				t0 := time.Now()
				page := pages[n%len(pages)]
				resp, err := sessions[i].Get(base + page)
				switch {
				case err != nil && ctx.Err() != nil:
				case err != nil:
					timeouts.Add(1)
				default:
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						errs.Add(1)
					}
					mine = append(mine, time.Since(t0))
					perPage[page] = append(perPage[page], time.Since(t0))
				}
			}
			mu.Lock()
			res.latencies = append(res.latencies, mine...)
			if res.byPage == nil {
				res.byPage = map[string][]time.Duration{}
			}
			for p, ls := range perPage {
				res.byPage[p] = append(res.byPage[p], ls...)
			}
			mu.Unlock()
		})
	}
	for w := range writers {
		i := clients + w
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				name := fmt.Sprintf("load%d-%d-%d", i, n, time.Now().UnixNano())
				resp, err := sessions[i].PostForm(base+"/t/tenant_t000/users", url.Values{
					"_csrf": {tokens[i]}, "username": {name}, "email": {name + "@load.test"}, "displayName": {name}, "password": {loadPassword},
				})
				if err == nil {
					resp.Body.Close()
					if resp.StatusCode == http.StatusSeeOther {
						creates.Add(1)
					}
				}
			}
		})
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	res.errors, res.timeouts, res.creates = errs.Load(), timeouts.Load(), creates.Load()
	return res
}

var csrfPattern = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// signInHTTP signs the operator's administrator in and returns the session
// and its CSRF token.
func signInHTTP(b *testing.B, base string, t http.RoundTripper) (*http.Client, string) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Transport: t, Timeout: 2 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	token := func(path string) string {
		resp, err := c.Get(base + path)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		m := csrfPattern.FindSubmatch(body)
		if m == nil {
			b.Fatalf("no CSRF token on %s", path)
		}
		return string(m[1])
	}
	resp, err := c.PostForm(base+"/login", url.Values{"_csrf": {token("/login")}, "tenant": {"privileged"}, "username": {"admin@example.com"}, "password": {loadPassword}})
	if err != nil || resp.StatusCode != http.StatusSeeOther {
		b.Fatalf("sign in: %v %v", resp, err)
	}
	resp.Body.Close()
	return c, token("/account")
}

// seedHTTP writes the operator, 100 tenants (through the services) and
// their 1,000 users each (in batches, for speed) into a store in dir.
func seedHTTP(b testing.TB, dir string) (apiSecret string) {
	start := time.Now()
	ds, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ds.Close()
	svcs := wiring.New(store.New(ds, nil, features.Schema()), nil, nil, wiring.Options{Roles: features.Roles(), Hasher: auth.Hasher{Cost: bcrypt.MinCost}})
	ts, roles, users := svcs.Tenants, svcs.Roles, svcs.Users
	if _, err := roles.Seed(context.Background()); err != nil {
		b.Fatal(err)
	}
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", GlobalAdmin: true})
	if _, _, err := auth.Bootstrap(ctx, ts, users, roles, "admin@example.com", loadPassword); err != nil {
		b.Fatal(err)
	}
	c := ds.Container(kanri.ContainerAuth)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for t := range 100 {
		ten, err := ts.Create(ctx, kanri.TenantInput{Name: fmt.Sprintf("t%03d", t), DisplayName: fmt.Sprintf("Tenant %d", t), Plan: kanri.PlanStandard, MaxUsers: 10000})
		if err != nil {
			b.Fatal(err)
		}
		for chunk := 0; chunk < usersPerTenant; chunk += 100 {
			var ops []docstore.Op
			for i := chunk; i < chunk+100; i++ {
				u := kanri.User{
					Doc:      kanri.Doc{ID: fmt.Sprintf("user_%04d", i), TenantID: ten.ID, Type: kanri.TypeUser, SchemaVersion: kanri.UserSchemaVersion},
					Username: fmt.Sprintf("user%04d", i), Email: fmt.Sprintf("user%04d@t%03d.test", i, t), DisplayName: fmt.Sprintf("User %d", i),
					PasswordHash: "x", IsActive: statuses[i%len(statuses)], CreatedAt: kanri.NewTime(base.Add(time.Duration(i) * time.Minute)),
				}
				body, _ := json.Marshal(u)
				ops = append(ops, docstore.Op{Kind: docstore.OpCreate, Body: body})
			}
			if _, err := c.Batch(context.Background(), ten.ID, ops); err != nil {
				b.Fatal(err)
			}
		}
		if err := ts.SetUserCount(ctx, ten.ID, usersPerTenant); err != nil {
			b.Fatal(err)
		}
	}
	// An API key of tenant_t000 with a limit the load cannot reach.
	if _, _, err := svcs.Catalog.Assign(ctx, "tenant_t000", kanri.AssignmentInput{ServiceID: kanri.APIServiceID}); err != nil {
		b.Fatal(err)
	}
	// Made by the operator's global administrator, whose rights it has.
	adminID, err := users.IDByUsername(ctx, kanri.PrivilegedTenantID, "admin@example.com")
	if err != nil {
		b.Fatal(err)
	}
	_, apiSecret, err = svcs.Keys.Create(audit.WithActor(ctx, audit.Actor{UserID: adminID}), "tenant_t000", apikey.Input{Name: "load", Scopes: []string{kanri.ScopeRead}, RateLimit: "1000000", RateLimitWindow: "1h"})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded 100 tenants × %d users in %v", usersPerTenant, time.Since(start).Round(time.Millisecond))
	return apiSecret
}
