package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
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
	st, err := bolt.Open(b.TempDir(), docstore.Specs(), bolt.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	c := st.Container(docstore.Audit)
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

// loadAudit writes n audit records in partition pk, a second apart, by
// ten users in turn, 1,000 to a batch.
func loadAudit(b *testing.B, c docstore.Container, pk string, n int) {
	b.Helper()
	start := time.Now()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for chunk := 0; chunk < n; chunk += 1000 {
		var ops []docstore.Op
		for i := chunk; i < min(chunk+1000, n); i++ {
			ts := base.Add(time.Duration(i) * time.Second)
			rec := kanri.AuditLog{
				Doc:       kanri.Doc{ID: fmt.Sprintf("audit_%09d", i), TenantID: pk, Type: kanri.TypeAuditLog, SchemaVersion: "1.0"},
				Timestamp: kanri.NewTime(ts), UserID: fmt.Sprintf("user_%02d", i%10), UserName: fmt.Sprintf("u%02d", i%10),
				Action: "user.update", Resource: kanri.AuditResource{Type: "User", ID: fmt.Sprintf("user_%d", i%500), Name: "x"},
				Status: kanri.AuditSuccess,
			}
			body, err := json.Marshal(rec)
			if err != nil {
				b.Fatal(err)
			}
			ops = append(ops, docstore.Op{Kind: docstore.OpCreate, Body: body})
		}
		if _, err := c.Batch(context.Background(), pk, ops); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("loaded %d audit records in %v", n, time.Since(start).Round(time.Millisecond))
}
