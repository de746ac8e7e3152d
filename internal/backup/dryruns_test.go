package backup_test

import (
	"slices"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/backup"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/user"
)

// dryRun returns the dry run of the tenant's run h, once it is done.
func (e *env) dryRun(t *testing.T, h *kanri.BackupHistory, parts []string, offset, limit int, fresh bool) *backup.DryRun {
	t.Helper()
	d, err := e.svcs.Backups.DryRun(e.ctx, e.tenant.ID, h.ID, parts, offset, limit, fresh)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status == backup.DryRunRunning {
		e.svcs.Backups.Wait()
		if d, err = e.svcs.Backups.DryRun(e.ctx, e.tenant.ID, h.ID, parts, offset, limit, false); err != nil {
			t.Fatal(err)
		}
	}
	if d.Status != backup.DryRunDone {
		t.Fatalf("the dry run is %s (%v), want done", d.Status, d.Err)
	}
	return d
}

// deleteUsers deletes every user of the tenant but its admin.
func (e *env) deleteUsers(t *testing.T) {
	t.Helper()
	users, _, err := e.svcs.Users.List(e.ctx, e.tenant.ID, user.ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		if u.ID != e.admin.ID {
			if _, err := e.svcs.Users.Delete(e.ctx, e.tenant.ID, u.ID, kanri.Seen{}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestDryRunsAreKeptForTheirPages: the pages of a dry run come from the
// result found first, without comparing again (a change of the tenant
// since does not show until asked for: fresh); a restore of the tenant
// forgets the result.
func TestDryRunsAreKeptForTheirPages(t *testing.T) {
	e := newEnv(t, bolttest.Open(t), t.TempDir())
	e.fill(t)
	h := e.backup(t, []string{kanri.PartUsers})
	e.deleteUsers(t)
	parts := []string{kanri.PartUsers}
	first := e.dryRun(t, h, parts, 0, 1, false)
	if first.Total < 2 || len(first.Changes) != 1 {
		t.Fatalf("the first page: %d changes of %d, want 1 of at least 2", len(first.Changes), first.Total)
	}
	// A change of the tenant: kept pages do not show it.
	if _, err := e.svcs.Users.Create(e.ctx, e.tenant.ID, kanri.UserInput{Username: "zed", Email: "zed@acme.example", DisplayName: "Zed", Password: "Correct-Horse-9"}); err != nil {
		t.Fatal(err)
	}
	second := e.dryRun(t, h, parts, 1, 1, false)
	if got, want := second.Total, first.Total; got != want || !second.ComputedAt.Equal(first.ComputedAt) || second.Offset != 1 || len(second.Changes) != 1 || second.Changes[0] == first.Changes[0] {
		t.Errorf("the second page: %d changes from %d of %d computed at %v; want the next of the kept %d computed at %v",
			len(second.Changes), second.Offset, got, second.ComputedAt, want, first.ComputedAt)
	}
	fresh := e.dryRun(t, h, parts, 0, 1, true)
	if fresh.Total <= first.Total {
		t.Errorf("compared again: %d changes, want more than %d (zed and the names zed holds would be removed)", fresh.Total, first.Total)
	}
	if _, err := e.svcs.Backups.Restore(e.ctx, e.tenant.ID, h.ID, parts); err != nil {
		t.Fatal(err)
	}
	e.svcs.Backups.Wait()
	if after := e.dryRun(t, h, parts, 0, 1, false); after.Total != 0 {
		t.Errorf("after the restore the dry run shows %d changes, want 0: the kept result was not forgotten", after.Total)
	}
}

// TestDryRunRunsInTheBackground: a dry run not waited for is returned
// running, with what it reads; it ends done, its changes paged across the
// documents that hold them in the order of a single list.
func TestDryRunRunsInTheBackground(t *testing.T) {
	e := newEnv(t, bolttest.Open(t), t.TempDir())
	backup.SetDryRunWait(e.svcs.Backups, 0)
	backup.SetChangesPerDoc(t, 3)
	defer e.svcs.Backups.Wait() // before changesPerDoc is set back
	e.fill(t)
	h := e.backup(t, []string{kanri.PartUsers})
	e.deleteUsers(t)
	parts := []string{kanri.PartUsers}
	d, err := e.svcs.Backups.DryRun(e.ctx, e.tenant.ID, h.ID, parts, 0, 50, false)
	if err != nil {
		t.Fatal(err)
	}
	// It may have ended already on a fast machine; while it runs, it says
	// what it reads.
	if d.Status == backup.DryRunRunning && (d.Of == 0 || d.Phase == "" || d.Total != 0) {
		t.Errorf("running: phase %q, %d of %d, total %d; want a phase, the archive's documents and no total", d.Phase, d.Count, d.Of, d.Total)
	}
	all := e.dryRun(t, h, parts, 0, 1000, false)
	if all.Total < 7 || len(all.Changes) != all.Total {
		t.Fatalf("%d changes of %d, want every one of at least 7 (more than two documents of 3)", len(all.Changes), all.Total)
	}
	for _, limit := range []int{1, 2, 3, 4, 5} {
		var got []backup.Change
		for offset := 0; offset < all.Total; offset += limit {
			got = append(got, e.dryRun(t, h, parts, offset, limit, false).Changes...)
		}
		if !slices.Equal(got, all.Changes) {
			t.Errorf("pages of %d: %d changes, not the list of %d", limit, len(got), len(all.Changes))
		}
	}
	if past := e.dryRun(t, h, parts, all.Total, 10, false); len(past.Changes) != 0 {
		t.Errorf("past the end: %d changes, want none", len(past.Changes))
	}
}

// TestADryRunLeftRunningIsStartedAgain: a running dry run whose record
// has not moved for a while (its instance stopped) is started again by
// the next visit; one that moves is not.
func TestADryRunLeftRunningIsStartedAgain(t *testing.T) {
	e := newEnv(t, bolttest.Open(t), t.TempDir())
	e.fill(t)
	h := e.backup(t, []string{kanri.PartUsers})
	parts := []string{kanri.PartUsers}
	done := e.dryRun(t, h, parts, 0, 10, false)
	for _, c := range []struct {
		name    string
		updated time.Duration // before now
		want    string
	}{
		{"moving", 0, backup.DryRunRunning},
		{"left", time.Minute, backup.DryRunDone},
	} {
		t.Run(c.name, func(t *testing.T) {
			rs, err := backup.DryRunRecords(e.svcs.Backups, e.ctx, e.tenant.ID)
			if err != nil || len(rs) != 1 {
				t.Fatalf("%d records, %v; want 1", len(rs), err)
			}
			r := rs[0]
			r.Status, r.Phase, r.Count, r.Total, r.Diffs = backup.DryRunRunning, backup.DryRunComparing, 5, 0, nil
			r.UpdatedAt = kanri.NewTime(time.Now().Add(-c.updated))
			if err := backup.SaveDryRun(e.svcs.Backups, e.ctx, e.tenant.ID, r); err != nil {
				t.Fatal(err)
			}
			d, err := e.svcs.Backups.DryRun(e.ctx, e.tenant.ID, h.ID, parts, 0, 10, false)
			if err != nil {
				t.Fatal(err)
			}
			if d.Status != c.want {
				t.Errorf("status %s, want %s", d.Status, c.want)
			}
			if c.want == backup.DryRunDone && (d.Total != done.Total || d.ComputedAt.Before(done.ComputedAt)) {
				t.Errorf("started again: %d changes computed at %v, want %d", d.Total, d.ComputedAt, done.Total)
			}
		})
	}
}

// TestAnErasureForgetsTheDryRuns: a dry run lists people by name, so an
// erasure deletes the tenant's dry runs; the next one compares again.
func TestAnErasureForgetsTheDryRuns(t *testing.T) {
	e := newEnv(t, bolttest.Open(t), t.TempDir())
	e.fill(t)
	h := e.backup(t, []string{kanri.PartUsers})
	parts := []string{kanri.PartUsers}
	users, _, err := e.svcs.Users.List(e.ctx, e.tenant.ID, user.ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var victim *kanri.User
	for _, u := range users {
		if u.ID != e.admin.ID {
			victim = u
		}
	}
	before := e.dryRun(t, h, parts, 0, 1000, false)
	if _, err := e.svcs.Erasure.Erase(e.ctx, e.tenant.ID, victim.ID, victim.Username); err != nil {
		t.Fatal(err)
	}
	if rs, err := backup.DryRunRecords(e.svcs.Backups, e.ctx, e.tenant.ID); err != nil || len(rs) != 0 {
		t.Fatalf("after the erasure: %d dry runs, %v; want none", len(rs), err)
	}
	after := e.dryRun(t, h, parts, 0, 1000, false)
	if after.Total <= before.Total {
		t.Errorf("after the erasure the dry run shows %d changes, want more than %d: it was not compared again", after.Total, before.Total)
	}
	for _, c := range after.Changes {
		if c.ID == victim.ID && c.Kind != "added" {
			t.Errorf("the erased user is %s, want added (the archive has them)", c.Kind)
		}
	}
}
