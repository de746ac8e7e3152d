package backup_test

import (
	"testing"

	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/user"
)

// TestDryRunsAreKeptForTheirPages: the pages of a dry run come from the
// result found first, without comparing again (a change of the tenant
// since does not show until asked for: fresh); a restore of the tenant
// forgets the result.
func TestDryRunsAreKeptForTheirPages(t *testing.T) {
	e := newEnv(t, bolttest.Open(t), t.TempDir())
	e.fill(t)
	h := e.backup(t, []string{kanri.PartUsers})
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
	parts := []string{kanri.PartUsers}
	first, err := e.svcs.Backups.DryRun(e.ctx, e.tenant.ID, h.ID, parts, 0, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if first.Total < 2 || len(first.Changes) != 1 {
		t.Fatalf("the first page: %d changes of %d, want 1 of at least 2", len(first.Changes), first.Total)
	}
	// A change of the tenant: kept pages do not show it.
	if _, err := e.svcs.Users.Create(e.ctx, e.tenant.ID, kanri.UserInput{Username: "zed", Email: "zed@acme.example", DisplayName: "Zed", Password: "Correct-Horse-9"}); err != nil {
		t.Fatal(err)
	}
	second, err := e.svcs.Backups.DryRun(e.ctx, e.tenant.ID, h.ID, parts, 1, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := second.Total, first.Total; got != want || !second.ComputedAt.Equal(first.ComputedAt) || second.Offset != 1 || len(second.Changes) != 1 || second.Changes[0] == first.Changes[0] {
		t.Errorf("the second page: %d changes from %d of %d computed at %v; want the next of the kept %d computed at %v",
			len(second.Changes), second.Offset, got, second.ComputedAt, want, first.ComputedAt)
	}
	fresh, err := e.svcs.Backups.DryRun(e.ctx, e.tenant.ID, h.ID, parts, 0, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Total <= first.Total {
		t.Errorf("compared again: %d changes, want more than %d (zed and the names zed holds would be removed)", fresh.Total, first.Total)
	}
	if _, err := e.svcs.Backups.Restore(e.ctx, e.tenant.ID, h.ID, parts); err != nil {
		t.Fatal(err)
	}
	e.svcs.Backups.Wait()
	after, err := e.svcs.Backups.DryRun(e.ctx, e.tenant.ID, h.ID, parts, 0, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if after.Total != 0 {
		t.Errorf("after the restore the dry run shows %d changes, want 0: the kept result was not forgotten", after.Total)
	}
}
