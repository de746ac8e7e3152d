// Package catalog manages the service catalog and its health, which
// services each tenant may use and what they used
// (docs/data-model.md, "Services"). Features that belong to a service ask
// Usable before they serve a tenant and report what the tenant used through
// AddUsage.
package catalog

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/store"
)

// Service manages the catalog, the assignments and the usage.
type Service struct {
	app.Deps
	// Roles is Kanri's own services and their roles.
	Roles *role.Catalog
	// HealthInterval is how often the services are checked (0: never).
	HealthInterval time.Duration
	// client checks the services' health.
	client *http.Client
}

// healthTimeout is how long a health check may take.
const healthTimeout = 5 * time.Second

// New returns a service manager over Kanri's own services and their
// roles.
func New(d app.Deps, roles *role.Catalog) *Service {
	return &Service{Deps: d, Roles: roles, client: &http.Client{Timeout: healthTimeout}}
}

// InputOf returns the form's view of a service.
func InputOf(s *kanri.Service) kanri.ServiceInput {
	return kanri.ServiceInput{
		Name: s.Name, Description: s.Description, Version: s.Version, BaseURL: s.BaseURL,
		RoleEndpoint: s.RoleEndpoint, HealthEndpoint: s.HealthEndpoint,
		Category: s.Metadata["category"], Icon: s.Metadata["icon"],
	}
}

// BuiltIn reports whether id is one of the services Kanri itself
// provides, which cannot be removed from the catalog.
func (s *Service) BuiltIn(id string) bool { return s.Roles.Has(id) }

// List returns the whole catalog, by id. The catalog is small (tens of
// services), so it is read whole.
func (s *Service) List(ctx context.Context) ([]*kanri.Service, error) {
	return s.Store.System().Services().All(ctx, docstore.Query{})
}

// Get returns one service of the catalog.
func (s *Service) Get(ctx context.Context, id string) (*kanri.Service, error) {
	if docstore.CheckKey(kanri.SystemTenantID, id) != nil {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return s.Store.System().Services().Get(ctx, id)
}

// Create adds an external service to the catalog under id (a slug).
func (s *Service) Create(ctx context.Context, id string, in kanri.ServiceInput) (*kanri.Service, error) {
	id = strings.TrimSpace(id)
	if err := in.Validate(id, true); err != nil {
		return nil, err
	}
	now := kanri.NewTime(s.Now())
	svc := &kanri.Service{Doc: kanri.Doc{ID: id}, IsActive: true, CreatedAt: now}
	apply(svc, in, now)
	if err := s.Store.System().Services().Create(ctx, svc); kanri.IsCode(err, kanri.ECONFLICT) {
		return nil, kanri.Invalid(kanri.Fields{"id": "validation.service_id_taken"})
	} else if err != nil {
		return nil, err
	}
	s.record(ctx, svc, "service.create", nil, fields(svc))
	return svc, nil
}

// Update saves an edit of a service made on the version at etag.
func (s *Service) Update(ctx context.Context, id, etag string, in kanri.ServiceInput) (*kanri.Service, error) {
	if err := in.Validate(id, false); err != nil {
		return nil, err
	}
	svc, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if svc.ETag != etag {
		return nil, kanri.Stale()
	}
	before, updated := fields(svc), svc.UpdatedAt
	apply(svc, in, kanri.NewTime(s.Now()))
	if len(audit.Diff(before, fields(svc))) == 0 {
		svc.UpdatedAt = updated
		return svc, nil // nothing changed: no new version, no record
	}
	if err := s.Store.System().Services().Replace(ctx, svc); err != nil {
		return nil, err
	}
	s.record(ctx, svc, "service.update", before, fields(svc))
	return svc, nil
}

// SetActive deactivates or reactivates a service as seen. A deactivated
// service cannot be assigned, and the tenants it is assigned to cannot use
// it (Usable) until it is reactivated; their assignments are kept.
func (s *Service) SetActive(ctx context.Context, id string, seen kanri.Seen, active bool) (*kanri.Service, error) {
	svc, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if seen.Stale(svc.ETag, activeState(svc.IsActive)) {
		return nil, kanri.Stale()
	}
	if svc.IsActive == active {
		return svc, nil
	}
	before := fields(svc)
	svc.IsActive, svc.UpdatedAt = active, kanri.NewTime(s.Now())
	if err := s.Store.System().Services().Replace(ctx, svc); err != nil {
		return nil, err
	}
	action := "service.deactivate"
	if active {
		action = "service.reactivate"
	}
	s.record(ctx, svc, action, before, fields(svc))
	return svc, nil
}

// inUseShown is how many of the tenants that still have a service its
// refused deletion names.
const inUseShown = 5

// inUse is the refusal to delete a service that tenants still have: it
// names them (the first inUseShown, by display name, from the operator's
// index) and says whether there are others.
func (s *Service) inUse(ctx context.Context, used []*kanri.ServiceAssignment, more bool) error {
	ids := make([]string, len(used))
	for i, a := range used {
		ids[i] = a.TenantID
	}
	ls, err := store.Of[kanri.TenantListing](s.Store.Tenant(kanri.SystemTenantID), kanri.ContainerTenant, kanri.TypeTenantListing).ByIDs(ctx, slices.Compact(slices.Sorted(slices.Values(ids))), "")
	if err != nil {
		return err
	}
	names := make([]string, 0, len(ls))
	for _, l := range ls {
		names = append(names, l.DisplayName)
	}
	slices.Sort(names)
	if more {
		return kanri.E(kanri.ECONFLICT, "services.in_use_by_more", strings.Join(names, ", "))
	}
	return kanri.E(kanri.ECONFLICT, "services.in_use_by", strings.Join(names, ", "))
}

// Delete removes an external service that no tenant has assigned. The
// built-in services stay.
func (s *Service) Delete(ctx context.Context, id string, seen kanri.Seen) (*kanri.Service, error) {
	svc, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if s.BuiltIn(id) {
		return nil, kanri.E(kanri.ECONFLICT, "services.builtin")
	}
	if seen.Stale(svc.ETag, activeState(svc.IsActive)) {
		return nil, kanri.Stale()
	}
	// Only an inactive service is deleted: no assignment of it can be
	// made once the check below has passed (Assign takes back one made
	// while the service was being deactivated).
	if svc.IsActive {
		return nil, kanri.E(kanri.ECONFLICT, "services.deactivate_first")
	}
	used, more, err := s.Store.Privileged().ServiceAssignments(ctx, id, inUseShown, "")
	if err != nil {
		return nil, err
	}
	if len(used) > 0 {
		return nil, s.inUse(ctx, used, more != "")
	}
	if err := s.Store.System().Services().Delete(ctx, id, svc.ETag); err != nil {
		return nil, err
	}
	if err := s.Store.System().ServiceHealth().Delete(ctx, kanri.ServiceHealthID(id), ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
		s.Logger.Warn("health of a deleted service left", "service", id, "err", err)
	}
	s.record(ctx, svc, "service.delete", fields(svc), nil)
	return svc, nil
}

// activeState is a service's state as action forms show it.
func activeState(active bool) string {
	if active {
		return "active"
	}
	return "inactive"
}

func apply(svc *kanri.Service, in kanri.ServiceInput, now kanri.Time) {
	svc.Name, svc.Description, svc.Version = in.Name, in.Description, in.Version
	svc.BaseURL, svc.RoleEndpoint, svc.HealthEndpoint = in.BaseURL, in.RoleEndpoint, in.HealthEndpoint
	svc.Metadata = map[string]string{}
	if in.Category != "" {
		svc.Metadata["category"] = in.Category
	}
	if in.Icon != "" {
		svc.Metadata["icon"] = in.Icon
	}
	svc.UpdatedAt = now
}

func fields(svc *kanri.Service) map[string]any {
	return map[string]any{
		"name": svc.Name, "description": svc.Description, "version": svc.Version, "baseUrl": svc.BaseURL,
		"roleEndpoint": svc.RoleEndpoint, "healthEndpoint": svc.HealthEndpoint, "isActive": svc.IsActive,
		"category": svc.Metadata["category"], "icon": svc.Metadata["icon"],
	}
}

func (s *Service) record(ctx context.Context, svc *kanri.Service, action string, before, after map[string]any) {
	s.Audit.Change(ctx, kanri.PrivilegedTenantID, action, kanri.AuditResource{Type: kanri.AuditService, ID: svc.ID, Name: svc.Name}, before, after)
}
