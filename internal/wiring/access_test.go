package wiring

import (
	"testing"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
)

// TestAccessEvents checks which audited changes tell a tenant's live
// streams that access may have changed, and whom they concern.
func TestAccessEvents(t *testing.T) {
	user := func(id string) kanri.AuditResource { return kanri.AuditResource{Type: kanri.AuditUser, ID: id} }
	for _, tc := range []struct {
		what  string
		e     audit.Entry
		topic string // "" when no event
	}{
		{"a sign-out", audit.Entry{TenantID: "t", Action: "auth.logout", Resource: user("user_a")}, "access:user_a"},
		{"sessions ended", audit.Entry{TenantID: "t", Action: "user.sessions_end", Resource: user("user_a")}, "access:user_a"},
		{"a wrong password", audit.Entry{TenantID: "t", Action: "auth.login_failed", Resource: user("user_a"), Status: kanri.AuditFailure}, ""},
		{"a sign-in of a name that is no one", audit.Entry{TenantID: "t", Action: "auth.login_failed", Resource: kanri.AuditResource{Type: kanri.AuditUser, Name: "x"}}, ""},
		{"a role lost", audit.Entry{TenantID: "t", Action: "role.remove", Subject: "user_b", Resource: kanri.AuditResource{Type: kanri.AuditRoleAssignment, ID: "ra_user_b_s_member"}}, "access:user_b"},
		{"the tenant suspended", audit.Entry{TenantID: "t", Action: "tenant.suspend", Resource: kanri.AuditResource{Type: kanri.AuditTenant, ID: "t"}}, "access"},
		{"a service assignment ended", audit.Entry{TenantID: "t", Action: "service.end", Resource: kanri.AuditResource{Type: kanri.AuditServiceAssignment}}, "access"},
		{"a restore", audit.Entry{TenantID: "t", Action: "backup.restore", Resource: kanri.AuditResource{Type: kanri.AuditBackup}}, "access"},
		{"a message", audit.Entry{TenantID: "t", Action: "message.create", Resource: kanri.AuditResource{Type: kanri.AuditMessage}}, ""},
	} {
		ev, ok := accessEvent(tc.e)
		got := ""
		if ok {
			got = ev.Topic
			if ev.TenantID != tc.e.TenantID {
				t.Errorf("%s: event of tenant %q, want %q", tc.what, ev.TenantID, tc.e.TenantID)
			}
		}
		if got != tc.topic {
			t.Errorf("%s: topic %q, want %q", tc.what, got, tc.topic)
		}
	}
}
