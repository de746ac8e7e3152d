package views

// The console's URLs, built in one place: pages link with them and
// handlers redirect with them. web/routes.go declares the routes they
// reach; a test there checks that every one of them is routed.

// TenantsPath is the operator's tenant list.
func TenantsPath() string { return "/tenants" }

// TenantPath is one tenant of the operator's list; its actions and edit
// form are below it.
func TenantPath(id string) string { return "/tenants/" + id }

// UsersPath is a tenant's user list.
func UsersPath(tenantID string) string { return "/t/" + tenantID + "/users" }

// UserPath is one user of a tenant; its edit form, actions and roles are
// below it.
func UserPath(tenantID, userID string) string { return UsersPath(tenantID) + "/" + userID }

// RolesPath is a tenant's role overview.
func RolesPath(tenantID string) string { return "/t/" + tenantID + "/roles" }

// RoleHoldersPath lists the holders of one role of one service.
func RoleHoldersPath(tenantID, serviceID, roleKey string) string {
	return RolesPath(tenantID) + "/" + serviceID + "/" + roleKey
}

// AuditPath is a tenant's audit log; AuditPath + ".csv" its export.
func AuditPath(tenantID string) string { return "/t/" + tenantID + "/audit" }

// AccountPath is the signed-in user's own account.
func AccountPath() string { return "/account" }
