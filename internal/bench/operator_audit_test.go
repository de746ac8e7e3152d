package bench

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"testing"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// operatorTenants is how many tenants the operator's staff act in, in
// BenchmarkEmbeddedOperatorAudit.
const operatorTenants = 100

// BenchmarkEmbeddedOperatorAudit measures the operator's audit page: a log
// of KANRI_BENCH_OPERATOR_AUDIT records (100,000 unless set), nine in ten
// of them copies of what its staff did in operatorTenants tenants
// (metadata.targetTenantId), the rest its own. Pages of 50, newest first:
// by one tenant (the index audit_target_time), for a viewer who may not
// see the copies (the same index, undefined), and, for comparison, by one
// tenant through a field no index serves (metadata.support.tenantId, so
// the whole partition read and sorted). Then a record's cost: a tenant's
// own (one write) and a global administrator's in a tenant (two).
func BenchmarkEmbeddedOperatorAudit(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("KANRI_BENCH_OPERATOR_AUDIT")); err == nil && v > 0 {
		n = v
	}
	ds := bolttest.Open(b)
	c := ds.Container(kanri.ContainerAudit)
	target := func(i int) string { return fmt.Sprintf("tenant_%03d", i%operatorTenants) }
	loadAuditShaped(b, c, kanri.PrivilegedTenantID, n, func(i int, rec *kanri.AuditLog) {
		rec.UserID, rec.UserName = "user_op", "op"
		if i%10 != 0 {
			rec.Metadata.TargetTenantID = target(i)
			rec.Metadata.Support = &kanri.AuditSupport{TenantID: target(i)}
		}
	})
	log := audit.New(store.New(ds, nil, features.Schema()), slog.New(slog.DiscardHandler), nil)
	staff := audit.WithActor(context.Background(), audit.Actor{UserID: "user_op", UserName: "op", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true})
	viewer := audit.WithActor(context.Background(), audit.Actor{UserID: "user_pat", UserName: "pat", TenantID: kanri.PrivilegedTenantID})
	page := func(b *testing.B, ctx context.Context, f audit.Filter) {
		b.ReportAllocs()
		for b.Loop() {
			if recs, _, err := log.Query(ctx, kanri.PrivilegedTenantID, f); err != nil || len(recs) != 50 {
				b.Fatalf("got %d, %v", len(recs), err)
			}
		}
	}
	b.Run(fmt.Sprintf("Records=%d/ByTenant", n), func(b *testing.B) { page(b, staff, audit.Filter{Tenant: target(7)}) })
	b.Run(fmt.Sprintf("Records=%d/ByTenantAndAction", n), func(b *testing.B) {
		page(b, staff, audit.Filter{Tenant: target(7), Action: "user."})
	})
	b.Run(fmt.Sprintf("Records=%d/Viewer", n), func(b *testing.B) { page(b, viewer, audit.Filter{}) })
	b.Run(fmt.Sprintf("Records=%d/ByTenantUnindexed", n), func(b *testing.B) {
		q := docstore.Query{Type: kanri.TypeAuditLog, Where: []docstore.Filter{docstore.Eq("metadata.support.tenantId", target(7))},
			OrderBy: "timestamp", Desc: true, Limit: 50}
		b.ReportAllocs()
		for b.Loop() {
			if p, err := c.Query(context.Background(), kanri.PrivilegedTenantID, q); err != nil || len(p.Items) != 50 {
				b.Fatalf("got %d, %v", len(p.Items), err)
			}
		}
	})
	acme := audit.WithActor(context.Background(), audit.Actor{UserID: "user_admin", UserName: "admin", TenantID: "tenant_acme"})
	for _, r := range []struct {
		name string
		ctx  context.Context
	}{{"RecordTenantsOwn", acme}, {"RecordStaffInTenant", staff}} {
		b.Run(r.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				log.Record(r.ctx, audit.Entry{TenantID: "tenant_acme", Action: "user.update", Resource: kanri.AuditResource{Type: kanri.AuditUser, ID: "user_1", Name: "bob"}})
			}
		})
	}
}
