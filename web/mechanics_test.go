package web

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/api"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/console/operator"
	"github.com/kanri/kanri/web/console/organisation"
	"github.com/kanri/kanri/web/console/people"
)

// TestPathsAreRouted checks that every URL the views and handlers build
// reaches a declared route, so that a renamed route cannot leave links to
// nowhere.
func TestPathsAreRouted(t *testing.T) {
	t.Parallel()
	e := echo.New()
	c := &console.Console{}
	s := &Server{Console: c, api: &api.Server{}}
	s.routes(e, []console.Pages{people.New(c), operator.New(c), organisation.New(c)})
	declared := map[string]bool{}
	for _, r := range e.Routes() {
		if r.Method != echo.RouteNotFound {
			declared[r.Method+" "+r.Path] = true
		}
	}
	tests := []struct{ method, path, route string }{
		{http.MethodGet, views.TenantsPath(), "/tenants"},
		{http.MethodGet, views.TenantPath("new"), "/tenants/new"},
		{http.MethodGet, views.TenantPath("tenant_a") + "/edit", "/tenants/:id/edit"},
		{http.MethodPost, views.TenantPath("tenant_a") + "/suspend", "/tenants/:id/suspend"},
		{http.MethodGet, views.UsersPath("tenant_a"), "/t/:tenant/users"},
		{http.MethodGet, views.UserPath("tenant_a", "user_b") + "/edit", "/t/:tenant/users/:id/edit"},
		{http.MethodGet, views.UserPath("tenant_a", "user_b") + "/roles", "/t/:tenant/users/:id/roles"},
		{http.MethodGet, views.RolesPath("tenant_a"), "/t/:tenant/roles"},
		{http.MethodGet, views.RoleHoldersPath("tenant_a", "auth-service", "admin"), "/t/:tenant/roles/:service/:role"},
		{http.MethodGet, views.AuditPath("tenant_a"), "/t/:tenant/audit"},
		{http.MethodGet, views.AuditPath("tenant_a") + ".csv", "/t/:tenant/audit.csv"},
		{http.MethodGet, views.AccountPath(), "/account"},
		{http.MethodGet, views.ServicesPath(), "/services"},
		{http.MethodGet, views.ServicePath("new"), "/services/new"},
		{http.MethodGet, views.ServicesUsagePath(), "/services/usage"},
		{http.MethodGet, views.ServicePath("crm") + "/edit", "/services/:id/edit"},
		{http.MethodPost, views.ServicePath("crm") + "/deactivate", "/services/:id/deactivate"},
		{http.MethodGet, views.TenantServicesPath("tenant_a"), "/t/:tenant/services"},
		{http.MethodGet, views.TenantServicePath("tenant_a", "crm"), "/t/:tenant/services/:service"},
		{http.MethodGet, views.TenantServicePath("tenant_a", "crm") + "/edit", "/t/:tenant/services/:service/edit"},
		{http.MethodPost, views.TenantServicePath("tenant_a", "crm") + "/end", "/t/:tenant/services/:service/end"},
		{http.MethodGet, views.APIDocsPath(), "/api/v1/docs"},
		{http.MethodGet, views.APIDocsTagPath("users"), "/api/v1/docs/:tag"},
	}
	for _, tt := range tests {
		c := e.NewContext(httptest.NewRequest(tt.method, tt.path, nil), httptest.NewRecorder())
		e.Router().Find(tt.method, tt.path, c)
		if got := c.Path(); got != tt.route || !declared[tt.method+" "+got] {
			t.Errorf("%s %s: routed to %q, want the declared route %q", tt.method, tt.path, got, tt.route)
		}
	}
}
