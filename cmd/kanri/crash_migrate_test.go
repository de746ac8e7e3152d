package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/migrate"
	"github.com/kanri/kanri/internal/schedule"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/tenant"
)

// TestMigrationSurvivesKill: kanri migrate, killed (SIGKILL) in the middle
// of its run, goes on from where it stopped when started again; in the
// end every user is at the current version, and the two runs together
// migrated each one once.
func TestMigrationSurvivesKill(t *testing.T) {
	const tenants, users, halt = 10, 50, 4
	dir := t.TempDir()
	ds, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(ds, nil, features.Schema())
	ts := tenant.New(app.NewDeps(st, nil, nil))
	ctx := audit.WithActor(t.Context(), audit.Actor{UserID: "system", GlobalAdmin: true})
	for i := range tenants {
		ten, err := ts.Create(ctx, kanri.TenantInput{Name: fmt.Sprintf("t%02d", i), DisplayName: "T", Plan: kanri.PlanFree, MaxUsers: 1000})
		if err != nil {
			t.Fatal(err)
		}
		var ops []docstore.Op
		for k := range users {
			body := fmt.Sprintf(`{"id":"user_%03d","tenantId":%q,"type":"user","schemaVersion":"1.1","username":"u%03d","email":"u%03d@t.example","displayName":"U","isActive":true,"security":{}}`, k, ten.ID, k, k)
			ops = append(ops, docstore.Op{Kind: docstore.OpCreate, Body: []byte(body)})
		}
		if _, err := ds.Container(kanri.ContainerAuth).Batch(ctx, ten.ID, ops); err != nil {
			t.Fatal(err)
		}
	}
	ds.Close()

	cmd := exec.Command(os.Args[0], "migrate", "-lease", "1s", "-data-dir", dir)
	cmd.Env = append(os.Environ(), "KANRI_TEST_RUN_MAIN=1", fmt.Sprintf("KANRI_TEST_MIGRATE_HALT_AFTER=%d", halt))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first, halted := 0, false
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		var rec struct {
			Msg      string
			Migrated int
		}
		if json.Unmarshal(lines.Bytes(), &rec) != nil {
			continue
		}
		first += rec.Migrated
		if rec.Msg == "migration: halted for a test" {
			halted = true
			break
		}
	}
	cmd.Process.Kill()
	go io.Copy(io.Discard, stderr)
	cmd.Wait()
	if !halted || first != (halt-1)*users {
		// The first tenant is _system (nothing behind), then halt-1 customer tenants.
		t.Fatalf("the first run: halted %v after migrating %d, want %d", halted, first, (halt-1)*users)
	}

	// The killed run's lease holds the next one back until its term ends.
	var out bytes.Buffer
	for {
		out.Reset()
		err := run(t.Context(), []string{"migrate", "-lease", "1s", "-data-dir", dir}, env(nil), &out, io.Discard, nil)
		if errors.Is(err, schedule.ErrHeld) {
			time.Sleep(100 * time.Millisecond) // until the lease's term has passed
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	var rep migrate.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Resumed || first+rep.Migrated != tenants*users {
		t.Errorf("the second run: resumed %v, migrated %d after %d; want it resumed and %d in all, each once", rep.Resumed, rep.Migrated, first, tenants*users)
	}
	out.Reset()
	if err := run(t.Context(), []string{"migrate", "-dry-run", "-data-dir", dir}, env(nil), &out, io.Discard, nil); err != nil {
		t.Fatal(err)
	}
	var plan migrate.Plan
	if err := json.Unmarshal(out.Bytes(), &plan); err != nil || plan.Documents != 0 {
		t.Errorf("after the runs, %d documents are behind (%v)", plan.Documents, err)
	}
}
