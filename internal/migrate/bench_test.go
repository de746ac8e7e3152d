package migrate_test

import (
	"fmt"
	"log/slog"
	"runtime"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/disk"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/docstore/docstoretest"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/migrate"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/wiring"
)

// BenchmarkRun100x1000 measures the batch migration of 100 tenants of
// 1,000 users each at schema version 1.1 (before the profile block) on
// the embedded store, with the archive of each tenant's users before the
// run (local blob store): the dry run, the run, the store calls per
// document, the heap, and the rollback. Run it once:
//
//	go test -run '^$' -bench Run100x1000 -benchtime 1x ./internal/migrate/
func BenchmarkRun100x1000(b *testing.B) {
	const tenants, users = 100, 1000
	ds, err := bolt.Open(b.TempDir(), features.Specs(), bolt.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ds.Close()
	calls := docstoretest.NewCounting(ds)
	st := store.New(calls, nil, features.Schema())
	drv, err := disk.New(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	svcs := wiring.New(st, slog.New(slog.DiscardHandler), nil, wiring.Options{Roles: features.Roles(), Blobs: blob.New(drv)})
	d, ts := svcs.Deps, svcs.Tenants
	ctx := audit.WithActor(b.Context(), audit.Actor{UserID: "system", GlobalAdmin: true})
	for i := range tenants {
		ten, err := ts.Create(ctx, kanri.TenantInput{Name: fmt.Sprintf("t%03d", i), DisplayName: "T", Plan: kanri.PlanFree, MaxUsers: 10000})
		if err != nil {
			b.Fatal(err)
		}
		for j := 0; j < users; j += 100 {
			var ops []docstore.Op
			for k := j; k < j+100; k++ {
				body := fmt.Sprintf(`{"id":"user_%05d","tenantId":%q,"type":"user","schemaVersion":"1.1","username":"u%05d","email":"u%05d@t.example","displayName":"U %d","isActive":true,"security":{"failedLoginAttempts":0}}`, k, ten.ID, k, k, k)
				ops = append(ops, docstore.Op{Kind: docstore.OpCreate, Body: []byte(body)})
			}
			if _, err := ds.Container(kanri.ContainerAuth).Batch(ctx, ten.ID, ops); err != nil {
				b.Fatal(err)
			}
		}
	}
	r := migrate.New(d, ts, svcs.Backups, nil)
	var peak uint64
	stop := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
		}
	}()
	b.ResetTimer()
	before := calls.Calls().Total()
	plan, err := r.DryRun(ctx, 3)
	if err != nil || plan.Documents != tenants*users {
		b.Fatalf("dry run: %v, %d behind", err, plan.Documents)
	}
	dryCalls := calls.Calls().Total() - before
	start := time.Now()
	rep, err := r.Run(ctx, nil)
	took := time.Since(start)
	close(stop)
	if err != nil || rep.Migrated != tenants*users {
		b.Fatalf("run: %v, %d migrated", err, rep.Migrated)
	}
	runCalls := calls.Calls().Total() - before - dryCalls
	start = time.Now()
	n, err := r.Rollback(ctx)
	rollback := time.Since(start)
	if err != nil || n != tenants {
		b.Fatalf("rollback: %v, %d tenants", err, n)
	}
	if again, err := r.DryRun(ctx, 0); err != nil || again.Documents != tenants*users {
		b.Fatalf("after the rollback: %v, %d behind", err, again.Documents)
	}
	b.ReportMetric(rollback.Seconds(), "rollback-s")
	b.ReportMetric(plan.Took.Seconds(), "dry-run-s")
	b.ReportMetric(plan.Estimate.Seconds(), "estimate-s")
	b.ReportMetric(took.Seconds(), "run-s")
	b.ReportMetric(float64(runCalls)/float64(rep.Migrated), "calls/doc")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
