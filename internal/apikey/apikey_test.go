package apikey_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/docstore/docstoretest"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

type fixture struct {
	ctx   context.Context
	d     app.Deps
	keys  *apikey.Service
	clock *clock
}

func setupOn(t *testing.T, ds docstore.Store) *fixture {
	t.Helper()
	t.Cleanup(func() { ds.Close() })
	clk := &clock{t: time.Date(2026, 6, 10, 10, 30, 30, 0, time.UTC)}
	d := app.NewDeps(store.New(ds, nil, features.Schema()), slog.New(slog.NewTextHandler(io.Discard, nil)), clk.now)
	ctx := audit.WithActor(t.Context(), audit.Actor{UserID: "user_admin", UserName: "admin", TenantID: "tenant_acme"})
	return &fixture{ctx: ctx, d: d, keys: apikey.New(d), clock: clk}
}

func setup(t *testing.T) *fixture { return setupOn(t, openEmbedded(t)) }

func setupCosmos(t *testing.T) *fixture { return setupOn(t, openCosmos(t)) }

// stores are the fixtures of the tests run on both stores.
var stores = []struct {
	name  string
	setup func(*testing.T) *fixture
}{{"embedded", setup}, {"cosmos", setupCosmos}}

// openEmbedded opens an embedded store in a temporary directory.
func openEmbedded(t *testing.T) docstore.Store { return bolttest.Open(t) }

// openCosmos opens a store on a local Cosmos DB test server.
func openCosmos(t *testing.T) docstore.Store {
	t.Helper()
	return cosmostest.Open(t, cosmostest.Start(t), "kanri-apikey-test")
}

func TestSecretFormat(t *testing.T) {
	f := setup(t)
	_, secret, err := f.keys.Create(f.ctx, "tenant_acme", apikey.Input{Name: "CI", Scopes: []string{"read"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(secret) != apikey.SecretLength || !strings.HasPrefix(secret, "ak_live_") || !apikey.WellFormed(secret) {
		t.Fatalf("secret %q is not well formed", secret)
	}
	// Every single-character change is caught by the checksum (or the
	// alphabet), and refused without any store read: the service below has
	// no store at all.
	blind := apikey.New(app.Deps{Now: time.Now})
	for i := len(apikey.SecretPrefix); i < len(secret); i++ {
		for _, c := range []byte{'0', 'a', 'Z', '-'} {
			if secret[i] == c {
				continue
			}
			typo := secret[:i] + string(c) + secret[i+1:]
			if apikey.WellFormed(typo) {
				t.Errorf("typo at %d (%q) passes the checksum", i, c)
			}
			if _, err := blind.Authenticate(context.Background(), typo); !kanri.IsCode(err, kanri.EUNAUTHENTICATED) {
				t.Errorf("typo at %d: got %v, want EUNAUTHENTICATED", i, err)
			}
		}
	}
	for _, bad := range []string{"", "ak_live_", secret[:len(secret)-1], secret + "0", "ak_test_" + secret[8:], strings.ToUpper(secret)} {
		if apikey.WellFormed(bad) {
			t.Errorf("%q is accepted", bad)
		}
	}
}

func TestKeyLifecycle(t *testing.T) {
	f := setup(t)
	k, secret, err := f.keys.Create(f.ctx, "tenant_acme", apikey.Input{Name: "Deploy", Scopes: []string{"write", "read"}, RateLimit: "10", RateLimitWindow: "1m", ExpiresAt: "2026-06-20"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(k.KeyHash, "sha256:") || strings.Contains(k.KeyHash, secret) || !strings.HasPrefix(secret, k.KeyPrefix) || len(k.KeyPrefix) != 14 {
		t.Errorf("stored: hash %q prefix %q", k.KeyHash, k.KeyPrefix)
	}
	auth := func(s string) error { _, err := f.keys.Authenticate(f.ctx, s); return err }
	if err := auth(secret); err != nil {
		t.Fatalf("authenticate: %v", err)
	}
	other, otherSecret, _ := f.keys.Create(f.ctx, "tenant_globex", apikey.Input{Name: "G", Scopes: []string{"read"}})
	if got, _ := f.keys.Authenticate(f.ctx, otherSecret); got == nil || got.TenantID != "tenant_globex" || got.ID != other.ID {
		t.Errorf("globex's key authenticates as %+v", got)
	}
	for _, tc := range []struct {
		name string
		in   apikey.Input
		bad  string
	}{
		{"no name", apikey.Input{Scopes: []string{"read"}}, "name"},
		{"no scope", apikey.Input{Name: "x"}, "scopes"},
		{"bad scope", apikey.Input{Name: "x", Scopes: []string{"admin"}}, "scopes"},
		{"bad limit", apikey.Input{Name: "x", Scopes: []string{"read"}, RateLimit: "-5"}, "rateLimit"},
		{"bad window", apikey.Input{Name: "x", Scopes: []string{"read"}, RateLimitWindow: "1w"}, "rateLimitWindow"},
		{"past expiry", apikey.Input{Name: "x", Scopes: []string{"read"}, ExpiresAt: "2026-01-01"}, "expiresAt"},
	} {
		if _, _, err := f.keys.Create(f.ctx, "tenant_acme", tc.in); kanri.ErrorFields(err)[tc.bad] == "" {
			t.Errorf("%s: got %v, want an error on %s", tc.name, err, tc.bad)
		}
	}

	// Deactivated: refused; reactivated: accepted.
	if k, err = f.keys.SetActive(f.ctx, "tenant_acme", k.ID, kanri.Seen{}, false); err != nil {
		t.Fatal(err)
	}
	if key, _ := kanri.ErrorMessage(auth(secret)); key != "api.key_inactive" {
		t.Errorf("inactive: got %q", key)
	}
	if _, err = f.keys.SetActive(f.ctx, "tenant_acme", k.ID, kanri.Seen{}, true); err != nil {
		t.Fatal(err)
	}
	// Rotated: both work during the grace, then only the new one.
	_, fresh, err := f.keys.Rotate(f.ctx, "tenant_acme", k.ID, kanri.Seen{}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if auth(secret) != nil || auth(fresh) != nil {
		t.Errorf("during the grace: old %v, new %v", auth(secret), auth(fresh))
	}
	f.clock.add(61 * time.Minute)
	if auth(secret) == nil || auth(fresh) != nil {
		t.Errorf("after the grace: old %v (want refused), new %v", auth(secret), auth(fresh))
	}
	// Expired at the end of its day.
	f.clock.add(11 * 24 * time.Hour)
	if key, _ := kanri.ErrorMessage(auth(fresh)); key != "api.key_expired" {
		t.Errorf("expired: got %q", key)
	}
	if _, err := f.keys.SetActive(f.ctx, "tenant_acme", k.ID, kanri.Seen{}, true); !kanri.IsCode(err, kanri.ECONFLICT) {
		t.Errorf("reactivate an expired key: got %v", err)
	}
	// Revoked: at once, for good.
	if _, err := f.keys.Revoke(f.ctx, "tenant_globex", other.ID, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	if err := auth(otherSecret); !kanri.IsCode(err, kanri.EUNAUTHENTICATED) {
		t.Errorf("revoked: got %v", err)
	}
	// Another tenant's key id is not found in this tenant.
	if _, err := f.keys.Get(f.ctx, "tenant_acme", other.ID); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("globex's key from acme: got %v", err)
	}
}

// TestRateLimit checks the limit on one instance (exact) and on two
// instances sharing the store (never above it), on both stores.
func TestRateLimit(t *testing.T) {
	for _, tc := range stores {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.setup(t)
			k := &kanri.APIKey{Doc: kanri.Doc{ID: "apikey_a", TenantID: "tenant_acme"}, RateLimit: 5, RateLimitWindow: "1m"}
			one := apikey.NewLimiter(f.d.Store, f.clock.now)
			for i := range 7 {
				d, err := one.Allow(f.ctx, k)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := d.Allowed, i < 5; got != want {
					t.Errorf("call %d: allowed %v, want %v", i+1, got, want)
				}
				if got, want := d.Remaining, max(0, 4-i); got != want {
					t.Errorf("call %d: remaining %d, want %d", i+1, got, want)
				}
				if d.Reset != 30*time.Second {
					t.Errorf("call %d: reset in %v, want 30s", i+1, d.Reset)
				}
			}
			f.clock.add(30 * time.Second) // the next window
			if d, _ := one.Allow(f.ctx, k); !d.Allowed {
				t.Error("the next window is refused")
			}

			// Two instances, 100 calls a minute, 300 calls from each.
			k2 := &kanri.APIKey{Doc: kanri.Doc{ID: "apikey_b", TenantID: "tenant_acme"}, RateLimit: 100, RateLimitWindow: "1m"}
			limiters := []*apikey.Limiter{apikey.NewLimiter(f.d.Store, f.clock.now), apikey.NewLimiter(f.d.Store, f.clock.now)}
			var mu sync.Mutex
			allowed := 0
			var wg sync.WaitGroup
			for _, l := range limiters {
				for range 3 {
					wg.Go(func() {
						for range 100 {
							d, err := l.Allow(f.ctx, k2)
							if err != nil {
								t.Error(err)
								return
							}
							if d.Allowed {
								mu.Lock()
								allowed++
								mu.Unlock()
							}
						}
					})
				}
			}
			wg.Wait()
			// Each instance leases blocks of 2: all 100 are leased and spent.
			if allowed != 100 {
				t.Errorf("two instances admitted %d calls, want exactly the limit of 100", allowed)
			}
			t.Logf("two instances, limit 100/min, 600 calls: %d admitted", allowed)
		})
	}
}

// sink records service usage.
type sink struct {
	mu    sync.Mutex
	calls map[string]int64
}

func (s *sink) AddUsage(_ context.Context, tenantID, serviceID string, delta map[string]int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[tenantID+"/"+serviceID] += delta[kanri.MetricAPICalls]
	return nil
}

func TestRecorderWritesUsageAndAggregates(t *testing.T) {
	f := setup(t)
	k, _, err := f.keys.Create(f.ctx, "tenant_acme", apikey.Input{Name: "CI", Scopes: []string{"read"}})
	if err != nil {
		t.Fatal(err)
	}
	sk := &sink{calls: map[string]int64{}}
	rec := apikey.NewRecorder(f.d.Store, f.keys, sk, f.d.Logger, 10)
	rec.FlushEvery = time.Hour // only the stop flushes
	statuses := []int{200, 200, 404, 500, 201}
	latencies := []int{5, 20, 60, 300, 900}
	for i, st := range statuses {
		u := apikey.NewUsage(k, f.clock.now().Add(time.Duration(i)*time.Second))
		u.Endpoint, u.Method, u.StatusCode, u.ResponseTime, u.ResponseSize = "/api/v1/users", "GET", st, latencies[i], 1000
		rec.Record(u)
	}
	ctx, cancel := context.WithCancel(f.ctx)
	done := make(chan error)
	go func() { done <- rec.Run(ctx) }()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := rec.Written(); got != 5 {
		t.Fatalf("written: got %d, want 5", got)
	}
	calls, _, err := f.keys.Calls(f.ctx, "tenant_acme", apikey.CallFilter{KeyID: k.ID, Status: "5xx"})
	if err != nil || len(calls) != 1 || calls[0].StatusCode != 500 || calls[0].TTL != kanri.TTLAPIUsage {
		t.Errorf("5xx calls: got %+v, %v", calls, err)
	}
	a, _ := f.keys.Aggregate(f.ctx, "tenant_acme", k.ID, f.clock.now())
	if a.TotalCalls != 5 || a.ErrorCalls != 2 || a.SuccessCalls != 3 || a.AvgResponseTime != 257 || a.TotalBandwidth != 5000 {
		t.Errorf("aggregate: %+v", a)
	}
	if len(a.TopEndpoints) != 1 || a.TopEndpoints[0]["GET /api/v1/users"] != 5 {
		t.Errorf("top endpoints: %v", a.TopEndpoints)
	}
	if all, _ := f.keys.Aggregate(f.ctx, "tenant_acme", apikey.AllKeys, f.clock.now()); all.TotalCalls != 5 || all.Endpoints["GET /api/v1/users"] != 5 {
		t.Errorf("the tenant's aggregate: %+v", all)
	}
	days, _ := f.keys.Daily(f.ctx, "tenant_acme", apikey.AllKeys, 7)
	sum := apikey.Summarize(days)
	if sum.Calls != 5 || sum.Errors != 2 || sum.P50 != "≤ 100 ms" || sum.P95 != "≤ 1000 ms" || len(days) != 7 {
		t.Errorf("summary: %+v over %d days", sum, len(days))
	}
	if got := sk.calls["tenant_acme/api-service"]; got != 5 {
		t.Errorf("service usage: got %d calls, want 5", got)
	}
	if got, _ := f.keys.Get(f.ctx, "tenant_acme", k.ID); got.LastUsedAt.IsZero() {
		t.Error("lastUsedAt was not written")
	}
	// A full queue loses calls, counted.
	for range 12 {
		rec.Record(apikey.NewUsage(k, f.clock.now()))
	}
	if got := rec.Lost(); got != 2 {
		t.Errorf("lost: got %d, want 2", got)
	}
}

// TestDailyReadsTheDaysInOneQuery checks that the usage of the last 30
// days comes from one query, oldest first, with the days without
// documents as zeros and nothing of another key or an earlier day, on
// both stores.
func TestDailyReadsTheDaysInOneQuery(t *testing.T) {
	for _, tc := range []struct {
		name string
		open func(*testing.T) docstore.Store
	}{{"embedded", openEmbedded}, {"cosmos", openCosmos}} {
		t.Run(tc.name, func(t *testing.T) { testDaily(t, tc.open(t)) })
	}
}

func testDaily(t *testing.T, ds docstore.Store) {
	counted := docstoretest.NewCounting(ds)
	f := setupOn(t, counted)
	repo := store.Of[kanri.APIUsageDaily](f.d.Store.Tenant("tenant_acme"), kanri.ContainerAPI, kanri.TypeAPIUsageDaily)
	for _, d := range []struct {
		key, date string
		calls     int64
	}{
		{"apikey_a", "2026-06-10", 1},
		{"apikey_a", "2026-06-08", 2},
		{"apikey_a", "2026-05-12", 3},
		{"apikey_a", "2026-05-11", 100}, // 31 days ago
		{"apikey_b", "2026-06-10", 1000},
	} {
		day, _ := time.Parse("2006-01-02", d.date)
		if err := repo.Create(f.ctx, &kanri.APIUsageDaily{Doc: kanri.Doc{ID: kanri.DailyID(day, d.key)}, APIKeyID: d.key, Date: d.date, Calls: d.calls}); err != nil {
			t.Fatal(err)
		}
	}
	var days []*kanri.APIUsageDaily
	var err error
	calls := counted.Count(func() { days, err = f.keys.Daily(f.ctx, "tenant_acme", "apikey_a", 30) })
	if err != nil {
		t.Fatal(err)
	}
	if want := (docstoretest.Calls{Query: 1}); calls != want {
		t.Errorf("store calls: got %v, want %v", calls, want)
	}
	if got, want := len(days), 30; got != want {
		t.Fatalf("days: got %d, want %d", got, want)
	}
	want := map[string]int64{"2026-06-10": 1, "2026-06-08": 2, "2026-05-12": 3}
	first, _ := time.Parse("2006-01-02", "2026-05-12")
	for i, d := range days {
		if got, want := d.Date, first.AddDate(0, 0, i).Format("2006-01-02"); got != want {
			t.Errorf("day %d: got %s, want %s", i, got, want)
		}
		if got, want := d.Calls, want[d.Date]; got != want {
			t.Errorf("%s: got %d calls, want %d", d.Date, got, want)
		}
	}
}

// TestLeaseWritesWithoutReading counts the store calls of the rate limit:
// an instance that wrote the counter last leases its next block with one
// write at the ETag it got, and reads first only when another instance
// wrote since.
func TestLeaseWritesWithoutReading(t *testing.T) {
	counted := docstoretest.NewCounting(openEmbedded(t))
	f := setupOn(t, counted)
	k := &kanri.APIKey{Doc: kanri.Doc{ID: "apikey_a", TenantID: "tenant_acme"}, RateLimit: 1000, RateLimitWindow: "1h"} // blocks of 20
	one, two := apikey.NewLimiter(f.d.Store, f.clock.now), apikey.NewLimiter(f.d.Store, f.clock.now)
	allow := func(l *apikey.Limiter, n int) {
		t.Helper()
		for range n {
			if d, err := l.Allow(f.ctx, k); err != nil || !d.Allowed {
				t.Fatalf("allow: %+v, %v", d, err)
			}
		}
	}
	for _, tc := range []struct {
		name string
		run  func()
		want docstoretest.Calls
	}{
		{"the first block", func() { allow(one, 20) }, docstoretest.Calls{Read: 1, Create: 1}},
		{"four more blocks", func() { allow(one, 80) }, docstoretest.Calls{Replace: 4}},
		{"another instance's first block", func() { allow(two, 20) }, docstoretest.Calls{Read: 1, Replace: 1}},
		{"a block after the other instance wrote", func() { allow(one, 1) }, docstoretest.Calls{Replace: 2, Read: 1}},
	} {
		if got := counted.Count(tc.run); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	c, _, err := store.Of[kanri.RateCounter](f.d.Store.Tenant("tenant_acme"), kanri.ContainerAPI, kanri.TypeRateCounter).
		Query(f.ctx, docstore.Query{})
	if err != nil || len(c) != 1 {
		t.Fatalf("counters: %v, %v", c, err)
	}
	if got, want := c[0].Granted, 20*7; got != want {
		t.Errorf("granted: got %d, want %d", got, want)
	}
}

// TestSecondRotationKeepsTheSecretInUse rotates a key twice within the
// grace: the secret clients still use keeps working until its own grace
// ends, as do the others replaced, and each stops after its grace.
func TestSecondRotationKeepsTheSecretInUse(t *testing.T) {
	f := setup(t)
	k, first, err := f.keys.Create(f.ctx, "tenant_acme", apikey.Input{Name: "Sync", Scopes: []string{"read"}})
	if err != nil {
		t.Fatal(err)
	}
	auth := func(s string) bool { _, err := f.keys.Authenticate(f.ctx, s); return err == nil }
	_, second, err := f.keys.Rotate(f.ctx, "tenant_acme", k.ID, kanri.Seen{}, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	f.clock.add(time.Hour)
	_, third, err := f.keys.Rotate(f.ctx, "tenant_acme", k.ID, kanri.Seen{}, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	var since time.Duration // since the second rotation
	for _, tc := range []struct {
		name                 string
		after                time.Duration // since the second rotation, in order
		first, second, third bool
	}{
		{"just after", 0, true, true, true},
		{"before the first grace ends", 22*time.Hour + 59*time.Minute, true, true, true},
		{"after the first grace", 23 * time.Hour, false, true, true},
		{"after the second grace", 24 * time.Hour, false, false, true},
	} {
		f.clock.add(tc.after - since)
		since = tc.after
		got := [3]bool{auth(first), auth(second), auth(third)}
		if want := [3]bool{tc.first, tc.second, tc.third}; got != want {
			t.Errorf("%s: first, second, third secret work: got %v, want %v", tc.name, got, want)
		}
	}
	// A third rotation forgets what has ended and keeps what has not.
	f.clock.add(time.Hour)
	k, _, err = f.keys.Rotate(f.ctx, "tenant_acme", k.ID, kanri.Seen{}, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(k.EarlierSecrets), 0; got != want {
		t.Errorf("earlier secrets kept after their grace: got %d, want %d", got, want)
	}
	if !auth(third) {
		t.Error("the secret just replaced does not work during its grace")
	}
}

// TestHeldSecretIsClaimedOnce holds a secret and claims it: once with the
// ticket, never twice, never from another tenant, never with a forged
// key; the store keeps only ciphertext.
func TestHeldSecretIsClaimedOnce(t *testing.T) {
	f := setup(t)
	ticket, err := f.keys.Hold(f.ctx, "tenant_acme", "apikey_1", "ak_live_secret", true)
	if err != nil {
		t.Fatal(err)
	}
	id, _, _ := strings.Cut(ticket, ".")
	held, err := store.Of[kanri.SecretFlash](f.d.Store.Tenant("tenant_acme"), kanri.ContainerAPI, kanri.TypeSecretFlash).Get(f.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(held.Sealed, "secret") || held.TTL != kanri.SecretFlashTTL {
		t.Errorf("held: %+v", held)
	}
	forged := id + ".AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	for _, tc := range []struct{ name, tenant, ticket string }{
		{"another tenant", "tenant_globex", ticket},
		{"a forged key", "tenant_acme", forged},
		{"no key", "tenant_acme", id},
		{"garbage", "tenant_acme", "x/y"},
	} {
		if _, _, _, err := f.keys.Claim(f.ctx, tc.tenant, tc.ticket); !kanri.IsCode(err, kanri.ENOTFOUND) {
			t.Errorf("%s: got %v, want not found", tc.name, err)
		}
	}
	// The forged claim deleted it: a claim that cannot open it still uses it up.
	ticket, _ = f.keys.Hold(f.ctx, "tenant_acme", "apikey_1", "ak_live_secret", true)
	keyID, secret, rotated, err := f.keys.Claim(f.ctx, "tenant_acme", ticket)
	if err != nil || keyID != "apikey_1" || secret != "ak_live_secret" || !rotated {
		t.Errorf("claim: got %q %q %v %v", keyID, secret, rotated, err)
	}
	if _, _, _, err := f.keys.Claim(f.ctx, "tenant_acme", ticket); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("second claim: got %v, want not found", err)
	}
}

// TestAKeysExpiryDateIsTheTenantsDay: a key given an expiry date works to
// the end of that day in the tenant's time zone.
func TestAKeysExpiryDateIsTheTenantsDay(t *testing.T) {
	f := setup(t)
	const ten = "tenant_pago" // UTC-11: its day ends at 10:59:59 UTC the next day
	zoned := &kanri.Tenant{Doc: kanri.Doc{ID: ten}, Name: "pago", Status: kanri.TenantActive, Plan: kanri.PlanStandard}
	zoned.Settings.Timezone = "Pacific/Pago_Pago"
	if err := f.d.Store.Tenant(ten).Tenants().Create(f.ctx, zoned); err != nil {
		t.Fatal(err)
	}
	k, secret, err := f.keys.Create(f.ctx, ten, apikey.Input{Name: "Deploy", Scopes: []string{"read"}, ExpiresAt: "2026-06-20"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := k.ExpiresAt.Time, time.Date(2026, 6, 21, 10, 59, 59, 0, time.UTC); !got.Equal(want) {
		t.Errorf("expires at %v, want %v", got, want)
	}
	f.clock.add(k.ExpiresAt.Sub(f.clock.now()) - time.Second)
	if _, err := f.keys.Authenticate(f.ctx, secret); err != nil {
		t.Errorf("on the last second of the tenant's day: %v", err)
	}
	f.clock.add(time.Second)
	if _, err := f.keys.Authenticate(f.ctx, secret); err == nil {
		t.Error("the key works after the tenant's day is over")
	}
	// The tenant's 2026-06-20 is over now (in UTC it is 2026-06-21 all
	// along): no new key can expire on it.
	if _, _, err := f.keys.Create(f.ctx, ten, apikey.Input{Name: "Old", Scopes: []string{"read"}, ExpiresAt: "2026-06-20"}); kanri.ErrorFields(err)["expiresAt"] != "validation.expiry_past" {
		t.Errorf("a key expiring on a day over: got %v", err)
	}
}
