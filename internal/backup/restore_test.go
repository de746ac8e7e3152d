package backup_test

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/backup"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/schedule/scheduletest"
)

// TestADamagedArchiveIsRefused: a part whose bytes changed, or a file
// content that is gone, fails verification with a clear error, and the
// dry run and the restore change nothing.
func TestADamagedArchiveIsRefused(t *testing.T) {
	for _, damage := range []string{"part", "content", "manifest"} {
		t.Run(damage, func(t *testing.T) {
			dir := t.TempDir()
			e := newEnv(t, bolttest.Open(t), dir)
			e.fill(t)
			h := e.backup(t, kanri.AllBackupParts)
			prefix := "backups/" + e.tenant.ID + "/"
			switch damage {
			case "part":
				if _, err := e.blobs.Put(e.ctx, prefix+"archives/"+h.ID+"/users.ndjson.gz", strings.NewReader("not what was written")); err != nil {
					t.Fatal(err)
				}
			case "content":
				for info, err := range e.blobs.List(e.ctx, prefix+"files/") {
					if err != nil {
						t.Fatal(err)
					}
					e.blobs.Delete(e.ctx, info.Name)
				}
			case "manifest":
				e.blobs.Delete(e.ctx, prefix+"archives/"+h.ID+"/manifest.json")
			}
			before := e.state(t)
			_, err := e.svcs.Backups.Verify(e.ctx, e.tenant.ID, h.ID)
			if got, want := kanri.ErrorCode(err), kanri.EINVALID; got != want {
				t.Fatalf("Verify = %v, want %s", err, want)
			}
			if key, _ := kanri.ErrorMessage(err); key != "backups.error.damaged" {
				t.Errorf("Verify's message = %s, want backups.error.damaged", key)
			}
			// The manifest is checked at once, the parts in the dry run.
			d, err := e.svcs.Backups.DryRun(e.ctx, e.tenant.ID, h.ID, kanri.AllBackupParts, 0, 10, false)
			if err == nil && d.Status == backup.DryRunRunning {
				e.svcs.Backups.Wait()
				d, err = e.svcs.Backups.DryRun(e.ctx, e.tenant.ID, h.ID, kanri.AllBackupParts, 0, 10, false)
			}
			if err == nil {
				err = d.Err
			}
			if !kanri.IsCode(err, kanri.EINVALID) {
				t.Errorf("DryRun = %v, want EINVALID", err)
			}
			if key, _ := kanri.ErrorMessage(err); key != "backups.error.damaged" {
				t.Errorf("DryRun's message = %s, want backups.error.damaged", key)
			}
			if _, err := e.svcs.Backups.Restore(e.ctx, e.tenant.ID, h.ID, kanri.AllBackupParts); !kanri.IsCode(err, kanri.EINVALID) {
				t.Errorf("Restore = %v, want EINVALID", err)
			}
			e.svcs.Backups.Wait()
			compare(t, before, e.state(t))
		})
	}
}

// TestAnotherTenantsBackupsAreNotFound: every id of one tenant's jobs,
// runs and restores is not found from another tenant.
func TestAnotherTenantsBackupsAreNotFound(t *testing.T) {
	e := newEnv(t, bolttest.Open(t), t.TempDir())
	e.fill(t)
	h := e.backup(t, []string{kanri.PartUsers})
	other := e.svcs.Deps.Store.Tenant("tenant_other").ID()
	b := e.svcs.Backups
	checks := map[string]error{}
	_, checks["job"] = b.Job(e.ctx, other, h.JobID)
	_, checks["history"] = b.History(e.ctx, other, h.ID)
	_, checks["verify"] = b.Verify(e.ctx, other, h.ID)
	_, checks["dry run"] = b.DryRun(e.ctx, other, h.ID, []string{kanri.PartUsers}, 0, 10, false)
	_, checks["restore"] = b.Restore(e.ctx, other, h.ID, []string{kanri.PartUsers})
	checks["download"] = b.Download(e.ctx, other, h.ID, discard{})
	_, checks["run"] = b.RunNow(e.ctx, other, h.JobID)
	_, checks["delete"] = b.DeleteJob(e.ctx, other, h.JobID, kanri.Seen{})
	for what, err := range checks {
		if !kanri.IsCode(err, kanri.ENOTFOUND) {
			t.Errorf("%s of acme's backup as another tenant = %v, want ENOTFOUND", what, err)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TestOneBackupOrRestoreAtATime: while the tenant's lease is held, a run
// and a restore are refused as busy.
func TestOneBackupOrRestoreAtATime(t *testing.T) {
	e := newEnv(t, bolttest.Open(t), t.TempDir())
	e.fill(t)
	h := e.backup(t, []string{kanri.PartUsers})
	lease, err := e.svcs.Scheduler.Acquire(e.ctx, e.tenant.ID, "backup", "test", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release(e.ctx)
	if _, err := e.svcs.Backups.RunNow(e.ctx, e.tenant.ID, h.JobID); !kanri.IsCode(err, kanri.ECONFLICT) {
		t.Errorf("RunNow while busy = %v, want ECONFLICT", err)
	}
	if _, err := e.svcs.Backups.Restore(e.ctx, e.tenant.ID, h.ID, []string{kanri.PartUsers}); !kanri.IsCode(err, kanri.ECONFLICT) {
		t.Errorf("Restore while busy = %v, want ECONFLICT", err)
	}
}

// TestAnInterruptedRestoreIsFinished: a restore that fails halfway (after
// its first part) is attempted again by the worker and completes.
func TestAnInterruptedRestoreIsFinished(t *testing.T) {
	e := newEnv(t, bolttest.Open(t), t.TempDir())
	e.fill(t)
	h := e.backup(t, kanri.AllBackupParts)
	before := e.state(t)
	e.mess(t)
	fails := 1
	backup.SetBeforePart(e.svcs.Backups, func(part string) error {
		if part == kanri.PartFiles && fails > 0 {
			fails--
			return errors.New("the instance stopped")
		}
		return nil
	})
	if _, err := e.svcs.Backups.Restore(e.ctx, e.tenant.ID, h.ID, kanri.AllBackupParts); err != nil {
		t.Fatal(err)
	}
	e.svcs.Backups.Wait()
	r, err := e.svcs.Backups.LatestRestore(e.ctx, e.tenant.ID)
	if err != nil || r.Status != kanri.RestoreRunning || r.Attempts != 1 {
		t.Fatalf("after the failed attempt: %+v, %v; want running after 1 attempt", r, err)
	}
	if err := e.svcs.Backups.ResumeRestores(e.ctx); err != nil {
		t.Fatal(err)
	}
	r, _ = e.svcs.Backups.LatestRestore(e.ctx, e.tenant.ID)
	if r.Status != kanri.RestoreDone || r.Attempts != 2 {
		t.Fatalf("after resuming: %s after %d attempts (%s), want done after 2", r.Status, r.Attempts, r.ErrorMessage)
	}
	compare(t, before, e.state(t))
}

// TestRestoreIntoANewTenant: the operator restores an archive as a new
// tenant; the copy has the archive's documents under the new tenant, no
// id of the source in them, and every service of the copy works; the
// original is untouched.
func TestRestoreIntoANewTenant(t *testing.T) {
	e := newEnv(t, bolttest.Open(t), t.TempDir())
	e.fill(t)
	if err := e.svcs.Catalog.AddUsage(e.ctx, e.tenant.ID, kanri.FileServiceID, map[string]int64{kanri.MetricAPICalls: 7}); err != nil {
		t.Fatal(err)
	}
	h := e.backup(t, kanri.AllBackupParts)
	e.mess(t)
	original := e.state(t)
	opCtx := audit.WithActor(e.ctx, audit.Actor{UserID: "user_operator", TenantID: kanri.PrivilegedTenantID})
	ten, _, err := e.svcs.Backups.RestoreAsNewTenant(opCtx, e.tenant.ID, h.ID, kanri.TenantInput{Name: "acme-copy", DisplayName: "Acme copy", Plan: kanri.PlanStandard, MaxUsers: 100})
	if err != nil {
		t.Fatal(err)
	}
	e.svcs.Backups.Wait()
	compare(t, original, e.state(t))
	copyEnv := *e
	copyEnv.tenant = ten
	got := copyEnv.state(t)
	users := 0
	for key, d := range got.docs {
		if d["tenantId"] != ten.ID {
			t.Errorf("%s in the copy says tenant %v", key, d["tenantId"])
		}
		if d["type"] == kanri.TypeUser {
			users++
		}
		// The audit log is the history of the source, as it happened.
		if where := mentions(d, e.tenant.ID); where != "" && d["type"] != kanri.TypeAuditLog {
			t.Errorf("%s in the copy names the source tenant in %s", key, where)
		}
	}
	for _, svc := range []string{kanri.FileServiceID, kanri.MessagingServiceID, kanri.APIServiceID, kanri.BackupServiceID} {
		if err := e.svcs.Catalog.Usable(e.ctx, ten.ID, svc); err != nil {
			t.Errorf("%s is not usable in the copy: %v", svc, err)
		}
		if _, created, err := e.svcs.Catalog.Assign(opCtx, ten.ID, kanri.AssignmentInput{ServiceID: svc}); err != nil || created {
			t.Errorf("assigning %s again to the copy: created %t (%v), want the restored assignment", svc, created, err)
		}
	}
	if us, err := e.svcs.Catalog.RecentUsage(e.ctx, ten.ID, kanri.FileServiceID, 1); err != nil || us[0].Metrics[kanri.MetricAPICalls] != 7 {
		t.Errorf("the copy's usage of files: %+v (%v), want the archive's 7 calls", us, err)
	}
	if users != 4 {
		t.Errorf("the copy has %d users, want the archive's 4", users)
	}
	if len(got.bytes) != 4 {
		t.Errorf("the copy has %d files with content, want 4", len(got.bytes))
	}
	ten, err = e.svcs.Deps.Store.Tenant(ten.ID).Profile(e.ctx)
	if err != nil || ten.UserCount != 4 {
		t.Errorf("the copy's userCount = %d (%v), want 4", ten.UserCount, err)
	}
}

// TestRetentionKeepsTheLatestSuccessAndReferencedContents: archives past
// their retention are deleted, never the job's latest success, and file
// contents go only when no kept archive references them.
func TestRetentionKeepsTheLatestSuccessAndReferencedContents(t *testing.T) {
	clock := scheduletest.NewClock(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	svcs := instance(t, bolttest.Open(t), t.TempDir(), "only", clock)
	e := &env{ctx: audit.WithActor(t.Context(), audit.Actor{UserID: "user_operator"}), svcs: svcs}
	svcs.Roles.Seed(e.ctx)
	e.tenant = e.existingOrNew(t, "acme")
	e.blobs = blobsOf(t, svcs)
	e.fill(t)
	j, err := svcs.Backups.CreateJob(e.ctx, e.tenant.ID, kanri.BackupJobInput{Name: "daily", Schedule: "0 3 * * *", Parts: kanri.AllBackupParts, RetentionDays: 2, IsActive: true})
	if err != nil {
		t.Fatal(err)
	}
	run := func() *kanri.BackupHistory {
		h, err := svcs.Backups.RunNow(e.ctx, e.tenant.ID, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		svcs.Backups.Wait()
		h, _ = svcs.Backups.History(e.ctx, e.tenant.ID, h.ID)
		return h
	}
	first := run()
	contents := func() int {
		n := 0
		for _, err := range e.blobs.List(e.ctx, "backups/"+e.tenant.ID+"/files/") {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		return n
	}
	if got, want := contents(), 4; got != want { // four files, the empty one too
		t.Fatalf("%d contents kept, want %d", got, want)
	}
	// A file goes; two days on, a second run is the latest success and
	// the first one is past its retention.
	fs, _ := svcs.Files.Recent(e.ctx, e.tenant.ID, 10)
	var gone *kanri.File
	for _, f := range fs {
		if f.Size > 0 {
			gone = f
			break
		}
	}
	svcs.Files.TrashFile(e.ctx, e.tenant.ID, gone.ID, kanri.Seen{})
	svcs.Files.EmptyTrash(e.ctx, e.tenant.ID)
	clock.Advance(3 * 24 * time.Hour)
	second := run()
	if second.BytesWritten >= first.BytesWritten {
		t.Errorf("the second run wrote %d bytes, the first %d: contents kept already were copied again", second.BytesWritten, first.BytesWritten)
	}
	first, _ = svcs.Backups.History(e.ctx, e.tenant.ID, first.ID)
	if first.ArchiveDeletedAt.IsZero() {
		t.Error("the first archive is past its retention and still there")
	}
	if got, want := contents(), 3; got != want {
		t.Errorf("%d contents kept after retention, want %d (the purged file's is referenced by no kept archive)", got, want)
	}
	// Much later, with no newer success, the latest archive stays.
	clock.Advance(30 * 24 * time.Hour)
	if err := backup.Prune(svcs.Backups, e.ctx, e.tenant.ID, j.ID); err != nil {
		t.Fatal(err)
	}
	second, _ = svcs.Backups.History(e.ctx, e.tenant.ID, second.ID)
	if !second.Restorable() {
		t.Error("retention deleted the job's latest successful archive")
	}
	if _, err := svcs.Backups.Verify(e.ctx, e.tenant.ID, second.ID); err != nil {
		t.Errorf("the latest archive does not verify after retention: %v", err)
	}
}

// TestHostileJobInputIsRefusedAndChangesNothing: every field of the job
// form refuses what it must, with the field named, and nothing is stored.
func TestHostileJobInputIsRefusedAndChangesNothing(t *testing.T) {
	e := newEnv(t, bolttest.Open(t), t.TempDir())
	good := kanri.BackupJobInput{Name: "nightly", Schedule: "0 3 * * *", Parts: []string{kanri.PartUsers}, RetentionDays: 7, IsActive: true}
	for _, c := range []struct {
		field string
		edit  func(*kanri.BackupJobInput)
	}{
		{"name", func(in *kanri.BackupJobInput) { in.Name = "" }},
		{"name", func(in *kanri.BackupJobInput) { in.Name = "night\u202eylthgin" }},
		{"name", func(in *kanri.BackupJobInput) { in.Name = "a\x00b" }},
		{"name", func(in *kanri.BackupJobInput) { in.Name = strings.Repeat("長", 101) }},
		{"description", func(in *kanri.BackupJobInput) { in.Description = strings.Repeat("x", 501) }},
		{"description", func(in *kanri.BackupJobInput) { in.Description = "\u2066hidden\u2069" }},
		{"schedule", func(in *kanri.BackupJobInput) { in.Schedule = "0 3 * * * ; rm -rf /" }},
		{"schedule", func(in *kanri.BackupJobInput) { in.Schedule = "TZ=Asia/Tokyo 0 3 * * *" }},
		{"schedule", func(in *kanri.BackupJobInput) { in.Schedule = "@reboot" }},
		{"schedule", func(in *kanri.BackupJobInput) { in.Schedule = "99 99 99 99 99" }},
		{"parts", func(in *kanri.BackupJobInput) { in.Parts = nil }},
		{"parts", func(in *kanri.BackupJobInput) { in.Parts = []string{"users", "../../etc"} }},
		{"retentionDays", func(in *kanri.BackupJobInput) { in.RetentionDays = 0 }},
		{"retentionDays", func(in *kanri.BackupJobInput) { in.RetentionDays = -5 }},
		{"retentionDays", func(in *kanri.BackupJobInput) { in.RetentionDays = 1 << 40 }},
	} {
		in := good
		in.Parts = append([]string(nil), good.Parts...)
		c.edit(&in)
		_, err := e.svcs.Backups.CreateJob(e.ctx, e.tenant.ID, in)
		if kanri.ErrorFields(err)[c.field] == "" {
			t.Errorf("%+v: error %v, want one on %s", in, err, c.field)
		}
	}
	for _, tz := range []string{"", "Local", "../../etc/passwd", "Asia/Nowhere", "UTC\x00"} {
		if _, err := e.svcs.Tenants.SetTimezone(e.ctx, e.tenant.ID, tz); kanri.ErrorFields(err)["timezone"] == "" {
			t.Errorf("time zone %q: %v, want refused", tz, err)
		}
	}
	if jobs, _, _ := e.svcs.Backups.Jobs(e.ctx, e.tenant.ID, 10, ""); len(jobs) != 0 {
		t.Errorf("%d jobs stored from refused input", len(jobs))
	}
	if ten, _ := e.svcs.Deps.Store.Tenant(e.tenant.ID).Profile(e.ctx); ten.Settings.Timezone != "" {
		t.Errorf("a refused time zone was stored: %q", ten.Settings.Timezone)
	}
}

// mentions returns where in document d the tenant id appears as an id
// (the whole of a string, or a part of it between separators), or "".
func mentions(d map[string]any, tenantID string) string {
	re := regexp.MustCompile(`(^|[^a-z0-9-])` + regexp.QuoteMeta(tenantID) + `($|[^a-z0-9-])`)
	var walk func(path string, v any) string
	walk = func(path string, v any) string {
		switch v := v.(type) {
		case string:
			if re.MatchString(v) {
				return path
			}
		case map[string]any:
			for k, x := range v {
				if w := walk(path+"."+k, x); w != "" {
					return w
				}
			}
		case []any:
			for i, x := range v {
				if w := walk(fmt.Sprintf("%s[%d]", path, i), x); w != "" {
					return w
				}
			}
		}
		return ""
	}
	return walk("", d)
}

// TestARestoredUserSignsInAgain: sessions are never restored. A user the
// restore brings back from deletion has every earlier session ended; a
// user the restore leaves as it was keeps theirs.
func TestARestoredUserSignsInAgain(t *testing.T) {
	e := newEnv(t, bolttest.Open(t), t.TempDir())
	e.fill(t)
	h := e.backup(t, []string{kanri.PartUsers})
	bobID, err := e.svcs.Deps.Store.Tenant(e.tenant.ID).UserIDByUsername(e.ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	carolID, err := e.svcs.Deps.Store.Tenant(e.tenant.ID).UserIDByUsername(e.ctx, "carol")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svcs.Users.Delete(e.ctx, e.tenant.ID, bobID, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	before := e.state(t)
	if _, err := e.svcs.Backups.Restore(e.ctx, e.tenant.ID, h.ID, []string{kanri.PartUsers}); err != nil {
		t.Fatal(err)
	}
	e.svcs.Backups.Wait()
	after := e.state(t)
	got, err := time.Parse(time.RFC3339Nano, after.sessionsValidAfter[bobID])
	if err != nil || got.Before(h.StartedAt.Time) {
		t.Errorf("bob, restored, has sessions valid after %q (%v), want after the restore", after.sessionsValidAfter[bobID], err)
	}
	if got, want := after.sessionsValidAfter[carolID], before.sessionsValidAfter[carolID]; got != want {
		t.Errorf("carol, unchanged by the restore: sessions valid after %q, want %q as before", got, want)
	}
}
