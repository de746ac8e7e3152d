package console

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/httpkit"
)

// ExportTimeout is how long a streamed export (a backup's archive, the
// audit log as CSV) may take to write.
const ExportTimeout = 10 * time.Minute

// Groups are the groups of routes the console's pages are added to, each
// with its middleware.
type Groups struct {
	// Echo is the server, for a route with middleware of its own (a
	// stream, an upload).
	Echo *echo.Echo
	// Public holds the forms used without a session (sign-in, language).
	Public *echo.Group
	// SignedIn holds the pages of anyone signed in.
	SignedIn *echo.Group
	// Staff holds the pages of global administrators, which do not exist
	// for anyone else.
	Staff *echo.Group
	// Tenant holds the pages of a tenant, /t/:tenant: the signed-in
	// user's own, or any for the operator's staff.
	Tenant *echo.Group
}

// Route is one page or form of the console.
type Route struct {
	Group        *echo.Group
	Method, Path string
	// Access is the permission the route needs, or httpkit.RoutePublic
	// or httpkit.RouteSignedIn for its group's rule alone.
	Access  string
	Handler echo.HandlerFunc
	// NoSupport refuses the route to support sessions, whatever the
	// tenant allows them: it reaches a secret (docs/security.md, "Support
	// access").
	NoSupport bool
}

// NoSupport returns r refused to support sessions.
func NoSupport(r Route) Route {
	r.NoSupport = true
	return r
}

// Get is the route of a page: GET of path in g, with access.
func Get(g *echo.Group, path, access string, h echo.HandlerFunc) Route {
	return Route{Group: g, Method: http.MethodGet, Path: path, Access: access, Handler: h}
}

// Post is the route of a form: POST to path in g, with access.
func Post(g *echo.Group, path, access string, h echo.HandlerFunc) Route {
	return Route{Group: g, Method: http.MethodPost, Path: path, Access: access, Handler: h}
}

// Pages are a feature's pages: the routes it adds to the groups, and its
// entries of the side navigation.
type Pages interface {
	Routes(g Groups) []Route
	Nav() []views.NavEntry
}

// Register adds the routes to their groups, each named for its access
// (see httpkit.RoutePublic) so that the tests can walk every route and
// check it.
func Register(routes []Route) {
	for _, r := range routes {
		var mw []echo.MiddlewareFunc
		if r.NoSupport {
			mw = append(mw, refuseSupport)
		}
		switch r.Access {
		case httpkit.RoutePublic, httpkit.RouteSignedIn:
			r.Group.Add(r.Method, r.Path, r.Handler, mw...).Name = r.Access
		default:
			r.Group.Add(r.Method, r.Path, r.Handler, append(mw, httpkit.Need(r.Access))...).Name = "perm:" + r.Access
		}
	}
}

// refuseSupport answers 403 to a support session.
func refuseSupport(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if c.Get(httpkit.KeySupport) != nil {
			return kanri.E(kanri.EFORBIDDEN, "support.secret")
		}
		return next(c)
	}
}
