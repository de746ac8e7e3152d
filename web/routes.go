package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/static"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/console/backups"
	"github.com/kanri/kanri/web/console/chat"
	"github.com/kanri/kanri/web/console/filepages"
	"github.com/kanri/kanri/web/console/operator"
	"github.com/kanri/kanri/web/console/organisation"
	"github.com/kanri/kanri/web/console/people"
	"github.com/kanri/kanri/web/httpkit"
)

// routes builds the server from its parts: the API registers its own
// routes, and each feature's pages add theirs to the console's groups,
// which carry the middleware: the console's pages and forms have its body
// limit and timeout and CSRF check; Staff is the global administrators';
// Tenant (/t/:tenant) resolves the tenant and hides other tenants. Every
// route is named for its access, which the permission matrix and the CSRF
// walk read.
func (s *Server) routes(e *echo.Echo) {
	e.IPExtractor = s.origin.IPExtractor()
	e.SchemeExtractor = s.origin.Scheme
	e.Pre(httpkit.HeadAsGet(&s.heads))
	e.Use(httpkit.HeadRestored, middleware.Recover(), console.SecureHeaders, s.RequestContext, s.api.Preflight)

	e.GET("/healthz", s.healthz).Name = httpkit.RoutePublic
	e.GET("/readyz", s.readyz).Name = httpkit.RoutePublic
	e.StaticFS("/static", static.FS).Name = httpkit.RoutePublic
	e.GET("/favicon.ico", func(c echo.Context) error {
		return c.Redirect(http.StatusMovedPermanently, "/static/img/favicon.svg")
	}).Name = httpkit.RoutePublic

	// The JSON API and its reference.
	s.api.Register(e)

	public := e.Group("", httpkit.Bodies(s.bodyTimeout, httpkit.ConsoleBodyLimit, true), s.CSRF)
	signedIn := public.Group("", s.RequireUser)
	g := console.Groups{Echo: e, Public: public, SignedIn: signedIn,
		Staff: signedIn.Group("", s.RequireGlobalAdmin), Tenant: signedIn.Group("/t/:tenant", s.ResolveTenant)}
	for _, routes := range []func(console.Groups) []console.Route{
		people.New(s.Console).Routes, operator.New(s.Console).Routes, organisation.New(s.Console).Routes, filepages.New(s.Console).Routes, chat.New(s.Console).Routes, backups.New(s.Console, s.live).Routes,
	} {
		console.Register(routes(g))
	}

	// A tab's live updates (server-sent events): a session like the
	// console, but no body limit or deadline: the stream lasts as long as
	// the tab, and ends with its session.
	e.GET("/t/:tenant/events", s.live.Channels, s.RequireUser, s.ResolveTenant, httpkit.Usable(s.Catalog, kanri.MessagingServiceID)).Name = "perm:" + role.ChannelsRead
	s.heads = httpkit.HeadRoutes(e.Routes())
}
