package backup_test

import (
	"bytes"
	"context"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/backup"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/docstore"
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

// others returns the tenant's users but its admin.
func (e *env) others(t *testing.T) []*kanri.User {
	t.Helper()
	users, _, err := e.svcs.Users.List(e.ctx, e.tenant.ID, user.ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(users, func(u *kanri.User) bool { return u.ID == e.admin.ID })
}

// deleteUsers deletes every user of the tenant but its admin.
func (e *env) deleteUsers(t *testing.T) {
	t.Helper()
	for _, u := range e.others(t) {
		if _, err := e.svcs.Users.Delete(e.ctx, e.tenant.ID, u.ID, kanri.Seen{}); err != nil {
			t.Fatal(err)
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
	// Not waited for, it is running: it says what it reads.
	if d.Status != backup.DryRunRunning || d.Of == 0 || d.Phase == "" || d.Total != 0 {
		t.Errorf("%s: phase %q, %d of %d, total %d; want running, a phase, the archive's documents and no total", d.Status, d.Phase, d.Count, d.Of, d.Total)
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
			if _, err := e.svcs.Backups.DryRun(e.ctx, e.tenant.ID, h.ID, parts, 0, 10, false); err != nil {
				t.Fatal(err)
			}
			e.svcs.Backups.Wait()
			d, err := e.svcs.Backups.DryRun(e.ctx, e.tenant.ID, h.ID, parts, 0, 10, false)
			if err != nil {
				t.Fatal(err)
			}
			if d.Status != c.want {
				t.Errorf("status %s, want %s", d.Status, c.want)
			}
			if c.want == backup.DryRunDone && (d.Total != done.Total || !d.ComputedAt.After(done.ComputedAt)) {
				t.Errorf("started again: %d changes computed at %v, want %d computed after %v", d.Total, d.ComputedAt, done.Total, done.ComputedAt)
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
	others := e.others(t)
	victim := others[len(others)-1]
	before := e.dryRun(t, h, parts, 0, 1000, false)
	// The person erased had a dry run of their own: the erasure deletes
	// its record first (it is theirs), its changes too.
	theirs := audit.WithActor(e.ctx, audit.Actor{UserID: victim.ID, UserName: victim.Username, TenantID: e.tenant.ID})
	if _, err := e.svcs.Backups.DryRun(theirs, e.tenant.ID, h.ID, parts, 0, 10, false); err != nil {
		t.Fatal(err)
	}
	e.svcs.Backups.Wait()
	if rs, err := backup.DryRunRecords(e.svcs.Backups, e.ctx, e.tenant.ID); err != nil || len(rs) != 2 {
		t.Fatalf("before the erasure: %d dry runs, %v; want 2", len(rs), err)
	}
	if _, err := e.svcs.Erasure.Erase(e.ctx, e.tenant.ID, victim.ID, victim.Username); err != nil {
		t.Fatal(err)
	}
	if rs, err := backup.DryRunRecords(e.svcs.Backups, e.ctx, e.tenant.ID); err != nil || len(rs) != 0 {
		t.Fatalf("after the erasure: %d dry runs, %v; want none", len(rs), err)
	}
	if ids, err := backup.DryRunChangesDocs(e.svcs.Backups, e.ctx, e.tenant.ID); err != nil || len(ids) != 0 {
		t.Fatalf("after the erasure: changes documents %v, %v; want none", ids, err)
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

// TestADryRunWritesNothingInsideTheDump: a dry run's progress is written
// by a goroutine of its own, never from inside the store's dump of the
// tenant (on bbolt, a write that grows the file waits for every read
// transaction, the dump's own too: the store would hang).
func TestADryRunWritesNothingInsideTheDump(t *testing.T) {
	spy := &writeSpy{Store: bolttest.Open(t)}
	e := newEnv(t, spy, t.TempDir())
	backup.SetDryRunBeat(e.svcs.Backups, time.Millisecond)
	e.fill(t)
	h := e.backup(t, []string{kanri.PartUsers})
	e.deleteUsers(t)
	spy.slow.Store(true) // each document of the dump takes a beat or two
	e.dryRun(t, h, []string{kanri.PartUsers}, 0, 10, false)
	if spy.dumped.Load() == 0 {
		t.Fatal("the dry run dumped nothing")
	}
	if n := spy.inside.Load(); n > 0 {
		t.Errorf("%d writes from inside the dump", n)
	}
}

// writeSpy is a store that counts the writes made from inside its Dump
// (by the goroutine's stack), and whose Dump, when slow, takes a few
// milliseconds a document: longer than the heartbeat's beat, so that code
// writing progress from the dump would do so there. The test passes
// whatever the machine's speed when nothing writes from the dump.
type writeSpy struct {
	docstore.Store
	slow           atomic.Bool
	dumped, inside atomic.Int64
}

func (s *writeSpy) Dump(ctx context.Context, pk string, containers []string, fn func(string, docstore.Item) error) (bool, error) {
	return s.Store.Dump(ctx, pk, containers, func(c string, it docstore.Item) error {
		s.dumped.Add(1)
		if s.slow.Load() {
			time.Sleep(3 * time.Millisecond)
		}
		return fn(c, it)
	})
}

func (s *writeSpy) Container(name string) docstore.Container {
	return spyContainer{Container: s.Store.Container(name), s: s}
}

func (s *writeSpy) wrote() {
	buf := make([]byte, 64<<10)
	if bytes.Contains(buf[:runtime.Stack(buf, false)], []byte(").Dump(")) {
		s.inside.Add(1)
	}
}

type spyContainer struct {
	docstore.Container
	s *writeSpy
}

func (c spyContainer) Replace(ctx context.Context, pk, id string, body []byte, ifMatch string) (string, error) {
	c.s.wrote()
	return c.Container.Replace(ctx, pk, id, body, ifMatch)
}

func (c spyContainer) Upsert(ctx context.Context, pk string, body []byte, ifMatch string) (string, error) {
	c.s.wrote()
	return c.Container.Upsert(ctx, pk, body, ifMatch)
}

func (c spyContainer) Batch(ctx context.Context, pk string, ops []docstore.Op) ([]docstore.Result, error) {
	c.s.wrote()
	return c.Container.Batch(ctx, pk, ops)
}

// TestAnArchiveHoldingADocumentTwice: Cosmos DB's dump passes a document
// written while it ran a second time, so an archive may hold an older and
// a newer copy. Its last copy counts: the dry run lists each document
// once, by the last copy, and the restore writes the last copy.
func TestAnArchiveHoldingADocumentTwice(t *testing.T) {
	e := newEnv(t, bolttest.Open(t), t.TempDir())
	e.fill(t)
	others := e.others(t)
	bob := others[len(others)-1]
	// The backup's dump passes bob first as he was (renamed), then as he
	// is, and every other user twice as they are.
	var dump backup.DumpFunc
	dump = backup.SetDump(e.svcs.Backups, func(ctx context.Context, pk string, cs []string, fn func(string, docstore.Item) error) (bool, error) {
		var seconds []func() error
		snap, err := dump(ctx, pk, cs, func(c string, it docstore.Item) error {
			if typ, _ := backup.DocType(it.Body); typ != kanri.TypeUser {
				return fn(c, it)
			}
			now := it
			now.Body = bytes.Clone(it.Body)
			seconds = append(seconds, func() error { return fn(c, now) })
			if it.ID == bob.ID {
				old := now
				old.Body = bytes.Replace(now.Body, []byte(`"displayName":"`), []byte(`"displayName":"OLD `), 1)
				return fn(c, old)
			}
			return fn(c, it)
		})
		for _, second := range seconds {
			if err == nil {
				err = second()
			}
		}
		return snap, err
	})
	h := e.backup(t, []string{kanri.PartUsers})
	backup.SetDump(e.svcs.Backups, dump)

	// Nothing changed since: the last copies are the tenant's, and a
	// restore leaves bob as he is.
	if d := e.dryRun(t, h, []string{kanri.PartUsers}, 0, 100, false); d.Total != 0 {
		t.Errorf("the dry run of an archive of the tenant as it is: %d changes %+v, want none", d.Total, d.Changes)
	}
	if _, err := e.svcs.Backups.Restore(e.ctx, e.tenant.ID, h.ID, []string{kanri.PartUsers}); err != nil {
		t.Fatal(err)
	}
	e.svcs.Backups.Wait()
	if got, err := e.svcs.Users.Get(e.ctx, e.tenant.ID, bob.ID); err != nil || got.DisplayName != bob.DisplayName {
		t.Fatalf("bob after a restore of the tenant as it is: %+v, %v; want %q (the archive's last copy)", got, err, bob.DisplayName)
	}
	e.deleteUsers(t)
	d := e.dryRun(t, h, []string{kanri.PartUsers}, 0, 1000, true)
	listed := map[string]int{}
	for _, c := range d.Changes {
		listed[c.ID]++
		if c.ID == bob.ID && c.Label != bob.DisplayName {
			t.Errorf("bob is listed as %q, want %q (the last copy)", c.Label, bob.DisplayName)
		}
	}
	for id, n := range listed {
		if n > 1 {
			t.Errorf("%s listed %d times", id, n)
		}
	}
	if listed[bob.ID] != 1 {
		t.Errorf("bob listed %d times, want once", listed[bob.ID])
	}
	if _, err := e.svcs.Backups.Restore(e.ctx, e.tenant.ID, h.ID, []string{kanri.PartUsers}); err != nil {
		t.Fatal(err)
	}
	e.svcs.Backups.Wait()
	got, err := e.svcs.Users.Get(e.ctx, e.tenant.ID, bob.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.DisplayName != bob.DisplayName {
		t.Errorf("bob restored as %q, want %q (the archive's last copy)", got.DisplayName, bob.DisplayName)
	}
}
