//go:build e2e

package e2e

import (
	"slices"
	"strings"
	"testing"
)

// auditSteps are the steps of the audit log: entries of the earlier steps, filters and the CSV export, and the operator's log of what its staff did in the tenants.
func (s *suite) auditSteps(t *testing.T) {
	s.step(t, "operator_audit_by_tenant", []string{"admin_creates_tenant_admin", "tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.admin, &s.alice), func(t *testing.T) {
		// The operator's administrator changes acme.
		s.open(t, s.admin, "/tenants", 200)
		s.click(t, s.admin, "tenant-edit-"+tenantName)
		s.atPath(t, s.admin, "/tenants/"+tenantID+"/edit")
		s.fill(t, s.admin, "tenant-industry", "Manufacturing and logistics")
		s.submitStatus(t, s.admin, s.admin.tid("tenant-submit"), "/tenants/"+tenantID, 303)

		// The operator's log shows it, filtered by acme's sign-in name,
		// with what the administrator did in acme before.
		s.open(t, s.admin, "/t/tenant_privileged/audit", 200)
		s.filterAuditBy(t, s.admin, "tenant", tenantName)
		actions := rowAttrs(t, s.admin.tid("audit-row"), "data-action")
		for _, want := range []string{"tenant.update", "tenant.create", "user.create"} {
			if !slices.Contains(actions, want) {
				t.Errorf("the operator's log filtered by %s has no %s row (rows: %v)", tenantName, want, actions)
			}
		}
		if len(actions) > 0 && actions[0] != "tenant.update" {
			t.Errorf("the newest row is %s, want the tenant.update just made", actions[0])
		}
		for _, id := range rowAttrs(t, s.admin.tid("audit-tenant"), "data-tenant") {
			if id != tenantID {
				t.Errorf("the operator's log filtered by %s shows a row of %q", tenantName, id)
			}
		}
		s.containsText(t, s.admin, "audit-table", tenantDisplay)
		s.screenshot(t, s.admin.page, "desktop-operator-audit.png") // for humans, also on success
		s.filterAuditBy(t, s.admin, "tenant", "no-such-tenant")
		s.visible(t, s.admin, "audit-empty")

		// acme's administrator has no such filter, and cannot force one.
		s.open(t, s.alice, "/t/"+tenantID+"/audit", 200)
		s.absent(t, s.alice, "audit-filter-tenant")
		s.open(t, s.alice, "/t/"+tenantID+"/audit?tenant=privileged", 403)
	})

	s.step(t, "audit_entries_visible", []string{"edit_and_deactivate_user", "lockout_and_unlock", "stale_edit_detected"}, s.pagesOf(&s.alice), func(t *testing.T) {
		s.open(t, s.alice, "/t/"+tenantID+"/audit", 200)
		s.visible(t, s.alice, "audit-table")
		// action -> at least this many records in tenant acme
		want := []struct {
			action, status string
			min            int
		}{
			{"user.create", "success", 4}, // alice, carol, bob, dave
			{"user.update", "success", 3}, // carol, dave twice
			{"user.deactivate", "success", 1},
			{"user.unlock", "success", 1},
			{"auth.login_failed", "failure", 7}, // bob 5+1, carol inactive
			{"auth.lockout", "", 1},
			{"auth.login", "success", 2}, // alice, bob
		}
		for _, w := range want {
			actions := s.filterAudit(t, s.alice, w.action)
			if len(actions) < w.min {
				t.Errorf("filter action=%s: %d rows, want at least %d", w.action, len(actions), w.min)
			}
			for _, a := range actions {
				if a != w.action {
					t.Errorf("filter action=%s shows a %s row", w.action, a)
				}
			}
			if w.status != "" {
				for _, st := range rowAttrs(t, s.alice.tid("audit-row"), "data-status") {
					if st != w.status {
						t.Errorf("a %s row has status %q, want %q", w.action, st, w.status)
					}
				}
			}
		}
		if n := len(s.filterAudit(t, s.alice, "auth.lockout")); n != 1 {
			t.Errorf("auth.lockout: %d rows, want exactly 1 (one lockout of bob)", n)
		}
		// A prefix matches every action of the resource.
		prefixed := s.filterAudit(t, s.alice, "user.")
		for _, a := range prefixed {
			if !strings.HasPrefix(a, "user.") {
				t.Errorf("filter action=user. shows a %s row", a)
			}
		}
		for _, a := range []string{"user.create", "user.update", "user.deactivate", "user.unlock"} {
			if !slices.Contains(prefixed, a) {
				t.Errorf("filter action=user. shows no %s row (rows: %v)", a, prefixed)
			}
		}
	})

	s.step(t, "audit_export_csv", []string{"audit_entries_visible"}, s.pagesOf(&s.alice), func(t *testing.T) {
		s.open(t, s.alice, "/t/"+tenantID+"/audit", 200)
		header, rows := s.exportAudit(t, s.alice)
		col := slices.Index(header, "action")
		if col < 0 {
			t.Fatalf("the CSV header %q has no action column", header)
		}
		seen := map[string]int{}
		for _, r := range rows {
			seen[r[col]]++
		}
		for _, a := range []string{"user.create", "user.update", "user.deactivate", "auth.login_failed", "auth.lockout", "auth.login"} {
			if seen[a] == 0 {
				t.Errorf("the CSV has no %s record (actions: %v)", a, seen)
			}
		}

		// The export follows the page's filters.
		s.open(t, s.alice, "/t/"+tenantID+"/audit?action=auth.lockout", 200)
		_, rows = s.exportAudit(t, s.alice)
		if len(rows) != 1 || rows[0][col] != "auth.lockout" {
			t.Errorf("the export of action=auth.lockout has %d rows %q, want the one auth.lockout", len(rows), rows)
		}
	})
}
