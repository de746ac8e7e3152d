package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/telemetry"
	"github.com/kanri/kanri/static"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/api"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
	"github.com/kanri/kanri/web/live"
	"github.com/kanri/kanri/web/scim"
)

// routes builds the server from its parts: the API registers its own
// routes, and each feature's pages add theirs to the console's groups,
// which carry the middleware: the console's pages and forms have its body
// limit and timeout and CSRF check; Staff is the global administrators';
// Tenant (/t/:tenant) resolves the tenant and hides other tenants. Every
// route is named for its access, which the permission matrix and the CSRF
// walk read.
func (s *Server) routes(e *echo.Echo, pages []console.Pages) {
	e.IPExtractor = s.origin.IPExtractor()
	e.SchemeExtractor = s.origin.Scheme
	e.Pre(httpkit.HeadAsGet(&s.heads))
	admit := httpkit.NewAdmission(s.maxActive).Middleware
	e.Use(httpkit.HeadRestored, httpkit.Observe(s.metrics, s.tracer, s.origin), middleware.Recover(), console.SecureHeaders, s.RequestContext, s.api.Preflight, func(next echo.HandlerFunc) echo.HandlerFunc {
		admitted := admit(next)
		return func(c echo.Context) error {
			if p := c.Request().URL.Path; p == "/healthz" || p == "/readyz" || p == "/metrics" || strings.HasPrefix(p, "/static/") {
				return next(c) // a load balancer's check, or a file: never queued behind pages
			}
			return admitted(c)
		}
	})

	e.GET("/healthz", s.healthz).Name = httpkit.RoutePublic
	if s.metricsKey != "" && s.metrics != nil {
		e.GET("/metrics", httpkit.MetricsHandler(s.metrics, s.metricsKey)).Name = httpkit.RoutePublic
	}
	e.GET("/readyz", s.readyz).Name = httpkit.RoutePublic
	e.StaticFS("/static", static.FS).Name = httpkit.RoutePublic
	e.GET("/favicon.ico", func(c echo.Context) error {
		return c.Redirect(http.StatusMovedPermanently, "/static/img/favicon.svg")
	}).Name = httpkit.RoutePublic

	// The JSON API and its reference; provisioning by SCIM.
	s.api.Register(e)
	s.scim.Register(e)

	public := e.Group("", httpkit.Bodies(s.bodyTimeout, httpkit.ConsoleBodyLimit, true), s.CSRF)
	signedIn := public.Group("", s.RequireUser)
	g := console.Groups{Echo: e, Public: public, SignedIn: signedIn,
		Staff: signedIn.Group("", s.RequireGlobalAdmin), Tenant: signedIn.Group("/t/:tenant", s.ResolveTenant)}
	for _, p := range pages {
		console.Register(p.Routes(g))
	}

	// A tab's live updates (server-sent events): a session like the
	// console, but no body limit or deadline: the stream lasts as long as
	// the tab, and ends with its session.
	e.GET("/t/:tenant/events", s.live.Channels, s.RequireUser, s.ResolveTenant, httpkit.Usable(s.Catalog, kanri.MessagingServiceID)).Name = "perm:" + role.ChannelsRead
	s.heads = httpkit.HeadRoutes(e.Routes())
}

// New returns the console's HTTP handler.
func New(cfg Config) http.Handler {
	s := &Server{bodyTimeout: cfg.BodyTimeout, origin: httpkit.NewOrigin(cfg.PublicURL, cfg.TrustedProxies), maxActive: cfg.MaxActive,
		metrics: cfg.Metrics, metricsKey: cfg.MetricsToken}
	if cfg.Tracer != nil {
		s.tracer = cfg.Tracer.Tracer(telemetry.TracerName)
	}
	if s.bodyTimeout <= 0 {
		s.bodyTimeout = httpkit.DefaultBodyTimeout
	}
	sessions := httpkit.NewSessions(cfg.SessionSecret, cfg.Services.Auth, cfg.Deps.Now, cfg.Deps.Logger)
	s.Console = console.New(cfg.Deps, cfg.Services, sessions, s.origin)
	s.live = &live.Streams{Sessions: s.Sessions, Users: s.Users, Auth: s.Auth, Tenants: s.Tenants, Roles: s.Roles, Support: s.Support,
		Messaging: s.Messaging, Files: s.Files, Events: s.Events, Logger: s.Logger, Now: s.Now, Recheck: cfg.LiveRecheck, Running: cfg.Streams,
		Metrics: cfg.Metrics}
	var apis []func(*api.Server) api.Feature
	var pages []console.Pages
	var nav []views.NavEntry
	for _, f := range cfg.Features {
		if f.API != nil {
			apis = append(apis, f.API)
		}
		if f.Pages != nil {
			p := f.Pages(s.Console, s.live)
			pages, nav = append(pages, p), append(nav, p.Nav()...)
		}
	}
	s.Console.SetNavigation(nav)
	s.api = api.New(cfg.Deps, cfg.Services, api.Config{Origin: s.origin, BodyTimeout: s.bodyTimeout, NotFound: s.NotFound}, apis...)
	s.scim = &scim.Server{SCIM: cfg.Services.SCIM, Logger: cfg.Deps.Logger, BaseURL: httpkit.BaseURL}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	s.routes(e, pages)
	return e
}

// handleError answers a request's error: the API's as problem documents,
// the console's as pages.
func (s *Server) handleError(err error, c echo.Context) {
	if !httpkit.Unanswered(c, err) {
		return
	}
	if strings.HasPrefix(c.Request().URL.Path, "/api/") {
		s.api.HandleError(err, c)
		return
	}
	if strings.HasPrefix(c.Request().URL.Path, "/scim/") {
		s.scim.HandleError(err, c)
		return
	}
	s.Console.HandleError(err, c)
}
