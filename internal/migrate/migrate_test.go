package migrate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/disk"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/migrate"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/internal/wiring"
)

// widget is a test-only document type whose schema changed twice: 1.0
// named its colour "colour", 1.1 "color", and 2.0 added its size.
type widget struct {
	kanri.Doc
	Color string `json:"color"`
	Size  int    `json:"size"`
}

var widgetType = doctype.Type{
	Name: "widget", Container: kanri.ContainerTenant, Of: &widget{},
	Backup: doctype.InPart(kanri.PartServices),
	Upgrades: []doctype.Upgrade{
		{From: "1.0", To: "1.1", Up: func(d map[string]any) error { d["color"] = d["colour"]; delete(d, "colour"); return nil }},
		{From: "1.1", To: "2.0", Up: func(d map[string]any) error {
			if _, ok := d["size"]; !ok {
				d["size"] = 1
			}
			return nil
		}},
	},
}

// schema is Kanri's document types and the widget.
func schema() *doctype.Set {
	var containers []doctype.Container
	for _, f := range features.All() {
		containers = append(containers, f.Containers...)
	}
	return doctype.MustSet(containers, features.Schema().Types(), []doctype.Type{widgetType})
}

// testRun: three tenants hold ten widgets of 1.0 each and one whose size
// is no number. The dry run counts 31 behind with samples and writes
// nothing; a run stopped after its first tenant resumes after it on the
// next run, which migrates the rest: 30 in all, none twice; the bad widget
// is reported by id and left as it was; a read gets the migrated shape.
func testRun(t *testing.T, ds docstore.Store) {
	set := schema()
	st := store.New(ds, nil, set)
	d := app.NewDeps(st, slog.New(slog.DiscardHandler), nil)
	tenants := tenant.New(d)
	ctx := audit.WithActor(t.Context(), audit.Actor{UserID: "system", GlobalAdmin: true})
	var ids []string
	for _, name := range []string{"acme", "globex", "initech"} {
		ten, err := tenants.Create(ctx, kanri.TenantInput{Name: name, DisplayName: name, Plan: kanri.PlanFree, MaxUsers: 10})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ten.ID)
		c := ds.Container(kanri.ContainerTenant)
		for i := range 10 {
			body := fmt.Sprintf(`{"id":"widget_%d","tenantId":%q,"type":"widget","schemaVersion":"1.0","colour":"red"}`, i, ten.ID)
			if _, err := c.Create(ctx, ten.ID, []byte(body)); err != nil {
				t.Fatal(err)
			}
		}
		if name == "globex" {
			body := fmt.Sprintf(`{"id":"widget_bad","tenantId":%q,"type":"widget","schemaVersion":"1.1","color":"blue","size":"huge"}`, ten.ID)
			if _, err := c.Create(ctx, ten.ID, []byte(body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	r := migrate.New(d, tenants, nil, nil)

	plan, err := r.DryRun(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Documents != 31 || len(plan.Tenants) != 3 || plan.Estimate <= 0 {
		t.Fatalf("dry run: %d documents in %d tenants, estimate %v; want 31 in 3", plan.Documents, len(plan.Tenants), plan.Estimate)
	}
	s := plan.Tenants[0].Samples[0]
	if !strings.Contains(string(s.Before), `"colour":"red"`) || !strings.Contains(string(s.After), `"color":"red"`) || !strings.Contains(string(s.After), `"schemaVersion":"2.0"`) {
		t.Errorf("sample: before %s, after %s", s.Before, s.After)
	}
	if again, _ := r.DryRun(ctx, 0); again.Documents != 31 {
		t.Errorf("a second dry run counts %d: the first wrote something", again.Documents)
	}

	// The run is stopped after its first tenant with widgets, as a kill
	// would stop it.
	stopped, cancel := context.WithCancel(ctx)
	done := 0
	first, err := r.Run(stopped, func(tenantID string, migrated int) {
		if migrated > 0 {
			done += migrated
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || done != 10 {
		t.Fatalf("the stopped run: %v after %d migrated; want it stopped after one tenant's 10", err, done)
	}
	second, err := r.Run(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !second.Resumed || second.Migrated != 20 || first.Migrated+second.Migrated != 30 {
		t.Errorf("the runs migrated %d then %d (resumed %v); want 10 then 20", first.Migrated, second.Migrated, second.Resumed)
	}
	if len(second.Failures) != 1 || second.Failures[0].ID != "widget_bad" || !strings.Contains(second.Failures[0].Error, "not a valid widget") {
		t.Errorf("failures: %+v; want widget_bad's", second.Failures)
	}
	after, err := r.DryRun(ctx, 0)
	if err != nil || after.Documents != 1 {
		t.Errorf("after the run, %d documents are behind (%v); want the bad one", after.Documents, err)
	}
	it, err := ds.Container(kanri.ContainerTenant).Read(ctx, ids[0], "widget_3")
	if err != nil {
		t.Fatal(err)
	}
	var w map[string]any
	json.Unmarshal(it.Body, &w)
	if w["schemaVersion"] != "2.0" || w["color"] != "red" || w["colour"] != nil || w["size"] != float64(1) {
		t.Errorf("a migrated widget: %s", it.Body)
	}
	if third, err := r.Run(ctx, nil); err != nil || third.Resumed || third.Migrated != 0 {
		t.Errorf("a run after a finished one: %+v, %v; want a fresh run with nothing to migrate", third, err)
	}
}

func TestRunEmbedded(t *testing.T) {
	ds, err := bolt.Open(t.TempDir(), schema().Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ds.Close() })
	testRun(t, ds)
}

func TestRunCosmos(t *testing.T) {
	srv := cosmostest.Start(t)
	testRun(t, cosmostest.OpenNew(t, srv))
}

// racy is a store whose first batch of writes loses a race: just before
// it, another writer changes one of its documents.
type racy struct {
	docstore.Store
	raced bool
}

func (s *racy) Container(name string) docstore.Container {
	return &racyContainer{Container: s.Store.Container(name), s: s}
}

type racyContainer struct {
	docstore.Container
	s *racy
}

func (c *racyContainer) Batch(ctx context.Context, pk string, ops []docstore.Op) ([]docstore.Result, error) {
	if !c.s.raced && len(ops) > 0 && ops[0].Kind == docstore.OpReplace {
		c.s.raced = true
		body := fmt.Sprintf(`{"id":%q,"tenantId":%q,"type":"widget","schemaVersion":"1.0","colour":"green"}`, ops[0].ID, pk)
		if _, err := c.Container.Replace(ctx, pk, ops[0].ID, []byte(body), ""); err != nil {
			return nil, err
		}
	}
	return c.Container.Batch(ctx, pk, ops)
}

// TestARaceIsNotOverwritten: a batch of writes that loses a race with
// another writer is done again a document at a time, from the documents
// as they are now: the other writer's change is migrated, not lost.
func TestARaceIsNotOverwritten(t *testing.T) {
	ds, err := bolt.Open(t.TempDir(), schema().Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ds.Close() })
	rs := &racy{Store: ds}
	st := store.New(rs, nil, schema())
	d := app.NewDeps(st, slog.New(slog.DiscardHandler), nil)
	tenants := tenant.New(d)
	ctx := audit.WithActor(t.Context(), audit.Actor{UserID: "system", GlobalAdmin: true})
	ten, err := tenants.Create(ctx, kanri.TenantInput{Name: "acme", DisplayName: "acme", Plan: kanri.PlanFree, MaxUsers: 10})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		body := fmt.Sprintf(`{"id":"widget_%d","tenantId":%q,"type":"widget","schemaVersion":"1.0","colour":"red"}`, i, ten.ID)
		if _, err := ds.Container(kanri.ContainerTenant).Create(ctx, ten.ID, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := migrate.New(d, tenants, nil, nil).Run(ctx, nil)
	if err != nil || !rs.raced || rep.Migrated != 5 || len(rep.Failures) != 0 {
		t.Fatalf("run: %+v, %v (raced %v); want 5 migrated", rep, err, rs.raced)
	}
	green := 0
	for i := range 5 {
		it, err := ds.Container(kanri.ContainerTenant).Read(ctx, ten.ID, fmt.Sprintf("widget_%d", i))
		if err != nil {
			t.Fatal(err)
		}
		var w map[string]any
		json.Unmarshal(it.Body, &w)
		if w["schemaVersion"] != "2.0" {
			t.Errorf("widget_%d is at %v", i, w["schemaVersion"])
		}
		if w["color"] == "green" {
			green++
		}
	}
	if green != 1 {
		t.Errorf("%d widgets are green: the other writer's change was lost", green)
	}
}

// TestRollback: a run archives each tenant's parts it changes before
// changing them (once, even when resumed), and the rollback restores
// them: the widgets are back at 1.0 as they were.
func TestRollback(t *testing.T) {
	ds, err := bolt.Open(t.TempDir(), schema().Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ds.Close() })
	drv, err := disk.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	svcs := wiring.New(store.New(ds, nil, schema()), slog.New(slog.DiscardHandler), nil, wiring.Options{Roles: features.Roles(), Blobs: blob.New(drv)})
	t.Cleanup(svcs.Backups.Wait)
	ctx := audit.WithActor(t.Context(), audit.Actor{UserID: "user_operator", UserName: "operator", GlobalAdmin: true})
	var ids []string
	for _, name := range []string{"acme", "globex"} {
		ten, err := svcs.Tenants.Create(ctx, kanri.TenantInput{Name: name, DisplayName: name, Plan: kanri.PlanFree, MaxUsers: 10})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ten.ID)
		for i := range 3 {
			body := fmt.Sprintf(`{"id":"widget_%d","tenantId":%q,"type":"widget","schemaVersion":"1.0","colour":"red"}`, i, ten.ID)
			if _, err := ds.Container(kanri.ContainerTenant).Create(ctx, ten.ID, []byte(body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	r := migrate.New(svcs.Deps, svcs.Tenants, svcs.Backups, svcs.Scheduler)
	if err := r.Start(ctx, migrate.OpRollback); !kanri.IsCode(err, kanri.EINVALID) {
		t.Errorf("a rollback before any run: %v; want EINVALID", err)
	}
	// The console's way: started in the background, on the instance's
	// worker, holding the lease.
	work, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- r.Work().Run(work) }()
	t.Cleanup(func() {
		stop()
		<-served
	})
	if err := r.Start(ctx, migrate.OpRun); err != nil {
		t.Fatal(err)
	}
	rec := waitState(t, r, migrate.StateDone)
	if rec.Migrated != 6 || rec.Tenants != 3 || rec.Verified == nil || rec.Verified.Behind != 0 || rec.Verified.After != rec.Verified.Before+2 || rec.By != "operator" {
		t.Fatalf("the run's record: %+v (verified %+v); want 6 migrated in 3 partitions, none behind, two more documents (the archives' records), by operator", rec, rec.Verified)
	}
	for _, id := range ids {
		hs, _, err := svcs.Backups.Histories(ctx, id, "", 10, "")
		if err != nil || len(hs) != 1 || hs[0].Trigger != kanri.TriggerMigration || hs[0].Status != kanri.BackupSuccess {
			t.Fatalf("%s's history after the run: %+v, %v; want one archive by the migration", id, hs, err)
		}
	}
	lease, err := svcs.Scheduler.Acquire(ctx, kanri.SystemTenantID, migrate.Lease, "another instance", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(ctx, migrate.OpRollback); !kanri.IsCode(err, kanri.ECONFLICT) {
		t.Errorf("a rollback while another holds the lease: %v; want ECONFLICT", err)
	}
	if err := lease.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Start(ctx, migrate.OpRollback); err != nil {
		t.Fatal(err)
	}
	if rec := waitState(t, r, migrate.StateRolledBack); rec.RolledBack != 2 {
		t.Errorf("rollback: %d tenants; want 2", rec.RolledBack)
	}
	it, err := ds.Container(kanri.ContainerTenant).Read(ctx, ids[1], "widget_2")
	if err != nil {
		t.Fatal(err)
	}
	var w map[string]any
	json.Unmarshal(it.Body, &w)
	if w["schemaVersion"] != "1.0" || w["colour"] != "red" {
		t.Errorf("a widget after the rollback: %s; want it as it was", it.Body)
	}
	if _, err := r.Rollback(ctx); !kanri.IsCode(err, kanri.EINVALID) {
		t.Errorf("a second rollback: %v; want EINVALID", err)
	}
	logs, _, err := svcs.Deps.Audit.Query(ctx, kanri.SystemTenantID, audit.Filter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, l := range logs {
		if l.Resource.Type == kanri.AuditMigration {
			actions = append(actions, l.Action)
		}
	}
	if got, want := strings.Join(actions, ","), "migration.rollback,migration.run"; got != want {
		t.Errorf("audit records: %s; want %s", got, want)
	}
}

// waitState waits until the last run's record is in state want and its
// lease is released, and returns the record; it fails the test at once on
// a state it cannot leave.
func waitState(t *testing.T, r *migrate.Runner, want string) *migrate.Record {
	t.Helper()
	for {
		rec, err := r.Last(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		busy, err := r.Busy(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if rec != nil && rec.State == want && busy == nil {
			return rec
		}
		if rec != nil && (rec.State == migrate.StateStopped || rec.Error != "") {
			t.Fatalf("the run stopped: %+v", rec)
		}
		select {
		case <-t.Context().Done():
			t.Fatalf("the run is %+v; want %s", rec, want)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
