package catalog_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/catalog"
	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/store"
)

type fixture struct {
	ctx   context.Context
	svc   *catalog.Service
	d     app.Deps
	clock *clock
}

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }

func setupOn(t *testing.T, ds docstore.Store) *fixture {
	t.Helper()
	t.Cleanup(func() { ds.Close() })
	clk := &clock{t: time.Date(2026, 3, 15, 10, 0, 0, 0, time.UTC)}
	d := app.NewDeps(store.New(ds, nil, features.Schema()), nil, clk.now)
	if _, err := role.New(d, features.Roles()).Seed(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx := audit.WithActor(t.Context(), audit.Actor{UserID: "user_admin", UserName: "admin@example.com", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true})
	return &fixture{ctx: ctx, svc: catalog.New(d, features.Roles()), d: d, clock: clk}
}

func setup(t *testing.T) *fixture {
	t.Helper()
	return setupOn(t, bolttest.Open(t))
}

func setupCosmos(t *testing.T) *fixture {
	t.Helper()
	srv := cosmostest.Start(t)
	return setupOn(t, cosmostest.Open(t, srv, "kanri-service-test"))
}

func TestCatalog(t *testing.T) {
	f := setup(t)
	all, err := f.svc.List(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(all), len(features.Roles().Services()); got != want {
		t.Fatalf("catalog: got %d services, want the %d built-in ones", got, want)
	}
	for _, tc := range []struct {
		name  string
		id    string
		in    kanri.ServiceInput
		field string
	}{
		{"bad slug", "Bad Id", kanri.ServiceInput{Name: "x"}, "id"},
		{"no name", "crm", kanri.ServiceInput{}, "name"},
		{"bad url", "crm", kanri.ServiceInput{Name: "CRM", BaseURL: "ftp://x"}, "baseUrl"},
		{"url with query", "crm", kanri.ServiceInput{Name: "CRM", BaseURL: "https://x.example?a=1"}, "baseUrl"},
		{"bad endpoint", "crm", kanri.ServiceInput{Name: "CRM", HealthEndpoint: "health"}, "healthEndpoint"},
		{"taken", kanri.FileServiceID, kanri.ServiceInput{Name: "Files"}, "id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.Create(f.ctx, tc.id, tc.in)
			if got := kanri.ErrorFields(err)[tc.field]; got == "" {
				t.Errorf("Create: got %v, want an error on %s", err, tc.field)
			}
		})
	}
	crm, err := f.svc.Create(f.ctx, "crm", kanri.ServiceInput{Name: "CRM", BaseURL: "https://crm.example.com/", HealthEndpoint: "/health", Category: "sales"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := crm.BaseURL, "https://crm.example.com"; got != want {
		t.Errorf("baseUrl: got %q, want %q", got, want)
	}
	stale := crm.ETag
	in := catalog.InputOf(crm)
	in.Version = "2.0.0"
	if _, err := f.svc.Update(f.ctx, "crm", crm.ETag, in); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Update(f.ctx, "crm", stale, in); !kanri.IsCode(err, kanri.ESTALE) {
		t.Errorf("stale update: got %v, want ESTALE", err)
	}
	if _, err := f.svc.Delete(f.ctx, kanri.FileServiceID, kanri.Seen{}); !kanri.IsCode(err, kanri.ECONFLICT) {
		t.Errorf("delete a built-in service: got %v, want ECONFLICT", err)
	}
	ten := "tenant_acme"
	if _, _, err := f.svc.Assign(f.ctx, ten, kanri.AssignmentInput{ServiceID: "crm"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Delete(f.ctx, "crm", kanri.Seen{}); !kanri.IsCode(err, kanri.ECONFLICT) {
		t.Errorf("delete an assigned service: got %v, want ECONFLICT", err)
	}
	if _, err := f.svc.End(f.ctx, ten, "crm", kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Delete(f.ctx, "crm", kanri.Seen{}); !kanri.IsCode(err, kanri.ECONFLICT) {
		t.Errorf("delete an active service: got %v, want ECONFLICT (deactivate first)", err)
	}
	if _, err := f.svc.SetActive(f.ctx, "crm", kanri.Seen{}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Delete(f.ctx, "crm", kanri.Seen{}); err != nil {
		t.Errorf("delete an unused, inactive external service: %v", err)
	}
	if _, err := f.svc.Get(f.ctx, "crm"); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("after delete: got %v, want ENOTFOUND", err)
	}
}

// TestHealth checks services against real HTTP servers: one up, one
// answering 503, one too slow, and one whose baseUrl has nothing behind it.
func TestHealth(t *testing.T) {
	f := setup(t)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/health" {
			http.NotFound(w, r)
		}
	}))
	defer up.Close()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer failing.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	for id, base := range map[string]string{"up": up.URL, "failing": failing.URL, "gone": closedURL} {
		if _, err := f.svc.Create(f.ctx, id, kanri.ServiceInput{Name: id, BaseURL: base, HealthEndpoint: "/health"}); err != nil {
			t.Fatal(err)
		}
	}
	n, err := f.svc.CheckHealth(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := n, 3; got != want {
		t.Errorf("checked: got %d, want %d (only services with a baseUrl)", got, want)
	}
	checks, err := f.svc.Health(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	svcs, _ := f.svc.List(f.ctx)
	got := map[string]string{}
	for _, s := range svcs {
		got[s.ID] = catalog.HealthOf(s, checks).Status
	}
	for id, want := range map[string]string{"up": kanri.HealthUp, "failing": kanri.HealthDown, "gone": kanri.HealthDown, kanri.FileServiceID: kanri.HealthUnknown} {
		if got[id] != want {
			t.Errorf("%s: got %q, want %q", id, got[id], want)
		}
	}
	if got, want := checks["failing"].Detail, "HTTP 503"; got != want {
		t.Errorf("detail: got %q, want %q", got, want)
	}
	// A deactivated service is no longer checked and reads as unknown.
	s, _ := f.svc.Get(f.ctx, "up")
	if _, err := f.svc.SetActive(f.ctx, "up", kanri.Seen{ETag: s.ETag, State: "active"}, false); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.svc.CheckHealth(f.ctx); n != 2 {
		t.Errorf("checked after deactivating one: got %d, want 2", n)
	}
	s, _ = f.svc.Get(f.ctx, "up")
	if got := catalog.HealthOf(s, checks).Status; got != kanri.HealthUnknown {
		t.Errorf("deactivated: got %q, want unknown", got)
	}
}

func TestAssignments(t *testing.T) {
	f := setup(t)
	ten := "tenant_acme"
	// A service of the operator's catalog, which Kanri does not run: its
	// config is free JSON.
	if _, err := f.svc.Create(f.ctx, "crm", kanri.ServiceInput{Name: "CRM"}); err != nil {
		t.Fatal(err)
	}
	a, created, err := f.svc.Assign(f.ctx, ten, kanri.AssignmentInput{
		ServiceID: kanri.FileServiceID, Config: map[string]string{"maxStorage": "100 gb", "maxFileSize": "10MB"},
	})
	if err != nil || !created {
		t.Fatalf("Assign: %v, created %v", err, created)
	}
	if got, want := a.ID, "assignment_tenant_acme_file-service"; got != want {
		t.Errorf("id: got %q, want %q", got, want)
	}
	if got, want := a.Config["maxStorage"], "100GB"; got != want {
		t.Errorf("maxStorage: got %v, want %v", got, want)
	}
	again, created, err := f.svc.Assign(f.ctx, ten, kanri.AssignmentInput{ServiceID: kanri.FileServiceID})
	if err != nil || created || again.ETag != a.ETag {
		t.Errorf("assign twice: got %v created %v %v, want the existing assignment", again, created, err)
	}
	if err := f.svc.Usable(f.ctx, ten, kanri.FileServiceID); err != nil {
		t.Errorf("Usable after assign: %v", err)
	}
	if err := f.svc.Usable(f.ctx, "tenant_other", kanri.FileServiceID); !kanri.IsCode(err, kanri.EFORBIDDEN) {
		t.Errorf("Usable in another tenant: got %v, want EFORBIDDEN", err)
	}

	for _, tc := range []struct {
		name  string
		in    kanri.AssignmentInput
		field string
	}{
		{"bad size", kanri.AssignmentInput{ServiceID: kanri.FileServiceID, Config: map[string]string{"maxFileSize": "ten"}}, "config.maxFileSize"},
		{"file over storage", kanri.AssignmentInput{ServiceID: kanri.FileServiceID, Config: map[string]string{"maxStorage": "1GB", "maxFileSize": "2GB"}}, "config.maxFileSize"},
		{"bad count", kanri.AssignmentInput{ServiceID: kanri.MessagingServiceID, Config: map[string]string{"maxChannels": "2.5"}}, "config.maxChannels"},
		{"count too large", kanri.AssignmentInput{ServiceID: kanri.BackupServiceID, Config: map[string]string{"maxJobs": "1000001"}}, "config.maxJobs"},
		{"bad json", kanri.AssignmentInput{ServiceID: "crm", ConfigJSON: "[1,2]"}, "configJson"},
		{"number too large", kanri.AssignmentInput{ServiceID: "crm", ConfigJSON: `{"x": 1e400}`}, "configJson"},
		{"inexact integer", kanri.AssignmentInput{ServiceID: "crm", ConfigJSON: `{"x": [12345678901234567891]}`}, "configJson"},
		{"two json values", kanri.AssignmentInput{ServiceID: "crm", ConfigJSON: `{"a":1} {}`}, "configJson"},
		{"too deep", kanri.AssignmentInput{ServiceID: "crm", ConfigJSON: `{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`}, "configJson"},
		{"bad date", kanri.AssignmentInput{ServiceID: kanri.MessagingServiceID, ExpiresAt: "tomorrow"}, "expiresAt"},
		{"past expiry", kanri.AssignmentInput{ServiceID: kanri.MessagingServiceID, ExpiresAt: "2026-01-01"}, "expiresAt"},
		{"unknown service", kanri.AssignmentInput{ServiceID: "nope"}, "serviceId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := f.svc.Assign(f.ctx, "tenant_fresh", tc.in)
			if kanri.ErrorFields(err)[tc.field] == "" {
				t.Errorf("got %v, want an error on %s", err, tc.field)
			}
		})
	}

	// Suspended: not usable; a stale suspend does nothing.
	if _, err := f.svc.Suspend(f.ctx, ten, kanri.FileServiceID, kanri.Seen{ETag: "old", State: kanri.AssignmentSuspended}); !kanri.IsCode(err, kanri.ESTALE) {
		t.Errorf("stale suspend: got %v, want ESTALE", err)
	}
	if _, err := f.svc.Suspend(f.ctx, ten, kanri.FileServiceID, kanri.Seen{ETag: a.ETag, State: kanri.AssignmentActive}); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Usable(f.ctx, ten, kanri.FileServiceID); !kanri.IsCode(err, kanri.EFORBIDDEN) {
		t.Errorf("Usable when suspended: got %v, want EFORBIDDEN", err)
	}
	if _, err := f.svc.Reactivate(f.ctx, ten, kanri.FileServiceID, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}

	// Expiry takes effect at its time, without a job.
	m, _, err := f.svc.Assign(f.ctx, ten, kanri.AssignmentInput{ServiceID: kanri.MessagingServiceID, ExpiresAt: "2026-03-20", Config: map[string]string{"maxChannels": "20"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.svc.AssignmentInputOf(m, time.UTC).Config["maxChannels"], "20"; got != want {
		t.Errorf("setting shown: got %q, want %q", got, want)
	}
	if got := kanri.CountSetting(m.Config, "maxChannels"); got != 20 {
		t.Errorf("maxChannels read back as %d, want 20", got)
	}
	crm, _, err := f.svc.Assign(f.ctx, ten, kanri.AssignmentInput{ServiceID: "crm", ConfigJSON: `{"seats": 20, "retention": "1y"}`})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.svc.AssignmentInputOf(crm, time.UTC).ConfigJSON, "{\n  \"retention\": \"1y\",\n  \"seats\": 20\n}"; got != want {
		t.Errorf("a catalog service's config shown: got %q, want %q", got, want)
	}
	if err := f.svc.Usable(f.ctx, ten, kanri.MessagingServiceID); err != nil {
		t.Errorf("Usable before expiry: %v", err)
	}
	f.clock.set(time.Date(2026, 3, 21, 0, 0, 0, 0, time.UTC))
	if err := f.svc.Usable(f.ctx, ten, kanri.MessagingServiceID); !kanri.IsCode(err, kanri.EFORBIDDEN) {
		t.Errorf("Usable after expiry: got %v, want EFORBIDDEN", err)
	}
	if _, err := f.svc.Reactivate(f.ctx, ten, kanri.MessagingServiceID, kanri.Seen{}); !kanri.IsCode(err, kanri.ECONFLICT) {
		t.Errorf("reactivate an expired assignment: got %v, want ECONFLICT", err)
	}
	m, _ = f.svc.Assignment(f.ctx, ten, kanri.MessagingServiceID)
	in := f.svc.AssignmentInputOf(m, time.UTC)
	in.ExpiresAt = "2026-03-01"
	if _, err := f.svc.UpdateAssignment(f.ctx, ten, kanri.MessagingServiceID, m.ETag, in); kanri.ErrorFields(err)["expiresAt"] != "validation.expiry_past" {
		t.Errorf("update to a past expiry: got %v", err)
	}
	in.ExpiresAt = "2026-12-31T12:00:00Z"
	m, err = f.svc.UpdateAssignment(f.ctx, ten, kanri.MessagingServiceID, m.ETag, in)
	if err != nil {
		t.Fatal(err)
	}
	// Saved again as the form shows it (a date), the instant stays.
	again, err2 := f.svc.UpdateAssignment(f.ctx, ten, kanri.MessagingServiceID, m.ETag, f.svc.AssignmentInputOf(m, time.UTC))
	if err2 != nil || !again.ExpiresAt.Equal(m.ExpiresAt.Time) {
		t.Errorf("saved unchanged: expiry %v, want %v (%v)", again.ExpiresAt, m.ExpiresAt, err2)
	}
	if err := f.svc.Usable(f.ctx, ten, kanri.MessagingServiceID); err != nil {
		t.Errorf("Usable after a new expiry: %v", err)
	}

	// A deactivated service cannot be assigned nor used.
	s, _ := f.svc.Get(f.ctx, kanri.FileServiceID)
	if _, err := f.svc.SetActive(f.ctx, kanri.FileServiceID, kanri.Seen{ETag: s.ETag, State: "active"}, false); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Usable(f.ctx, ten, kanri.FileServiceID); !kanri.IsCode(err, kanri.EFORBIDDEN) {
		t.Errorf("Usable when the service is inactive: got %v, want EFORBIDDEN", err)
	}
	if _, _, err := f.svc.Assign(f.ctx, "tenant_fresh", kanri.AssignmentInput{ServiceID: kanri.FileServiceID}); kanri.ErrorFields(err)["serviceId"] != "validation.service_inactive" {
		t.Errorf("assign an inactive service: got %v, want validation.service_inactive", err)
	}
}

// TestUsageNeverLosesAnIncrement adds to one month's usage from many
// goroutines at once, on both stores.
func TestUsageNeverLosesAnIncrement(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(*testing.T) *fixture
	}{{"embedded", setup}, {"cosmos", setupCosmos}} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.setup(t)
			const writers, each = 8, 10
			var wg sync.WaitGroup
			var added atomic.Int64
			for range writers {
				wg.Go(func() {
					for range each {
						switch err := f.svc.AddUsage(f.ctx, "tenant_acme", kanri.APIServiceID, map[string]int64{kanri.MetricAPICalls: 1, kanri.MetricBandwidth: 100}); {
						case err == nil:
							added.Add(1)
						case kanri.IsCode(err, kanri.EBUSY):
							// Contention past the retries' bound: refused,
							// so it must not be counted.
						default:
							t.Error(err)
						}
					}
				})
			}
			wg.Wait()
			if err := f.svc.SetUsage(f.ctx, "tenant_acme", kanri.APIServiceID, map[string]int64{kanri.MetricStorageUsed: 5 << 30}); err != nil {
				t.Fatal(err)
			}
			got, err := f.svc.Usage(f.ctx, "tenant_acme", kanri.APIServiceID, f.clock.now().AddDate(0, -2, 0), f.clock.now())
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 3 {
				t.Fatalf("months: got %d, want 3", len(got))
			}
			last := got[2]
			n := added.Load()
			if n == 0 { // a write that loses a race loses it to one that won
				t.Errorf("none of %d adds succeeded", writers*each)
			}
			// Every add that succeeded is counted, and no other.
			want := map[string]int64{kanri.MetricAPICalls: n, kanri.MetricBandwidth: n * 100, kanri.MetricStorageUsed: 5 << 30}
			for k, w := range want {
				if last.Metrics[k] != w {
					t.Errorf("%s: got %d, want %d", k, last.Metrics[k], w)
				}
			}
			if got, want := last.Period, "2026-03"; got != want {
				t.Errorf("period: got %q, want %q", got, want)
			}
			if len(got[0].Metrics) != 0 {
				t.Errorf("a month without usage: got %v", got[0].Metrics)
			}
			across, _, err := f.svc.UsageAcrossTenants(f.ctx, "2026-03", 10, "")
			if err != nil || len(across) != 1 || across[0].TenantID != "tenant_acme" {
				t.Errorf("across tenants: got %v, %v", across, err)
			}
		})
	}
}

// TestUsageInTheSpecsShape reads a usage document written as the data
// model's example shows it, with sizes as strings
// (docs/data-model.md, "Services").
func TestUsageInTheSpecsShape(t *testing.T) {
	var u kanri.ServiceUsage
	doc := `{"id":"usage_202601_tenant123_file","tenantId":"tenant_123","type":"service_usage","serviceId":"file-service","period":"2026-01",
		"metrics":{"apiCalls":15420,"storageUsed":"85GB","bandwidth":"120GB","odd":"n/a"},"lastUpdated":"2026-01-31T23:59:59Z"}`
	if err := json.Unmarshal([]byte(doc), &u); err != nil {
		t.Fatal(err)
	}
	want := kanri.UsageMetrics{kanri.MetricAPICalls: 15420, kanri.MetricStorageUsed: 85 << 30, kanri.MetricBandwidth: 120 << 30}
	if !maps.Equal(u.Metrics, want) {
		t.Errorf("metrics: got %v, want %v", u.Metrics, want)
	}
}

func TestSizes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"10MB", 10 << 20, true}, {"100 gb", 100 << 30, true}, {"512kb", 512 << 10, true}, {"7B", 7, true},
		{"1TB", 1 << 40, true}, {"", 0, false}, {"ten MB", 0, false}, {"-1MB", 0, false}, {"1.5GB", 0, false},
		{"99999999999TB", 0, false},
	} {
		got, err := kanri.ParseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseSize(%q): got %d, %v; want %d (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
	for n, want := range map[int64]string{10 << 20: "10MB", 1536 << 10: "1536KB", 100 << 30: "100GB", 1000: "1000B"} {
		if got := kanri.FormatSize(n); got != want {
			t.Errorf("FormatSize(%d): got %q, want %q", n, got, want)
		}
	}
	if got, want := kanri.HumanSize(1536<<20), "1.5 GiB"; got != want {
		t.Errorf("HumanSize: got %q, want %q", got, want)
	}
}

// TestAnExpiryDateIsTheTenantsDay: an assignment expiring on a date ends
// at the end of that day in the tenant's time zone, and its form shows
// that date again.
func TestAnExpiryDateIsTheTenantsDay(t *testing.T) {
	f := setup(t)
	const ten = "tenant_kiritimati" // UTC+14: its day ends at 09:59:59 UTC
	zoned := &kanri.Tenant{Doc: kanri.Doc{ID: ten}, Name: "kiritimati", Status: kanri.TenantActive, Plan: kanri.PlanStandard}
	zoned.Settings.Timezone = "Pacific/Kiritimati"
	if err := f.d.Store.Tenant(ten).Tenants().Create(f.ctx, zoned); err != nil {
		t.Fatal(err)
	}
	loc := zoned.Location()
	a, _, err := f.svc.Assign(f.ctx, ten, kanri.AssignmentInput{ServiceID: kanri.MessagingServiceID, ExpiresAt: "2026-03-20"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.ExpiresAt.Time, time.Date(2026, 3, 20, 9, 59, 59, 0, time.UTC); !got.Equal(want) {
		t.Errorf("expires at %v, want %v", got, want)
	}
	if got, want := f.svc.AssignmentInputOf(a, loc).ExpiresAt, "2026-03-20"; got != want {
		t.Errorf("form shows %q, want %q", got, want)
	}
	again, err := f.svc.UpdateAssignment(f.ctx, ten, kanri.MessagingServiceID, a.ETag, f.svc.AssignmentInputOf(a, loc))
	if err != nil || again.ETag != a.ETag {
		t.Errorf("saved unchanged: %v, etag %s, want %s", err, again.ETag, a.ETag)
	}
	in := f.svc.AssignmentInputOf(a, loc)
	in.ExpiresAt = "2026-03-21"
	if a, err = f.svc.UpdateAssignment(f.ctx, ten, kanri.MessagingServiceID, a.ETag, in); err != nil {
		t.Fatal(err)
	}
	if got, want := a.ExpiresAt.Time, time.Date(2026, 3, 21, 9, 59, 59, 0, time.UTC); !got.Equal(want) {
		t.Errorf("moved: expires at %v, want %v", got, want)
	}
	f.clock.set(time.Date(2026, 3, 21, 9, 59, 58, 0, time.UTC))
	if err := f.svc.Usable(f.ctx, ten, kanri.MessagingServiceID); err != nil {
		t.Errorf("Usable on the last second of the tenant's day: %v", err)
	}
	f.clock.set(time.Date(2026, 3, 21, 10, 0, 0, 0, time.UTC))
	if err := f.svc.Usable(f.ctx, ten, kanri.MessagingServiceID); !kanri.IsCode(err, kanri.EFORBIDDEN) {
		t.Errorf("Usable once the tenant's day is over: got %v, want EFORBIDDEN", err)
	}
}

// TestMoveIDs: assignments and usage an earlier version's restore into a
// new tenant left under the source tenant's ids move to the tenant's own,
// an assignment made since under the right id is kept, and a second run
// changes nothing.
func TestMoveIDs(t *testing.T) {
	f := setup(t)
	ten, src := "tenant_copy", "tenant_src"
	assignments, usage := f.d.Store.Tenant(ten).ServiceAssignments(), f.d.Store.Tenant(ten).ServiceUsage()
	for _, a := range []*kanri.ServiceAssignment{
		{Doc: kanri.Doc{ID: kanri.AssignmentID(src, kanri.FileServiceID)}, ServiceID: kanri.FileServiceID, Status: kanri.AssignmentActive, Config: map[string]any{"maxStorage": "5GB"}},
		{Doc: kanri.Doc{ID: kanri.AssignmentID(src, kanri.MessagingServiceID)}, ServiceID: kanri.MessagingServiceID, Status: kanri.AssignmentActive},
		{Doc: kanri.Doc{ID: kanri.AssignmentID(ten, kanri.MessagingServiceID)}, ServiceID: kanri.MessagingServiceID, Status: kanri.AssignmentSuspended},
	} {
		if err := assignments.Create(f.ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	month := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	if err := usage.Create(f.ctx, &kanri.ServiceUsage{Doc: kanri.Doc{ID: kanri.UsageID(month, src, kanri.FileServiceID)}, ServiceID: kanri.FileServiceID, Period: kanri.Period(month), Metrics: kanri.UsageMetrics{kanri.MetricAPICalls: 4}}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := f.svc.MoveIDs(f.ctx, ten); err != nil {
			t.Fatal(err)
		}
	}
	all, err := assignments.All(f.ctx, docstore.Query{OrderBy: "serviceId"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, a := range all {
		got[a.ID] = a.Status
	}
	want := map[string]string{kanri.AssignmentID(ten, kanri.FileServiceID): kanri.AssignmentActive, kanri.AssignmentID(ten, kanri.MessagingServiceID): kanri.AssignmentSuspended}
	if !maps.Equal(got, want) {
		t.Errorf("assignments: got %v, want %v", got, want)
	}
	if a, err := f.svc.Assignment(f.ctx, ten, kanri.FileServiceID); err != nil || a.Config["maxStorage"] != "5GB" {
		t.Errorf("the moved assignment: %+v (%v), want its config kept", a, err)
	}
	us, err := f.svc.Usage(f.ctx, ten, kanri.FileServiceID, month, month)
	if err != nil || us[0].Metrics[kanri.MetricAPICalls] != 4 {
		t.Errorf("the moved usage: %+v (%v), want 4 calls", us, err)
	}
}
