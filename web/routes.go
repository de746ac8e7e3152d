package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/static"
)

// Route access levels, recorded as the route's name so that tests can walk
// every route and check it: "public" needs nothing, "signed-in" a session,
// and "perm:<permission>" that permission.
const (
	public   = "public"
	signedIn = "signed-in"
)

// routes declares every route of the console, in one place, each with what
// it needs. Every POST passes the CSRF check; /tenants is the operator's
// staff's; /t/:tenant resolves the tenant and hides other tenants.
func (s *Server) routes(e *echo.Echo) {
	e.IPExtractor = echo.ExtractIPDirect()
	e.Use(middleware.Recover(), secureHeaders, s.requestContext, middleware.BodyLimit("2M"), s.csrf)

	open := func(method, path string, h echo.HandlerFunc) { e.Add(method, path, h).Name = public }
	open(http.MethodGet, "/healthz", s.healthz)
	open(http.MethodGet, "/readyz", s.readyz)
	e.StaticFS("/static", static.FS).Name = public
	open(http.MethodGet, "/favicon.ico", func(c echo.Context) error {
		return c.Redirect(http.StatusMovedPermanently, "/static/img/favicon.svg")
	})
	open(http.MethodGet, "/login", s.loginForm)
	open(http.MethodPost, "/login", s.login)
	open(http.MethodPost, "/lang", s.setLang)

	app := e.Group("", s.requireUser)
	app.GET("/", s.home).Name = signedIn
	app.POST("/logout", s.logout).Name = signedIn
	app.GET("/account", s.account).Name = signedIn
	app.POST("/account/password", s.changePassword).Name = signedIn

	staff := app.Group("", s.requireGlobalAdmin)
	t := app.Group("/t/:tenant", s.resolveTenant)
	type route struct {
		g      *echo.Group
		method string
		path   string
		perm   string
		h      echo.HandlerFunc
	}
	for _, r := range []route{
		{staff, http.MethodGet, "/switch", role.TenantsRead, s.switchTenant},
		{staff, http.MethodGet, "/tenants", role.TenantsRead, s.listTenants},
		{staff, http.MethodGet, "/tenants/new", role.TenantsCreate, s.newTenant},
		{staff, http.MethodPost, "/tenants", role.TenantsCreate, s.createTenant},
		{staff, http.MethodGet, "/tenants/:id/edit", role.TenantsUpdate, s.editTenant},
		{staff, http.MethodPost, "/tenants/:id", role.TenantsUpdate, s.updateTenant},
		{staff, http.MethodPost, "/tenants/:id/suspend", role.TenantsUpdate, s.suspendTenant},
		{staff, http.MethodPost, "/tenants/:id/reactivate", role.TenantsUpdate, s.reactivateTenant},
		{staff, http.MethodPost, "/tenants/:id/delete", role.TenantsDelete, s.deleteTenant},

		{t, http.MethodGet, "/users", role.UsersRead, s.listUsers},
		{t, http.MethodGet, "/users/new", role.UsersCreate, s.newUser},
		{t, http.MethodPost, "/users", role.UsersCreate, s.createUser},
		{t, http.MethodGet, "/users/:id/edit", role.UsersUpdate, s.editUser},
		{t, http.MethodPost, "/users/:id", role.UsersUpdate, s.updateUser},
		{t, http.MethodPost, "/users/:id/deactivate", role.UsersUpdate, s.deactivateUser},
		{t, http.MethodPost, "/users/:id/reactivate", role.UsersUpdate, s.reactivateUser},
		{t, http.MethodPost, "/users/:id/unlock", role.UsersUpdate, s.unlockUser},
		{t, http.MethodPost, "/users/:id/password", role.UsersUpdate, s.resetPassword},
		{t, http.MethodPost, "/users/:id/delete", role.UsersDelete, s.deleteUser},

		{t, http.MethodGet, "/roles", role.RolesRead, s.listRoles},
		{t, http.MethodGet, "/roles/:service/:role", role.RolesRead, s.roleHolders},
		{t, http.MethodGet, "/users/:id/roles", role.RolesRead, s.userRoles},
		{t, http.MethodPost, "/users/:id/roles", role.RolesUpdate, s.assignRole},
		{t, http.MethodPost, "/users/:id/roles/remove", role.RolesUpdate, s.removeRole},

		{t, http.MethodGet, "/audit", role.AuditRead, s.listAudit},
		{t, http.MethodGet, "/audit.csv", role.AuditRead, s.exportAudit},
	} {
		r.g.Add(r.method, r.path, r.h, need(r.perm)).Name = "perm:" + r.perm
	}
}
