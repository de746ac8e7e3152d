//go:build benchchild

package bench

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/backup"
	"github.com/kanri/kanri/internal/kanri"
)

// TestBackupChild runs one step of BenchmarkBackups (the backupPhase in
// $KANRI_BENCH_BACKUP_CHILD) and writes what it measured. It is built only
// with the tag benchchild (make bench-backups), so that a test run has no
// test that would skip itself.
func TestBackupChild(t *testing.T) {
	job := os.Getenv(backupChildEnv)
	if job == "" {
		t.Fatalf("%s is not set: this test is a step of BenchmarkBackups, which runs it", backupChildEnv)
	}
	var p backupPhase
	if err := json.Unmarshal([]byte(job), &p); err != nil {
		t.Fatal(err)
	}
	ds, st, svcs, _ := openBackup(t, p.Data, p.Blobs)
	defer ds.Close()
	defer svcs.Backups.Wait()
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "user_operator", UserName: "operator", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true})
	bk := svcs.Backups

	var r backupResult
	r.BaseRSS = procStatus(t)["VmRSS"]
	if p.Profile != "" {
		f, err := os.Create(p.Profile + ".cpu.pprof")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			t.Fatal(err)
		}
	}
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		heap := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
		for {
			m := procStatus(t)
			r.PeakAnon, r.PeakFile = max(r.PeakAnon, m["RssAnon"]), max(r.PeakFile, m["RssFile"])
			metrics.Read(heap)
			r.PeakHeap, r.PeakLive = max(r.PeakHeap, heap[0].Value.Uint64()), max(r.PeakLive, heap[1].Value.Uint64())
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	start := time.Now()

	switch p.Step {
	case "Full", "Second":
		h, err := bk.RunNow(ctx, p.Tenant, p.JobID)
		if err != nil {
			t.Fatal(err)
		}
		bk.Wait()
		r.Seconds = time.Since(start).Seconds()
		if h, err = bk.History(ctx, p.Tenant, h.ID); err != nil {
			t.Fatal(err)
		}
		if h.Status != kanri.BackupSuccess {
			t.Fatalf("backup %s: %s", h.Status, deref(h.ErrorMessage))
		}
		m, err := bk.Archive(ctx, p.Tenant, h.ID)
		if err != nil {
			t.Fatal(err)
		}
		r.HistoryID, r.BytesWritten, r.BackupSize, r.Items, r.Status = h.ID, h.BytesWritten, h.BackupSize, h.ItemsBackedUp, h.Status
		r.FilesNew = m.Files.New
	case "DryRun":
		d, err := bk.DryRun(ctx, p.Tenant, p.Archive, kanri.AllBackupParts, 0, 50, false)
		if err != nil {
			t.Fatal(err)
		}
		// The page's answer: the result, or the progress of the dry run
		// running in the background, which is then waited for.
		r.AnswerSeconds = time.Since(start).Seconds()
		if d.Status == backup.DryRunRunning {
			bk.Wait()
			if d, err = bk.DryRun(ctx, p.Tenant, p.Archive, kanri.AllBackupParts, 0, 50, false); err != nil {
				t.Fatal(err)
			}
		}
		if d.Status != backup.DryRunDone {
			t.Fatalf("the dry run is %s: %v", d.Status, d.Err)
		}
		r.Seconds = time.Since(start).Seconds()
		r.Changes = d.Total
		t.Logf("dry run: %+v", d.Parts)
		next := time.Now()
		if _, err := bk.DryRun(ctx, p.Tenant, p.Archive, kanri.AllBackupParts, 50, 50, false); err != nil {
			t.Fatal(err)
		}
		r.NextPageSeconds = time.Since(next).Seconds()
	case "Restore", "RestoreNewTenant":
		var rs *kanri.BackupRestore
		target := p.Tenant
		var err error
		if p.Step == "Restore" {
			rs, err = bk.Restore(ctx, p.Tenant, p.Archive, kanri.AllBackupParts)
		} else {
			var ten *kanri.Tenant
			ten, rs, err = bk.RestoreAsNewTenant(ctx, p.Tenant, p.Archive, kanri.TenantInput{Name: "restored", DisplayName: "Restored", Plan: kanri.PlanStandard, MaxUsers: kanri.MaxUsersMax})
			if ten != nil {
				target = ten.ID
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		bk.Wait()
		r.Seconds = time.Since(start).Seconds()
		got, err := st.Tenant(target).BackupRestores().Get(ctx, rs.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != kanri.RestoreDone {
			t.Fatalf("restore %s: %s", got.Status, got.ErrorMessage)
		}
		r.Written, r.Removed, r.Status = got.Written, got.Removed, got.Status
	default:
		t.Fatalf("unknown step %q", p.Step)
	}

	close(stop)
	<-sampled
	r.PeakRSS = procStatus(t)["VmHWM"]
	var ms1 runtime.MemStats
	runtime.ReadMemStats(&ms1)
	r.HeapAlloc = ms1.TotalAlloc - ms0.TotalAlloc
	if p.Profile != "" {
		pprof.StopCPUProfile()
		f, err := os.Create(p.Profile + ".heap.pprof")
		if err != nil {
			t.Fatal(err)
		}
		if err := pprof.WriteHeapProfile(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	body, _ := json.Marshal(r)
	if err := os.WriteFile(p.Out, body, 0o600); err != nil {
		t.Fatal(err)
	}
}
