package audit

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// Actors of the tests of the operator's log.
var (
	staff     = Actor{UserID: "user_op", UserName: "op", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true}
	opViewer  = Actor{UserID: "user_pat", UserName: "pat", TenantID: kanri.PrivilegedTenantID}
	acmeAdmin = Actor{UserID: "user_admin", UserName: "admin", TenantID: "tenant_acme"}
	inSupport = Actor{UserID: "user_admin", UserName: "admin", TenantID: "tenant_acme",
		Support: &Support{StaffTenantID: kanri.PrivilegedTenantID, StaffID: "user_op", StaffName: "op", Reason: "Ticket 1"}}
)

// operatorLog returns every record of the operator's log, newest first.
func operatorLog(t *testing.T, st *store.Store) []*kanri.AuditLog {
	t.Helper()
	recs, _, err := st.Tenant(kanri.PrivilegedTenantID).AuditLogs().Query(t.Context(), docstore.Query{OrderBy: "timestamp", Desc: true, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestOperatorCopies(t *testing.T) {
	changes := map[string]kanri.Change{"status": {Before: "active", After: "suspended"}}
	sup := &kanri.AuditSupport{TenantID: "tenant_acme", StaffID: "user_op", StaffName: "op", Reason: "Ticket 2"}
	tests := []struct {
		name  string
		actor Actor
		entry Entry
		// want is the copy the operator's log gets; nil for none.
		want *kanri.AuditLog
	}{
		{"staff suspends a tenant", staff, Entry{TenantID: "tenant_acme", Action: "tenant.suspend", Changes: changes},
			&kanri.AuditLog{UserID: "user_op", Action: "tenant.suspend", Metadata: kanri.AuditMetadata{TargetTenantID: "tenant_acme"}}},
		{"staff in their own tenant", staff, Entry{TenantID: kanri.PrivilegedTenantID, Action: "user.create", Changes: changes}, nil},
		{"staff migrate the installation", staff, Entry{TenantID: kanri.SystemTenantID, Action: "migration.start"}, nil},
		{"a tenant's administrator", acmeAdmin, Entry{TenantID: "tenant_acme", Action: "user.update", Changes: changes}, nil},
		{"the system (a worker)", Actor{}, Entry{TenantID: "tenant_acme", Action: "tenant.suspend", Changes: changes}, nil},
		{"a member of the operator's, no global administrator", opViewer, Entry{TenantID: "tenant_acme", Action: "user.update"},
			&kanri.AuditLog{UserID: "user_pat", Action: "user.update", Metadata: kanri.AuditMetadata{TargetTenantID: "tenant_acme"}}},
		{"a support session", inSupport, Entry{TenantID: "tenant_acme", Action: "user.update", Changes: changes},
			&kanri.AuditLog{UserID: "user_admin", Action: "user.update", Metadata: kanri.AuditMetadata{TargetTenantID: "tenant_acme",
				Support: &kanri.AuditSupport{TenantID: "tenant_acme", StaffID: "user_op", StaffName: "op", Reason: "Ticket 1"}}}},
		{"a step of support access, by the tenant", acmeAdmin, Entry{TenantID: "tenant_acme", Action: "support.approve", Changes: changes, Support: sup},
			&kanri.AuditLog{UserID: "user_admin", Action: "support.approve", Details: kanri.AuditDetails{Changes: changes},
				Metadata: kanri.AuditMetadata{TargetTenantID: "tenant_acme", Support: sup}}},
		{"a step of support access, by staff", staff, Entry{TenantID: "tenant_acme", Action: "support.start", Changes: changes, Support: sup},
			&kanri.AuditLog{UserID: "user_op", Action: "support.start", Details: kanri.AuditDetails{Changes: changes},
				Metadata: kanri.AuditMetadata{TargetTenantID: "tenant_acme", Support: sup}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := store.New(openStore(t), nil, ownTypes)
			l := New(st, slog.New(slog.DiscardHandler), nil)
			l.Record(WithActor(t.Context(), tt.actor), tt.entry)
			own, _, err := st.Tenant(tt.entry.TenantID).AuditLogs().Query(t.Context(), docstore.Query{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if len(own) != 1 || len(own[0].Details.Changes) != len(tt.entry.Changes) || own[0].Metadata.TargetTenantID != "" {
				t.Fatalf("the tenant's own log: got %+v, want the one record with its changes", own)
			}
			var got []*kanri.AuditLog
			if tt.entry.TenantID != kanri.PrivilegedTenantID {
				got = operatorLog(t, st)
			}
			switch {
			case tt.want == nil && len(got) == 0:
			case tt.want == nil || len(got) != 1:
				t.Fatalf("the operator's log: got %d records, want %d", len(got), map[bool]int{true: 1}[tt.want != nil])
			default:
				c := got[0]
				if c.ID == own[0].ID || c.UserID != tt.want.UserID || c.Action != tt.want.Action || c.Metadata.TargetTenantID != tt.want.Metadata.TargetTenantID {
					t.Errorf("the copy: got id %s (own %s), user %s, action %s, target %q; want a new id, %s, %s, %q", c.ID, own[0].ID,
						c.UserID, c.Action, c.Metadata.TargetTenantID, tt.want.UserID, tt.want.Action, tt.want.Metadata.TargetTenantID)
				}
				if got, want := len(c.Details.Changes), len(tt.want.Details.Changes); got != want {
					t.Errorf("the copy's changes: got %d, want %d", got, want)
				}
				if got, want := c.Metadata.Support, tt.want.Metadata.Support; (got == nil) != (want == nil) || got != nil && *got != *want {
					t.Errorf("the copy's metadata.support: got %+v, want %+v", got, want)
				}
			}
		})
	}
}

func TestOperatorLogByTenant(t *testing.T) {
	st := store.New(openStore(t), nil, ownTypes)
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	l := New(st, slog.New(slog.DiscardHandler), func() time.Time { at = at.Add(time.Second); return at })
	as := func(a Actor) context.Context { return WithActor(t.Context(), a) }
	l.Record(as(staff), Entry{TenantID: "tenant_acme", Action: "tenant.create"})
	l.Record(as(staff), Entry{TenantID: "tenant_globex", Action: "tenant.create"})
	l.Record(as(staff), Entry{TenantID: kanri.PrivilegedTenantID, Action: "user.create"})
	l.Record(as(staff), Entry{TenantID: "tenant_acme", Action: "tenant.suspend"})
	l.Record(as(inSupport), Entry{TenantID: "tenant_acme", Action: "user.update"})
	l.Record(as(acmeAdmin), Entry{TenantID: "tenant_acme", Action: "user.create"})

	tests := []struct {
		name    string
		actor   Actor
		tenant  string // whose log
		filter  Filter
		want    []string // actions, newest first
		wantErr string
	}{
		{"a global administrator, every tenant", staff, kanri.PrivilegedTenantID, Filter{},
			[]string{"user.update", "tenant.suspend", "user.create", "tenant.create", "tenant.create"}, ""},
		{"a global administrator, by tenant", staff, kanri.PrivilegedTenantID, Filter{Tenant: "tenant_acme"},
			[]string{"user.update", "tenant.suspend", "tenant.create"}, ""},
		{"by tenant and action", staff, kanri.PrivilegedTenantID, Filter{Tenant: "tenant_acme", Action: "tenant."},
			[]string{"tenant.suspend", "tenant.create"}, ""},
		{"by a tenant nobody acted in", staff, kanri.PrivilegedTenantID, Filter{Tenant: "tenant_initech"}, nil, ""},
		{"another of the operator's staff", opViewer, kanri.PrivilegedTenantID, Filter{}, []string{"user.create"}, ""},
		{"another of the operator's staff, by tenant", opViewer, kanri.PrivilegedTenantID, Filter{Tenant: "tenant_acme"}, nil, kanri.EFORBIDDEN},
		{"a tenant's administrator", acmeAdmin, "tenant_acme", Filter{Action: "user."}, []string{"user.create", "user.update"}, ""},
		{"a tenant's administrator, by tenant", acmeAdmin, "tenant_acme", Filter{Tenant: "tenant_globex"}, nil, kanri.EFORBIDDEN},
		{"a global administrator in a tenant's log, by tenant", staff, "tenant_acme", Filter{Tenant: "tenant_acme"}, nil, kanri.EFORBIDDEN},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, _, err := l.Query(as(tt.actor), tt.tenant, tt.filter)
			if got := kanri.ErrorCode(err); got != tt.wantErr {
				t.Fatalf("got error %v, want code %q", err, tt.wantErr)
			}
			var got []string
			for _, r := range recs {
				got = append(got, r.Action)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestOperatorLogIsServedByAnIndex checks that the operator's log, by
// tenant or without the records about other tenants, walks the index of
// metadata.targetTenantId, never the whole partition.
func TestOperatorLogIsServedByAnIndex(t *testing.T) {
	ds := openStore(t)
	l := New(store.New(ds, nil, ownTypes), slog.New(slog.DiscardHandler), nil)
	tests := []struct {
		name  string
		actor Actor
		f     Filter
		// wantRange is a range the plan must read; "" when the store may
		// choose among the filters' indexes.
		wantRange string
	}{
		{"by tenant", staff, Filter{Tenant: "tenant_acme"}, `audit_target_time[metadata.targetTenantId = "tenant_acme"]`},
		{"by tenant and action", staff, Filter{Tenant: "tenant_acme", Action: "user."}, ""},
		{"by tenant and user", staff, Filter{Tenant: "tenant_acme", User: "user_op"}, ""},
		{"no global administrator", opViewer, Filter{}, `audit_target_time[undefined(metadata.targetTenantId)]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := WithActor(t.Context(), tt.actor)
			q := docstore.Query{Type: kanri.TypeAuditLog, Where: l.where(ctx, kanri.PrivilegedTenantID, tt.f), OrderBy: "timestamp", Desc: true, Limit: 50}
			plan, err := ds.Container(kanri.ContainerAudit).(docstore.Explainer).Explain(kanri.PrivilegedTenantID, q)
			if err != nil {
				t.Fatal(err)
			}
			if plan.Access == docstore.AccessPartition || !plan.Narrowed {
				t.Errorf("got plan %+v, want narrowed index ranges", plan)
			}
			if want := tt.wantRange; want != "" && !slices.Contains(plan.Ranges, want) {
				t.Errorf("got ranges %v, want %s among them", plan.Ranges, want)
			}
			t.Logf("%s: %s %v", tt.name, plan.Access, plan.Ranges)
		})
	}
}
