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
	features    []Feature
}

// Feature is a part of the API kept in a package of its own: the
// operations it serves, and what the OpenAPI document says of their
// bodies.
type Feature interface {
	// Routes are the feature's operations.
	Routes() []Route
	// Schemas are the schemas its operations name, made with the
	// document's obj (an object with its required properties) and list
	// (a page of items of a schema).
	Schemas(obj func(required []string, props map[string]any) map[string]any, list func(item string) map[string]any) map[string]any
	// Examples are an example of each of those schemas a request sends or
	// a success answers with, at being every time's value.
	Examples(at string) map[string]any
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

// New returns the API of the services, with the features each of
// features makes of it.
func New(deps app.Deps, services wiring.Set, cfg Config, features ...func(*Server) Feature) *Server {
	s := &Server{Deps: deps, Set: services, origin: cfg.Origin, bodyTimeout: cfg.BodyTimeout, notFound: cfg.NotFound}
	for _, f := range features {
		s.features = append(s.features, f(s))
	}
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
	apiUploads := e.Group("/api/v1"+UploadsPath, s.apiAuth, s.apiCORS, s.apiUsage, s.apiLimit, s.apiUsable)
	for _, r := range s.Routes() {
		mw := []echo.MiddlewareFunc{apiScope(r.Scope), s.apiPerm(r.Perm)}
		if !r.reads() && !r.IfMatch {
			mw = append([]echo.MiddlewareFunc{refuseIfMatch}, mw...)
		}
		if r.Service != "" {
			mw = append(mw, httpkit.Usable(s.Catalog, r.Service))
		}
		mw = append(mw, checkQuery(r.Query)) // a service the tenant cannot use is 403 whatever the query
		if r.Method == http.MethodPost {
			var headers []string
			if r.Tus {
				// A creation's body is none (the bytes follow with
				// PATCH), but the upload group has no body limit.
				mw = append(mw, httpkit.Bodies(s.bodyTimeout, apiBodyLimit, false))
				for _, h := range r.ReqHeaders {
					headers = append(headers, h.Name)
				}
			}
			mw = append(mw, s.apiIdempotent(headers)) // after the checks: a refused call claims no key
		}
		g, path := api, r.Path
		if r.Tus {
			g, path = apiUploads, strings.TrimPrefix(r.Path, UploadsPath)
		}
		g.Add(r.Method, path, r.Handler, mw...).Name = "api:" + r.Scope
	}

}
