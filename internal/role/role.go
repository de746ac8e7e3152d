package role

import (
	"context"
	"slices"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// Service seeds the catalog and manages role assignments.
type Service struct {
	app.Deps
	// Catalog is Kanri's services and the roles they offer.
	Catalog *Catalog
}

// New returns a role service over the catalog c.
func New(d app.Deps, c *Catalog) *Service { return &Service{Deps: d, Catalog: c} }

// Seed writes the built-in services and role definitions to the _system
// partition, creating what is missing; role definitions that changed are
// updated in place, services are left as the operator edited them.
// Ids are deterministic, so a definition is never duplicated. It returns
// how many documents it wrote.
func (s *Service) Seed(ctx context.Context) (int, error) {
	sys := s.Store.System()
	now := kanri.NewTime(s.Now())
	written := 0
	for _, svc := range s.Catalog.services {
		want := &kanri.Service{
			Doc: kanri.Doc{ID: svc.ID}, Name: svc.Name, Description: svc.Description, Version: "1.0.0",
			IsActive: true, Metadata: map[string]string{"category": svc.Category}, CreatedAt: now, UpdatedAt: now,
		}
		// An existing entry is the operator's to edit and deactivate: the
		// seed leaves it as it is.
		_, err := sys.Services().Get(ctx, svc.ID)
		if kanri.IsCode(err, kanri.ENOTFOUND) {
			err = sys.Services().Create(ctx, want)
			written++
		}
		if err != nil && !kanri.IsCode(err, kanri.ECONFLICT) {
			return written, err
		}
		for _, d := range svc.Roles {
			n, err := s.seedDefinition(ctx, d, now)
			if err != nil {
				return written, err
			}
			written += n
		}
	}
	return written, nil
}

func (s *Service) seedDefinition(ctx context.Context, d Definition, now kanri.Time) (int, error) {
	defs := s.Store.System().RoleDefinitions()
	cur, err := defs.Get(ctx, d.ID())
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		err = defs.Create(ctx, &kanri.ServiceRoleDefinition{
			Doc: kanri.Doc{ID: d.ID()}, ServiceID: d.ServiceID, RoleName: d.RoleName,
			Description: d.Description, Permissions: d.Permissions, UpdatedAt: now,
		})
		if kanri.IsCode(err, kanri.ECONFLICT) { // another instance seeded it
			return 0, nil
		}
		return 1, err
	}
	if err != nil {
		return 0, err
	}
	if cur.RoleName == d.RoleName && cur.Description == d.Description && slices.Equal(cur.Permissions, d.Permissions) {
		return 0, nil
	}
	cur.ServiceID, cur.RoleName, cur.Description, cur.Permissions, cur.UpdatedAt = d.ServiceID, d.RoleName, d.Description, d.Permissions, now
	if err := defs.Replace(ctx, cur); err != nil && !kanri.IsCode(err, kanri.ESTALE) {
		return 0, err
	}
	return 1, nil
}

// ForUser returns a user's role assignments in a tenant.
func (s *Service) ForUser(ctx context.Context, tenantID, userID string) ([]*kanri.RoleAssignment, error) {
	// Assignment ids start with the user's id (docs/data-model.md, "Roles"):
	// the prefix lets the store read only this user's assignments.
	return s.Store.Tenant(tenantID).RoleAssignments().All(ctx, docstore.Query{
		Where:   []docstore.Filter{docstore.Prefix("id", "ra_"+userID+"_"), docstore.Eq("userId", userID)},
		OrderBy: "serviceId",
	})
}

// Counts returns how many of the tenant's users hold each role, keyed by
// kanri.RoleAssignmentID("", serviceID, roleName).
func (s *Service) Counts(ctx context.Context, tenantID string) (map[string]int, error) {
	all, err := s.Store.Tenant(tenantID).RoleAssignments().All(ctx, docstore.Query{})
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, ra := range all {
		counts[kanri.RoleAssignmentID("", ra.ServiceID, ra.RoleName)]++
	}
	return counts, nil
}

// Holders returns the assignments of one role of one service in a tenant.
func (s *Service) Holders(ctx context.Context, tenantID, serviceID, roleName string) ([]*kanri.RoleAssignment, error) {
	return s.Store.Tenant(tenantID).RoleAssignments().All(ctx, docstore.Query{
		Where:   []docstore.Filter{docstore.Eq("serviceId", serviceID), docstore.Eq("roleName", roleName)},
		OrderBy: "assignedAt",
	})
}

// HolderUsers returns the users who hold one role of one service in a
// tenant, by username.
func (s *Service) HolderUsers(ctx context.Context, tenantID, serviceID, roleName string) ([]*kanri.User, error) {
	holders, err := s.Holders(ctx, tenantID, serviceID, roleName)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(holders))
	for i, h := range holders {
		ids[i] = h.UserID
	}
	return s.Store.Tenant(tenantID).Users().ByIDs(ctx, ids, "username")
}

// Grant is a request to give a user a role.
type Grant struct {
	Tenant    *kanri.Tenant
	UserID    string
	ServiceID string
	RoleName  string
}

// Assign gives a user a role. Assigning a role the user already has
// returns the existing assignment with created false.
func (s *Service) Assign(ctx context.Context, g Grant) (ra *kanri.RoleAssignment, created bool, err error) {
	return s.assign(ctx, g, false)
}

// assign is Assign; trusted skips the rules about who may grant
// 全体管理者, for the grants Kanri makes itself (GrantInitial).
func (s *Service) assign(ctx context.Context, g Grant, trusted bool) (ra *kanri.RoleAssignment, created bool, err error) {
	if err := s.TenantOpen(ctx, g.Tenant.ID); err != nil {
		return nil, false, err
	}
	d, err := s.check(ctx, g, trusted)
	if err != nil {
		return nil, false, err
	}
	now := kanri.NewTime(s.Now())
	ra = &kanri.RoleAssignment{
		Doc:    kanri.Doc{ID: kanri.RoleAssignmentID(g.UserID, d.ServiceID, d.RoleName)},
		UserID: g.UserID, ServiceID: d.ServiceID, RoleName: d.RoleName,
		AssignedBy: audit.ActorFrom(ctx).UserID, AssignedAt: now, CreatedAt: now,
	}
	repo := s.Store.Tenant(g.Tenant.ID).RoleAssignments()
	if err := repo.Create(ctx, ra); kanri.IsCode(err, kanri.ECONFLICT) {
		existing, err := repo.Get(ctx, ra.ID)
		return existing, false, err
	} else if err != nil {
		return nil, false, err
	}
	s.record(ctx, g, "role.assign", nil, map[string]any{"serviceId": d.ServiceID, "roleName": d.RoleName})
	return ra, true, nil
}

// Remove takes a role from a user. Nobody can remove the last
// administrator of a tenant. Removing a role the user does not have is not
// an error.
func (s *Service) Remove(ctx context.Context, g Grant) error {
	d, err := s.check(ctx, g, false)
	if err != nil {
		return err
	}
	id := kanri.RoleAssignmentID(g.UserID, d.ServiceID, d.RoleName)
	ten := s.Store.Tenant(g.Tenant.ID)
	if _, err := ten.RoleAssignments().Get(ctx, id); kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil
	} else if err != nil {
		return err
	}
	del := docstore.Op{Kind: docstore.OpDelete, ID: id}
	if IsAdminRole(g.Tenant, d.ServiceID, d.RoleName) {
		_, err = s.guarded(ctx, g.Tenant, g.UserID, []docstore.Op{del}, true, false)
	} else {
		_, err = ten.Batch(ctx, kanri.ContainerAuth, []docstore.Op{del})
	}
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil // removed meanwhile
	}
	if err != nil {
		return err
	}
	s.record(ctx, g, "role.remove", map[string]any{"serviceId": d.ServiceID, "roleName": d.RoleName}, nil)
	return nil
}

// check validates a grant: a known role, the user in the tenant, and the
// rules for 全体管理者 (unless trusted: a grant Kanri makes itself).
func (s *Service) check(ctx context.Context, g Grant, trusted bool) (Definition, error) {
	d, ok := s.Catalog.Find(g.ServiceID, g.RoleName)
	if !ok {
		return Definition{}, kanri.Invalid(kanri.Fields{"role": "validation.role"})
	}
	if d.PrivilegedOnly() && !g.Tenant.IsPrivileged {
		return Definition{}, kanri.E(kanri.EFORBIDDEN, "error.global_admin_privileged_only")
	}
	if d.PrivilegedOnly() && !trusted && !audit.ActorFrom(ctx).GlobalAdmin {
		return Definition{}, kanri.E(kanri.EFORBIDDEN, "error.global_admin_only")
	}
	u, err := s.Store.Tenant(g.Tenant.ID).Users().Get(ctx, g.UserID)
	if err != nil {
		return Definition{}, err
	}
	if !u.DeletedAt.IsZero() {
		return Definition{}, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	if !trusted {
		if err := s.CheckChange(ctx, g.Tenant.ID, g.UserID); err != nil {
			return Definition{}, err
		}
	}
	return d, nil
}

// CheckChange reports EFORBIDDEN when the actor of ctx may not change the
// user: only a global administrator may change a global administrator
// (their profile, password, status or roles), so that nobody takes over a
// higher account.
func (s *Service) CheckChange(ctx context.Context, tenantID, userID string) error {
	if tenantID != kanri.PrivilegedTenantID || audit.ActorFrom(ctx).GlobalAdmin {
		return nil
	}
	access, err := s.access(ctx, tenantID, userID)
	if err != nil {
		return err
	}
	if access.GlobalAdmin {
		return kanri.E(kanri.EFORBIDDEN, "error.global_admin_only")
	}
	return nil
}

// Demote applies ops, a change in the tenant's auth partition that may take
// away the user's administration (deactivating or deleting them), as one
// transactional batch. If the user is an administrator, it refuses
// (ECONFLICT) unless another active administrator remains, and serialises
// with every other such change through the tenant's admin guard.
//
// The rule keeps a tenant from locking itself out. The operator's global
// administrators, acting on a customer tenant, may break it, because
// deleting a tenant needs all its users deactivated first
// (docs/data-model.md, "Soft deletion"), but only when they confirmed it
// (lastAdminConfirmed); else the change is refused with a message that says
// what it would do.
func (s *Service) Demote(ctx context.Context, tenantID, userID string, ops []docstore.Op, lastAdminConfirmed bool) ([]docstore.Result, error) {
	t, err := s.Store.Tenant(tenantID).Profile(ctx)
	if err != nil {
		return nil, err
	}
	// Whether the user is an administrator is decided under the guard: a
	// grant racing with this change is then seen by one or the other.
	return s.guarded(ctx, t, userID, ops, false, lastAdminConfirmed)
}

// IsLastAdmin reports whether the user is the tenant's only active
// administrator: deactivating or deleting them would leave none.
func (s *Service) IsLastAdmin(ctx context.Context, t *kanri.Tenant, userID string) (bool, error) {
	admin, err := s.isAdmin(ctx, t, userID)
	if err != nil || !admin {
		return false, err
	}
	err = s.keepsAnAdmin(ctx, t, userID)
	if kanri.IsCode(err, kanri.ECONFLICT) {
		return true, nil
	}
	return false, err
}

// isAdmin reports whether the user holds the tenant's administrator role.
func (s *Service) isAdmin(ctx context.Context, t *kanri.Tenant, userID string) (bool, error) {
	_, err := s.Store.Tenant(t.ID).RoleAssignments().Get(ctx, kanri.RoleAssignmentID(userID, kanri.AuthServiceID, adminRole(t)))
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return false, nil
	}
	return err == nil, err
}

// guarded applies ops with a write of the tenant's admin guard at the
// version read, after checking that an administrator other than userID
// remains (always when removing the administrator role, else only if the
// user is an administrator). A concurrent guarded change makes the guard
// write stale; the loser checks again.
func (s *Service) guarded(ctx context.Context, t *kanri.Tenant, userID string, ops []docstore.Op, removesAdmin, lastAdminConfirmed bool) ([]docstore.Result, error) {
	ten := s.Store.Tenant(t.ID)
	guards := adminGuards(ten)
	bypass := audit.ActorFrom(ctx).TenantID == kanri.PrivilegedTenantID && !t.IsPrivileged
	return store.Retry(ctx, func() ([]docstore.Result, error) {
		g, err := readGuard(ctx, guards)
		if err != nil {
			return nil, err
		}
		check := removesAdmin
		if !check {
			if check, err = s.isAdmin(ctx, t, userID); err != nil {
				return nil, err
			}
		}
		if check {
			err := s.keepsAnAdmin(ctx, t, userID)
			switch {
			case err == nil, bypass && lastAdminConfirmed && kanri.IsCode(err, kanri.ECONFLICT):
			case bypass && kanri.IsCode(err, kanri.ECONFLICT):
				return nil, kanri.E(kanri.ECONFLICT, "error.last_admin_confirm")
			default:
				return nil, err
			}
		}
		read := g.ETag
		g.Version++
		gop, err := guards.Op(docstore.OpReplace, g)
		if err != nil {
			return nil, err
		}
		results, err := ten.Batch(ctx, kanri.ContainerAuth, append([]docstore.Op{gop}, ops...))
		if err == nil {
			return results[1:], nil
		}
		if !kanri.IsCode(err, kanri.ESTALE) {
			return nil, err
		}
		if cur, gerr := guards.Get(ctx, kanri.AdminGuardID); gerr != nil || cur.ETag == read {
			return nil, err // the change itself was stale, not the guard
		}
		return nil, store.LostRace(err) // another guarded change came first: check again
	})
}

func adminGuards(ten store.Tenant) *store.Repo[kanri.AdminGuard, *kanri.AdminGuard] {
	return store.Of[kanri.AdminGuard](ten, kanri.ContainerAuth, kanri.TypeAdminGuard)
}

// readGuard returns the tenant's admin guard, creating it first if the
// tenant has none yet.
func readGuard(ctx context.Context, guards *store.Repo[kanri.AdminGuard, *kanri.AdminGuard]) (*kanri.AdminGuard, error) {
	return store.Retry(ctx, func() (*kanri.AdminGuard, error) {
		g, err := guards.Get(ctx, kanri.AdminGuardID)
		if !kanri.IsCode(err, kanri.ENOTFOUND) {
			return g, err
		}
		g = &kanri.AdminGuard{Doc: kanri.Doc{ID: kanri.AdminGuardID}}
		err = guards.Create(ctx, g)
		if kanri.IsCode(err, kanri.ECONFLICT) {
			return nil, store.LostRace(err) // created by another meanwhile: read it
		}
		return g, err
	})
}

// keepsAnAdmin reports ECONFLICT unless an active administrator other than
// userID exists in the tenant.
func (s *Service) keepsAnAdmin(ctx context.Context, t *kanri.Tenant, userID string) error {
	holders, err := s.Holders(ctx, t.ID, kanri.AuthServiceID, adminRole(t))
	if err != nil {
		return err
	}
	for _, h := range holders {
		if h.UserID == userID {
			continue
		}
		u, err := s.Store.Tenant(t.ID).Users().Get(ctx, h.UserID)
		if err == nil && u.IsActive && u.DeletedAt.IsZero() {
			return nil
		}
	}
	return kanri.E(kanri.ECONFLICT, "error.last_admin")
}

// GrantInitial makes the user the tenant's administrator (管理者 of every
// service, or 全体管理者 in the operator's tenant) if the tenant has no
// active administrator, and reports whether it did. A tenant's first user
// so becomes its administrator. It decides under the tenant's admin guard,
// in one transaction with the grants: of users created at once, exactly
// one is made administrator, and never because a count was off.
func (s *Service) GrantInitial(ctx context.Context, t *kanri.Tenant, userID string) (bool, error) {
	name := adminRole(t)
	ten := s.Store.Tenant(t.ID)
	guards := adminGuards(ten)
	return store.Retry(ctx, func() (bool, error) {
		g, err := readGuard(ctx, guards)
		if err != nil {
			return false, err
		}
		if err := s.keepsAnAdmin(ctx, t, ""); err == nil {
			return false, nil // the tenant has an administrator
		} else if !kanri.IsCode(err, kanri.ECONFLICT) {
			return false, err
		}
		g.Version++
		gop, err := guards.Op(docstore.OpReplace, g)
		if err != nil {
			return false, err
		}
		ops := []docstore.Op{gop}
		now := kanri.NewTime(s.Now())
		var grants []Grant
		for _, svc := range s.Catalog.services {
			gr := Grant{Tenant: t, UserID: userID, ServiceID: svc.ID, RoleName: name}
			op, err := ten.RoleAssignments().Op(docstore.OpUpsert, &kanri.RoleAssignment{
				Doc:    kanri.Doc{ID: kanri.RoleAssignmentID(userID, svc.ID, name)},
				UserID: userID, ServiceID: svc.ID, RoleName: name,
				AssignedBy: audit.ActorFrom(ctx).UserID, AssignedAt: now, CreatedAt: now,
			})
			if err != nil {
				return false, err
			}
			ops, grants = append(ops, op), append(grants, gr)
		}
		_, err = ten.Batch(ctx, kanri.ContainerAuth, ops)
		if kanri.IsCode(err, kanri.ESTALE) {
			return false, store.LostRace(err) // another change of the administrators came first
		}
		if err != nil {
			return false, err
		}
		for _, gr := range grants {
			s.record(ctx, gr, "role.assign", nil, map[string]any{"serviceId": gr.ServiceID, "roleName": gr.RoleName})
		}
		return true, nil
	})
}

func (s *Service) record(ctx context.Context, g Grant, action string, before, after map[string]any) {
	name := g.UserID
	if u, err := s.Store.Tenant(g.Tenant.ID).Users().Get(ctx, g.UserID); err == nil {
		name = u.Username
	}
	s.Audit.Record(ctx, audit.Entry{
		TenantID: g.Tenant.ID, Action: action, Changes: audit.Diff(before, after), Subject: g.UserID,
		Resource: kanri.AuditResource{Type: kanri.AuditRoleAssignment, ID: kanri.RoleAssignmentID(g.UserID, g.ServiceID, g.RoleName), Name: name},
	})
}

// HasGlobalAdmin reports whether anyone holds 全体管理者 of the auth
// service in the operator's tenant.
func (s *Service) HasGlobalAdmin(ctx context.Context) (bool, error) {
	hs, err := s.Holders(ctx, kanri.PrivilegedTenantID, kanri.AuthServiceID, GlobalAdmin)
	return len(hs) > 0, err
}

// Access is what a user may do: their permissions, and whether they are a
// global administrator (全体管理者 in the operator's tenant), who acts in
// every tenant.
type Access struct {
	Perms       Set
	GlobalAdmin bool
	// Admin says the user holds an administrator role (of any service),
	// or 全体管理者: who a tenant's two-factor rule for administrators
	// concerns.
	Admin bool
}

// AccessOf returns what a user of a tenant may do, from one read of their
// role assignments.
func (s *Service) AccessOf(ctx context.Context, tenantID, userID string) (Access, error) {
	return s.access(ctx, tenantID, userID)
}

func (s *Service) access(ctx context.Context, tenantID, userID string) (Access, error) {
	ras, err := s.ForUser(ctx, tenantID, userID)
	if err != nil {
		return Access{}, err
	}
	return Access{
		Perms: s.Catalog.Effective(ras),
		GlobalAdmin: tenantID == kanri.PrivilegedTenantID &&
			slices.ContainsFunc(ras, func(a *kanri.RoleAssignment) bool { return a.RoleName == GlobalAdmin }),
		Admin: slices.ContainsFunc(ras, func(a *kanri.RoleAssignment) bool { return a.RoleName == Admin || a.RoleName == GlobalAdmin }),
	}, nil
}
