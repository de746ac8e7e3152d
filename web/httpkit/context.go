// Package httpkit is what Kanri's HTTP packages share: the one mapping of
// domain errors to statuses, the values the middleware leaves on a
// request (its id, the signed-in user, their permissions, the tenant of
// the route), and the checks made of them.
package httpkit

import (
	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
)

// Route access levels, recorded as the route's name so that tests can walk
// every route and check it: RoutePublic needs nothing, RouteSignedIn a
// session, "perm:<permission>" that permission and "api:<scope>" an API
// key with that scope.
const (
	RoutePublic   = "public"
	RouteSignedIn = "signed-in"
)

// Context keys of values the middleware sets for handlers.
const (
	KeyUser      = "user"          // *kanri.User: the signed-in user
	KeyHome      = "home"          // *kanri.Tenant: the user's own tenant
	KeySession   = "sessionRecord" // *kanri.Session: the record of the signed-in session
	KeyTenant    = "tenant"        // *kanri.Tenant: the tenant of a /t/:tenant route
	KeyRequestID = "reqid"         // string: the request id
	KeyPerms     = "perms"         // role.Set: the signed-in user's permissions
	KeyGlobal    = "global"        // bool: the user is a global administrator
	KeyEnrol     = "mustEnrol"     // bool: the user must turn on two-factor sign-in first
	KeySupport   = "support"       // *kanri.SessionSupport: the session is a support session
)

// Can reports whether the signed-in user holds perm. Permissions of the
// operator's staff hold in every tenant; everyone else's only in their own,
// which resolveTenant already enforces.
func Can(c echo.Context, perm string) bool {
	perms, _ := c.Get(KeyPerms).(role.Set)
	return perms.Has(perm)
}

// IsGlobalAdmin reports whether the signed-in user is a global
// administrator (全体管理者 in the operator's tenant).
func IsGlobalAdmin(c echo.Context) bool { g, _ := c.Get(KeyGlobal).(bool); return g }

// Need lets a request through only if the user holds perm; otherwise it
// answers 403.
func Need(perm string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if !Can(c, perm) {
				return kanri.E(kanri.EFORBIDDEN, "error.forbidden_body")
			}
			return next(c)
		}
	}
}

// RequestID returns the request's id, which requestContext gives it.
func RequestID(c echo.Context) string { id, _ := c.Get(KeyRequestID).(string); return id }

// Tenant returns the tenant resolved for a /t/:tenant route.
func Tenant(c echo.Context) *kanri.Tenant { return c.Get(KeyTenant).(*kanri.Tenant) }
