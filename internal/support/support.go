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

	"github.com/google/uuid"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/internal/user"
)

// Duration is how long a support session lasts.
const Duration = 30 * time.Minute

// MaxReason is the longest reason, in characters.
const MaxReason = 500

// ApprovalValid is how long after its approval a request opens a
// session.
const ApprovalValid = time.Hour

// Audit actions of support sessions.
const (
	ActionRequest = "support.request"
	ActionApprove = "support.approve"
	ActionDeny    = "support.deny"
	ActionStart   = "support.start"
	ActionEnd     = "support.end"
)

// Why a support session ended (the reason of its support.end record).
const (
	EndedByStaff = "ended"
	EndedExpired = "expired"
	// EndedTurnedOff: the tenant turned support access off meanwhile.
	EndedTurnedOff = "turned_off"
	// EndedRevoked: the user can no longer sign in (deactivated, deleted,
	// signed out everywhere, the session ended by them or an
	// administrator, the tenant closed), or the staff member can no
	// longer open support sessions.
	EndedRevoked = "revoked"
)

// Service opens and ends support sessions.
type Service struct {
	app.Deps
	Tenants *tenant.Service
	Users   *user.Service
	Auth    *auth.Service
	Roles   *role.Service
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
	// RequestID, in a tenant that approves each session, is the approved
	// request the session opens (its reason is the request's).
	RequestID string
}

// Start opens a support session of staff as the request's user, and
// records it in the tenant's audit log and the operator's. It refuses a
// reason that is missing or too long (EINVALID), the staff member's own
// tenant (ECONFLICT), a tenant that turned support access off or is
// closed (EFORBIDDEN, ECONFLICT), and a user who cannot sign in
// (ECONFLICT); an unknown tenant or user is ENOTFOUND.
func (s *Service) Start(ctx context.Context, staff Staff, r Request) (*kanri.Session, error) {
	t, u, err := s.check(ctx, staff, r.TenantID, r.UserID, &r.Reason)
	if err != nil {
		return nil, err
	}
	var req *kanri.SupportRequest // the approved request it opens, if the tenant asks for one
	if t.SupportNeedsApproval() {
		if req, err = s.approved(ctx, staff, t.ID, u.ID, r.RequestID); err != nil {
			return nil, err
		}
		r.Reason = req.Reason
	}
	now := s.Now()
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
	if err := s.create(ctx, t.ID, rec, req); err != nil {
		return nil, err
	}
	changes := map[string]kanri.Change{
		"expiresAt": {After: rec.Support.ExpiresAt.String()},
		"writable":  {After: rec.Support.Writable},
	}
	s.Audit.Record(ctx, audit.Entry{
		TenantID: r.TenantID, Action: ActionStart, Reason: r.Reason, Changes: changes,
		Resource: kanri.AuditResource{Type: kanri.AuditUser, ID: u.ID, Name: u.Username},
		Support:  &kanri.AuditSupport{TenantID: t.ID, StaffID: staff.UserID, StaffName: staff.Name, Reason: r.Reason},
	})
	return rec, nil
}

// check validates what opening a support session or asking for one
// needs: a reason (trimmed in place), another tenant than the staff
// member's, open and allowing support, and a user who can sign in. The
// reason of an approved request is its own: "" is taken as that.
func (s *Service) check(ctx context.Context, staff Staff, tenantID, userID string, reason *string) (*kanri.Tenant, *kanri.User, error) {
	*reason = strings.TrimSpace(*reason)
	if utf8.RuneCountInString(*reason) > MaxReason {
		return nil, nil, kanri.Invalid(map[string]string{"reason": "support.reason_long"})
	}
	if tenantID == staff.TenantID {
		return nil, nil, kanri.E(kanri.ECONFLICT, "support.own_tenant")
	}
	t, err := s.Tenants.Get(ctx, tenantID)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case t.Status == kanri.TenantDeleted:
		return nil, nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	case !t.SupportAllowed():
		return nil, nil, kanri.E(kanri.EFORBIDDEN, "support.off")
	case !t.OpenAt(s.Now()):
		return nil, nil, kanri.E(kanri.ECONFLICT, "support.tenant_closed")
	case *reason == "" && !t.SupportNeedsApproval():
		return nil, nil, kanri.Invalid(map[string]string{"reason": "support.reason_required"})
	}
	u, err := s.Users.Get(ctx, tenantID, userID)
	if err != nil {
		return nil, nil, err
	}
	if !u.IsActive || !u.DeletedAt.IsZero() {
		return nil, nil, kanri.E(kanri.ECONFLICT, "support.user_inactive")
	}
	return t, u, nil
}

// Ask records staff's request to open a tenant that approves each
// support session as one of its users, for its administrators to decide
// (ECONFLICT in a tenant that does not), in the tenant's audit log and
// the operator's.
func (s *Service) Ask(ctx context.Context, staff Staff, tenantID, userID, reason string) (*kanri.SupportRequest, error) {
	t, u, err := s.check(ctx, staff, tenantID, userID, &reason)
	if err != nil {
		return nil, err
	}
	if reason == "" {
		return nil, kanri.Invalid(map[string]string{"reason": "support.reason_required"})
	}
	if !t.SupportNeedsApproval() {
		return nil, kanri.E(kanri.ECONFLICT, "support.no_approval")
	}
	if last, err := s.Latest(ctx, t.ID, staff.UserID, u.ID); err != nil {
		return nil, err
	} else if last != nil && last.Status == kanri.SupportPending {
		return nil, kanri.E(kanri.ECONFLICT, "support.pending")
	}
	now := s.Now()
	req := &kanri.SupportRequest{
		Doc:    kanri.Doc{ID: "supreq_" + strings.ReplaceAll(uuid.NewString(), "-", "")},
		UserID: u.ID, Username: u.Username, StaffTenantID: staff.TenantID, StaffUserID: staff.UserID, StaffName: staff.Name,
		Reason: reason, Status: kanri.SupportPending, RequestedAt: kanri.NewTime(now), TTL: kanri.SupportRequestTTL,
	}
	if err := s.requests(t.ID).Create(ctx, req); err != nil {
		return nil, err
	}
	s.recordBoth(ctx, t.ID, req, ActionRequest)
	return req, nil
}

// Requests returns a tenant's support requests of the last day, newest
// first (at most 50).
func (s *Service) Requests(ctx context.Context, tenantID string) ([]*kanri.SupportRequest, error) {
	rs, _, err := s.requests(tenantID).Query(ctx, docstore.Query{OrderBy: "requestedAt", Desc: true, Limit: 50})
	return rs, err
}

// Latest returns staff's newest request to act as the user, or nil.
func (s *Service) Latest(ctx context.Context, tenantID, staffUserID, userID string) (*kanri.SupportRequest, error) {
	rs, err := s.Requests(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		if r.StaffUserID == staffUserID && r.UserID == userID {
			return r, nil
		}
	}
	return nil, nil
}

// Decide approves or denies a pending request of the tenant, or denies
// (withdraws) an approved one not used yet, as ctx's actor, who must be
// the tenant's own (tenant.OwnDecision; EFORBIDDEN otherwise: the
// operator's staff do not approve their own requests, nor does a support
// session); ECONFLICT when it was decided or used, ESTALE when it changed
// since etag. It is recorded in the tenant's audit log and the
// operator's.
func (s *Service) Decide(ctx context.Context, tenantID, id, etag string, approve bool) (*kanri.SupportRequest, error) {
	if !tenant.OwnDecision(ctx, tenantID) {
		return nil, kanri.E(kanri.EFORBIDDEN, "support.decide_own")
	}
	req, err := s.requests(tenantID).Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if etag != "" && etag != req.ETag {
		return nil, kanri.E(kanri.ESTALE, "stale.action")
	}
	// An approval not used yet may be withdrawn (denied).
	if req.Status != kanri.SupportPending && (approve || req.Status != kanri.SupportApproved) {
		return nil, kanri.E(kanri.ECONFLICT, "support.decided")
	}
	req.Status, req.DecidedAt, req.DecidedBy = kanri.SupportDenied, kanri.NewTime(s.Now()), audit.ActorFrom(ctx).UserName
	action := ActionDeny
	if approve {
		req.Status, action = kanri.SupportApproved, ActionApprove
	}
	if err := s.requests(tenantID).Replace(ctx, req); err != nil {
		return nil, err
	}
	s.recordBoth(ctx, tenantID, req, action)
	return req, nil
}

// create writes the session record rec and, when an approved request
// opens it, marks the request used, at once (one batch of the auth
// container's partition): the request at the version read, so that two
// tabs cannot both open a session with it, and a session that could not
// be written spends no approval.
func (s *Service) create(ctx context.Context, tenantID string, rec *kanri.Session, req *kanri.SupportRequest) error {
	ten := s.Store.Tenant(tenantID)
	if req == nil {
		return ten.Sessions().Create(ctx, rec)
	}
	rec.Support.RequestID = req.ID
	req.Status = kanri.SupportUsed
	used, err := s.requests(tenantID).Op(docstore.OpReplace, req)
	if err != nil {
		return err
	}
	session, err := ten.Sessions().Op(docstore.OpCreate, rec)
	if err != nil {
		return err
	}
	if _, err := ten.Batch(ctx, kanri.ContainerAuth, []docstore.Op{used, session}); err != nil {
		if kanri.IsCode(err, kanri.ESTALE) || kanri.IsCode(err, kanri.ENOTFOUND) {
			return kanri.E(kanri.ECONFLICT, "support.needs_approval")
		}
		return err
	}
	return nil
}

// approved returns the approved request id of staff for the user, if it
// may open a session now.
func (s *Service) approved(ctx context.Context, staff Staff, tenantID, userID, id string) (*kanri.SupportRequest, error) {
	if id == "" {
		return nil, kanri.E(kanri.ECONFLICT, "support.needs_approval")
	}
	req, err := s.requests(tenantID).Get(ctx, id)
	if kanri.IsCode(err, kanri.ENOTFOUND) || kanri.IsCode(err, kanri.EINVALID) || err == nil && (req.StaffUserID != staff.UserID || req.UserID != userID) {
		return nil, kanri.E(kanri.ECONFLICT, "support.needs_approval")
	}
	if err != nil {
		return nil, err
	}
	switch {
	case req.Status == kanri.SupportPending:
		return nil, kanri.E(kanri.ECONFLICT, "support.pending")
	case req.Status != kanri.SupportApproved || s.Now().After(req.DecidedAt.Add(ApprovalValid)):
		return nil, kanri.E(kanri.ECONFLICT, "support.needs_approval")
	}
	return req, nil
}

// recordBoth records action on req in the tenant's audit log and the
// operator's, where metadata.support names the tenant (and the erasure of
// the user reaches the record): audit.Log.Record writes the copy.
func (s *Service) recordBoth(ctx context.Context, tenantID string, req *kanri.SupportRequest, action string) {
	s.Audit.Record(ctx, audit.Entry{
		TenantID: tenantID, Action: action, Reason: req.Reason,
		Changes:  map[string]kanri.Change{"staff": {After: req.StaffName}, "status": {After: req.Status}},
		Resource: kanri.AuditResource{Type: kanri.AuditUser, ID: req.UserID, Name: req.Username},
		Support:  &kanri.AuditSupport{TenantID: tenantID, StaffID: req.StaffUserID, StaffName: req.StaffName, Reason: req.Reason},
	})
}

func (s *Service) requests(tenantID string) *store.Repo[kanri.SupportRequest, *kanri.SupportRequest] {
	return store.Of[kanri.SupportRequest](s.Store.Tenant(tenantID), kanri.ContainerAuth, kanri.TypeSupportRequest)
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

// StaffMay reports whether the staff member behind a support session may
// still hold it: active, not signed out everywhere since their own
// session (token, issued) began, that session not ended, and still a
// global administrator with support.access.
func (s *Service) StaffMay(ctx context.Context, sup *kanri.SessionSupport, token string, issued time.Time) (bool, error) {
	u, err := s.Users.Get(ctx, sup.StaffTenantID, sup.StaffUserID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !u.IsActive || !u.DeletedAt.IsZero() || issued.Before(u.Security.SessionsValidAfter.Truncate(time.Millisecond)) {
		return false, nil
	}
	if _, err := s.Auth.Session(ctx, sup.StaffTenantID, u.ID, token); kanri.IsCode(err, kanri.ENOTFOUND) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	access, err := s.Roles.AccessOf(ctx, sup.StaffTenantID, u.ID)
	if err != nil {
		return false, err
	}
	return access.GlobalAdmin && access.Perms.Has(role.SupportAccess), nil
}

// Actor returns the audit actor of a request of the support session rec:
// the user's, with the staff member behind it.
func Actor(a audit.Actor, rec *kanri.Session) audit.Actor {
	sup := rec.Support
	a.Support = &audit.Support{StaffTenantID: sup.StaffTenantID, StaffID: sup.StaffUserID, StaffName: sup.StaffName, Reason: sup.Reason}
	a.GlobalAdmin = false
	return a
}
