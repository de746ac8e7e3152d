package catalog

import (
	"context"
	"strconv"
	"time"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// AssignmentInputOf returns the form's view of an assignment: its expiry
// is the date in loc, the tenant's time zone.
func (s *Service) AssignmentInputOf(a *kanri.ServiceAssignment, loc *time.Location) kanri.AssignmentInput {
	in := kanri.AssignmentInput{ServiceID: a.ServiceID, ExpiresAt: kanri.DateOf(a.ExpiresAt, loc)}
	if fs, own := s.Roles.ConfigFields(a.ServiceID); own {
		in.Config = map[string]string{}
		for _, f := range fs {
			switch v := a.Config[f.Key].(type) {
			case string:
				in.Config[f.Key] = v
			case float64:
				in.Config[f.Key] = strconv.FormatFloat(v, 'f', -1, 64)
			case int:
				in.Config[f.Key] = strconv.Itoa(v)
			}
		}
	} else if len(a.Config) > 0 {
		in.ConfigJSON = kanri.PrettyJSON(a.Config)
	}
	return in
}

// Assignments returns a tenant's service assignments, by service id.
func (s *Service) Assignments(ctx context.Context, tenantID string) ([]*kanri.ServiceAssignment, error) {
	return s.Store.Tenant(tenantID).ServiceAssignments().All(ctx, docstore.Query{OrderBy: "serviceId"})
}

// Assignment returns a tenant's assignment of a service.
func (s *Service) Assignment(ctx context.Context, tenantID, serviceID string) (*kanri.ServiceAssignment, error) {
	id := kanri.AssignmentID(tenantID, serviceID)
	if docstore.CheckKey(tenantID, id) != nil {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return s.Store.Tenant(tenantID).ServiceAssignments().Get(ctx, id)
}

// Assign makes a service available to a tenant. Assigning a service twice
// returns the existing assignment unchanged (created is false). An
// inactive service cannot be assigned.
func (s *Service) Assign(ctx context.Context, tenantID string, in kanri.AssignmentInput) (a *kanri.ServiceAssignment, created bool, err error) {
	t, err := s.OpenTenant(ctx, tenantID)
	if err != nil {
		return nil, false, err
	}
	svc, err := s.Get(ctx, in.ServiceID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, false, kanri.Invalid(kanri.Fields{"serviceId": "validation.service_unknown"})
	} else if err != nil {
		return nil, false, err
	}
	fields, own := s.Roles.ConfigFields(in.ServiceID)
	config, expires, err := in.Parse(t.Location(), fields, own)
	if err != nil {
		return nil, false, err
	}
	if existing, err := s.Assignment(ctx, tenantID, svc.ID); err == nil {
		return existing, false, nil
	} else if !kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, false, err
	}
	if !svc.IsActive {
		return nil, false, kanri.Invalid(kanri.Fields{"serviceId": "validation.service_inactive"})
	}
	if !s.Roles.PlanAllows(t.Plan, svc.ID) {
		// Assigned, it would show active and answer 403 (UsableAt).
		return nil, false, kanri.Invalid(kanri.Fields{"serviceId": "services.plan_excludes"})
	}
	if !expires.IsZero() && !expires.After(s.Now()) {
		return nil, false, kanri.Invalid(kanri.Fields{"expiresAt": "validation.expiry_past"})
	}
	now := kanri.NewTime(s.Now())
	a = &kanri.ServiceAssignment{
		Doc:       kanri.Doc{ID: kanri.AssignmentID(tenantID, svc.ID)},
		ServiceID: svc.ID, Status: kanri.AssignmentActive, Config: config,
		AssignedBy: audit.ActorFrom(ctx).UserID, AssignedAt: now, ActivatedAt: now, ExpiresAt: expires, UpdatedAt: now,
	}
	repo := s.Store.Tenant(tenantID).ServiceAssignments()
	if err := repo.Create(ctx, a); kanri.IsCode(err, kanri.ECONFLICT) {
		a, err = s.Assignment(ctx, tenantID, svc.ID) // assigned meanwhile
		return a, false, err
	} else if err != nil {
		return nil, false, err
	}
	// The service may have been deactivated (and deleted) since it was
	// read: then the assignment is taken back.
	if now, err := s.Get(ctx, svc.ID); err != nil || !now.IsActive {
		if derr := repo.Delete(ctx, a.ID, a.ETag); derr != nil && !kanri.IsCode(derr, kanri.ENOTFOUND) {
			s.Logger.Error("assignment of a service deactivated meanwhile not taken back", "tenant", tenantID, "service", svc.ID, "err", derr)
		}
		return nil, false, kanri.Invalid(kanri.Fields{"serviceId": "validation.service_inactive"})
	}
	s.recordAssignment(ctx, tenantID, a, "service.assign", nil, assignmentFields(a))
	return a, true, nil
}

// UpgradeExpiryDays names the upgrade MoveExpiryDays.
const UpgradeExpiryDays = "assignment-expiry-days"

// MoveExpiryDays moves the expiries an earlier version stored for a date
// to the end of that day in the tenant's time zone (app.MoveExpiryDays).
func (s *Service) MoveExpiryDays(ctx context.Context, tenantID string) error {
	return app.MoveExpiryDays(ctx, s.Deps, tenantID, s.Store.Tenant(tenantID).ServiceAssignments(), func(d *kanri.ServiceAssignment) *kanri.Time { return &d.ExpiresAt })
}

// UpgradeMovedIDs names the upgrade MoveIDs.
const UpgradeMovedIDs = "assignment-moved-ids"

// MoveIDs gives the assignments and usage that an earlier version's
// restore into a new tenant copied with the source tenant's id in their
// ids the ids of the tenant they are in (kanri.MovedID), so the copy's
// services work. Where the tenant has since made a document under the
// right id (the service assigned again), that one is kept and the copy
// is removed. Run again, it moves nothing.
func (s *Service) MoveIDs(ctx context.Context, tenantID string) error {
	as, err := s.Store.Tenant(tenantID).ServiceAssignments().All(ctx, docstore.Query{})
	if err != nil {
		return err
	}
	if err := moveIDs(ctx, s.Store.Tenant(tenantID).ServiceAssignments(), as, func(a *kanri.ServiceAssignment) string {
		return kanri.AssignmentID(tenantID, a.ServiceID)
	}); err != nil {
		return err
	}
	us, err := s.Store.Tenant(tenantID).ServiceUsage().All(ctx, docstore.Query{})
	if err != nil {
		return err
	}
	return moveIDs(ctx, s.Store.Tenant(tenantID).ServiceUsage(), us, func(u *kanri.ServiceUsage) string {
		month, err := time.Parse("2006-01", u.Period)
		if err != nil {
			return u.ID
		}
		return kanri.UsageID(month, tenantID, u.ServiceID)
	})
}

// moveIDs stores each of docs whose id is not want(doc) under that id,
// unless a document is there already, and removes it from its old id.
func moveIDs[E any, P store.Entity[E]](ctx context.Context, repo *store.Repo[E, P], docs []P, want func(P) string) error {
	for _, d := range docs {
		old, id := d.Base().ID, want(d)
		if old == id {
			continue
		}
		d.Base().ID, d.Base().ETag = id, ""
		if err := repo.Create(ctx, d); err != nil && !kanri.IsCode(err, kanri.ECONFLICT) {
			return err
		}
		if err := repo.Delete(ctx, old, ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return err
		}
	}
	return nil
}

// UpdateAssignment saves an edit of an assignment's config and expiry made
// on the version at etag.
func (s *Service) UpdateAssignment(ctx context.Context, tenantID, serviceID, etag string, in kanri.AssignmentInput) (*kanri.ServiceAssignment, error) {
	in.ServiceID = serviceID
	t, err := s.OpenTenant(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	loc := t.Location()
	fields, own := s.Roles.ConfigFields(in.ServiceID)
	config, expires, err := in.Parse(loc, fields, own)
	if err != nil {
		return nil, err
	}
	a, err := s.Assignment(ctx, tenantID, serviceID)
	if err != nil {
		return nil, err
	}
	if a.ETag != etag {
		return nil, kanri.Stale()
	}
	switch {
	case !expires.IsZero() && !a.ExpiresAt.IsZero() && kanri.DateOf(expires, loc) == kanri.DateOf(a.ExpiresAt, loc):
		// The form shows the date of the stored instant: the same date
		// keeps that instant.
		expires = a.ExpiresAt
	case !expires.IsZero() && !expires.After(s.Now()):
		return nil, kanri.Invalid(kanri.Fields{"expiresAt": "validation.expiry_past"})
	}
	before := assignmentFields(a)
	a.Config, a.ExpiresAt = config, expires
	if len(audit.Diff(before, assignmentFields(a))) == 0 {
		return a, nil // nothing changed: no new version, no record
	}
	a.UpdatedAt = kanri.NewTime(s.Now())
	if err := s.Store.Tenant(tenantID).ServiceAssignments().Replace(ctx, a); err != nil {
		return nil, err
	}
	s.recordAssignment(ctx, tenantID, a, "service.assignment_update", before, assignmentFields(a))
	return a, nil
}

// Suspend suspends an active assignment as seen: the tenant cannot use
// the service until it is reactivated.
func (s *Service) Suspend(ctx context.Context, tenantID, serviceID string, seen kanri.Seen) (*kanri.ServiceAssignment, error) {
	return s.setStatus(ctx, tenantID, serviceID, seen, kanri.AssignmentSuspended, "service.suspend")
}

// Reactivate makes a suspended assignment active again. An assignment past
// its expiry needs a new expiry first.
func (s *Service) Reactivate(ctx context.Context, tenantID, serviceID string, seen kanri.Seen) (*kanri.ServiceAssignment, error) {
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, err
	}
	return s.setStatus(ctx, tenantID, serviceID, seen, kanri.AssignmentActive, "service.reactivate")
}

func (s *Service) setStatus(ctx context.Context, tenantID, serviceID string, seen kanri.Seen, status, action string) (*kanri.ServiceAssignment, error) {
	a, err := s.Assignment(ctx, tenantID, serviceID)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	if seen.Stale(a.ETag, a.StatusAt(now)) {
		return nil, kanri.Stale()
	}
	if a.StatusAt(now) == kanri.AssignmentExpired {
		return nil, kanri.E(kanri.ECONFLICT, "services.expired_extend")
	}
	if a.Status == status {
		return a, nil
	}
	before := assignmentFields(a)
	a.Status, a.UpdatedAt = status, kanri.NewTime(now)
	if status == kanri.AssignmentActive {
		a.ActivatedAt = a.UpdatedAt
	}
	if err := s.Store.Tenant(tenantID).ServiceAssignments().Replace(ctx, a); err != nil {
		return nil, err
	}
	s.recordAssignment(ctx, tenantID, a, action, before, assignmentFields(a))
	return a, nil
}

// End removes a tenant's assignment of a service as seen; its usage
// history stays.
func (s *Service) End(ctx context.Context, tenantID, serviceID string, seen kanri.Seen) (*kanri.ServiceAssignment, error) {
	a, err := s.Assignment(ctx, tenantID, serviceID)
	if err != nil {
		return nil, err
	}
	if seen.Stale(a.ETag, a.StatusAt(s.Now())) {
		return nil, kanri.Stale()
	}
	if err := s.Store.Tenant(tenantID).ServiceAssignments().Delete(ctx, a.ID, a.ETag); err != nil {
		return nil, err
	}
	s.recordAssignment(ctx, tenantID, a, "service.end", assignmentFields(a), nil)
	return a, nil
}

// Usable says whether a tenant may use a service now: its plan must
// include the service (Catalog.PlanAllows, the plan table), its assignment
// must be active (not suspended or expired) and the service itself active;
// the API service also needs the tenant's apiAccess flag on. Every feature
// that belongs to a service asks it before serving a tenant.
func (s *Service) Usable(ctx context.Context, tenantID, serviceID string) error {
	t, err := s.Store.Tenant(tenantID).Profile(ctx)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		t = nil // data of no known tenant (a test's): no plan to check
	} else if err != nil {
		return err
	}
	a, svc, err := s.Usability(ctx, tenantID, serviceID)
	if err != nil {
		return err
	}
	return s.UsableAt(t, serviceID, a, svc, s.Now())
}

// UsableFor is Usable for a caller that has read the tenant already.
func (s *Service) UsableFor(ctx context.Context, t *kanri.Tenant, serviceID string) error {
	a, svc, err := s.Usability(ctx, t.ID, serviceID)
	if err != nil {
		return err
	}
	return s.UsableAt(t, serviceID, a, svc, s.Now())
}

// UsableServices returns the services tenant t may use now (UsableAt for
// each of its assignments), read with two queries whatever their number:
// the console shows the pages of those services only.
func (s *Service) UsableServices(ctx context.Context, t *kanri.Tenant) (map[string]bool, error) {
	assigned, err := s.Assignments(ctx, t.ID)
	if err != nil || len(assigned) == 0 {
		return map[string]bool{}, err
	}
	catalog, err := s.List(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*kanri.Service, len(catalog))
	for _, svc := range catalog {
		byID[svc.ID] = svc
	}
	now := s.Now()
	usable := map[string]bool{}
	for _, a := range assigned {
		if svc := byID[a.ServiceID]; svc != nil && s.UsableAt(t, a.ServiceID, a, svc, now) == nil {
			usable[a.ServiceID] = true
		}
	}
	return usable, nil
}

// Usability returns what decides whether a tenant may use a service: its
// assignment (nil when there is none) and, when there is one, the service.
// UsableAt decides from them, without reading, at any time.
func (s *Service) Usability(ctx context.Context, tenantID, serviceID string) (*kanri.ServiceAssignment, *kanri.Service, error) {
	a, err := s.Assignment(ctx, tenantID, serviceID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, err
	}
	svc, err := s.Get(ctx, serviceID)
	if err != nil {
		return nil, nil, err
	}
	return a, svc, nil
}

// UsableAt says whether tenant t may use the service serviceID at now,
// given its assignment of it (nil when there is none) and the service: the
// plan first (an assignment the plan does not include is of no use), then
// the assignment, the service and, for the API, the tenant's apiAccess
// flag. A nil t (no tenant document) skips the tenant's checks.
func (s *Service) UsableAt(t *kanri.Tenant, serviceID string, a *kanri.ServiceAssignment, svc *kanri.Service, now time.Time) error {
	if t != nil && !s.Roles.PlanAllows(t.Plan, serviceID) {
		return kanri.E(kanri.EFORBIDDEN, "services.plan_use")
	}
	if a == nil {
		return kanri.E(kanri.EFORBIDDEN, "services.not_assigned_use")
	}
	switch a.StatusAt(now) {
	case kanri.AssignmentSuspended:
		return kanri.E(kanri.EFORBIDDEN, "services.suspended_use")
	case kanri.AssignmentExpired:
		return kanri.E(kanri.EFORBIDDEN, "services.expired_use")
	}
	if !svc.IsActive {
		return kanri.E(kanri.EFORBIDDEN, "services.inactive_use")
	}
	if t != nil && serviceID == kanri.APIServiceID && !t.APIAccessOn() {
		return kanri.E(kanri.EFORBIDDEN, "services.api_access_off_use")
	}
	return nil
}

func assignmentFields(a *kanri.ServiceAssignment) map[string]any {
	return map[string]any{"status": a.Status, "expiresAt": a.ExpiresAt.String(), "config": a.Config}
}

func (s *Service) recordAssignment(ctx context.Context, tenantID string, a *kanri.ServiceAssignment, action string, before, after map[string]any) {
	s.Audit.Change(ctx, tenantID, action, kanri.AuditResource{Type: kanri.AuditServiceAssignment, ID: a.ID, Name: a.ServiceID}, before, after)
}
