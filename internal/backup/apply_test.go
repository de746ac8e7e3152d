package backup_test

import (
	"fmt"
	"testing"

	"github.com/kanri/kanri/internal/backup"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/docstore/docstoretest"
	"github.com/kanri/kanri/internal/kanri"
)

// addMessages writes n messages into the tenant's first channel directly,
// 100 to a batch, with ids made of prefix and their number.
func (e *env) addMessages(t *testing.T, prefix string, n int) {
	t.Helper()
	chs, _, err := e.svcs.Messaging.Mine(e.ctx, e.tenant.ID, e.admin.ID, 10, "")
	if err != nil || len(chs) == 0 {
		t.Fatalf("channels: %v", err)
	}
	ten := e.svcs.Deps.Store.Tenant(e.tenant.ID)
	at := kanri.NewTime(e.svcs.Deps.Now())
	for chunk := 0; chunk < n; chunk += 100 {
		var ops []docstore.Op
		for i := chunk; i < min(n, chunk+100); i++ {
			op, err := ten.Messages().Op(docstore.OpCreate, &kanri.Message{
				Doc:       kanri.Doc{ID: fmt.Sprintf("%s%04d", prefix, i)},
				ChannelID: chs[0].Channel.ID, SenderID: e.admin.ID, SenderName: "Admin", SentAt: at,
				Content: fmt.Sprintf("message %d", i), Attachments: []string{},
			})
			if err != nil {
				t.Fatal(err)
			}
			ops = append(ops, op)
		}
		if _, err := ten.Batch(e.ctx, kanri.ContainerMessaging, ops); err != nil {
			t.Fatal(err)
		}
	}
}

// testRestoreInBatches: a restore writes and removes documents in batches
// (one transaction for many documents), not one at a time; a document to
// remove that went meanwhile does not fail its batch's others.
func testRestoreInBatches(t *testing.T, ds docstore.Store) {
	counting := docstoretest.NewCounting(ds)
	e := newEnv(t, counting, t.TempDir())
	e.fill(t)
	e.addMessages(t, "msg_before_", 250)
	h := e.backup(t, kanri.AllBackupParts)
	before := e.state(t)

	// 150 messages come after the backup; the restore removes them, but
	// one of them goes on its own while the restore runs.
	e.addMessages(t, "msg_later_", 150)
	backup.SetBeforePart(e.svcs.Backups, func(part string) error {
		if part == kanri.PartAudit { // the last part: the removals come next
			return e.svcs.Deps.Store.Port().Container(kanri.ContainerMessaging).Delete(e.ctx, e.tenant.ID, "msg_later_0000", "")
		}
		return nil
	})
	msgCalls := counting.CallsTo(kanri.ContainerMessaging)
	if _, err := e.svcs.Backups.Restore(e.ctx, e.tenant.ID, h.ID, kanri.AllBackupParts); err != nil {
		t.Fatal(err)
	}
	e.svcs.Backups.Wait()
	msgCalls = counting.CallsTo(kanri.ContainerMessaging).Sub(msgCalls)
	backup.SetBeforePart(e.svcs.Backups, nil)
	r, err := e.svcs.Backups.LatestRestore(e.ctx, e.tenant.ID)
	if err != nil || r == nil || r.Status != kanri.RestoreDone {
		t.Fatalf("restore = %+v, %v; want done", r, err)
	}
	if r.Removed != 150 {
		t.Errorf("the restore removed %d documents, want the 150 messages made after the backup", r.Removed)
	}
	compare(t, before, e.state(t))
	// The messages go in two batches, of 100 and 50; the first fails
	// (one of its messages went: the test's own delete) and is done again
	// one message at a time.
	if msgCalls.Batch != 2 || msgCalls.Delete != 101 {
		t.Errorf("the restore removed the messages with %s, want 2 batches and 100 deletes after the test's", msgCalls)
	}

	// Into a new tenant, every document is written, in batches.
	m, err := e.svcs.Backups.Archive(e.ctx, e.tenant.ID, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	var ten *kanri.Tenant
	calls := counting.Count(func() {
		ten, _, err = e.svcs.Backups.RestoreAsNewTenant(e.ctx, e.tenant.ID, h.ID, kanri.TenantInput{Name: "acme-copy", DisplayName: "Acme copy", Plan: kanri.PlanStandard, MaxUsers: 100})
		if err != nil {
			t.Fatal(err)
		}
		e.svcs.Backups.Wait()
	})
	copyEnv := *e
	copyEnv.tenant = ten
	if got, want := len(copyEnv.state(t).docs), len(before.docs); got < want-10 {
		t.Errorf("the copy has %d documents, the original %d", got, want)
	}
	docs := m.Documents()
	t.Logf("%d documents restored into a new tenant with %s", docs, calls)
	if calls.Upsert != 0 || calls.Batch > docs/10 {
		t.Errorf("%d documents restored with %s: want batches of many", docs, calls)
	}
}

func TestRestoreInBatchesEmbedded(t *testing.T) { testRestoreInBatches(t, bolttest.Open(t)) }

func TestRestoreInBatchesCosmos(t *testing.T) {
	srv := cosmostest.Start(t)
	testRestoreInBatches(t, cosmostest.OpenNew(t, srv))
}
