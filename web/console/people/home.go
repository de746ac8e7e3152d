package people

import (
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
)

// homePath is a user's start page: the first page they may open, in the
// order of the navigation, and at least their own account.
func homePath(t *kanri.Tenant, a role.Access) string {
	switch {
	case a.GlobalAdmin && a.Perms.Has(role.TenantsRead):
		return views.TenantsPath()
	case a.Perms.Has(role.UsersRead):
		return views.UsersPath(t.ID)
	case a.Perms.Has(role.RolesRead):
		return views.RolesPath(t.ID)
	case a.Perms.Has(role.AuditRead):
		return views.AuditPath(t.ID)
	case a.Perms.Has(role.ChannelsRead):
		return views.ChannelsPath(t.ID) // a member of messaging
	case a.Perms.Has(role.FilesRead):
		return views.FilesPath(t.ID)
	}
	return views.AccountPath()
}
