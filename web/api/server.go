package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web/httpkit"
)

// Server serves the tenant JSON API, its OpenAPI document and its
// reference pages.
type Server struct {
	app.Deps
	wiring.Set
	origin      httpkit.Origin
	bodyTimeout time.Duration
	notFound    echo.HandlerFunc
	grants      grantCache // what API keys may do, by the hash of their secret
}

// Config is what the API needs besides the services.
type Config struct {
	// Origin is where the server is reached.
	Origin httpkit.Origin
	// BodyTimeout is how long a request's body may take to arrive.
	BodyTimeout time.Duration
	// NotFound answers a reference page that does not exist: the site's
	// page not found, as a browser asked for it.
	NotFound echo.HandlerFunc
}

// New returns the API of the services.
func New(deps app.Deps, services wiring.Set, cfg Config) *Server {
	s := &Server{Deps: deps, Set: services, origin: cfg.Origin, bodyTimeout: cfg.BodyTimeout, notFound: cfg.NotFound}
	if s.Audit != nil {
		// Every change is audited: forget what it touched.
		s.Audit.Observe(s.grants.heard)
	}
	return s
}

// HandleError answers an API request's error as problem+json.
func (s *Server) HandleError(err error, c echo.Context) { s.apiError(c, err) }

// Register adds the API's routes to e, each named for the permission
// matrix's walk ("api:<scope>", or httpkit.RoutePublic).
func (s *Server) Register(e *echo.Echo) {
	// The JSON API: a key, not a session; no CSRF (no cookies are read).
	// A path under /api/ of no version the server speaks (/api/v2/users)
	// is not found, before any key is asked for: the console's catch-all
	// would answer it 401 as a page that needs a sign-in.
	e.RouteNotFound("/api/*", apiNotFound)
	e.GET("/api/v1/openapi.json", s.openAPI).Name = httpkit.RoutePublic
	e.GET("/api/v1/docs", s.apiDocs).Name = httpkit.RoutePublic
	e.GET("/api/v1/docs/:tag", s.apiDocsTag).Name = httpkit.RoutePublic
	api := e.Group("/api/v1", httpkit.Bodies(s.bodyTimeout, apiBodyLimit, false), s.apiAuth, s.apiCORS, s.apiUsage, s.apiLimit, s.apiUsable)
	// The API's tus uploads: a key like the API, but the upload routes'
	// body handling (no API body limit: each PATCH is bounded by what is
	// left of its upload) and no read or write deadline but an idle one.
	apiUploads := e.Group("/api/v1"+apiUploadsPath, s.apiAuth, s.apiCORS, s.apiUsage, s.apiLimit, s.apiUsable)
	for _, r := range s.apiRoutes() {
		mw := []echo.MiddlewareFunc{apiScope(r.scope), s.apiPerm(r.perm)}
		if !r.reads() && !r.ifMatch {
			mw = append([]echo.MiddlewareFunc{refuseIfMatch}, mw...)
		}
		if r.service != "" {
			mw = append(mw, httpkit.Usable(s.Catalog, r.service))
		}
		mw = append(mw, checkQuery(r.query)) // a service the tenant cannot use is 403 whatever the query
		if r.method == http.MethodPost {
			var headers []string
			if r.tus {
				// A creation's body is none (the bytes follow with
				// PATCH), but the upload group has no body limit.
				mw = append(mw, httpkit.Bodies(s.bodyTimeout, apiBodyLimit, false))
				for _, h := range r.reqHeaders {
					headers = append(headers, h.name)
				}
			}
			mw = append(mw, s.apiIdempotent(headers)) // after the checks: a refused call claims no key
		}
		g, path := api, r.path
		if r.tus {
			g, path = apiUploads, strings.TrimPrefix(r.path, apiUploadsPath)
		}
		g.Add(r.method, path, r.h, mw...).Name = "api:" + r.scope
	}

}
