package backup_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/backup"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/disk"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/schedule"
	"github.com/kanri/kanri/internal/schedule/scheduletest"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/wiring"
)

// instance is one Kanri's services over a shared database and blob
// directory, on a shared clock.
func instance(t *testing.T, ds docstore.Store, blobDir, name string, clock *scheduletest.Clock) *wiring.Set {
	drv, err := disk.New(blobDir)
	if err != nil {
		t.Fatal(err)
	}
	svcs := wiring.New(store.New(ds, nil, features.Schema()), slog.New(slog.DiscardHandler), clock.Now, wiring.Options{Roles: features.Roles(),
		Hasher: auth.Hasher{Cost: bcrypt.MinCost}, Blobs: blob.New(drv),
		Scheduler: schedule.New(ds, name, clock),
	})
	t.Cleanup(svcs.Backups.Wait)
	return svcs
}

// TestScheduledRunsHappenOncePerSlotAcrossInstances runs two instances on
// one Cosmos database with a job due every minute, for five minutes:
// both look for due jobs every minute, and each slot runs exactly once.
func TestScheduledRunsHappenOncePerSlotAcrossInstances(t *testing.T) {
	srv := cosmostest.Start(t)
	db, blobs := cosmostest.NewDatabase(), t.TempDir()
	clock := scheduletest.NewClock(time.Date(2026, 11, 26, 12, 0, 30, 0, time.UTC))
	a := instance(t, cosmostest.Open(t, srv, db), blobs, "instance-a", clock)
	b := instance(t, cosmostest.Open(t, srv, db), blobs, "instance-b", clock)
	e := &env{ctx: audit.WithActor(t.Context(), audit.Actor{UserID: "user_operator"}), svcs: a}
	if _, err := a.Roles.Seed(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.tenant = e.existingOrNew(t, "acme")
	j, err := a.Backups.CreateJob(e.ctx, e.tenant.ID, kanri.BackupJobInput{Name: "every minute", Schedule: "* * * * *", Parts: kanri.AllBackupParts, RetentionDays: 1, IsActive: true})
	if err != nil {
		t.Fatal(err)
	}
	const minutes = 5
	for range minutes {
		clock.Advance(time.Minute)
		var wg sync.WaitGroup
		for _, inst := range []*wiring.Set{a, b} {
			wg.Go(func() {
				if err := inst.Backups.RunDue(context.Background()); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	hs, _, err := a.Backups.Histories(e.ctx, e.tenant.ID, "", 100, "")
	if err != nil {
		t.Fatal(err)
	}
	perMinute := map[string]int{}
	for _, h := range hs {
		if h.JobID != j.ID {
			continue
		}
		perMinute[h.StartedAt.UTC().Format("15:04")]++
		if h.Status != kanri.BackupSuccess {
			t.Errorf("run at %v: %s (%s)", h.StartedAt, h.Status, deref(h.ErrorMessage))
		}
	}
	if got, want := len(perMinute), minutes; got != want {
		t.Errorf("runs in %d minutes, want %d: %v", got, want, perMinute)
	}
	for m, n := range perMinute {
		if n != 1 {
			t.Errorf("%d runs at %s, want 1", n, m)
		}
	}
}

// TestMissedRunsRunOnceAtStart: a job whose slots passed while no instance
// was up runs once, and its next run is the schedule's next after now.
func TestMissedRunsRunOnceAtStart(t *testing.T) {
	clock := scheduletest.NewClock(time.Date(2026, 11, 26, 12, 0, 30, 0, time.UTC))
	ds := bolttest.Open(t)
	svcs := instance(t, ds, t.TempDir(), "only", clock)
	e := &env{ctx: audit.WithActor(t.Context(), audit.Actor{UserID: "user_operator"}), svcs: svcs}
	svcs.Roles.Seed(e.ctx)
	e.tenant = e.existingOrNew(t, "acme")
	j, err := svcs.Backups.CreateJob(e.ctx, e.tenant.ID, kanri.BackupJobInput{Name: "hourly", Schedule: "0 * * * *", Parts: []string{kanri.PartUsers}, RetentionDays: 1, IsActive: true})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(5 * time.Hour)
	for range 3 {
		if err := svcs.Backups.RunDue(e.ctx); err != nil {
			t.Fatal(err)
		}
	}
	hs, _, err := svcs.Backups.Histories(e.ctx, e.tenant.ID, "", 100, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(hs), 1; got != want {
		t.Fatalf("%d runs after five missed hours, want %d", got, want)
	}
	j, err = svcs.Backups.Job(e.ctx, e.tenant.ID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := j.NextRunAt.UTC(), time.Date(2026, 11, 26, 18, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("next run = %v, want %v", got, want)
	}
	if j.LastStatus != kanri.BackupSuccess || j.LastSuccessAt.IsZero() {
		t.Errorf("job after the run: status %q, last success %v", j.LastStatus, j.LastSuccessAt)
	}
}

func blobsOf(t *testing.T, svcs *wiring.Set) *blob.Bucket {
	return backup.Blobs(svcs.Backups).(*blob.Bucket)
}

// TestAlertsSayWhichJobsNeedAttention: a job whose last run failed, and
// a job with no success for more than twice its interval, are alerts; a
// job that succeeded on time and a paused one are not.
func TestAlertsSayWhichJobsNeedAttention(t *testing.T) {
	clock := scheduletest.NewClock(time.Date(2026, 11, 26, 12, 0, 30, 0, time.UTC))
	svcs := instance(t, bolttest.Open(t), t.TempDir(), "only", clock)
	e := &env{ctx: audit.WithActor(t.Context(), audit.Actor{UserID: "user_operator"}), svcs: svcs}
	svcs.Roles.Seed(e.ctx)
	e.tenant = e.existingOrNew(t, "acme")
	job := func(name, schedule string, active bool) *kanri.BackupJob {
		j, err := svcs.Backups.CreateJob(e.ctx, e.tenant.ID, kanri.BackupJobInput{Name: name, Schedule: schedule, Parts: []string{kanri.PartUsers}, RetentionDays: 1, IsActive: active})
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	hourly, daily, paused := job("hourly", "0 * * * *", true), job("daily", "0 3 * * *", true), job("paused", "0 * * * *", false)
	run := func(j *kanri.BackupJob) {
		if _, err := svcs.Backups.RunNow(e.ctx, e.tenant.ID, j.ID); err != nil {
			t.Fatal(err)
		}
		svcs.Backups.Wait()
	}
	run(hourly)
	run(daily)
	alerts := func() map[string]string {
		as, err := svcs.Backups.AlertsOf(e.ctx, []string{e.tenant.ID, "tenant_none"})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, a := range as[e.tenant.ID] {
			out[a.Job.Name] = a.Kind
		}
		return out
	}
	if got := alerts(); len(got) != 0 {
		t.Errorf("alerts after on-time successes: %v, want none", got)
	}
	clock.Advance(3 * time.Hour) // hourly: 3 h > 2 × 1 h; daily: 3 h < 2 × 24 h
	if got := alerts(); len(got) != 1 || got["hourly"] != "overdue" {
		t.Errorf("alerts three hours on: %v, want hourly overdue", got)
	}
	// A failed run (its lease held by someone else) is an alert at once.
	clock.Advance(24 * time.Hour)
	lease, err := svcs.Scheduler.Acquire(e.ctx, e.tenant.ID, "backup", "test", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if err := svcs.Backups.RunDue(e.ctx); err != nil {
		t.Fatal(err)
	}
	lease.Release(e.ctx)
	got := alerts()
	if got["daily"] != "failed" || got["hourly"] != "failed" || got["paused"] != "" {
		t.Errorf("alerts after runs refused while busy: %v, want daily and hourly failed, paused none", got)
	}
	if p, err := svcs.Backups.Job(e.ctx, e.tenant.ID, paused.ID); err != nil || p.LastStatus != "" {
		t.Errorf("the paused job ran: %q, %v", p.LastStatus, err)
	}
}

// TestACrashedRunIsFailedAndTheNextRunsAtOnce leaves what a process killed
// during a backup leaves on the embedded store: the run marked running,
// a part of its archive, and the tenant's lease held by the dead process
// for its term. The sweep at start marks the run failed, removes the part
// and releases the lease, so that the next run starts at once instead of
// answering busy until the lease expires.
func TestACrashedRunIsFailedAndTheNextRunsAtOnce(t *testing.T) {
	ds := bolttest.Open(t)
	e := newEnv(t, ds, t.TempDir())
	tid := e.tenant.ID
	if _, _, err := e.svcs.Catalog.Assign(e.ctx, tid, kanri.AssignmentInput{ServiceID: kanri.BackupServiceID}); err != nil {
		t.Fatal(err)
	}
	j, err := e.svcs.Backups.CreateJob(e.ctx, tid, kanri.BackupJobInput{Name: "nightly", Schedule: "0 3 * * *", Parts: kanri.AllBackupParts, RetentionDays: 30})
	if err != nil {
		t.Fatal(err)
	}
	// The dead process: it took the lease, started the run and stored a
	// part.
	if _, err := schedule.New(ds, "host/dead", nil).Acquire(e.ctx, tid, "backup", "backup nightly", 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	h := &kanri.BackupHistory{Doc: kanri.Doc{ID: "history_20260101000000_000000000000"}, JobID: j.ID, JobName: j.Name,
		Status: kanri.BackupRunning, StartedAt: kanri.NewTime(time.Now()), Parts: j.Parts(), Trigger: kanri.TriggerManual}
	if err := e.svcs.Deps.Store.Tenant(tid).BackupHistory().Create(e.ctx, h); err != nil {
		t.Fatal(err)
	}
	part := "backups/" + tid + "/archives/" + h.ID + "/users.ndjson.gz"
	if _, err := e.blobs.Put(e.ctx, part, strings.NewReader("partial")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svcs.Backups.RunNow(e.ctx, tid, j.ID); !kanri.IsCode(err, kanri.ECONFLICT) {
		t.Fatalf("run now while the lease is held: %v, want busy", err)
	}

	// Another instance's sweep (Cosmos DB) leaves a run whose lease is held.
	if n, err := e.svcs.Backups.FailAbandoned(e.ctx, false); err != nil || n != 0 {
		t.Fatalf("sweep while the lease is held: %d, %v; want 0", n, err)
	}
	// The sweep at the embedded store's start marks it, whatever the lease.
	if n, err := e.svcs.Backups.FailAbandoned(e.ctx, true); err != nil || n != 1 {
		t.Fatalf("sweep at start: %d, %v; want 1", n, err)
	}
	got, err := e.svcs.Backups.History(e.ctx, tid, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != kanri.BackupFailed || !strings.Contains(deref(got.ErrorMessage), "interrupted") {
		t.Errorf("the crashed run is %s %q, want failed as interrupted", got.Status, deref(got.ErrorMessage))
	}
	if _, err := e.blobs.Stat(e.ctx, part); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("the crashed run's part: %v, want it removed", err)
	}
	if j, err := e.svcs.Backups.Job(e.ctx, tid, j.ID); err != nil || j.LastStatus != kanri.BackupFailed {
		t.Errorf("the job after the sweep: %+v, %v; want its last status failed", j, err)
	}
	next, err := e.svcs.Backups.RunNow(e.ctx, tid, j.ID)
	if err != nil {
		t.Fatalf("run now after the sweep: %v", err)
	}
	e.svcs.Backups.Wait()
	if next, err = e.svcs.Backups.History(e.ctx, tid, next.ID); err != nil || next.Status != kanri.BackupSuccess {
		t.Fatalf("the next run: %+v, %v", next, err)
	}
	if _, err := e.svcs.Backups.Verify(e.ctx, tid, next.ID); err != nil {
		t.Errorf("the next run's archive: %v", err)
	}
	if _, err := e.svcs.Backups.Verify(e.ctx, tid, h.ID); err == nil {
		t.Error("the crashed run's archive verifies")
	}
}

// TestScheduleErrorsSayWhichField: a schedule that does not parse is
// explained by the field at fault and its range, not the library's text.
func TestScheduleErrorsSayWhichField(t *testing.T) {
	for _, c := range []struct {
		spec, key string
		args      []any
	}{
		{"0 3 * * *", "", nil},
		{"61 * * *", "backups.cron_fields", []any{4}},
		{"61 * * * *", "backups.cron_range", []any{61, "backups.cron_minute", 0, 59}},
		{"0 25 * * *", "backups.cron_range", []any{25, "backups.cron_hour", 0, 23}},
		{"0 3 * 1-13 *", "backups.cron_range", []any{13, "backups.cron_month", 1, 12}},
		{"0 3 * * funday", "backups.cron_value", []any{"funday", "backups.cron_weekday"}},
		{"*/0 * * * *", "backups.cron_step", []any{"*/0", "backups.cron_minute"}},
	} {
		key, args := backup.ScheduleError(c.spec)
		if key != c.key || fmt.Sprint(args) != fmt.Sprint(c.args) {
			t.Errorf("%q: got %s %v, want %s %v", c.spec, key, args, c.key, c.args)
		}
	}
}
