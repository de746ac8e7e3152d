// Package support opens a tenant to the operator's support staff as one
// of its users, with guardrails (docs/security.md, "Support access"): a
// reason, a time limit, read-only unless the tenant allows changes, never
// the user's secrets, and every step in the tenant's audit log and the
// operator's.
package support

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/internal/user"
)

// Duration is how long a support session lasts.
const Duration = 30 * time.Minute

// MaxReason is the longest reason, in characters.
const MaxReason = 500

// Audit actions of support sessions.
const (
	ActionStart = "support.start"
	ActionEnd   = "support.end"
)

// Why a support session ended (the reason of its support.end record).
const (
	EndedByStaff = "ended"
	EndedExpired = "expired"
)

// Service opens and ends support sessions.
type Service struct {
	app.Deps
	Tenants *tenant.Service
	Users   *user.Service
}

// Staff is the staff member who opens a support session.
type Staff struct {
	TenantID, UserID, Name string
}

// Request is a support session asked for: the tenant and user to act as,
// and why.
type Request struct {
	TenantID, UserID, Reason string
	// Token is the cookie token of the new session, IP and UserAgent
	// where it comes from.
	Token, IP, UserAgent string
}

// Start opens a support session of staff as the request's user, and
// records it in the tenant's audit log and the operator's. It refuses a
// reason that is missing or too long (EINVALID), the staff member's own
// tenant (ECONFLICT), a tenant that turned support access off or is
// closed (EFORBIDDEN, ECONFLICT), and a user who cannot sign in
// (ECONFLICT); an unknown tenant or user is ENOTFOUND.
func (s *Service) Start(ctx context.Context, staff Staff, r Request) (*kanri.Session, error) {
	r.Reason = strings.TrimSpace(r.Reason)
	switch {
	case r.Reason == "":
		return nil, kanri.Invalid(map[string]string{"reason": "support.reason_required"})
	case utf8.RuneCountInString(r.Reason) > MaxReason:
		return nil, kanri.Invalid(map[string]string{"reason": "support.reason_long"})
	}
	if r.TenantID == staff.TenantID {
		return nil, kanri.E(kanri.ECONFLICT, "support.own_tenant")
	}
	t, err := s.Tenants.Get(ctx, r.TenantID)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	switch {
	case t.Status == kanri.TenantDeleted:
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	case !t.SupportAllowed():
		return nil, kanri.E(kanri.EFORBIDDEN, "support.off")
	case !t.OpenAt(now):
		return nil, kanri.E(kanri.ECONFLICT, "support.tenant_closed")
	}
	u, err := s.Users.Get(ctx, r.TenantID, r.UserID)
	if err != nil {
		return nil, err
	}
	if !u.IsActive || !u.DeletedAt.IsZero() {
		return nil, kanri.E(kanri.ECONFLICT, "support.user_inactive")
	}
	at := kanri.NewTime(now)
	rec := &kanri.Session{
		Doc:    kanri.Doc{ID: kanri.SessionID(r.Token)},
		UserID: u.ID, Device: "Support: " + staff.Name, IPAddress: r.IP, CreatedAt: at, LastSeenAt: at,
		TTL: int(Duration / time.Second),
		Support: &kanri.SessionSupport{
			StaffTenantID: staff.TenantID, StaffUserID: staff.UserID, StaffName: staff.Name, Reason: r.Reason,
			Writable: t.SupportWritable(), ExpiresAt: kanri.NewTime(now.Add(Duration)),
		},
	}
	if err := s.Store.Tenant(t.ID).Sessions().Create(ctx, rec); err != nil {
		return nil, err
	}
	changes := map[string]kanri.Change{
		"expiresAt": {After: rec.Support.ExpiresAt.String()},
		"writable":  {After: rec.Support.Writable},
	}
	s.Audit.Record(ctx, audit.Entry{
		TenantID: r.TenantID, Action: ActionStart, Reason: r.Reason, Changes: changes,
		Resource: kanri.AuditResource{Type: kanri.AuditUser, ID: u.ID, Name: u.Username},
	})
	s.Audit.Record(ctx, audit.Entry{
		TenantID: staff.TenantID, Action: ActionStart, Reason: r.Reason, Changes: changes,
		Resource: kanri.AuditResource{Type: kanri.AuditTenant, ID: t.ID, Name: t.Name + " / " + u.Username},
	})
	return rec, nil
}

// End ends the support session of rec in its tenant, why EndedByStaff or
// EndedExpired. ctx's actor is the support session: the record of the end
// reaches the operator's log too (audit.Log.Record).
func (s *Service) End(ctx context.Context, tenantID string, rec *kanri.Session, why string) error {
	if rec.Support == nil {
		return kanri.E(kanri.ECONFLICT, "support.not_support")
	}
	if err := s.Store.Tenant(tenantID).Sessions().Delete(ctx, rec.ID, ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
		return err
	}
	s.Audit.Record(ctx, audit.Entry{
		TenantID: tenantID, Action: ActionEnd, Reason: why,
		Resource: kanri.AuditResource{Type: kanri.AuditUser, ID: rec.UserID},
	})
	return nil
}

// Actor returns the audit actor of a request of the support session rec:
// the user's, with the staff member behind it.
func Actor(a audit.Actor, rec *kanri.Session) audit.Actor {
	sup := rec.Support
	a.Support = &audit.Support{StaffTenantID: sup.StaffTenantID, StaffID: sup.StaffUserID, StaffName: sup.StaffName, Reason: sup.Reason}
	a.GlobalAdmin = false
	return a
}
