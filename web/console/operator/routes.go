package operator

import (
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
)

// Routes are the pages of the operator's tenants and services, and a tenant's assignments of services.
func (s *Pages) Routes(g console.Groups) []console.Route {
	return []console.Route{
		console.Get(g.Staff, "/tenants", role.TenantsRead, s.listTenants),
		console.Get(g.Staff, "/tenants/new", role.TenantsCreate, s.newTenant),
		console.Post(g.Staff, "/tenants", role.TenantsCreate, s.createTenant),
		console.Get(g.Staff, "/tenants/:id/edit", role.TenantsUpdate, s.editTenant),
		console.Post(g.Staff, "/tenants/:id", role.TenantsUpdate, s.updateTenant),
		console.Post(g.Staff, "/tenants/:id/suspend", role.TenantsUpdate, s.suspendTenant),
		console.Post(g.Staff, "/tenants/:id/reactivate", role.TenantsUpdate, s.reactivateTenant),
		console.Post(g.Staff, "/tenants/:id/delete", role.TenantsDelete, s.deleteTenant),
		console.Get(g.Staff, "/services", role.ServicesManage, s.listServices),
		console.Get(g.Staff, "/services/new", role.ServicesManage, s.newService),
		console.Get(g.Staff, "/services/usage", role.ServicesManage, s.servicesUsage),
		console.Post(g.Staff, "/services", role.ServicesManage, s.createService),
		console.Get(g.Staff, "/services/:id/edit", role.ServicesManage, s.editService),
		console.Post(g.Staff, "/services/:id", role.ServicesManage, s.updateService),
		console.Post(g.Staff, "/services/:id/deactivate", role.ServicesManage, s.deactivateService),
		console.Post(g.Staff, "/services/:id/reactivate", role.ServicesManage, s.reactivateService),
		console.Post(g.Staff, "/services/:id/delete", role.ServicesManage, s.deleteService),
		console.Get(g.Tenant, "/services", role.ServicesRead, s.listTenantServices),
		console.Get(g.Tenant, "/services/:service", role.ServicesRead, s.tenantServiceUsage),
		console.Get(g.Tenant, "/services/:service/edit", role.ServicesUpdate, s.editAssignment),
		console.Post(g.Tenant, "/services/:service", role.ServicesUpdate, s.saveAssignment),
		console.Post(g.Tenant, "/services/:service/suspend", role.ServicesUpdate, s.suspendAssignment),
		console.Post(g.Tenant, "/services/:service/reactivate", role.ServicesUpdate, s.reactivateAssignment),
		console.Post(g.Tenant, "/services/:service/end", role.ServicesUpdate, s.endAssignment),
	}
}

// Nav are the feature's entries of the side navigation.
func (s *Pages) Nav() []views.NavEntry {
	return []views.NavEntry{
		{Key: "tenants", LabelKey: "nav.tenants", Staff: true, Path: func(string) string { return views.TenantsPath() }, Perm: role.TenantsRead, Order: 10},
		{Key: "catalog", LabelKey: "nav.catalog", Staff: true, Path: func(string) string { return views.ServicesPath() }, Perm: role.ServicesManage, Order: 20},
		{Key: "services", LabelKey: "nav.services", Path: views.TenantServicesPath, Perm: role.ServicesRead, Order: 30},
	}
}
