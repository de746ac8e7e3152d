package people

import (
	"context"
	"maps"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/httpkit"
)

// roleServices turns the catalog into the role pages' view, leaving out
// 全体管理者 outside the operator's tenant. held, when not nil, marks the
// roles a user holds; counts gives the number of holders per role id.
func (s *Pages) roleServices(c echo.Context, t *kanri.Tenant, held map[string]bool, counts map[string]int) []views.RoleService {
	var out []views.RoleService
	for _, svc := range s.Roles.Catalog.Services() {
		vs := views.RoleService{ID: svc.ID, Name: svc.Name, Description: svc.Description}
		for _, d := range svc.Roles {
			if d.PrivilegedOnly() && !t.IsPrivileged {
				continue
			}
			id := kanri.RoleAssignmentID("", d.ServiceID, d.RoleName)
			vs.Roles = append(vs.Roles, views.RoleInfo{
				Key: d.Key, Name: d.RoleName, Description: d.Description, Permissions: d.Permissions,
				Holders: counts[id], Assigned: held[id],
				Grantable: httpkit.Can(c, role.RolesUpdate) && (!d.PrivilegedOnly() || httpkit.IsGlobalAdmin(c)),
			})
		}
		out = append(out, vs)
	}
	return out
}

// listRoles shows the services' roles, their permissions and how many of
// the tenant's users hold each.
func (s *Pages) listRoles(c echo.Context) error {
	t := httpkit.Tenant(c)
	counts, err := s.Roles.Counts(c.Request().Context(), t.ID)
	if err != nil {
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.RolesPage(s.Page(c, "roles.title", "roles"), s.roleServices(c, t, nil, counts)))
}

// roleHolders lists the users who hold one role.
func (s *Pages) roleHolders(c echo.Context) error {
	t := httpkit.Tenant(c)
	d, ok := s.Roles.Catalog.FindKey(c.Param("service"), c.Param("role"))
	if !ok || (d.PrivilegedOnly() && !t.IsPrivileged) {
		return echo.ErrNotFound
	}
	users, err := s.Roles.HolderUsers(c.Request().Context(), t.ID, d.ServiceID, d.RoleName)
	if err != nil {
		return err
	}
	var svc views.RoleService
	for _, rs := range s.roleServices(c, t, nil, nil) {
		if rs.ID == d.ServiceID {
			svc = rs
		}
	}
	info := views.RoleInfo{Key: d.Key, Name: d.RoleName, Description: d.Description, Permissions: d.Permissions}
	return httpkit.Render(c, http.StatusOK, views.RoleHoldersPage(s.Page(c, "roles.title", "roles"), svc, info, users))
}

// userRoles shows a user's roles and effective permissions.
func (s *Pages) userRoles(c echo.Context) error {
	u, err := s.routeUser(c)
	if err != nil {
		return err
	}
	return s.renderUserRoles(c, u, http.StatusOK, "")
}

// renderUserRoles renders the user's roles page, or for htmx only its
// panel, with errMsg (translated) when a change was refused.
func (s *Pages) renderUserRoles(c echo.Context, u *kanri.User, status int, errMsg string) error {
	t := httpkit.Tenant(c)
	ras, err := s.Roles.ForUser(c.Request().Context(), t.ID, u.ID)
	if err != nil {
		return err
	}
	held := map[string]bool{}
	for _, ra := range ras {
		held[kanri.RoleAssignmentID("", ra.ServiceID, ra.RoleName)] = true
	}
	effective := slices.Sorted(maps.Keys(s.Roles.Catalog.Effective(ras)))
	p := s.Page(c, "roles.title", "users")
	services := s.roleServices(c, t, held, nil)
	if httpkit.IsHTMX(c) {
		if status == http.StatusForbidden {
			status = http.StatusConflict // htmx swaps 409 and 422 only
		}
		return httpkit.Render(c, status, views.UserRolesPanel(p, u, services, effective, errMsg))
	}
	if errMsg != "" {
		p.Flash = views.Flash{Kind: "error", Message: errMsg}
	}
	return httpkit.Render(c, status, views.UserRolesPage(p, u, services, effective, ""))
}

// assignRole gives the user a role; assigning a held role changes nothing.
func (s *Pages) assignRole(c echo.Context) error {
	return s.changeRole(c, "roles.assigned", func(ctx context.Context, g role.Grant) error {
		_, _, err := s.Roles.Assign(ctx, g)
		return err
	})
}

// removeRole takes a role from the user.
func (s *Pages) removeRole(c echo.Context) error {
	return s.changeRole(c, "roles.removed", s.Roles.Remove)
}

// changeRole assigns or removes the posted role and shows the user's roles
// again; a refused change (the last administrator, a role only a global
// administrator grants) says why there.
func (s *Pages) changeRole(c echo.Context, doneKey string, change func(context.Context, role.Grant) error) error {
	u, err := s.routeUser(c)
	if err != nil {
		return err
	}
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	d, ok := s.Roles.Catalog.FindKey(c.FormValue("service"), c.FormValue("role"))
	if !ok {
		return kanri.Invalid(kanri.Fields{"role": "validation.role"})
	}
	err = change(ctx, role.Grant{Tenant: t, UserID: u.ID, ServiceID: d.ServiceID, RoleName: d.RoleName})
	switch kanri.ErrorCode(err) {
	case kanri.ECONFLICT, kanri.EFORBIDDEN, kanri.EINVALID:
		return s.renderUserRoles(c, u, httpkit.Status(err), httpkit.Message(ctx, err, "error.title"))
	}
	if err != nil {
		return err
	}
	if httpkit.IsHTMX(c) {
		return s.renderUserRoles(c, u, http.StatusOK, "")
	}
	return s.Report(c, views.UserPath(t.ID, u.ID)+"/roles", doneKey, u.Username, views.RoleName(ctx, d.Key, d.RoleName))
}
