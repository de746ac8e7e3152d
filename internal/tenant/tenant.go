// Package tenant manages tenants for the operator's staff: create, edit,
// suspend, reactivate and soft-delete
// (docs/data-model.md, "Tenants" and "Soft deletion"), keeping the
// operator's tenant index and the name reservations in step.
package tenant

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// Service manages tenants.
type Service struct {
	app.Deps
	// RepairGrace is how old a pending change of a user count must be
	// before the repair settles it: longer than any create or delete
	// takes.
	RepairGrace time.Duration
	// zoneHooks are called after a tenant's time zone changed (OnZoneChange).
	zoneHooks []ZoneHook
}

// New returns a tenant service.
func New(d app.Deps) *Service { return &Service{Deps: d} }

// system returns the _system partition of the tenant container.
func (s *Service) system() store.Tenant { return s.Store.Tenant(kanri.SystemTenantID) }

// Get returns a tenant by id.
func (s *Service) Get(ctx context.Context, id string) (*kanri.Tenant, error) {
	if !strings.HasPrefix(id, "tenant_") || docstore.CheckKey(id, id) != nil {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return s.Store.Tenant(id).Profile(ctx)
}

func names(sys store.Tenant) *store.Repo[kanri.TenantName, *kanri.TenantName] {
	return store.Of[kanri.TenantName](sys, kanri.ContainerTenant, kanri.TypeTenantName)
}

// Create creates a tenant. Its name must be free among tenants that are not
// deleted; the reservation makes that hold under concurrent creates.
func (s *Service) Create(ctx context.Context, in kanri.TenantInput) (*kanri.Tenant, error) {
	if err := in.Validate(true); err != nil {
		return nil, err
	}
	actor := audit.ActorFrom(ctx)
	now := kanri.NewTime(s.Now())
	t := &kanri.Tenant{
		Doc:         kanri.Doc{ID: kanri.TenantIDFromName(strings.ToLower(in.Name))},
		Name:        in.Name,
		DisplayName: in.DisplayName,
		Status:      kanri.TenantActive,
		Plan:        in.Plan,
		MaxUsers:    in.MaxUsers,
		Metadata:    kanri.TenantMetadata{Industry: in.Industry, Country: in.Country},
		CreatedAt:   now,
		UpdatedAt:   now,
		CreatedBy:   actor.UserID,
	}
	t.Subscription = subscriptionOf(in, t.Location())
	// A deleted tenant keeps its id; a new tenant of the same name gets a
	// suffix.
	if _, err := s.Store.Tenant(t.ID).Profile(ctx); err == nil {
		t.ID += "_" + randomSuffix()
	} else if !kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, err
	}

	reservation := &kanri.TenantName{Doc: kanri.Doc{ID: kanri.TenantNameID(in.Name)}, TenantRef: t.ID, CreatedAt: now}
	if err := s.reserve(ctx, reservation); err != nil {
		return nil, err
	}
	if err := s.Store.Tenant(t.ID).Tenants().Create(ctx, t); err != nil {
		s.release(ctx, reservation.ID, t.ID)
		return nil, err
	}
	s.syncListing(ctx, t)
	s.record(ctx, t, "tenant.create", nil, tenantFields(t))
	return t, nil
}

// orphanAge is how old a reservation without its tenant must be before a
// new tenant may take it over: younger ones may belong to a create still
// in flight.
const orphanAge = 10 * time.Minute

// reserve takes a tenant name. A reservation whose tenant is deleted (a
// failed release), or whose tenant never appeared (a crash between the two
// writes of a create) and that is older than orphanAge, is taken over at
// its version, so that no name is lost for good.
func (s *Service) reserve(ctx context.Context, r *kanri.TenantName) error {
	repo := names(s.system())
	err := repo.Create(ctx, r)
	if !kanri.IsCode(err, kanri.ECONFLICT) {
		return err
	}
	cur, err := repo.Get(ctx, r.ID)
	if err != nil {
		return err
	}
	taken := kanri.Invalid(kanri.Fields{"name": "validation.tenant_name_taken"})
	holder, err := s.Store.Tenant(cur.TenantRef).Profile(ctx)
	switch {
	case err == nil && holder.Status != kanri.TenantDeleted:
		return taken
	case kanri.IsCode(err, kanri.ENOTFOUND) && s.Now().Sub(cur.CreatedAt.Time) < orphanAge:
		return taken // perhaps a create still in flight
	case err != nil && !kanri.IsCode(err, kanri.ENOTFOUND):
		return err
	}
	s.Logger.Warn("taking over an orphaned tenant name reservation", "name", r.ID, "was", cur.TenantRef)
	cur.TenantRef, cur.CreatedAt = r.TenantRef, r.CreatedAt
	if err := repo.Replace(ctx, cur); err != nil {
		if kanri.IsCode(err, kanri.ESTALE) {
			return kanri.Invalid(kanri.Fields{"name": "validation.tenant_name_taken"})
		}
		return err
	}
	return nil
}

// Update changes a tenant's editable fields. The edit is stale (ESTALE)
// when the tenant is no longer at etag (if one is given) and the fields the
// form edits changed since it was opened: base holds their values then
// (nil: any change is a conflict). Other changes, such as userCount moving
// as users come and go, do not make it stale.
//
// An end date moved past now renews the subscription: a tenant the expiry
// worker suspended (SuspendedByExpiry) is reactivated, recorded as
// tenant.reactivate with the reason subscription_renewed; one the operator
// suspended stays suspended.
func (s *Service) Update(ctx context.Context, id, etag string, base *kanri.TenantInput, in kanri.TenantInput) (*kanri.Tenant, error) {
	if err := in.Validate(false); err != nil {
		return nil, err
	}
	return store.Retry(ctx, func() (*kanri.Tenant, error) {
		t, err := s.Changeable(ctx, id, kanri.Seen{})
		if err != nil {
			return nil, err
		}
		if etag != "" && etag != t.ETag && (base == nil || InputOf(t) != *base) {
			return nil, kanri.Stale()
		}
		if in.MaxUsers < t.UserCount {
			return nil, kanri.Invalid(kanri.Fields{"maxUsers": "validation.max_users_below_count"})
		}
		before := tenantFields(t)
		t.DisplayName, t.Plan, t.MaxUsers = in.DisplayName, in.Plan, in.MaxUsers
		t.Metadata = kanri.TenantMetadata{Industry: in.Industry, Country: in.Country}
		t.Subscription = subscriptionOf(in, t.Location())
		after := tenantFields(t)
		if len(audit.Diff(before, after)) == 0 {
			return t, nil // nothing changed: no new version, no record
		}
		renewed := t.Status == kanri.TenantSuspended && t.SuspendedReason == kanri.SuspendedByExpiry && !t.SubscriptionEnded(s.Now())
		if renewed {
			t.Status, t.SuspendedReason = kanri.TenantActive, ""
		}
		if err := s.save(ctx, t); err != nil {
			return nil, store.Raced(err) // a race with another write: check again
		}
		s.record(ctx, t, "tenant.update", before, after)
		if renewed {
			s.recordReason(ctx, t, "tenant.reactivate", map[string]any{"status": kanri.TenantSuspended}, map[string]any{"status": t.Status}, kanri.ReasonSubscriptionRenewed)
		}
		return t, nil
	})
}

// subscriptionOf returns the subscription dates of in, read in loc (the
// tenant's time zone). The input is validated: the dates parse.
func subscriptionOf(in kanri.TenantInput, loc *time.Location) kanri.Subscription {
	start, _ := kanri.DateIn(in.StartDate, loc)
	end, _ := kanri.DateIn(in.EndDate, loc)
	return kanri.Subscription{StartDate: start, EndDate: end}
}

// InputOf returns the fields of t that the edit form changes, as the form
// starts with them.
func InputOf(t *kanri.Tenant) kanri.TenantInput {
	return kanri.TenantInput{
		Name: t.Name, DisplayName: t.DisplayName, Plan: t.Plan, MaxUsers: t.MaxUsers,
		Industry: t.Metadata.Industry, Country: t.Metadata.Country,
		StartDate: kanri.DateOf(t.Subscription.StartDate, t.Location()),
		EndDate:   kanri.DateOf(t.Subscription.EndDate, t.Location()),
	}
}

// SetStatus suspends (active → suspended) or reactivates (suspended →
// active) a tenant as seen. A suspension is the operator's
// (SuspendedByOperator): a renewal of the subscription does not undo it.
// Reactivating a tenant whose subscription has ended is allowed: the
// expiry worker suspends it again at its next run unless the end date
// moves.
func (s *Service) SetStatus(ctx context.Context, id string, seen kanri.Seen, status string) (*kanri.Tenant, error) {
	return s.act(ctx, id, seen, func(t *kanri.Tenant) (string, error) {
		switch {
		case status == kanri.TenantSuspended && t.Status == kanri.TenantActive:
			t.Status, t.SuspendedReason = status, kanri.SuspendedByOperator
			return "tenant.suspend", nil
		case status == kanri.TenantActive && t.Status == kanri.TenantSuspended:
			t.Status, t.SuspendedReason = status, ""
			return "tenant.reactivate", nil
		}
		return "", kanri.E(kanri.ECONFLICT, "error.tenant_transition")
	})
}

// Delete soft-deletes a tenant as seen. It is refused while the tenant has
// users or active service assignments. The name becomes free for a new
// tenant (docs/data-model.md, "Soft deletion").
func (s *Service) Delete(ctx context.Context, id string, seen kanri.Seen) (*kanri.Tenant, error) {
	t, err := s.act(ctx, id, seen, func(t *kanri.Tenant) (string, error) {
		if err := s.checkEmpty(ctx, t.ID); err != nil {
			return "", err
		}
		t.Status, t.DeletedAt, t.DeletedBy = kanri.TenantDeleted, kanri.NewTime(s.Now()), audit.ActorFrom(ctx).UserID
		return "tenant.delete", nil
	})
	if err != nil {
		return nil, err
	}
	s.release(ctx, kanri.TenantNameID(t.Name), t.ID)
	return t, nil
}

// Undeletable returns, for each of the listed tenants that cannot be
// deleted now, the message key of the reason: the list shows it instead of
// a Delete that would only fail. It costs two queries per tenant, each
// stopping at its first match: O(page), not O(tenants).
func (s *Service) Undeletable(ctx context.Context, tenants []*kanri.TenantListing) (map[string]string, error) {
	out := map[string]string{}
	for _, t := range tenants {
		if t.IsPrivileged || t.Status == kanri.TenantDeleted {
			continue
		}
		err := s.checkEmpty(ctx, t.ID)
		if key, _ := kanri.ErrorMessage(err); kanri.IsCode(err, kanri.ECONFLICT) {
			out[t.ID] = key
		} else if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkEmpty refuses (ECONFLICT) to delete a tenant that still has active
// users or active service assignments.
func (s *Service) checkEmpty(ctx context.Context, id string) error {
	ten := s.Store.Tenant(id)
	users, _, err := ten.Users().Query(ctx, docstore.Query{Where: []docstore.Filter{docstore.Eq("isActive", true)}, Limit: 1})
	if err != nil {
		return err
	}
	if len(users) > 0 {
		return kanri.E(kanri.ECONFLICT, "error.tenant_has_users")
	}
	// A tenant has a few assignments at most; one past its expiry no
	// longer counts, whatever its stored status.
	assignments, err := ten.ServiceAssignments().All(ctx, docstore.Query{Where: []docstore.Filter{docstore.Eq("status", kanri.AssignmentActive)}})
	if err != nil {
		return err
	}
	for _, a := range assignments {
		if a.StatusAt(s.Now()) == kanri.AssignmentActive {
			return kanri.E(kanri.ECONFLICT, "error.tenant_has_assignments")
		}
	}
	return nil
}

// act applies an action to the tenant as seen and records it: fn changes
// the tenant and names the action. A write that loses a race with another
// (a user count moving, say) is made again on the newer version, whose
// status fn checks again.
func (s *Service) act(ctx context.Context, id string, seen kanri.Seen, fn func(*kanri.Tenant) (string, error)) (*kanri.Tenant, error) {
	return store.Retry(ctx, func() (*kanri.Tenant, error) {
		t, err := s.Changeable(ctx, id, seen)
		if err != nil {
			return nil, err
		}
		before := map[string]any{"status": t.Status}
		action, err := fn(t)
		if err != nil {
			return nil, err
		}
		if err := s.save(ctx, t); err != nil {
			return nil, store.Raced(err)
		}
		s.record(ctx, t, action, before, map[string]any{"status": t.Status})
		return t, nil
	})
}

// Changeable returns the tenant if the operator may change it: not the
// operator's own, not deleted, and not changed in status since seen.
func (s *Service) Changeable(ctx context.Context, id string, seen kanri.Seen) (*kanri.Tenant, error) {
	t, err := s.Get(ctx, id)
	switch {
	case err != nil:
		return nil, err
	case t.IsPrivileged:
		return nil, kanri.E(kanri.EFORBIDDEN, "error.privileged_readonly")
	case t.Status == kanri.TenantDeleted:
		return nil, kanri.E(kanri.ECONFLICT, "error.tenant_deleted")
	case seen.Stale(t.ETag, t.Status):
		return nil, kanri.Stale()
	}
	return t, nil
}

// save replaces the tenant (checking its ETag) and refreshes its listing.
func (s *Service) save(ctx context.Context, t *kanri.Tenant) error {
	return s.saveWith(ctx, t)
}

// saveWith replaces the tenant (checking its ETag) together with ops in
// its partition of the tenant container, in one transaction, and
// refreshes its listing.
func (s *Service) saveWith(ctx context.Context, t *kanri.Tenant, ops ...docstore.Op) error {
	t.UpdatedAt = kanri.NewTime(s.Now())
	if by := audit.ActorFrom(ctx).UserID; by != "" {
		t.UpdatedBy = by
	}
	ten := s.Store.Tenant(t.ID)
	if len(ops) == 0 {
		if err := ten.Tenants().Replace(ctx, t); err != nil {
			return err
		}
	} else {
		op, err := ten.Tenants().Op(docstore.OpReplace, t)
		if err != nil {
			return err
		}
		results, err := ten.Batch(ctx, kanri.ContainerTenant, append([]docstore.Op{op}, ops...))
		if err != nil {
			return err
		}
		t.ETag = results[0].ETag
	}
	s.syncListing(ctx, t)
	return nil
}

// release frees a tenant name reserved for tenantRef, and only then: a
// reservation taken over meanwhile belongs to someone else.
func (s *Service) release(ctx context.Context, nameID, tenantRef string) {
	repo := names(s.system())
	cur, err := repo.Get(ctx, nameID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return
	}
	if err == nil && cur.TenantRef != tenantRef {
		return
	}
	if err == nil {
		err = repo.Delete(ctx, nameID, cur.ETag)
	}
	if err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) && !kanri.IsCode(err, kanri.ESTALE) {
		s.Logger.Error("tenant name reservation not released", "id", nameID, "err", err)
	}
}

func (s *Service) record(ctx context.Context, t *kanri.Tenant, action string, before, after map[string]any) {
	s.recordReason(ctx, t, action, before, after, "")
}

func (s *Service) recordReason(ctx context.Context, t *kanri.Tenant, action string, before, after map[string]any, reason string) {
	s.Audit.Record(ctx, audit.Entry{
		TenantID: t.ID,
		Action:   action,
		Resource: kanri.AuditResource{Type: kanri.AuditTenant, ID: t.ID, Name: t.Name},
		Changes:  audit.Diff(before, after),
		Reason:   reason,
	})
}

func tenantFields(t *kanri.Tenant) map[string]any {
	return map[string]any{
		"name": t.Name, "displayName": t.DisplayName, "plan": t.Plan, "maxUsers": t.MaxUsers,
		"status": t.Status, "industry": t.Metadata.Industry, "country": t.Metadata.Country,
		// The dates as the operator enters them: days of the tenant's zone.
		"subscription": map[string]any{
			"startDate": kanri.DateOf(t.Subscription.StartDate, t.Location()),
			"endDate":   kanri.DateOf(t.Subscription.EndDate, t.Location()),
		},
	}
}

func randomSuffix() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// EnsurePrivileged returns the operator's own tenant
// (docs/data-model.md, "The operator's tenant"), creating it first if it
// does not exist. Several instances may start at once on an empty store:
// the one whose create wins records it, the others read it; each makes sure
// of its name reservation and index entry, which a start that stopped
// half-way may lack.
func (s *Service) EnsurePrivileged(ctx context.Context) (*kanri.Tenant, error) {
	if t, err := s.Store.Tenant(kanri.PrivilegedTenantID).Profile(ctx); err == nil {
		return t, nil
	} else if !kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, err
	}
	now := kanri.NewTime(s.Now())
	t := &kanri.Tenant{
		Doc:          kanri.Doc{ID: kanri.PrivilegedTenantID},
		Name:         "privileged",
		DisplayName:  "管理会社",
		IsPrivileged: true,
		Status:       kanri.TenantActive,
		Plan:         kanri.PlanPrivileged,
		MaxUsers:     50,
		CreatedAt:    now,
		UpdatedAt:    now,
		CreatedBy:    audit.ActorFrom(ctx).UserID,
	}
	created := true
	if err := s.Store.Tenant(t.ID).Tenants().Create(ctx, t); kanri.IsCode(err, kanri.ECONFLICT) {
		created = false // another instance was first
		if t, err = s.Store.Tenant(kanri.PrivilegedTenantID).Profile(ctx); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	res := &kanri.TenantName{Doc: kanri.Doc{ID: kanri.TenantNameID(t.Name)}, TenantRef: t.ID, CreatedAt: t.CreatedAt}
	if err := names(s.system()).Upsert(ctx, res); err != nil {
		return nil, err
	}
	s.syncListing(ctx, t)
	if created {
		s.record(ctx, t, "tenant.create", nil, tenantFields(t))
	}
	return t, nil
}
