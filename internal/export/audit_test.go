package export_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/export"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// auditLog returns an audit log on an embedded store, whose records are a
// second apart from 2026-11-01 09:00:01 UTC on, and the exports of it.
func auditLog(t *testing.T) (*audit.Log, *export.Service) {
	t.Helper()
	st := store.New(bolttest.Open(t), nil, features.Schema())
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	l := audit.New(st, slog.New(slog.DiscardHandler), func() time.Time { at = at.Add(time.Second); return at })
	return l, export.New(st, nil, l)
}

// readCSV parses an export's CSV.
func readCSV(t *testing.T, b []byte) [][]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("the CSV does not parse: %v\n%s", err, b)
	}
	return recs
}

// TestAuditCSV checks the audit log's CSV: its header, and the row of a
// record in each column, with its changes as JSON (none an empty cell)
// and the cells a spreadsheet would run as a formula defused.
func TestAuditCSV(t *testing.T) {
	ann := audit.Actor{UserID: "user_1", UserName: "ann", TenantID: "tenant_a", IPAddress: "192.0.2.1", UserAgent: "Firefox", RequestID: "req-1"}
	staff := audit.Actor{UserID: "user_op", UserName: "op", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true}
	tests := []struct {
		name   string
		actor  audit.Actor
		entry  audit.Entry
		tenant string // whose log the row is read from
		want   []string
	}{
		{"with changes", ann,
			audit.Entry{TenantID: "tenant_a", Action: "user.create", Resource: kanri.AuditResource{Type: "User", ID: "user_2", Name: "bob"},
				Changes: map[string]kanri.Change{"email": {After: "bob@a.test"}}},
			"tenant_a",
			[]string{"2026-11-01T09:00:01.0000000Z", "user.create", "success", "user_1", "ann", "User", "user_2", "bob",
				`{"email":{"before":null,"after":"bob@a.test"}}`, "", "192.0.2.1", "Firefox", "req-1", ""}},
		{"no changes", ann,
			audit.Entry{TenantID: "tenant_b", Action: "auth.login_failed", Status: kanri.AuditFailure, Reason: kanri.ReasonWrongPassword},
			"tenant_b",
			[]string{"2026-11-01T09:00:01.0000000Z", "auth.login_failed", "failure", "user_1", "ann", "", "", "", "", "wrong_password", "192.0.2.1", "Firefox", "req-1", ""}},
		{"formulas", audit.Actor{UserName: "=cmd", UserAgent: "\tx", RequestID: "\rx", IPAddress: "-1"},
			audit.Entry{TenantID: "tenant_c", Action: "user.update", Resource: kanri.AuditResource{Type: "User", ID: "user_3", Name: "@SUM(A1)"}, Reason: "+1"},
			"tenant_c",
			[]string{"2026-11-01T09:00:01.0000000Z", "user.update", "success", "", "'=cmd", "User", "user_3", "'@SUM(A1)", "", "'+1", "'-1", "'\tx", "'\rx", ""}},
		{"the operator's copy", staff,
			audit.Entry{TenantID: "tenant_d", Action: "tenant.suspend", Resource: kanri.AuditResource{Type: "Tenant", ID: "tenant_d", Name: "d"},
				Changes: map[string]kanri.Change{"status": {Before: "active", After: "suspended"}}},
			kanri.PrivilegedTenantID,
			[]string{"2026-11-01T09:00:01.0000000Z", "tenant.suspend", "success", "user_op", "op", "Tenant", "tenant_d", "d", "", "", "", "", "", "tenant_d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, exports := auditLog(t)
			l.Record(audit.WithActor(t.Context(), tt.actor), tt.entry)
			var b bytes.Buffer
			if err := exports.Audit(audit.WithActor(t.Context(), tt.actor), &b, export.CSV, tt.tenant, audit.Filter{}); err != nil {
				t.Fatal(err)
			}
			recs := readCSV(t, b.Bytes())
			header := "timestamp,action,status,userId,userName,resourceType,resourceId,resourceName,changes,reason,ipAddress,userAgent,requestId,targetTenantId"
			if got := strings.Join(recs[0], ","); got != header {
				t.Errorf("header: got %s, want %s", got, header)
			}
			if len(recs) != 2 {
				t.Fatalf("got %d records, want 1: %q", len(recs)-1, recs[1:])
			}
			if got := recs[1]; !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestAuditStopsWhenItsContextEnds: an export whose context ended (the
// client left) stops with the context's error.
func TestAuditStopsWhenItsContextEnds(t *testing.T) {
	l, exports := auditLog(t)
	for range 3 {
		l.Record(t.Context(), audit.Entry{TenantID: "tenant_a", Action: "user.update"})
	}
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name      string
		ctx       context.Context
		wantErr   error
		wantLines int
	}{
		{"a live context", t.Context(), nil, 4},
		{"an ended context", ended, context.Canceled, 0}, // not even the header is sent
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			err := exports.Audit(tt.ctx, &b, export.CSV, "tenant_a", audit.Filter{})
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("got error %v, want %v", err, tt.wantErr)
			}
			if got := strings.Count(b.String(), "\n"); got != tt.wantLines {
				t.Errorf("got %d lines, want %d", got, tt.wantLines)
			}
		})
	}
}

// TestAuditByTenant checks the export of the operator's log by the other
// tenant its records are about: only its global administrators may
// filter by tenant, and whoever else does gets EFORBIDDEN and nothing
// written, not even the header.
func TestAuditByTenant(t *testing.T) {
	l, exports := auditLog(t)
	var (
		staff     = audit.Actor{UserID: "user_op", UserName: "op", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true}
		opViewer  = audit.Actor{UserID: "user_pat", UserName: "pat", TenantID: kanri.PrivilegedTenantID}
		acmeAdmin = audit.Actor{UserID: "user_admin", UserName: "admin", TenantID: "tenant_acme"}
		inSupport = audit.Actor{UserID: "user_admin", UserName: "admin", TenantID: "tenant_acme",
			Support: &audit.Support{StaffTenantID: kanri.PrivilegedTenantID, StaffID: "user_op", StaffName: "op", Reason: "Ticket 1"}}
	)
	as := func(a audit.Actor) context.Context { return audit.WithActor(t.Context(), a) }
	l.Record(as(staff), audit.Entry{TenantID: "tenant_acme", Action: "tenant.create"})
	l.Record(as(staff), audit.Entry{TenantID: "tenant_globex", Action: "tenant.create"})
	l.Record(as(staff), audit.Entry{TenantID: kanri.PrivilegedTenantID, Action: "user.create"})
	l.Record(as(staff), audit.Entry{TenantID: "tenant_acme", Action: "tenant.suspend"})
	l.Record(as(inSupport), audit.Entry{TenantID: "tenant_acme", Action: "user.update"})
	l.Record(as(acmeAdmin), audit.Entry{TenantID: "tenant_acme", Action: "user.create"})

	tests := []struct {
		name    string
		actor   audit.Actor
		tenant  string // whose log
		filter  audit.Filter
		want    []string // actions, newest first
		wantErr string
	}{
		{"a global administrator, every tenant", staff, kanri.PrivilegedTenantID, audit.Filter{},
			[]string{"user.update", "tenant.suspend", "user.create", "tenant.create", "tenant.create"}, ""},
		{"a global administrator, by tenant", staff, kanri.PrivilegedTenantID, audit.Filter{Tenant: "tenant_acme"},
			[]string{"user.update", "tenant.suspend", "tenant.create"}, ""},
		{"by tenant and action", staff, kanri.PrivilegedTenantID, audit.Filter{Tenant: "tenant_acme", Action: "tenant."},
			[]string{"tenant.suspend", "tenant.create"}, ""},
		{"by a tenant nobody acted in", staff, kanri.PrivilegedTenantID, audit.Filter{Tenant: "tenant_initech"}, nil, ""},
		{"another of the operator's staff", opViewer, kanri.PrivilegedTenantID, audit.Filter{}, []string{"user.create"}, ""},
		{"another of the operator's staff, by tenant", opViewer, kanri.PrivilegedTenantID, audit.Filter{Tenant: "tenant_acme"}, nil, kanri.EFORBIDDEN},
		{"a tenant's administrator", acmeAdmin, "tenant_acme", audit.Filter{Action: "user."}, []string{"user.create", "user.update"}, ""},
		{"a tenant's administrator, by tenant", acmeAdmin, "tenant_acme", audit.Filter{Tenant: "tenant_globex"}, nil, kanri.EFORBIDDEN},
		{"a global administrator in a tenant's log, by tenant", staff, "tenant_acme", audit.Filter{Tenant: "tenant_acme"}, nil, kanri.EFORBIDDEN},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			err := exports.Audit(as(tt.actor), &b, export.CSV, tt.tenant, tt.filter)
			if got := kanri.ErrorCode(err); got != tt.wantErr {
				t.Fatalf("got error %v, want code %q", err, tt.wantErr)
			}
			if err != nil {
				if b.Len() > 0 {
					t.Errorf("a refused export wrote %q, want nothing", b.String())
				}
				return
			}
			var got []string
			for _, r := range readCSV(t, b.Bytes())[1:] {
				got = append(got, r[1])
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
