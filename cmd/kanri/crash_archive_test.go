package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/archive"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/wiring"
)

// TestArchiveSurvivesKill: kanri archive, killed (SIGKILL) once its parts
// are written and again in the middle of deleting the archived records
// from the store, leaves after a last run one whole archive holding every
// record once, none of them left in the store, and no other blob.
func TestArchiveSurvivesKill(t *testing.T) {
	const records = 300
	dir := t.TempDir()
	ds, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svcs := wiring.New(store.New(ds, nil, features.Schema()), nil, nil, wiring.Options{Roles: features.Roles()})
	ctx := audit.WithActor(t.Context(), audit.Actor{UserID: "system", GlobalAdmin: true})
	ten, err := svcs.Tenants.Create(ctx, kanri.TenantInput{Name: "acme", DisplayName: "Acme", Plan: kanri.PlanStandard, MaxUsers: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svcs.Archives.SaveSettings(ctx, ten.ID, archive.SettingsInput{Enabled: true, Days: 7}, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	old := kanri.FormatTime(time.Now().Add(-89 * 24 * time.Hour))
	for k := range records / 100 {
		var ops []docstore.Op
		for i := range 100 {
			body := fmt.Sprintf(`{"id":"audit_old_%03d","tenantId":%q,"type":"audit_log","schemaVersion":"1.0","timestamp":%q,"userId":"user_x","userName":"x","action":"file.update","resource":{"type":"File","id":"f"},"status":"success"}`, k*100+i, ten.ID, old)
			ops = append(ops, docstore.Op{Kind: docstore.OpCreate, Body: []byte(body)})
		}
		if _, err := ds.Container(kanri.ContainerAudit).Batch(ctx, ten.ID, ops); err != nil {
			t.Fatal(err)
		}
	}
	ds.Close()

	for _, step := range []string{"written", "deleting"} {
		cmd := exec.Command(os.Args[0], "archive", "-data-dir", dir)
		cmd.Env = append(os.Environ(), "KANRI_TEST_RUN_MAIN=1", "KANRI_TEST_ARCHIVE_HALT="+step)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		halted := false
		var out strings.Builder
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			out.WriteString(lines.Text() + "\n")
			var rec struct{ Msg string }
			if json.Unmarshal(lines.Bytes(), &rec) == nil && rec.Msg == "archive: halted for a test" {
				halted = true
				break
			}
		}
		cmd.Process.Kill()
		go io.Copy(io.Discard, stderr)
		cmd.Wait()
		if !halted {
			t.Fatalf("kanri archive did not halt at %s:\n%s", step, out.String())
		}
		// Where the kill left it: an archive being written; then, after a
		// run that removed it and wrote another, one being deleted from
		// the store, its first batch of records gone.
		ds, err := bolt.Open(dir, features.Specs(), bolt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		svcs := wiring.New(store.New(ds, nil, features.Schema()), nil, nil, wiring.Options{Roles: features.Roles()})
		all, _, err := svcs.Archives.List(ctx, ten.ID, 10, "")
		left := countOld(t, ds, ten.ID)
		ds.Close()
		want, wantLeft := archive.StateWriting, records
		if step == "deleting" {
			want, wantLeft = archive.StateDeleting, records-docstore.MaxBatchOps
		}
		if err != nil || len(all) != 1 || all[0].State != want || left != wantLeft {
			t.Fatalf("killed at %s: %d archives (%v), %d records left; want one %s, %d left", step, len(all), err, left, want, wantLeft)
		}
	}

	var stdout bytes.Buffer
	if err := run(t.Context(), []string{"archive", "-data-dir", dir}, env(nil), &stdout, io.Discard, nil); err != nil {
		t.Fatal(err)
	}
	ds, err = bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	svcs = wiring.New(store.New(ds, nil, features.Schema()), nil, nil, wiring.Options{Roles: features.Roles()})
	all, _, err := svcs.Archives.List(ctx, ten.ID, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].State != archive.StateArchived || all[0].Documents != records || all[0].Deleted != records || all[0].Kept != 0 {
		t.Fatalf("after the kills and a last run: %d archives (%+v); want one of %d records, all deleted", len(all), all, records)
	}
	if n := countOld(t, ds, ten.ID); n != 0 {
		t.Errorf("%d archived records are still in the store", n)
	}
	var blobs []string
	root := filepath.Join(dir, "blobs", "blobs", "archive") // the local blob store in the data directory
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			blobs = append(blobs, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(blobs)
	want := []string{ten.ID + "/" + all[0].ID + "/audit_log.ndjson.gz", ten.ID + "/" + all[0].ID + "/manifest.json"}
	if !slices.Equal(blobs, want) {
		t.Errorf("blobs under archive/: %v; want only the archive's %v", blobs, want)
	}
}

// countOld counts the old audit records left in the tenant.
func countOld(t *testing.T, ds docstore.Store, tenantID string) int {
	t.Helper()
	page, err := ds.Container(kanri.ContainerAudit).Query(t.Context(), tenantID, docstore.Query{Type: kanri.TypeAuditLog, Where: []docstore.Filter{docstore.Prefix("id", "audit_old_")}, Limit: docstore.MaxPageSize})
	if err != nil {
		t.Fatal(err)
	}
	return len(page.Items)
}
