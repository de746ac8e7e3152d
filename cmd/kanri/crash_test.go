package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/internal/wiring"
)

// TestMain lets a test start this test binary as the real server: with
// KANRI_TEST_RUN_MAIN=1 it runs main instead of the tests.
func TestMain(m *testing.M) {
	if os.Getenv("KANRI_TEST_RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const crashPassword = "Crash-test-pass-1"

// TestUserCountsConvergeAfterCrashes runs six writers creating and deleting
// users over HTTP while the server is killed (SIGKILL) and restarted again
// and again, then checks after a last restart that every tenant's userCount
// (and its copy in the tenant list) equals the users that exist.
func TestUserCountsConvergeAfterCrashes(t *testing.T) {
	dir := t.TempDir()
	tenants := seedCrashTenants(t, dir)

	// The writers read the current server's address and generation (how
	// many times it was restarted), so that what they report is counted
	// for the server that answered it.
	var mu sync.Mutex
	addr, gen := "", 0
	setAddr := func(a string) { mu.Lock(); addr = a; gen++; mu.Unlock() }
	getAddr := func() (string, int) { mu.Lock(); defer mu.Unlock(); return addr, gen }

	srv, a := startServer(t, dir, "2m")
	setAddr(a)
	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var creates, deletes, failures sync.Map
	answered := make(chan int, 1024) // the generation of the server, per create or delete it answered
	for i := range 6 {
		tid := tenants[i%len(tenants)]
		wg.Go(func() { crashWriter(ctx, t, getAddr, tid, i, &creates, &deletes, &failures, answered) })
	}
	for kill := range 12 {
		// Each server answers a few writes before it is killed, however slow
		// the machine: the kill then lands while the other writers' requests
		// are in flight. A server that answers none is a defect (or a hang).
		_, current := getAddr()
		timeout := time.After(crashHangTimeout)
		for want := 1 + rand.IntN(3); want > 0; {
			select {
			case g := <-answered:
				if g == current {
					want--
				}
			case <-timeout:
				srv.Process.Kill()
				srv.Wait()
				stop()
				wg.Wait()
				t.Fatalf("server %d answered too few creates and deletes in %v", kill, crashHangTimeout)
			}
		}
		srv.Process.Signal(syscall.SIGKILL)
		srv.Wait()
		srv, a = startServer(t, dir, "2m")
		setAddr(a)
	}
	stop()
	wg.Wait()
	srv.Process.Signal(syscall.SIGKILL)
	srv.Wait()

	// The last start settles every pending change before it serves (the
	// embedded store has no other owner), though the repair's grace is
	// long: the counts are exact from its first request. It then stops
	// gracefully.
	srv, _ = startServer(t, dir, "2m")
	srv.Process.Signal(syscall.SIGTERM)
	if err := srv.Wait(); err != nil {
		t.Fatalf("the last start did not stop cleanly: %v", err)
	}

	ds, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	st := store.New(ds, nil, features.Schema())
	listed, _, err := tenant.New(app.NewDeps(st, nil, nil)).List(t.Context(), tenant.ListFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, tid := range tenants {
		users, err := st.Tenant(tid).Users().All(t.Context(), docstore.Query{})
		if err != nil {
			t.Fatal(err)
		}
		live := 0
		for _, u := range users {
			if u.DeletedAt.IsZero() {
				live++
			}
		}
		total += len(users)
		ten, err := st.Tenant(tid).Profile(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if ten.UserCount != live {
			t.Errorf("%s: userCount %d, but %d users exist", tid, ten.UserCount, live)
		}
		for _, l := range listed {
			if l.ID == tid && l.UserCount != live {
				t.Errorf("%s: the tenant list shows %d users, but %d exist", tid, l.UserCount, live)
			}
		}
		pending, err := store.Of[kanri.UserCountChange](st.Tenant(tid), kanri.ContainerTenant, kanri.TypeUserCountChange).All(t.Context(), docstore.Query{})
		if err != nil {
			t.Fatal(err)
		}
		if len(pending) > 0 {
			t.Errorf("%s: %d changes still pending after the repair", tid, len(pending))
		}
	}
	n := func(m *sync.Map) (c int) { m.Range(func(any, any) bool { c++; return true }); return }
	t.Logf("12 kills: %d creates and %d deletes answered, %d requests cut off; %d users stored", n(&creates), n(&deletes), n(&failures), total)
}

// crashHangTimeout bounds the wait for a server's first answered writes. It
// only guards against a hang: a busy machine answers slowly, never not at all.
const crashHangTimeout = 2 * time.Minute

// seedCrashTenants creates three tenants, each with an administrator, in a
// new store in dir, and returns their ids.
func seedCrashTenants(t *testing.T, dir string) []string {
	t.Helper()
	ds, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	svcs := wiring.New(store.New(ds, nil, features.Schema()), nil, nil, wiring.Options{Roles: features.Roles(), Hasher: auth.Hasher{Cost: bcrypt.MinCost}})
	ts, roles, users := svcs.Tenants, svcs.Roles, svcs.Users
	if _, err := roles.Seed(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx := audit.WithActor(t.Context(), audit.Actor{UserID: "system", GlobalAdmin: true})
	if _, _, err := auth.Bootstrap(ctx, ts, users, roles, "admin@example.com", crashPassword); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, name := range []string{"crash-a", "crash-b", "crash-c"} {
		ten, err := ts.Create(ctx, kanri.TenantInput{Name: name, DisplayName: name, Plan: kanri.PlanStandard, MaxUsers: 10000})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := users.Create(ctx, ten.ID, kanri.UserInput{Username: "admin", Email: "admin@" + name + ".test", DisplayName: "Admin", Password: crashPassword}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ten.ID)
	}
	return ids
}

// startServer starts this binary as the server on the store in dir and
// returns it once it listens.
func startServer(t *testing.T, dir, repairGrace string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-addr", "127.0.0.1:0", "-data-dir", dir, "-bcrypt-cost", "4", "-repair-grace", repairGrace)
	cmd.Env = append(os.Environ(), "KANRI_TEST_RUN_MAIN=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		var rec struct{ Msg, Addr string }
		if json.Unmarshal(lines.Bytes(), &rec) == nil && rec.Msg == "kanri listening" {
			go io.Copy(io.Discard, stderr)
			return cmd, rec.Addr
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	t.Fatalf("the server did not start: %v", lines.Err())
	return nil, ""
}

var (
	csrfField = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)
	userLink  = regexp.MustCompile(`/users/(user_[0-9a-f-]+)/edit"`)
)

// crashWriter signs in as the tenant's administrator and creates and
// deletes users until ctx ends. Requests cut off by a kill are counted
// and made again on the next server. The generation of the server that
// answered a create or delete is sent on answered, unless ctx ends first.
func crashWriter(ctx context.Context, t *testing.T, server func() (string, int), tenantID string, n int, creates, deletes, failures *sync.Map, answered chan<- int) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	name := map[string]string{}
	tenantName := ""
	for ctx.Err() == nil {
		addr, gen := server()
		base := "http://" + addr
		page := func(path string) (string, bool) {
			resp, err := c.Get(base + path)
			if err != nil {
				return "", false
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return string(b), resp.StatusCode == http.StatusOK
		}
		post := func(path string, form url.Values, token string) int {
			form.Set("_csrf", token)
			resp, err := c.PostForm(base+path, form)
			if err != nil {
				failures.Store(fmt.Sprint(n, path, time.Now().UnixNano()), true)
				return 0
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		body, ok := page("/t/" + tenantID + "/users")
		if !ok {
			if tenantName == "" {
				tenantName = strings.TrimPrefix(tenantID, "tenant_")
			}
			login, _ := page("/login")
			m := csrfField.FindStringSubmatch(login)
			if m != nil {
				post("/login", url.Values{"tenant": {tenantName}, "username": {"admin"}, "password": {crashPassword}}, m[1])
			}
			continue
		}
		m := csrfField.FindStringSubmatch(body)
		if m == nil {
			continue
		}
		if ids := userLink.FindAllStringSubmatch(body, -1); len(ids) > 3 && rand.IntN(3) == 0 {
			id := ids[rand.IntN(len(ids))][1]
			if post("/t/"+tenantID+"/users/"+id+"/delete", url.Values{}, m[1]) == http.StatusSeeOther {
				deletes.Store(id, true)
				notify(ctx, answered, gen)
			}
			continue
		}
		u := fmt.Sprintf("w%d-%d", n, len(name))
		name[u] = u
		if post("/t/"+tenantID+"/users", url.Values{"username": {u}, "email": {u + "@crash.test"}, "displayName": {u}, "password": {crashPassword}}, m[1]) == http.StatusSeeOther {
			creates.Store(u, true)
			notify(ctx, answered, gen)
		}
	}
}

// notify sends v on c unless ctx ends first.
func notify(ctx context.Context, c chan<- int, v int) {
	select {
	case c <- v:
	case <-ctx.Done():
	}
}
