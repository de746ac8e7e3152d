package webhook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/disk"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/netguard"
	"github.com/kanri/kanri/internal/schedule"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/webhook"
)

const tenant = "tenant_acme"

// receiver is an endpoint the tests run on loopback: it keeps what it is
// sent and answers with the statuses it is told, in turn (200 once they
// are used up).
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	got      []received
	answers  []int
	hang     chan struct{} // while not nil, requests wait for it to close
	hangups  int           // how many requests to drop without an answer
	verifier *standardwebhooks.Webhook
}

type received struct {
	id, typ string
	header  http.Header
	body    []byte
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		hang := r.hang
		if r.hangups > 0 {
			r.hangups--
			r.mu.Unlock()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		var m struct{ Type string }
		json.Unmarshal(body, &m)
		r.got = append(r.got, received{id: req.Header.Get(webhook.HeaderID), typ: m.Type, header: req.Header.Clone(), body: body})
		status := http.StatusOK
		if len(r.answers) > 0 {
			status, r.answers = r.answers[0], r.answers[1:]
		}
		r.mu.Unlock()
		if hang != nil {
			<-hang
		}
		w.WriteHeader(status)
		fmt.Fprintf(w, "answer %d", status)
	}))
	t.Cleanup(func() {
		r.mu.Lock()
		if r.hang != nil {
			close(r.hang)
			r.hang = nil
		}
		r.mu.Unlock()
		r.Close()
	})
	return r
}

func (r *receiver) received() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

func (r *receiver) ids() []string {
	var ids []string
	for _, g := range r.received() {
		ids = append(ids, g.id)
	}
	return ids
}

type fixture struct {
	st     *store.Store
	ctx    context.Context
	svc    *webhook.Service
	deps   app.Deps
	sealer *auth.Sealer
	blobs  *blob.Bucket
	mu     sync.Mutex
	now    time.Time
}

func (f *fixture) clock() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fixture) advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

func setup(t testing.TB) *fixture {
	t.Helper()
	return setupOn(t, bolttest.Open(t))
}

// forEachStore runs test on the embedded store and on the Cosmos DB test
// server.
func forEachStore(t *testing.T, test func(*testing.T, *fixture)) {
	t.Run("embedded", func(t *testing.T) { test(t, setup(t)) })
	t.Run("cosmos", func(t *testing.T) {
		test(t, setupOn(t, cosmostest.OpenNew(t, cosmostest.Start(t))))
	})
}

func setupOn(t testing.TB, ds docstore.Store) *fixture {
	t.Helper()
	f := &fixture{now: time.Now().UTC().Truncate(time.Second)}
	d := app.NewDeps(store.New(ds, nil, features.Schema()), nil, f.clock)
	f.st, f.deps = d.Store, d
	drv, err := disk.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f.blobs = blob.New(drv)
	if f.sealer, err = auth.NewSealer(make([]byte, 32)); err != nil {
		t.Fatal(err)
	}
	f.svc = f.service(true)
	f.ctx = audit.WithActor(t.Context(), audit.Actor{UserID: "user_admin", UserName: "admin"})
	return f
}

// service returns a webhook service over the fixture's store; with
// allowPrivate, its endpoints may be on loopback, as the receivers are.
func (f *fixture) service(allowPrivate bool) *webhook.Service {
	s := webhook.New(f.deps, f.sealer, f.blobs, allowPrivate)
	s.Settle = 0 // the tests write every record before they run the deliveries
	return s
}

// event records an audit record in the tenant, one second after the last.
func (f *fixture) event(tenantID, action string) string {
	f.advance(time.Second)
	f.deps.Audit.Record(f.ctx, audit.Entry{TenantID: tenantID, Action: action, Resource: kanri.AuditResource{Type: kanri.AuditUser, ID: "user_x", Name: "x"}})
	recs, _, err := f.deps.Audit.Query(f.ctx, tenantID, audit.Filter{Action: action, Limit: 1})
	if err != nil || len(recs) == 0 {
		panic(fmt.Sprint("no record of ", action, err))
	}
	return recs[0].ID
}

func (f *fixture) create(t *testing.T, url, events string) (*webhook.Endpoint, webhook.Secret) {
	t.Helper()
	e, secret, err := f.svc.Create(f.ctx, tenant, webhook.Input{URL: url, Events: events, Description: "SIEM"})
	if err != nil {
		t.Fatal(err)
	}
	return e, secret
}

func (f *fixture) run(t *testing.T, s *webhook.Service) {
	t.Helper()
	if err := s.Run(f.ctx); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) endpoint(t *testing.T, id string) *webhook.Endpoint {
	t.Helper()
	e, err := f.svc.Get(f.ctx, tenant, id)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func (f *fixture) log(t *testing.T, id string) []*webhook.Delivery {
	t.Helper()
	ds, _, err := f.svc.Deliveries(f.ctx, tenant, id, false, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestDeliversWantedRecordsInOrderSigned(t *testing.T) {
	forEachStore(t, testDeliversWantedRecordsInOrderSigned)
}

func testDeliversWantedRecordsInOrderSigned(t *testing.T, f *fixture) {
	r := newReceiver(t)
	e, secret := f.create(t, r.URL+"/hook", "user., domain.verify")
	want := []string{f.event(tenant, "user.create")}
	f.event(tenant, "role.assign")
	want = append(want, f.event(tenant, "domain.verify"), f.event(tenant, "user.update"))
	f.event("tenant_other", "user.create")

	f.run(t, f.svc)
	f.run(t, f.svc) // nothing twice
	if got := r.ids(); !slices.Equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
	verifier, err := standardwebhooks.NewWebhook(secret.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range r.received() {
		if err := verifier.Verify(g.body, g.header); err != nil {
			t.Errorf("%s: the reference library refuses its signature: %v", g.id, err)
		}
		var m struct {
			Type string
			Data webhook.Event
		}
		if err := json.Unmarshal(g.body, &m); err != nil {
			t.Fatal(err)
		}
		if m.Data.ID != g.id || m.Type != m.Data.Action || m.Data.TenantID != tenant || m.Data.UserName != "admin" {
			t.Errorf("%s: payload %s", g.id, g.body)
		}
	}
	log := f.log(t, e.ID)
	if got, want := len(log), 3; got != want {
		t.Fatalf("log: got %d deliveries, want %d", got, want)
	}
	for _, d := range log {
		if !d.OK || d.Status != 200 || d.Trigger != webhook.TriggerEvent || d.Response != "answer 200" {
			t.Errorf("log: %+v", d)
		}
	}
}

func TestRetriesInOrderAfterFailures(t *testing.T) { forEachStore(t, testRetriesInOrderAfterFailures) }

func testRetriesInOrderAfterFailures(t *testing.T, f *fixture) {
	r := newReceiver(t)
	r.answers = []int{500, 503}
	e, _ := f.create(t, r.URL, "*")
	first, second := f.event(tenant, "user.create"), f.event(tenant, "user.update")

	f.run(t, f.svc)
	got := f.endpoint(t, e.ID)
	if got.Failures != 1 || !got.NextAttemptAt.After(f.clock()) || got.LastError == "" || got.State() != "failing" {
		t.Fatalf("after a 500: %+v", got)
	}
	f.run(t, f.svc) // before its next attempt: nothing is sent
	if n := len(r.received()); n != 1 {
		t.Fatalf("sent %d times before the backoff ended, want 1", n)
	}
	for got.Failures > 0 {
		f.now = got.NextAttemptAt.Time
		f.run(t, f.svc)
		got = f.endpoint(t, e.ID)
	}
	if got, want := r.ids(), []string{first, first, first, second}; !slices.Equal(got, want) {
		t.Errorf("sent %v, want %v (the same id retried, the next only after it)", got, want)
	}
	attempts := map[string][]int{}
	for _, d := range f.log(t, e.ID) {
		attempts[d.MessageID] = append(attempts[d.MessageID], d.Attempt)
	}
	for id, want := range map[string][]int{first: {3, 2, 1}, second: {1}} {
		if got := attempts[id]; !slices.Equal(got, want) {
			t.Errorf("attempts of %s, newest first: got %v, want %v", id, got, want)
		}
	}
}

func TestReceiverDownOrSlow(t *testing.T) {
	for _, tc := range []struct {
		name    string
		prepare func(*fixture, *receiver)
		want    string
	}{
		{"hangs up", func(_ *fixture, r *receiver) { r.hangups = 2 }, "unreachable"},
		{"answers too late", func(f *fixture, r *receiver) {
			r.hang = make(chan struct{})
			f.svc.Client = netguard.NewClient(true, 200*time.Millisecond)
		}, "timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := setup(t)
			r := newReceiver(t)
			e, _ := f.create(t, r.URL, "*")
			id := f.event(tenant, "user.create")
			tc.prepare(f, r)
			f.run(t, f.svc)
			got := f.endpoint(t, e.ID)
			if got.Failures != 1 || got.LastError != tc.want {
				t.Fatalf("endpoint: failures %d, last error %q; want 1, %q", got.Failures, got.LastError, tc.want)
			}
			if log := f.log(t, e.ID); len(log) != 1 || log[0].Error != tc.want || log[0].OK || log[0].Status != 0 {
				t.Fatalf("log: %+v", log[0])
			}
			// Back up: the record is delivered on the next attempt.
			r.mu.Lock()
			if r.hang != nil {
				close(r.hang)
				r.hang = nil
			}
			r.hangups = 0
			r.mu.Unlock()
			f.svc.Client = netguard.NewClient(true, 10*time.Second)
			f.now = got.NextAttemptAt.Time
			f.run(t, f.svc)
			if got := f.endpoint(t, e.ID); got.Failures != 0 || got.CursorID != id {
				t.Errorf("after it came back: %+v", got)
			}
		})
	}
}

func TestDisabledAfterFailingForADay(t *testing.T) {
	f := setup(t)
	r := newReceiver(t)
	r.answers = slices.Repeat([]int{500}, 1000)
	e, _ := f.create(t, r.URL, "*")
	f.event(tenant, "user.create")
	start := f.clock()
	for got := f.endpoint(t, e.ID); got.Enabled; got = f.endpoint(t, e.ID) {
		if f.clock().Sub(start) > 48*time.Hour {
			t.Fatalf("still enabled after two days: %+v", got)
		}
		if !got.NextAttemptAt.IsZero() {
			f.now = got.NextAttemptAt.Time
		}
		f.run(t, f.svc)
	}
	got := f.endpoint(t, e.ID)
	if got.State() != "stopped" || got.DisabledReason != webhook.DisabledByFailing {
		t.Errorf("state %s, reason %q", got.State(), got.DisabledReason)
	}
	if since := got.FailingSince.Sub(start); f.clock().Sub(start) < 24*time.Hour || since > time.Hour {
		t.Errorf("disabled after %s of failing", f.clock().Sub(start))
	}
	// The backoff grew: far fewer attempts than a retry every 5 s.
	if n := len(r.received()); n < 10 || n > 60 {
		t.Errorf("%d attempts in a day", n)
	}
	recs, _, _ := f.deps.Audit.Query(f.ctx, tenant, audit.Filter{Action: "webhook.disable"})
	if len(recs) != 1 || recs[0].Status != kanri.AuditWarning || recs[0].Details.Reason != webhook.DisabledByFailing {
		t.Fatalf("no warning in the audit log: %+v", recs)
	}
	// Enabled again, it starts from now: what it missed is replayed by hand.
	n := len(r.received())
	if _, err := f.svc.SetEnabled(f.ctx, tenant, e.ID, kanri.Seen{}, true); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	r.answers = nil
	r.mu.Unlock()
	f.run(t, f.svc)
	if got := f.endpoint(t, e.ID); len(r.received()) != n || got.Failures != 0 || !got.Enabled {
		t.Errorf("enabled again: sent %d more, %+v", len(r.received())-n, got)
	}
}

func TestRotatedSecretSignsDuringOverlap(t *testing.T) {
	f := setup(t)
	r := newReceiver(t)
	e, old := f.create(t, r.URL, "*")
	e, secret, err := f.svc.Rotate(f.ctx, tenant, e.ID, kanri.Seen{ETag: e.ETag}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	f.event(tenant, "user.create")
	f.run(t, f.svc)
	f.advance(2 * time.Hour)
	f.event(tenant, "user.update")
	f.run(t, f.svc)
	got := r.received()
	if len(got) != 2 {
		t.Fatalf("sent %d", len(got))
	}
	for i, tc := range []struct {
		secret webhook.Secret
		ok     []bool
	}{
		{old, []bool{true, false}},
		{secret, []bool{true, true}},
	} {
		v, _ := standardwebhooks.NewWebhook(tc.secret.String())
		for j, g := range got {
			// The second is sent two hours later than the test's clock
			// reads for the reference library: check it against the
			// library without its timestamp window.
			err := v.VerifyIgnoringTimestamp(g.body, g.header)
			if (err == nil) != tc.ok[j] {
				t.Errorf("secret %d, delivery %d: %v, want ok %v", i, j, err, tc.ok[j])
			}
		}
	}
	if _, _, err := f.svc.Rotate(f.ctx, tenant, e.ID, kanri.Seen{ETag: "stale", State: "disabled"}, time.Hour); !kanri.IsCode(err, kanri.ESTALE) {
		t.Errorf("rotate as seen before: got %v, want ESTALE", err)
	}
}

func TestReplaysAndTests(t *testing.T) {
	f := setup(t)
	r := newReceiver(t)
	e, _ := f.create(t, r.URL, "user.")
	a, b := f.event(tenant, "user.create"), f.event(tenant, "user.update")
	f.run(t, f.svc)

	// Again from a time: every wanted record since, in order.
	e, err := f.svc.ReplaySince(f.ctx, tenant, e.ID, f.clock().Add(-time.Minute), kanri.Seen{})
	if err != nil {
		t.Fatal(err)
	}
	f.run(t, f.svc)
	if got, want := r.ids(), []string{a, b, a, b}; !slices.Equal(got, want) {
		t.Fatalf("after a replay: %v, want %v", got, want)
	}
	for _, since := range []time.Time{{}, f.clock().Add(time.Hour), f.clock().Add(-100 * 24 * time.Hour)} {
		if _, err := f.svc.ReplaySince(f.ctx, tenant, e.ID, since, kanri.Seen{}); kanri.ErrorFields(err)["since"] == "" {
			t.Errorf("replay since %v: got %v", since, err)
		}
	}

	// One delivery again, and a test event.
	log := f.log(t, e.ID)
	d, err := f.svc.Redeliver(f.ctx, tenant, e.ID, log[0].ID)
	if err != nil || !d.OK || d.MessageID != log[0].MessageID || d.Trigger != webhook.TriggerResend {
		t.Fatalf("redeliver: %+v, %v", d, err)
	}
	d, err = f.svc.SendTest(f.ctx, tenant, e.ID)
	if err != nil || !d.OK || d.EventType != webhook.TestEvent {
		t.Fatalf("test: %+v, %v", d, err)
	}
	got := r.received()
	if last := got[len(got)-1]; last.typ != webhook.TestEvent || !strings.HasPrefix(last.id, "msg_test_") {
		t.Errorf("test event: %s %s", last.id, last.body)
	}
	if _, err := f.svc.Redeliver(f.ctx, tenant, e.ID, d.ID); err != nil {
		t.Errorf("redeliver the test: %v", err)
	}

	// Another tenant's ids find nothing.
	for name, err := range map[string]error{
		"get":        second(f.svc.Get(f.ctx, "tenant_other", e.ID)),
		"redeliver":  second(f.svc.Redeliver(f.ctx, "tenant_other", e.ID, d.ID)),
		"send test":  second(f.svc.SendTest(f.ctx, "tenant_other", e.ID)),
		"delete":     second(f.svc.Delete(f.ctx, "tenant_other", e.ID, kanri.Seen{})),
		"bad prefix": second(f.svc.Get(f.ctx, tenant, "user_admin")),
	} {
		if !kanri.IsCode(err, kanri.ENOTFOUND) {
			t.Errorf("%s: got %v, want ENOTFOUND", name, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// Two instances running the deliveries under the scheduler's lease send
// each record once.
func TestTwoInstancesDeliverOnce(t *testing.T) { forEachStore(t, testTwoInstancesDeliverOnce) }

func testTwoInstancesDeliverOnce(t *testing.T, f *fixture) {
	r := newReceiver(t)
	f.create(t, r.URL, "*")
	var want []string
	for i := range 30 {
		want = append(want, f.event(tenant, fmt.Sprintf("user.e%d", i)))
	}
	ctx, cancel := context.WithCancel(f.ctx)
	defer cancel()
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b"} {
		s := f.service(true)
		s.Batch = 4 // many reads, many cursor writes: chances to overlap
		sched := scheduler(f, name)
		wg.Go(func() {
			sched.Every(ctx, nil, periodic(s))
		})
	}
	giveUp := time.After(5 * time.Minute) // fails a hang, not a slow machine
	for !slices.Equal(r.ids(), want) {
		if len(r.ids()) > len(want) {
			break
		}
		select {
		case <-giveUp:
			t.Fatalf("after 5 minutes, sent %d of %d", len(r.ids()), len(want))
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	wg.Wait()
	if got := r.ids(); !slices.Equal(got, want) {
		t.Errorf("sent %d messages, want %d each once in order:\n%v", len(got), len(want), got)
	}
}

func TestRefusesPrivateAddresses(t *testing.T) {
	f := setup(t)
	guarded := f.service(false)
	for _, tc := range []struct{ url, key string }{
		{"https://127.0.0.1/hook", "validation.webhook_url_private"},
		{"https://[::1]/hook", "validation.webhook_url_private"},
		{"https://169.254.169.254/latest/meta-data", "validation.webhook_url_private"},
		{"https://10.0.0.8/hook", "validation.webhook_url_private"},
		{"https://localhost:8443/hook", "validation.webhook_url_private"},
		{"https://127.1/hook", "validation.webhook_url_private"},
		{"https://0x7f.0.0.1/hook", "validation.webhook_url_private"},
		{"https://2130706433/hook", "validation.webhook_url_private"},
		{"https://[::ffff:127.0.0.1]/hook", "validation.webhook_url_private"},
		{"https://hooks.example.com./", ""},
		{"http://hooks.example.com/", "validation.webhook_url_https"},
		{"ftp://hooks.example.com/", "validation.webhook_url_https"},
		{"https://user:pw@hooks.example.com/", "validation.webhook_url"},
		{"hooks.example.com", "validation.webhook_url"},
		{"", "validation.required"},
		{"https://hooks.example.com/kanri", ""},
	} {
		_, _, err := guarded.Create(f.ctx, tenant, webhook.Input{URL: tc.url, Events: "*"})
		if got := kanri.ErrorFields(err)["url"]; got != tc.key {
			t.Errorf("%s: got %q (%v), want %q", tc.url, got, err, tc.key)
		}
	}
	for _, tc := range []struct{ events, key string }{
		{"", "validation.required"},
		{"user.*", "validation.webhook_event"},
		{"User.Create", ""},
		{"user., role.assign\n*", ""},
	} {
		_, _, err := guarded.Create(f.ctx, tenant, webhook.Input{URL: "https://hooks.example.com/", Events: tc.events})
		if got := kanri.ErrorFields(err)["events"]; got != tc.key {
			t.Errorf("events %q: got %q (%v), want %q", tc.events, got, err, tc.key)
		}
	}

	// A name that resolves to loopback (localhost, from the hosts file)
	// passes where private addresses are allowed; a guarded service
	// refuses it when it connects, after resolving it.
	r := newReceiver(t)
	e, _ := f.create(t, strings.Replace(r.URL, "127.0.0.1", "localhost", 1), "*")
	f.event(tenant, "user.create")
	f.run(t, guarded)
	if n := len(r.received()); n != 0 {
		t.Fatalf("the receiver on loopback got %d", n)
	}
	if log := f.log(t, e.ID); len(log) != 1 || log[0].Error != "address_private" {
		t.Fatalf("log: %+v", log)
	}
	if d, err := guarded.SendTest(f.ctx, tenant, e.ID); err != nil || d.Error != "address_private" || len(r.received()) != 0 {
		t.Errorf("test event: %+v, %v", d, err)
	}
}

// The operator's log holds what its staff did in other tenants; its
// endpoints are not sent those records.
func TestOperatorEndpointsAreNotSentOtherTenants(t *testing.T) {
	f := setup(t)
	r := newReceiver(t)
	if _, _, err := f.svc.Create(f.ctx, kanri.PrivilegedTenantID, webhook.Input{URL: r.URL, Events: "*"}); err != nil {
		t.Fatal(err)
	}
	staff := audit.WithActor(f.ctx, audit.Actor{UserID: "user_staff", UserName: "staff", TenantID: kanri.PrivilegedTenantID})
	f.advance(time.Second)
	f.deps.Audit.Record(staff, audit.Entry{TenantID: tenant, Action: "tenant.suspend", Resource: kanri.AuditResource{Type: kanri.AuditTenant, ID: tenant}})
	own := f.event(kanri.PrivilegedTenantID, "user.create")
	f.run(t, f.svc)
	if got, want := r.ids(), []string{own}; !slices.Equal(got, want) {
		t.Errorf("sent %v, want %v", got, want)
	}
}

// scheduler returns a scheduler over the fixture's store for an instance
// named name, on the machine's clock.
func scheduler(f *fixture, name string) *schedule.Scheduler {
	return schedule.New(f.st.Port(), name, schedule.SystemClock{})
}

// periodic is the deliveries' work as the composition root runs it.
func periodic(s *webhook.Service) schedule.Periodic {
	w := s.Feature().Work[0]
	return schedule.Periodic{Name: w.Name, Every: 20 * time.Millisecond, Run: w.Periodic}
}

// Records of one time, more than a read takes, are all sent, by id.
func TestRecordsOfOneTime(t *testing.T) { forEachStore(t, testRecordsOfOneTime) }

func testRecordsOfOneTime(t *testing.T, f *fixture) {
	f.svc.Batch = 2
	r := newReceiver(t)
	f.create(t, r.URL, "user.")
	f.advance(time.Second)
	var want []string
	for i := range 5 {
		f.deps.Audit.Record(f.ctx, audit.Entry{TenantID: tenant, Action: "user.update", Resource: kanri.AuditResource{Type: kanri.AuditUser, ID: fmt.Sprint("user_", i)}})
	}
	recs, _, _ := f.deps.Audit.Query(f.ctx, tenant, audit.Filter{Action: "user.update"})
	for _, rec := range recs {
		want = append(want, rec.ID)
	}
	slices.Sort(want)
	want = append(want, f.event(tenant, "user.delete"))
	f.run(t, f.svc)
	if got := r.ids(); !slices.Equal(got, want) {
		t.Errorf("sent %v, want %v", got, want)
	}
}

func TestEndpointRules(t *testing.T) {
	f := setup(t)
	e, _ := f.create(t, "https://hooks.example.com/0", "*")
	if _, err := f.svc.SetEnabled(f.ctx, tenant, e.ID, kanri.Seen{}, false); err != nil {
		t.Fatal(err)
	}
	// A replay is refused while disabled: enabling moves the cursor on.
	if _, err := f.svc.ReplaySince(f.ctx, tenant, e.ID, f.clock().Add(-time.Hour), kanri.Seen{}); kanri.ErrorFields(err)["since"] != "validation.webhook_replay_disabled" {
		t.Errorf("replay while disabled: got %v", err)
	}
	// Disabling twice changes nothing, and records nothing.
	got, _ := f.svc.Get(f.ctx, tenant, e.ID)
	if again, err := f.svc.SetEnabled(f.ctx, tenant, e.ID, kanri.Seen{}, false); err != nil || again.ETag != got.ETag {
		t.Errorf("disabled twice: %v, etag %s → %s", err, got.ETag, again.ETag)
	}
	for i := 1; i < webhook.MaxEndpoints; i++ {
		f.create(t, fmt.Sprintf("https://hooks.example.com/%d", i), "*")
	}
	if _, _, err := f.svc.Create(f.ctx, tenant, webhook.Input{URL: "https://hooks.example.com/x", Events: "*"}); !kanri.IsCode(err, kanri.ECONFLICT) {
		t.Errorf("endpoint %d: got %v, want ECONFLICT", webhook.MaxEndpoints+1, err)
	}
}
