package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/cosmos"
	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/docstore/docstoretest"
	"github.com/kanri/kanri/internal/events"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/messaging"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web"
)

// The messaging benchmarks (`make bench-messaging`):
//
//   - BenchmarkMessagingFanout: one message reaching 1,000 open live
//     streams (server-sent events) of one channel on one instance;
//   - BenchmarkMessagingCrossInstance: events published on one instance
//     reaching a subscriber of another over Cosmos DB's change feed (the
//     local Cosmos test server), at the production poll interval;
//   - BenchmarkMessagingChannelPage: the latest page of a channel of 1,000
//     messages and of one of 1,000,000.

// sseClientEnv, when set, makes the test binary the client process of
// BenchmarkMessagingFanout (see sseClients) instead of running tests.
const sseClientEnv = "KANRI_BENCH_SSE_CLIENT"

func TestMain(m *testing.M) {
	if os.Getenv(sseClientEnv) != "" {
		os.Exit(sseClients(os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// benchPassword is the password of every user the messaging benchmarks
// create.
const benchPassword = "Bench-pass-1234"

// system is the context of the benchmarks' own service calls.
func system() context.Context {
	return audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true})
}

// inProcess is a Kanri server in this process, wired as cmd/kanri wires it
// on the embedded store (services over the store, the in-process events
// bus, web.New) and served on a loopback port by an http.Server with
// cmd/kanri's timeouts.
type inProcess struct {
	bs   *bolt.Store // the store, without counting
	rec  *docstoretest.Recorder
	ds   *docstoretest.CountingStore
	st   *store.Store
	svcs *wiring.Set
	base string
}

// startInProcess opens an embedded store in a temporary directory (its
// calls counted, and with record its queries recorded) and serves Kanri
// over it until the benchmark ends.
func startInProcess(b *testing.B, record bool) *inProcess {
	b.Helper()
	return startInProcessAt(b, filepath.Join(b.TempDir(), "data"), record)
}

// startInProcessAt is startInProcess with the store in dir.
func startInProcessAt(b *testing.B, dir string, record bool) *inProcess {
	b.Helper()
	bs, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var under docstore.Store = bs
	var rec *docstoretest.Recorder
	if record {
		rec = docstoretest.NewRecorder(bs)
		under = rec
	}
	ds := docstoretest.NewCounting(under)
	st := store.New(ds, nil, features.Schema())
	bus := events.NewLocal()
	svcs := wiring.New(st, slog.New(slog.DiscardHandler), nil, wiring.Options{Roles: features.Roles(), Hasher: auth.Hasher{Cost: bcrypt.MinCost}, Events: bus})
	ctx := system()
	if _, err := svcs.Roles.Seed(ctx); err != nil {
		b.Fatal(err)
	}
	if _, _, err := auth.Bootstrap(ctx, svcs.Tenants, svcs.Users, svcs.Roles, "admin@example.com", benchPassword); err != nil {
		b.Fatal(err)
	}
	_, served := features.Start(svcs)
	handler := web.New(web.Config{Deps: svcs.Deps, Services: *svcs, Features: served, SessionSecret: []byte("0123456789abcdef0123456789abcdef")})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	go srv.Serve(ln)
	b.Cleanup(func() {
		bus.Close() // ends the live streams, as cmd/kanri's shutdown does
		srv.Close()
		svcs.Messaging.Wait()
		bs.Close()
	})
	return &inProcess{bs: bs, rec: rec, ds: ds, st: st, svcs: svcs, base: "http://" + ln.Addr().String()}
}

// messagingTenant creates a tenant named name with room for users users,
// and the messaging service.
func (p *inProcess) messagingTenant(b *testing.B, name string, users int) *kanri.Tenant {
	b.Helper()
	ctx := system()
	t, err := p.svcs.Tenants.Create(ctx, kanri.TenantInput{Name: name, DisplayName: name, Plan: kanri.PlanStandard, MaxUsers: users + 10})
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := p.svcs.Catalog.Assign(ctx, t.ID, kanri.AssignmentInput{ServiceID: kanri.MessagingServiceID}); err != nil {
		b.Fatal(err)
	}
	return t
}

// newUser creates a user of t; the tenant's first becomes its
// administrator, the others get the messaging service's member role.
func (p *inProcess) newUser(ctx context.Context, t *kanri.Tenant, username string) (*kanri.User, error) {
	u, err := p.svcs.Users.Create(ctx, t.ID, kanri.UserInput{Username: username, Email: username + "@bench.test", DisplayName: username, Password: benchPassword})
	if err != nil {
		return nil, err
	}
	_, _, err = p.svcs.Roles.Assign(ctx, role.Grant{Tenant: t, UserID: u.ID, ServiceID: kanri.MessagingServiceID, RoleName: role.Member})
	return u, err
}

// signIn signs username of the tenant named tenantName in through the
// login form, and returns the session's cookies as a Cookie header.
func signIn(base, tenantName, username string, rt http.RoundTripper) (string, error) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Transport: rt, Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(base + "/login")
	if err != nil {
		return "", err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfPattern.FindSubmatch(body)
	if m == nil {
		return "", errors.New("no CSRF token on /login")
	}
	resp, err = c.PostForm(base+"/login", url.Values{"_csrf": {string(m[1])}, "tenant": {tenantName}, "username": {username}, "password": {benchPassword}})
	if err != nil {
		return "", err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return "", fmt.Errorf("sign in %s: status %d", username, resp.StatusCode)
	}
	u, _ := url.Parse(base)
	var cookies []string
	for _, ck := range jar.Cookies(u) {
		cookies = append(cookies, ck.Name+"="+ck.Value)
	}
	return strings.Join(cookies, "; "), nil
}

// parallel runs f(i) for i in [0, n) on workers goroutines and returns the
// first error.
func parallel(n, workers int, f func(i int) error) error {
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				if err := f(i); err != nil {
					mu.Lock()
					first = cmpErr(first, err)
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// memory is what this process holds, measured after a collection that
// returns freed memory to the system (debug.FreeOSMemory).
type memory struct {
	heap, stack, rss uint64 // live heap, goroutine stacks, resident set
	goroutines       int
}

func measureMemory(b *testing.B) memory {
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m := memory{heap: ms.HeapAlloc, stack: ms.StackInuse, goroutines: runtime.NumGoroutine()}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				b.Fatalf("VmRSS: %q", v)
			}
			m.rss = kb << 10
		}
	}
	return m
}

// perConn returns (after - before) / n, in bytes.
func perConn(after, before uint64, n int) float64 {
	return (float64(after) - float64(before)) / float64(n)
}

// fanoutMarker starts the content of each message the fan-out benchmark
// posts: "fanout-<post>-<unix nanoseconds before posting>".
const fanoutMarker = "fanout-"

// BenchmarkMessagingFanout measures how long a message takes to reach
// every open live stream of its channel on one instance (embedded store,
// in-process events bus). KANRI_BENCH_FANOUT_CONNS users (1,000 unless
// set) are members of one public channel, each signed in once (one
// session) with one stream open on the channel's page
// (GET /t/{tenant}/events?channel=<id>&seq=<latest>), read by a plain HTTP
// client in another process (this test binary again, see sseClients), so
// that this process's memory and CPU are the server's alone. Then the
// channel's owner, who has no stream open, posts KANRI_BENCH_FANOUT_POSTS
// messages (20 unless set) through the messaging service, 250 ms apart;
// each message's content carries the wall-clock time just before Post,
// and each stream's latency is from then to the moment its client read the
// line holding it.
//
// It reports the latencies' p50, p99 and max over every (post, stream)
// pair; post_ms, the median duration of the Post call (its transaction,
// publishing, and moving the sender's read mark); cpu_ms/post, the CPU
// time this process (the server) used during the posting phase divided by
// the posts (it includes the streams' heartbeats and rechecks meanwhile,
// and is steadier than the latencies on a shared machine); B/delivery,
// the bytes a stream receives per message; reads/post, the point reads and
// queries of the messaging and files containers per post (the post's and
// its deliveries'); idle_reads/s and idle_cpu_ms/s, what the open streams
// read of the whole store and the CPU time the server uses when nothing
// is posted (their heartbeats and checks), over 15 s (a heartbeat's
// period) before the posts; and
// the server's memory
// per open stream: live heap, goroutine stacks and resident set size, each
// as the difference between before the streams opened and after, both
// measured after a collection that returns freed memory to the system,
// divided by the streams. The garbage collector runs at GOGC=400, what
// cmd/kanri's tuner (cmd/kanri/gc.go) sets under load, unless GOGC is set.
//
// KANRI_BENCH_FANOUT_ATTACHMENTS=<n> makes each message link n files of
// the tenant (none unless set): a stream shows each attachment's name.
//
// KANRI_BENCH_FANOUT_CPUPROFILE=<file> writes a CPU profile of the
// posting phase only (without the seeding, sign-ins and connects that a
// go test -cpuprofile of the whole run includes), and
// KANRI_BENCH_FANOUT_HEAPPROFILE=<file> a heap profile once the streams
// are open (go tool pprof -sample_index=inuse_space).
//
// Beside it (sub-benchmark PocketBase), PocketBase's realtime API on the
// same machine (internal/bench/pocketbase): as many streams
// (GET /api/realtime, each subscribed to the messages collection) read by
// the same client process, and the same number of messages created
// through its API (POST /api/collections/messages/records), each carrying
// the time just before the request. It reports the same latencies,
// post_ms (the create request), cpu_ms/post and idle_cpu_ms/s (the
// server process's CPU time, /proc/<pid>/stat), B/delivery and rss_B/conn
// (the server's resident set before and after the streams opened).
//
// idleWindow is how long BenchmarkMessagingFanout measures idle streams:
// one period of their heartbeats (web/live).
const idleWindow = 15 * time.Second

func BenchmarkMessagingFanout(b *testing.B) {
	conns := envInt("KANRI_BENCH_FANOUT_CONNS", 1000)
	posts := envInt("KANRI_BENCH_FANOUT_POSTS", 20)
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < uint64(conns)+256 {
		b.Fatalf("%d streams need more open files than this process may have (%d, %v): raise ulimit -n", conns, lim.Cur, err)
	}
	b.Run("Kanri", func(b *testing.B) { kanriFanout(b, conns, posts) })
	b.Run("PocketBase", func(b *testing.B) { pocketBaseFanout(b, conns, posts) })
}

func kanriFanout(b *testing.B, conns, posts int) {
	attach := envInt("KANRI_BENCH_FANOUT_ATTACHMENTS", 0)
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	if os.Getenv("KANRI_BENCH_FANOUT_HEAPPROFILE") != "" {
		runtime.MemProfileRate = 512 // every stream's few small allocations, not one in 512 KiB
	}
	p := startInProcess(b, false)
	t := p.messagingTenant(b, "fanout", conns+1)
	ctx := system()

	start := time.Now()
	owner, err := p.newUser(ctx, t, "owner")
	if err != nil {
		b.Fatal(err)
	}
	ch, err := p.svcs.Messaging.CreateChannel(ctx, t.ID, messaging.Person{UserID: owner.ID, Name: "owner"}, messaging.ChannelInput{Name: "fanout"})
	if err != nil {
		b.Fatal(err)
	}
	names := make([]string, conns)
	if err := parallel(conns, 4, func(i int) error {
		names[i] = fmt.Sprintf("user%04d", i)
		u, err := p.newUser(ctx, t, names[i])
		if err != nil {
			return err
		}
		return p.svcs.Messaging.Join(ctx, t.ID, messaging.Person{UserID: u.ID, Name: names[i]}, ch.ID)
	}); err != nil {
		b.Fatal(err)
	}
	b.Logf("created %d members of the channel in %v", conns, time.Since(start).Round(time.Millisecond))
	// The files each message links (their documents only: a stream
	// shows an attachment's name, never its bytes).
	var files []string
	for i := range attach {
		now := kanri.NewTime(time.Now())
		f := &kanri.File{
			Doc:  kanri.Doc{ID: fmt.Sprintf("file_fanout%04d", i)},
			Name: fmt.Sprintf("report-%d.pdf", i), NameKey: kanri.FoldName(fmt.Sprintf("report-%d.pdf", i)), Size: 1000,
			ContentType: "application/pdf", Checksum: "sha256:00", UploadedBy: owner.ID, UploadedAt: now, UpdatedAt: now,
		}
		f.StorageURL = "blob:" + kanri.BlobName(t.ID, f.ID)
		if err := p.st.Tenant(t.ID).Files().Create(ctx, f); err != nil {
			b.Fatal(err)
		}
		files = append(files, f.ID)
	}

	start = time.Now()
	rt := &http.Transport{MaxConnsPerHost: 64, MaxIdleConnsPerHost: 64}
	cookies := make([]string, conns)
	if err := parallel(conns, 16, func(i int) (err error) {
		cookies[i], err = signIn(p.base, t.Name, names[i], rt)
		return err
	}); err != nil {
		b.Fatal(err)
	}
	rt.CloseIdleConnections()
	b.Logf("signed %d sessions in %v", conns, time.Since(start).Round(time.Millisecond))

	ch, _, err = p.svcs.Messaging.Channel(ctx, t.ID, owner.ID, ch.ID)
	if err != nil {
		b.Fatal(err)
	}
	before := measureMemory(b)
	start = time.Now()
	clients := startSSEClients(b, sseJob{
		URL:     fmt.Sprintf("%s/t/%s/events?channel=%s&seq=%d", p.base, t.ID, ch.ID, ch.LastSeq),
		Cookies: cookies,
	})
	b.Logf("opened %d streams in %v", conns, time.Since(start).Round(time.Millisecond))
	time.Sleep(time.Second) // the connects' garbage and the first rechecks settle
	after := measureMemory(b)
	if path := os.Getenv("KANRI_BENCH_FANOUT_HEAPPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}

	stopProfile := func() {}
	if path := os.Getenv("KANRI_BENCH_FANOUT_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			b.Fatal(err)
		}
		stopProfile = func() { pprof.StopCPUProfile(); f.Close() }
	}
	// What the open streams cost alone: their heartbeats and checks.
	idle0, idleCPU0 := p.ds.Calls().Reads(), cpuTime(b)
	time.Sleep(idleWindow)
	idleReads, idleCPU := float64(p.ds.Calls().Reads()-idle0)/idleWindow.Seconds(), perSecond(cpuTime(b)-idleCPU0, idleWindow)

	sender := messaging.Person{UserID: owner.ID, Name: "owner"}
	// What a post and its delivery read: the messaging and files
	// containers (the streams' rechecks read the others).
	postReads := func() int {
		return p.ds.CallsTo(kanri.ContainerMessaging).Reads() + p.ds.CallsTo(kanri.ContainerFiles).Reads()
	}
	cpu0, reads0 := cpuTime(b), postReads()
	var f fanout
	for b.Loop() {
		f.post(b, clients, posts, func(content string) {
			if _, err := p.svcs.Messaging.Post(ctx, t.ID, sender, ch.ID, content, files); err != nil {
				b.Fatal(err)
			}
		})
	}
	cpu, reads := cpuTime(b)-cpu0, postReads()-reads0
	stopProfile()
	idle := measureMemory(b)
	clients.close(b)

	f.report(b, conns, cpu, idleCPU)
	b.ReportMetric(float64(reads)/float64(f.sent), "reads/post")
	b.ReportMetric(idleReads, "idle_reads/s")
	b.ReportMetric(perConn(after.heap, before.heap, conns), "heap_B/conn")
	b.ReportMetric(perConn(after.stack, before.stack, conns), "stack_B/conn")
	b.ReportMetric(perConn(after.rss, before.rss, conns), "rss_B/conn")
	b.Logf("%d streams, %d posts: %d deliveries; goroutines %d → %d (%.1f a stream)", conns, f.sent, len(f.lat), before.goroutines, after.goroutines, float64(after.goroutines-before.goroutines)/float64(conns))
	b.Logf("server memory before the streams: heap %.1f MiB, stacks %.1f MiB, RSS %.1f MiB; with them: heap %.1f MiB, stacks %.1f MiB, RSS %.1f MiB; after the posts: heap %.1f MiB, RSS %.1f MiB",
		mib(before.heap), mib(before.stack), mib(before.rss), mib(after.heap), mib(after.stack), mib(after.rss), mib(idle.heap), mib(idle.rss))
}

// pocketBaseFanout is BenchmarkMessagingFanout's peer: PocketBase's
// realtime API.
func pocketBaseFanout(b *testing.B, conns, posts int) {
	s := startPocketBase(b, buildPocketBase(b), b.TempDir())
	before := s.memory(b)["VmRSS"]
	start := time.Now()
	clients := startSSEClients(b, sseJob{URL: s.base + "/api/realtime", Cookies: make([]string, conns), Subscribe: s.base + "/api/realtime", Topics: []string{"messages"}})
	b.Logf("opened %d streams in %v", conns, time.Since(start).Round(time.Millisecond))
	time.Sleep(time.Second) // the connects' garbage settles
	after := s.memory(b)["VmRSS"]
	idle0 := s.cpu(b)
	time.Sleep(idleWindow)
	idleCPU := perSecond(s.cpu(b)-idle0, idleWindow)
	cpu0 := s.cpu(b)
	var f fanout
	seq := 0
	for b.Loop() {
		f.post(b, clients, posts, func(content string) {
			seq++
			pocketBaseCall(b, http.MethodPost, s.base+"/api/collections/messages/records", "", map[string]any{
				"channel": "ch_fanout", "sender": "usr_owner", "senderName": "owner", "content": content,
				"seq": seq, "attachments": []string{}, "sentAt": time.Now().UTC().Format(time.RFC3339Nano),
			}, nil)
		})
	}
	cpu := s.cpu(b) - cpu0
	clients.close(b)
	f.report(b, conns, cpu, idleCPU)
	b.ReportMetric(perConn(uint64(after), uint64(before), conns), "rss_B/conn")
}

// fanout is what BenchmarkMessagingFanout measured of the posts so far.
type fanout struct {
	lat, postTimes []time.Duration
	bytes0, bytes1 int64    // what the streams had received when the first and the latest post arrived
	sent           int      // the posts so far, of every iteration
	perPost        []string // each post's p50/max in ms
}

// post sends n messages, 250 ms apart, each by send(content), content
// holding the post's number and the time just before send, and waits
// for each to reach every stream of clients.
func (f *fanout) post(b *testing.B, clients *sseClientProcess, n int, send func(content string)) {
	for range n {
		k := f.sent
		time.Sleep(250 * time.Millisecond)
		t0 := time.Now()
		send(fmt.Sprintf("%s%d-%d", fanoutMarker, k, t0.UnixNano()))
		f.postTimes = append(f.postTimes, time.Since(t0))
		f.sent++
		got, received := clients.wait(b, k, 60*time.Second)
		if k == 0 {
			f.bytes0 = received
		}
		f.bytes1 = received
		slices.Sort(got)
		f.perPost = append(f.perPost, fmt.Sprintf("%.0f/%.0f", float64(pct(got, 0.50))/1e6, float64(got[len(got)-1])/1e6))
		f.lat = append(f.lat, got...)
	}
}

// report reports the latencies, the posts' duration, the server's CPU
// time per post (cpu, over every post) and per second idle (idle), and
// the bytes per delivery.
func (f *fanout) report(b *testing.B, conns int, cpu, idle time.Duration) {
	slices.Sort(f.lat)
	slices.Sort(f.postTimes)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(pct(f.lat, 0.50)), "p50_ms")
	b.ReportMetric(ms(pct(f.lat, 0.99)), "p99_ms")
	b.ReportMetric(ms(f.lat[len(f.lat)-1]), "max_ms")
	b.ReportMetric(ms(f.lat[0]), "min_ms")
	b.ReportMetric(ms(pct(f.postTimes, 0.50)), "post_ms")
	b.ReportMetric(ms(cpu)/float64(f.sent), "cpu_ms/post")
	b.ReportMetric(ms(idle), "idle_cpu_ms/s")
	if f.sent > 1 {
		// From the first post's arrival to the last's: the other posts
		// whole (and the streams' heartbeats meanwhile).
		b.ReportMetric(float64(f.bytes1-f.bytes0)/float64((f.sent-1)*conns), "B/delivery")
	}
	b.ReportMetric(0, "ns/op")
	b.Logf("each post's p50/max (ms): %s", strings.Join(f.perPost, " "))
}

// perSecond returns d used over window as a rate a second.
func perSecond(d, window time.Duration) time.Duration {
	return time.Duration(float64(d) / window.Seconds())
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }

// pct returns the p-quantile of sorted durations (nearest rank below).
func pct(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(float64(len(sorted)-1)*p)]
}

// sseJob is what the client process is told on its standard input: the
// stream's URL, and one Cookie header per stream to open. With Subscribe
// set (PocketBase's realtime API), each stream's first event holds its
// client id, which the client process then subscribes to Topics by a
// POST to Subscribe ({"clientId":…,"subscriptions":Topics}) before the
// stream counts as open.
type sseJob struct {
	URL       string
	Cookies   []string
	Subscribe string
	Topics    []string
}

// sseClientProcess is the client process of the fan-out benchmark.
type sseClientProcess struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	n     int
}

// startSSEClients runs this test binary as the client process (see
// sseClients) and waits until every stream has received its first event.
func startSSEClients(b *testing.B, job sseJob) *sseClientProcess {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), sseClientEnv+"=1", "GOGC=400")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c := &sseClientProcess{cmd: cmd, stdin: stdin, lines: make(chan string, 64), n: len(job.Cookies)}
	b.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	}()
	if err := json.NewEncoder(stdin).Encode(job); err != nil {
		b.Fatal(err)
	}
	timeout := time.After(5 * time.Minute)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				b.Fatal("the client process ended before its streams were open")
			}
			if rest, ok := strings.CutPrefix(line, "ready "); ok {
				if rest != strconv.Itoa(c.n)+" 0" {
					b.Fatalf("client process: %d streams asked for; ready (open, failed): %s", c.n, rest)
				}
				return c
			}
			b.Logf("client process: %s", line)
		case <-timeout:
			b.Fatal("the streams did not open within 5 minutes")
		}
	}
}

// wait returns the latencies of post k on every stream, and the bytes the
// streams have received since they opened.
func (c *sseClientProcess) wait(b *testing.B, k int, d time.Duration) ([]time.Duration, int64) {
	b.Helper()
	timeout := time.After(d)
	prefix := fmt.Sprintf("post %d ", k)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				b.Fatal("the client process ended")
			}
			rest, ok := strings.CutPrefix(line, prefix)
			if !ok {
				b.Logf("client process: %s", line)
				continue
			}
			fields := strings.Fields(rest)
			received, err := strconv.ParseInt(fields[0], 10, 64)
			if err != nil {
				b.Fatalf("client process: %q", line)
			}
			fields = fields[1:]
			out := make([]time.Duration, len(fields))
			for i, f := range fields {
				ns, err := strconv.ParseInt(f, 10, 64)
				if err != nil {
					b.Fatalf("client process: %q", line)
				}
				out[i] = time.Duration(ns)
			}
			if len(out) != c.n {
				b.Fatalf("post %d reached %d streams, want %d", k, len(out), c.n)
			}
			return out, received
		case <-timeout:
			b.Fatalf("post %d did not reach every stream within %v", k, d)
		}
	}
}

// close ends the client process: it closes its streams when its standard
// input ends.
func (c *sseClientProcess) close(b *testing.B) {
	c.stdin.Close()
	if err := c.cmd.Wait(); err != nil {
		b.Errorf("client process: %v", err)
	}
}

// sseClients is the client process of the fan-out benchmark: it reads an
// sseJob from in, opens one stream per cookie (32 connects at a time,
// over one transport without a per-host limit), and prints to out:
//
//   - "ready <open> <failed>" once every stream has received its first
//     event (the snapshot, or ": ready");
//   - "post <k> <bytes> <ns>…" once post k (a data line holding
//     fanout-<k>-<unix ns>) reached every stream: the bytes the streams
//     have received so far, and each stream's latency, from the time in
//     the message to the read of that line;
//   - "ended <stream> <error>" for a stream that ended.
//
// It returns when in ends (the parent is done), closing the streams.
func sseClients(in io.Reader, out io.Writer) int {
	var job sseJob
	dec := json.NewDecoder(in)
	if err := dec.Decode(&job); err != nil {
		fmt.Fprintln(os.Stderr, "sse clients:", err)
		return 2
	}
	n := len(job.Cookies)
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: n, DisableCompression: true}}
	w := bufio.NewWriter(out)
	var wmu sync.Mutex
	emit := func(s string) {
		wmu.Lock()
		defer wmu.Unlock()
		w.WriteString(s + "\n")
		w.Flush()
	}
	type receipt struct {
		post int
		lat  time.Duration
	}
	receipts := make(chan receipt, 4*n)
	var ready sync.WaitGroup
	var failed sync.Map
	ready.Add(n)
	connects := make(chan struct{}, 32)
	ctx, cancel := context.WithCancel(context.Background())
	marker := []byte(fanoutMarker)
	var received atomic.Int64 // the bytes of every stream
	for i, cookie := range job.Cookies {
		go func() {
			connects <- struct{}{}
			first := true
			done := func() {
				if first {
					first = false
					<-connects
					ready.Done()
				}
			}
			defer done()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, job.URL, nil)
			req.Header.Set("Cookie", cookie)
			req.Header.Set("Accept", "text/event-stream")
			resp, err := client.Do(req)
			if err != nil {
				failed.Store(i, err)
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				failed.Store(i, fmt.Errorf("status %d, %s", resp.StatusCode, resp.Header.Get("Content-Type")))
				return
			}
			r := bufio.NewReaderSize(resp.Body, 64<<10)
			var connect struct{ ClientID string }
			for {
				line, err := r.ReadSlice('\n')
				now := time.Now()
				received.Add(int64(len(line)))
				if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
					if ctx.Err() == nil {
						emit(fmt.Sprintf("ended %d %v", i, err))
					}
					return
				}
				if first && job.Subscribe != "" {
					if data, ok := bytes.CutPrefix(line, []byte("data:")); ok {
						json.Unmarshal(data, &connect)
					}
				}
				if first && len(bytes.TrimSpace(line)) == 0 {
					// The end of the first event.
					if job.Subscribe != "" {
						if err := subscribe(ctx, client, job, connect.ClientID); err != nil {
							failed.Store(i, err)
							return
						}
					}
					done()
					continue
				}
				j := bytes.Index(line, marker)
				if j < 0 {
					continue
				}
				rest := line[j+len(marker):]
				k, rest, _ := bytes.Cut(rest, []byte("-"))
				end := bytes.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
				if end < 0 {
					end = len(rest)
				}
				post, err1 := strconv.Atoi(string(k))
				sent, err2 := strconv.ParseInt(string(rest[:end]), 10, 64)
				if err1 != nil || err2 != nil {
					emit(fmt.Sprintf("ended %d unreadable line %q", i, line))
					return
				}
				receipts <- receipt{post, now.Sub(time.Unix(0, sent))}
			}
		}()
	}
	ready.Wait()
	nfailed := 0
	failed.Range(func(k, v any) bool {
		nfailed++
		emit(fmt.Sprintf("failed %v: %v", k, v))
		return true
	})
	emit(fmt.Sprintf("ready %d %d", n-nfailed, nfailed))
	go func() {
		got := map[int][]time.Duration{}
		for r := range receipts {
			got[r.post] = append(got[r.post], r.lat)
			if len(got[r.post]) == n {
				var s strings.Builder
				fmt.Fprintf(&s, "post %d %d", r.post, received.Load())
				for _, l := range got[r.post] {
					fmt.Fprintf(&s, " %d", l.Nanoseconds())
				}
				emit(s.String())
				delete(got, r.post)
			}
		}
	}()
	io.Copy(io.Discard, in)
	cancel()
	return 0
}

// subscribe subscribes PocketBase's realtime client id to job.Topics.
func subscribe(ctx context.Context, client *http.Client, job sseJob, id string) error {
	if id == "" {
		return errors.New("no client id in the first event")
	}
	body, _ := json.Marshal(map[string]any{"clientId": id, "subscriptions": job.Topics})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, job.Subscribe, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("subscribe: %s", resp.Status)
	}
	return nil
}

// eventsPoll is the poll interval of the change feed in production
// (cmd/kanri's eventsPoll).
const eventsPoll = 250 * time.Millisecond

// BenchmarkMessagingCrossInstance measures the events bus over Cosmos DB
// at the bus level (events.Bus Publish and Subscribe, no HTTP): two
// cosmos.Store instances of one database on the local Cosmos test server,
// each with its events bus reading the change feed every 250 ms (the
// production poll; KANRI_BENCH_EVENTS_POLL_MS overrides it). Instance A
// publishes KANRI_BENCH_EVENTS (200 unless set) events of one tenant, one
// at a time after a random pause of up to one poll interval (so that
// publishing falls at every phase of the poll); a subscriber on instance
// B, and one on A itself, record when each arrives. It reports p50, p99
// and max of publish-to-receipt on B (other_*) and on A (same_*: on Cosmos
// DB the publishing instance learns of its own events from the change
// feed too), and publish_ms, the median duration of Publish (one create).
// The figures are the local Node server's, not Azure's.
func BenchmarkMessagingCrossInstance(b *testing.B) {
	n := envInt("KANRI_BENCH_EVENTS", 200)
	poll := time.Duration(envInt("KANRI_BENCH_EVENTS_POLL_MS", int(eventsPoll/time.Millisecond))) * time.Millisecond
	srv := cosmostest.Start(b)
	r := make([]byte, 4)
	for i := range r {
		r[i] = byte(rand.IntN(256))
	}
	db := fmt.Sprintf("bench-events-%x", r)
	open := func() *cosmos.Events {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		bus, err := cosmostest.Open(b, srv, db).Events(ctx, slog.New(slog.DiscardHandler), poll)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { bus.Close() })
		return bus
	}
	busA, busB := open(), open()
	const tenantID = "tenant_bench"

	type arrival struct {
		id string
		at time.Time
	}
	receive := func(bus events.Bus) (<-chan arrival, func()) {
		sub, err := bus.Subscribe(context.Background(), tenantID, "")
		if err != nil {
			b.Fatal(err)
		}
		out := make(chan arrival, n+16)
		go func() {
			defer close(out)
			for e := range sub.C {
				out <- arrival{e.ID, time.Now()}
			}
		}()
		return out, sub.Close
	}
	for b.Loop() {
		onB, stopB := receive(busB)
		onA, stopA := receive(busA)
		sent := map[string]time.Time{}
		var publish []time.Duration
		for i := range n {
			time.Sleep(time.Duration(rand.Int64N(int64(poll))))
			t0 := time.Now()
			id, err := busA.Publish(context.Background(), events.Event{
				TenantID: tenantID, Topic: "channel:channel_bench", Kind: messaging.KindMessageCreated,
				Data: json.RawMessage(fmt.Sprintf(`{"channelId":"channel_bench","message":{"id":"msg_%d","content":"event %d"}}`, i, i)),
			})
			if err != nil {
				b.Fatal(err)
			}
			publish = append(publish, time.Since(t0))
			sent[id] = t0
		}
		collect := func(name string, c <-chan arrival) []time.Duration {
			var out []time.Duration
			timeout := time.After(time.Minute)
			for len(out) < n {
				select {
				case a, ok := <-c:
					if !ok {
						b.Fatalf("%s: the subscription ended after %d events", name, len(out))
					}
					if t0, ok := sent[a.id]; ok {
						out = append(out, a.at.Sub(t0))
					}
				case <-timeout:
					b.Fatalf("%s received %d of %d events", name, len(out), n)
				}
			}
			slices.Sort(out)
			return out
		}
		other, same := collect("instance B", onB), collect("instance A", onA)
		stopA()
		stopB()
		slices.Sort(publish)
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		b.ReportMetric(ms(pct(other, 0.50)), "other_p50_ms")
		b.ReportMetric(ms(pct(other, 0.99)), "other_p99_ms")
		b.ReportMetric(ms(other[len(other)-1]), "other_max_ms")
		b.ReportMetric(ms(pct(same, 0.50)), "same_p50_ms")
		b.ReportMetric(ms(pct(same, 0.99)), "same_p99_ms")
		b.ReportMetric(ms(pct(publish, 0.50)), "publish_ms")
		b.ReportMetric(0, "ns/op")
		b.Logf("poll %v, %d events: instance B min %v, p50 %v, p99 %v, max %v; publish p50 %v, p99 %v",
			poll, n, other[0].Round(time.Microsecond), pct(other, 0.5).Round(time.Microsecond), pct(other, 0.99).Round(time.Microsecond), other[len(other)-1].Round(time.Microsecond),
			pct(publish, 0.5).Round(time.Microsecond), pct(publish, 0.99).Round(time.Microsecond))
	}
}

// BenchmarkMessagingChannelPage measures the latest page of a channel (50
// messages, newest first, with their reactions) in a channel of 1,000
// messages and in one of KANRI_BENCH_CHANNEL_MESSAGES (1,000,000 unless
// set), in one tenant of one embedded store:
//
//   - Messages: the messaging service's Messages, the query behind the
//     page;
//   - Page: the whole channel page over HTTP (GET /t/{tenant}/channels/{id}:
//     session, rights, channel and membership, the messages, rendering),
//     signed in as the channel's owner.
//
// Besides ns/op it reports cpu-ns/op (this process's CPU time per page,
// steadier than the wall time on a shared machine), reads/op, the store's
// point reads and queries per page (docstoretest's counting wrapper), and
// B/page, the page's size; it logs how the store runs the messages' query
// the service made (its plan). The messages are
// written in batches of 1,000 with the documents the service writes (a
// message numbered in its channel, with its search terms and ttl; one
// message in twenty with a reaction), oldest first, ten seconds apart and
// ending now, and then the channel's number and window are set as 1,000,000
// posts would have left them. seed_s, on the Messages lines, is the time
// that writing took.
func BenchmarkMessagingChannelPage(b *testing.B) {
	big := envInt("KANRI_BENCH_CHANNEL_MESSAGES", 1_000_000)
	p := startInProcess(b, true)
	t := p.messagingTenant(b, "pages", 1)
	ctx := system()
	owner, err := p.newUser(ctx, t, "owner")
	if err != nil {
		b.Fatal(err)
	}
	me := messaging.Person{UserID: owner.ID, Name: "owner"}
	sizes := []int{1000, big}
	channels := map[int]string{}
	seeding := map[int]time.Duration{}
	for _, n := range sizes {
		c, err := p.svcs.Messaging.CreateChannel(ctx, t.ID, me, messaging.ChannelInput{Name: fmt.Sprintf("size-%d", n)})
		if err != nil {
			b.Fatal(err)
		}
		channels[n] = c.ID
		seeding[n] = loadChannel(b, p.st, t.ID, c.ID, owner.ID, n)
	}
	cookie, err := signIn(p.base, t.Name, "owner", http.DefaultTransport)
	if err != nil {
		b.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, n := range sizes {
		id := channels[n]
		b.Run(fmt.Sprintf("Messages=%d/Messages", n), func(b *testing.B) {
			b.ReportAllocs()
			reads0, cpu0 := p.ds.Calls().Reads(), cpuTime(b)
			for b.Loop() {
				ms, next, err := p.svcs.Messaging.Messages(ctx, t.ID, owner.ID, id, messaging.MessageQuery{Limit: 50})
				if err != nil || len(ms) != 50 || next == "" {
					b.Fatalf("got %d messages, next %q, %v", len(ms), next, err)
				}
				if ms[0].Seq != int64(n) || ms[49].Seq != int64(n-49) {
					b.Fatalf("the page holds messages %d to %d, want %d to %d", ms[0].Seq, ms[49].Seq, n, n-49)
				}
			}
			b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(p.ds.Calls().Reads()-reads0)/float64(b.N), "reads/op")
			b.ReportMetric(seeding[n].Seconds(), "seed_s")
		})
		b.Run(fmt.Sprintf("Messages=%d/Page", n), func(b *testing.B) {
			b.ReportAllocs()
			want := fmt.Sprintf("message %d of %d", n, n)
			reads0, cpu0 := p.ds.Calls().Reads(), cpuTime(b)
			size := 0
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodGet, p.base+"/t/"+t.ID+"/channels/"+id, nil)
				req.Header.Set("Cookie", cookie)
				resp, err := hc.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(want)) {
					b.Fatalf("status %d, %d bytes, without %q", resp.StatusCode, len(body), want)
				}
				size = len(body)
			}
			b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(p.ds.Calls().Reads()-reads0)/float64(b.N), "reads/op")
			b.ReportMetric(float64(size), "B/page")
		})
		for _, q := range []struct{ name, search string }{{"Common", "release"}, {"Rare", strconv.Itoa(n / 2)}} {
			b.Run(fmt.Sprintf("Messages=%d/Search%s", n, q.name), func(b *testing.B) {
				b.ReportAllocs()
				reads0, cpu0 := p.ds.Calls().Reads(), cpuTime(b)
				for b.Loop() {
					ms, _, err := p.svcs.Messaging.Messages(ctx, t.ID, owner.ID, id, messaging.MessageQuery{Search: q.search, Limit: 50})
					if err != nil || len(ms) == 0 {
						b.Fatalf("a search for %q found %d messages: %v", q.search, len(ms), err)
					}
					for i := 1; i < len(ms); i++ {
						if ms[i].Seq >= ms[i-1].Seq {
							b.Fatalf("a search for %q: message %d after %d, want the newest first", q.search, ms[i].Seq, ms[i-1].Seq)
						}
					}
				}
				b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(p.ds.Calls().Reads()-reads0)/float64(b.N), "reads/op")
			})
		}
		// How the store runs the messages' query the service made.
		qs := p.rec.Queries()
		for i := len(qs) - 1; i >= 0; i-- {
			if r := qs[i]; r.Container == kanri.ContainerMessaging && r.Query.Type == kanri.TypeMessage {
				plan, err := p.bs.Container(kanri.ContainerMessaging).(docstore.Explainer).Explain(r.PartitionKey, r.Query)
				b.Logf("plan of the latest page of %d messages: %+v (%v)", n, plan, err)
				break
			}
		}
	}
}

// words make the messages' contents, and so their search terms.
var words = []string{"release", "deploy", "review", "meeting", "customer", "invoice", "backup", "incident", "design", "lunch", "会議", "資料", "確認"}

// loadChannel writes n messages of sender into channel, as Post writes
// them, 1,000 to a batch with a reaction to one in twenty, then sets the
// channel's number and window of its latest messages as n posts would,
// and returns how long that took.
func loadChannel(b *testing.B, st *store.Store, tenantID, channelID, senderID string, n int) time.Duration {
	b.Helper()
	ctx := context.Background()
	start := time.Now()
	ten := st.Tenant(tenantID)
	now := time.Now()
	sentAt := func(i int) kanri.Time { return kanri.NewTime(now.Add(-time.Duration(n-i) * 10 * time.Second)) }
	const chunkSize = 80 // with a reaction on every 20th message, within the port's 100 operations a batch
	for chunk := 0; chunk < n; chunk += chunkSize {
		ops := make([]docstore.Op, 0, docstore.MaxBatchOps)
		for i := chunk; i < min(n, chunk+chunkSize); i++ {
			seq := i + 1
			sent := sentAt(seq)
			m := &kanri.Message{
				Doc:       kanri.Doc{ID: fmt.Sprintf("msg_%d_%012d", sent.UnixMilli(), seq)},
				ChannelID: channelID, SenderID: senderID, SenderName: "owner", SentAt: sent,
				Content:     fmt.Sprintf("message %d of %d: %s %s %s", seq, n, words[seq%len(words)], words[seq*7%len(words)], words[seq*11%len(words)]),
				Attachments: []string{}, TTL: kanri.MessageTTL(sent.Time, now), Seq: int64(seq),
			}
			op, err := ten.Messages().Op(docstore.OpCreate, m)
			if err != nil {
				b.Fatal(err)
			}
			ops = append(ops, op)
			if seq%20 == 0 {
				op, err := ten.Reactions().Op(docstore.OpCreate, &kanri.Reaction{
					Doc:       kanri.Doc{ID: kanri.ReactionID(m.ID, senderID, "👍")},
					ChannelID: channelID, MessageID: m.ID, MessageSentAt: sent, UserID: senderID, Emoji: "👍",
					CreatedAt: sent, TTL: kanri.MessageTTL(sent.Time, now),
				})
				if err != nil {
					b.Fatal(err)
				}
				ops = append(ops, op)
			}
		}
		if _, err := ten.Batch(ctx, kanri.ContainerMessaging, ops); err != nil {
			b.Fatal(err)
		}
	}
	c, err := ten.Channels().Get(ctx, channelID)
	if err != nil {
		b.Fatal(err)
	}
	// The window holds the latest kanri.ChannelWindow posts.
	c.LastSeq = int64(max(0, n-kanri.ChannelWindow))
	for i := max(0, n-kanri.ChannelWindow); i < n; i++ {
		c.Post(sentAt(i+1), true)
	}
	if err := ten.Channels().Replace(ctx, c); err != nil {
		b.Fatal(err)
	}
	took := time.Since(start)
	b.Logf("wrote %d messages (and %d reactions) in %v", n, n/20, took.Round(time.Millisecond))
	return took
}
