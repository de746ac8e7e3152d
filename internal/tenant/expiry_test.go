package tenant_test

import (
	"context"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/disk"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/schedule"
	"github.com/kanri/kanri/internal/schedule/scheduletest"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/internal/wiring"
)

// start is the shared clock's first reading: 21:00 in Tokyo.
var start = time.Date(2026, 11, 26, 12, 0, 30, 0, time.UTC)

// operator is the context of the operator's changes.
var operator = audit.WithActor(context.Background(), audit.Actor{UserID: "user_operator", UserName: "operator", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true})

// slotClock is the shared clock as the schedulers see it: it counts the
// instances waiting for their next slot (a sleep until a whole hour), as
// against a running lease's renewals, which sleep too.
type slotClock struct {
	*scheduletest.Clock
	waiting atomic.Int32
}

func (c *slotClock) Sleep(ctx context.Context, until time.Time) error {
	if until.Truncate(time.Hour).Equal(until) {
		c.waiting.Add(1)
		defer c.waiting.Add(-1)
	}
	return c.Clock.Sleep(ctx, until)
}

// instance is one Kanri's services over ds, on the shared clock.
func instance(t *testing.T, ds docstore.Store, name string, clock schedule.Clock) *wiring.Set {
	drv, err := disk.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	svcs := wiring.New(store.New(ds, nil, features.Schema()), slog.New(slog.DiscardHandler), clock.Now, wiring.Options{Roles: features.Roles(),
		Hasher: auth.Hasher{Cost: bcrypt.MinCost}, Blobs: blob.New(drv), Scheduler: schedule.New(ds, name, clock),
	})
	t.Cleanup(svcs.Backups.Wait)
	return svcs
}

// records returns the tenant's audit records of action, oldest first.
func records(t *testing.T, svcs *wiring.Set, tenantID, action string) []*kanri.AuditLog {
	t.Helper()
	recs, _, err := svcs.Deps.Audit.Query(operator, tenantID, audit.Filter{Action: action, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for i, j := 0, len(recs)-1; i < j; i, j = i+1, j-1 {
		recs[i], recs[j] = recs[j], recs[i]
	}
	return recs
}

// TestSubscriptionExpirySuspendsOnceAcrossInstances runs two instances
// over one database, each running the expiry as the server does (the
// scheduler's hourly Periodic), on a shared clock, for a day and a half:
// the tenant whose end date passes is suspended once, with one record,
// whichever instance got the slot; a tenant the operator suspended, a
// later end and no end are left alone. Both instances then run it at once,
// again and again: nothing more happens. A renewal reactivates the
// expired tenant (recorded), not the one the operator suspended, and the
// expiry leaves the renewed tenant alone. On the embedded store and on
// the Cosmos DB emulator (two clients of one database).
func TestSubscriptionExpirySuspendsOnceAcrossInstances(t *testing.T) {
	for _, backend := range []struct {
		name string
		open func(t *testing.T) (docstore.Store, docstore.Store)
	}{
		{"embedded", func(t *testing.T) (docstore.Store, docstore.Store) { ds := bolttest.Open(t); return ds, ds }},
		{"cosmos", func(t *testing.T) (docstore.Store, docstore.Store) {
			srv := cosmostest.Start(t)
			db := cosmostest.NewDatabase()
			return cosmostest.Open(t, srv, db), cosmostest.Open(t, srv, db)
		}},
	} {
		t.Run(backend.name, func(t *testing.T) {
			dsA, dsB := backend.open(t)
			clock := &slotClock{Clock: scheduletest.NewClock(start)}
			a, b := instance(t, dsA, "instance-a", clock), instance(t, dsB, "instance-b", clock)
			create := func(name, end string) *kanri.Tenant {
				ten, err := a.Tenants.Create(operator, kanri.TenantInput{Name: name, DisplayName: name, Plan: kanri.PlanStandard, MaxUsers: 10, StartDate: "2026-01-01", EndDate: end})
				if err != nil {
					t.Fatal(err)
				}
				return ten
			}
			// Tomorrow in Tokyo (the default zone) is 2026-11-27: its
			// subscription ends at 2026-11-27T15:00Z, 27 hours in.
			ends, later, open, manual := create("ends", "2026-11-28"), create("later", "2026-12-31"), create("open", ""), create("manual", "2026-11-28")
			if _, err := a.Tenants.SetStatus(operator, manual.ID, kanri.Seen{}, kanri.TenantSuspended); err != nil {
				t.Fatal(err)
			}

			ctx, cancel := context.WithCancel(context.Background())
			var runs sync.WaitGroup
			var mu sync.Mutex
			ranBy := map[string]int{}
			for name, inst := range map[string]*wiring.Set{"a": a, "b": b} {
				runs.Go(func() {
					inst.Scheduler.Every(ctx, nil, schedule.Periodic{Name: tenant.ExpiryWork, Every: time.Hour, Run: func(ctx context.Context) error {
						_, err := inst.Tenants.SuspendExpired(ctx)
						mu.Lock()
						ranBy[name]++
						mu.Unlock()
						return err
					}})
				})
			}
			asleep := func() { // both instances wait for their next slot, neither runs
				t.Helper()
				for clock.waiting.Load() < 2 || clock.Sleepers() < 2 {
					if t.Context().Err() != nil {
						t.Fatal("the instances never slept")
					}
					runtime.Gosched()
				}
			}
			const hours = 36
			for range hours {
				asleep()
				clock.Advance(time.Hour)
			}
			asleep()
			cancel()
			runs.Wait()
			if got, want := ranBy["a"]+ranBy["b"], hours+1; got != want {
				t.Errorf("the expiry ran %d times in %d slots (%v)", got, want, ranBy)
			}

			for range 4 { // both at once, again and again
				var wg sync.WaitGroup
				for _, inst := range []*wiring.Set{a, b} {
					wg.Go(func() {
						if _, err := inst.Tenants.SuspendExpired(context.Background()); err != nil {
							t.Error(err)
						}
					})
				}
				wg.Wait()
			}

			for _, c := range []struct {
				ten            *kanri.Tenant
				status, reason string
				suspends       int
			}{
				{ends, kanri.TenantSuspended, kanri.SuspendedByExpiry, 1},
				{later, kanri.TenantActive, "", 0},
				{open, kanri.TenantActive, "", 0},
				{manual, kanri.TenantSuspended, kanri.SuspendedByOperator, 1},
			} {
				got, err := b.Tenants.Get(operator, c.ten.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.Status != c.status || got.SuspendedReason != c.reason {
					t.Errorf("%s: %s (%q), want %s (%q)", c.ten.Name, got.Status, got.SuspendedReason, c.status, c.reason)
				}
				recs := records(t, a, c.ten.ID, "tenant.suspend")
				if len(recs) != c.suspends {
					t.Errorf("%s: %d suspension records, want %d", c.ten.Name, len(recs), c.suspends)
				}
			}
			rec := records(t, a, ends.ID, "tenant.suspend")
			if len(rec) == 1 && (rec[0].Details.Reason != kanri.ReasonSubscriptionEnded || rec[0].UserID != "system" ||
				rec[0].Timestamp.Before(time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC))) {
				t.Errorf("the suspension record: %+v at %v", rec[0].Details, rec[0].Timestamp)
			}

			// Renewals: a year more for both.
			renew := func(ten *kanri.Tenant) *kanri.Tenant {
				cur, _ := a.Tenants.Get(operator, ten.ID)
				in := tenant.InputOf(cur)
				in.EndDate = "2027-11-28"
				saved, err := b.Tenants.Update(operator, ten.ID, cur.ETag, &in, in)
				if err != nil {
					t.Fatal(err)
				}
				return saved
			}
			if got := renew(ends); got.Status != kanri.TenantActive || got.SuspendedReason != "" {
				t.Errorf("the renewed tenant is %s (%q)", got.Status, got.SuspendedReason)
			}
			if recs := records(t, a, ends.ID, "tenant.reactivate"); len(recs) != 1 || recs[0].Details.Reason != kanri.ReasonSubscriptionRenewed {
				t.Errorf("the renewal's reactivation records: %v", recs)
			}
			if got := renew(manual); got.Status != kanri.TenantSuspended {
				t.Errorf("a renewal reactivated a tenant the operator suspended")
			}
			clock.Advance(2 * time.Hour)
			if n, err := a.Tenants.SuspendExpired(context.Background()); err != nil || n != 0 {
				t.Errorf("after the renewal the expiry suspended %d (%v)", n, err)
			}
		})
	}
}

// TestExpiredQueryReadsOneRange: the expiry's query reads one range of an
// index of the operator's index, however many tenants there are.
func TestExpiredQueryReadsOneRange(t *testing.T) {
	ds := bolttest.Open(t)
	plan, err := ds.Container(kanri.ContainerTenant).(docstore.Explainer).Explain(kanri.SystemTenantID, tenant.ExpiredQuery(start, ""))
	if err != nil {
		t.Fatal(err)
	}
	if plan.Access != docstore.AccessIndex || !plan.Narrowed || len(plan.Ranges) != 1 || !strings.HasPrefix(plan.Ranges[0], "listing_ends[") {
		t.Errorf("plan %+v, want one range of listing_ends in order", plan)
	}
}

// TestTimeZoneChangeMovesBackupRuns: a tenant's new time zone moves its
// backup jobs' next runs to the schedule read in it, and is recorded once.
func TestTimeZoneChangeMovesBackupRuns(t *testing.T) {
	clock := scheduletest.NewClock(start)
	svcs := instance(t, bolttest.Open(t), "only", clock)
	if _, err := svcs.Roles.Seed(operator); err != nil {
		t.Fatal(err)
	}
	ten, err := svcs.Tenants.Create(operator, kanri.TenantInput{Name: "acme", DisplayName: "Acme", Plan: kanri.PlanStandard, MaxUsers: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := svcs.Catalog.Assign(operator, ten.ID, kanri.AssignmentInput{ServiceID: kanri.BackupServiceID}); err != nil {
		t.Fatal(err)
	}
	j, err := svcs.Backups.CreateJob(operator, ten.ID, kanri.BackupJobInput{Name: "nightly", Schedule: "0 3 * * *", Parts: []string{kanri.PartUsers}, RetentionDays: 7, IsActive: true})
	if err != nil {
		t.Fatal(err)
	}
	// 12:00:30 UTC is 21:00 in Tokyo: the next 03:00 there is 18:00 UTC.
	if want := time.Date(2026, 11, 26, 18, 0, 0, 0, time.UTC); !j.NextRunAt.Equal(want) {
		t.Fatalf("next run in Tokyo: %v, want %v", j.NextRunAt, want)
	}
	for _, c := range []struct {
		zone string
		want time.Time
	}{
		{"UTC", time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)},
		{"America/New_York", time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)}, // 03:00 EST
		{"America/New_York", time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)}, // unchanged: no record
	} {
		if _, err := svcs.Tenants.SetTimezone(operator, ten.ID, c.zone); err != nil {
			t.Fatal(err)
		}
		j, err = svcs.Backups.Job(operator, ten.ID, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !j.NextRunAt.Equal(c.want) {
			t.Errorf("%s: next run %v, want %v", c.zone, j.NextRunAt.UTC(), c.want)
		}
	}
	if recs := records(t, svcs, ten.ID, "tenant.update"); len(recs) != 2 {
		t.Errorf("%d records of two zone changes", len(recs))
	}
}
