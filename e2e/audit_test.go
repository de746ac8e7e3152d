//go:build e2e

package e2e

import (
	"slices"
	"strings"
	"testing"
)

// auditSteps are the steps of the audit log: entries of the earlier steps, filters and the CSV export.
func (s *suite) auditSteps(t *testing.T) {
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
