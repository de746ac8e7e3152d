package archive_test

import (
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/archive"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/disk"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/docstore/docstoretest"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/wiring"
)

// BenchmarkArchive10000 measures one pass that archives 10,000 audit
// records of a tenant near their expiry, on the embedded store and the
// local blob store: its time, the store calls per record, and the
// archive's bytes per record. Run it once:
//
//	go test -run '^$' -bench Archive10000 -benchtime 1x ./internal/archive/
func BenchmarkArchive10000(b *testing.B) {
	const records = 10_000
	ds, err := bolt.Open(b.TempDir(), features.Specs(), bolt.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ds.Close()
	drv, err := disk.New(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	calls := docstoretest.NewCounting(ds)
	svcs := wiring.New(store.New(calls, nil, features.Schema()), slog.New(slog.DiscardHandler), nil, wiring.Options{Roles: features.Roles(), Blobs: blob.New(drv)})
	ctx := actor(b)
	ten, err := svcs.Tenants.Create(ctx, kanri.TenantInput{Name: "acme", DisplayName: "Acme", Plan: kanri.PlanStandard, MaxUsers: 10})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := svcs.Archives.SaveSettings(ctx, ten.ID, archive.SettingsInput{Enabled: true, Days: 7}, kanri.Seen{}); err != nil {
		b.Fatal(err)
	}
	old := kanri.FormatTime(time.Now().Add(-89 * 24 * time.Hour))
	for j := 0; j < records; j += 100 {
		var ops []docstore.Op
		for i := j; i < j+100; i++ {
			body := fmt.Sprintf(`{"id":"audit_%05d","tenantId":%q,"type":"audit_log","schemaVersion":"1.0","timestamp":%q,"userId":"user_x","userName":"someone","action":"file.update","resource":{"type":"File","id":"file_%d","name":"report %d.pdf"},"metadata":{"ipAddress":"203.0.113.9","userAgent":"Mozilla/5.0"},"status":"success"}`, i, ten.ID, old, i, i)
			ops = append(ops, docstore.Op{Kind: docstore.OpCreate, Body: []byte(body)})
		}
		if _, err := ds.Container(kanri.ContainerAudit).Batch(ctx, ten.ID, ops); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	before := calls.Calls().Total()
	start := time.Now()
	done, err := svcs.Archives.Tenant(ctx, ten.ID)
	took := time.Since(start)
	if err != nil || len(done) != 1 || done[0].Deleted != records {
		b.Fatalf("the pass: %d archives, %v", len(done), err)
	}
	b.ReportMetric(took.Seconds(), "pass-s")
	b.ReportMetric(records/took.Seconds(), "records/s")
	b.ReportMetric(float64(calls.Calls().Total()-before)/records, "calls/record")
	b.ReportMetric(float64(done[0].Bytes)/records, "archive-B/record")
}
