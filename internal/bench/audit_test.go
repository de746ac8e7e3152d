package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/docstore/docstoretest"
	"github.com/kanri/kanri/internal/export"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// BenchmarkEmbeddedAuditPage measures the audit page's query (newest
// first, 50 a page; the first page, page 30, and one user's records) in a
// tenant of 1,000 records and in one of KANRI_BENCH_AUDIT records
// (1,000,000 unless set), on one embedded store.
func BenchmarkEmbeddedAuditPage(b *testing.B) {
	big := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("KANRI_BENCH_AUDIT")); err == nil && v > 0 {
		big = v
	}
	st := bolttest.Open(b)
	c := st.Container(kanri.ContainerAudit)
	sizes := []int{1000, big}
	for _, n := range sizes {
		loadAudit(b, c, fmt.Sprintf("tenant_audit%d", n), n)
	}
	ctx := context.Background()
	newest := func(cont string, where ...docstore.Filter) docstore.Query {
		return docstore.Query{Type: kanri.TypeAuditLog, Where: where, OrderBy: "timestamp", Desc: true, Limit: 50, Continuation: cont}
	}
	for _, n := range sizes {
		pk := fmt.Sprintf("tenant_audit%d", n)
		b.Run(fmt.Sprintf("Records=%d/FirstPage", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if p, err := c.Query(ctx, pk, newest("")); err != nil || len(p.Items) != 50 {
					b.Fatalf("got %d, %v", len(p.Items), err)
				}
			}
		})
		q := newest("")
		for range 29 {
			p, err := c.Query(ctx, pk, q)
			if err != nil {
				b.Fatal(err)
			}
			q.Continuation = p.Continuation
		}
		b.Run(fmt.Sprintf("Records=%d/Page30", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if p, err := c.Query(ctx, pk, q); err != nil || len(p.Items) != 50 {
					b.Fatalf("got %d, %v", len(p.Items), err)
				}
			}
		})
		b.Run(fmt.Sprintf("Records=%d/ExportCSV", n), func(b *testing.B) {
			exportCSV(b, st, pk, n)
		})
		b.Run(fmt.Sprintf("Records=%d/OneUser", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if p, err := c.Query(ctx, pk, newest("", docstore.Eq("userId", "user_07"))); err != nil || len(p.Items) != 50 {
					b.Fatalf("got %d, %v", len(p.Items), err)
				}
			}
		})
	}
}

// exportCSV measures the whole CSV export of partition pk (n records),
// the audit page's CSV link (export.Service.Audit):
// rows a second, and the largest heap seen while it runs, which must not
// grow with n (the export streams one page at a time).
func exportCSV(b *testing.B, ds docstore.Store, pk string, n int) {
	st := store.New(ds, nil, features.Schema())
	exports := export.New(st, nil, audit.New(st, nil, nil))
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak.Store(max(peak.Load(), ms.HeapInuse))
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	for b.Loop() {
		w := &countingWriter{}
		if err := exports.Audit(context.Background(), w, export.CSV, pk, audit.Filter{}); err != nil {
			b.Fatal(err)
		}
		if w.lines != n+1 {
			b.Fatalf("exported %d lines, want %d", w.lines, n+1)
		}
	}
	close(stop)
	<-sampled
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak_heap_MB")
}

// countingWriter counts the lines written to it.
type countingWriter struct{ lines int }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.lines += bytes.Count(p, []byte{'\n'})
	return len(p), nil
}

// loadAudit writes n audit records in partition pk, a second apart, by
// ten users in turn, 1,000 to a batch.
func loadAudit(b *testing.B, c docstore.Container, pk string, n int) {
	loadAuditBy(b, c, pk, n, func(i int) (string, string) { return fmt.Sprintf("user_%02d", i%10), fmt.Sprintf("u%02d", i%10) })
}

// loadAuditBy writes n audit records in partition pk, a second apart, the
// i-th by the user (id and name) who says, 1,000 to a batch.
func loadAuditBy(b *testing.B, c docstore.Container, pk string, n int, who func(i int) (id, name string)) {
	b.Helper()
	loadAuditShaped(b, c, pk, n, func(i int, rec *kanri.AuditLog) { rec.UserID, rec.UserName = who(i) })
}

// loadAuditShaped writes n audit records in partition pk, a second apart,
// each a user.update that shape may change, 1,000 to a batch.
func loadAuditShaped(b *testing.B, c docstore.Container, pk string, n int, shape func(i int, rec *kanri.AuditLog)) {
	b.Helper()
	start := time.Now()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for chunk := 0; chunk < n; chunk += 1000 {
		var ops []docstore.Op
		for i := chunk; i < min(chunk+1000, n); i++ {
			rec := kanri.AuditLog{
				Doc:       kanri.Doc{ID: fmt.Sprintf("audit_%09d", i), TenantID: pk, Type: kanri.TypeAuditLog, SchemaVersion: "1.0"},
				Timestamp: kanri.NewTime(base.Add(time.Duration(i) * time.Second)),
				Action:    "user.update", Resource: kanri.AuditResource{Type: "User", ID: fmt.Sprintf("user_%d", i%500), Name: "x"},
				Status: kanri.AuditSuccess,
			}
			shape(i, &rec)
			body, err := json.Marshal(rec)
			if err != nil {
				b.Fatal(err)
			}
			ops = append(ops, docstore.Op{Kind: docstore.OpCreate, Body: body})
		}
		if err := docstoretest.Chunked(ops, func(b []docstore.Op) error { _, err := c.Batch(context.Background(), pk, b); return err }); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("loaded %d audit records in %v", n, time.Since(start).Round(time.Millisecond))
}
