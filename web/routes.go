package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/kanri/kanri/static"
)

// routes declares every route of the console, in one place. Every POST
// passes the CSRF check; everything but sign-in, health and assets needs a
// signed-in user; /tenants needs the operator's staff; /t/:tenant resolves
// the tenant and hides other tenants.
func (s *Server) routes(e *echo.Echo) {
	e.IPExtractor = echo.ExtractIPDirect()
	e.Use(middleware.Recover(), secureHeaders, s.requestContext, middleware.BodyLimit("2M"), s.csrf)

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.StaticFS("/static", static.FS)
	e.GET("/favicon.ico", func(c echo.Context) error { return c.Redirect(http.StatusMovedPermanently, "/static/img/favicon.svg") })

	e.GET("/login", s.loginForm)
	e.POST("/login", s.login)
	e.POST("/lang", s.setLang)

	app := e.Group("", s.requireUser)
	app.GET("/", s.home)
	app.POST("/logout", s.logout)

	staff := app.Group("", s.requireStaff)
	staff.GET("/switch", s.switchTenant)
	staff.GET("/tenants", s.listTenants)
	staff.GET("/tenants/new", s.newTenant)
	staff.POST("/tenants", s.createTenant)
	staff.GET("/tenants/:id/edit", s.editTenant)
	staff.POST("/tenants/:id", s.updateTenant)
	staff.POST("/tenants/:id/suspend", s.suspendTenant)
	staff.POST("/tenants/:id/reactivate", s.reactivateTenant)
	staff.POST("/tenants/:id/delete", s.deleteTenant)

	t := app.Group("/t/:tenant", s.resolveTenant)
	t.GET("/users", s.listUsers)
	t.GET("/users/new", s.newUser)
	t.POST("/users", s.createUser)
	t.GET("/users/:id/edit", s.editUser)
	t.POST("/users/:id", s.updateUser)
	t.POST("/users/:id/deactivate", s.deactivateUser)
	t.POST("/users/:id/reactivate", s.reactivateUser)
	t.POST("/users/:id/delete", s.deleteUser)
	t.POST("/users/:id/unlock", s.unlockUser)
	t.POST("/users/:id/password", s.resetPassword)
	t.GET("/audit", s.listAudit)
	t.GET("/audit.csv", s.exportAudit)
}
