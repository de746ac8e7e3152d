package api

import (
	"net/http"

	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/web/httpkit"
)

// Routes lists the API. routes registers them and openAPI documents
// them, from this one list.
func (s *Server) Routes() []Route {
	return append([]Route{
		{Method: http.MethodGet, Path: "/me", Scope: kanri.ScopeRead, Handler: s.apiMe, Op: "getMe",
			Doc: "Never the key's secret.", Response: "Me", Status: 200, ETag: true},
		{Method: http.MethodGet, Path: "/keys/:key", Scope: kanri.ScopeRead, Perm: role.APIKeysRead, Handler: s.apiGetKey, Op: "getKey",
			Doc:      "The key an id names where a field's kind says apiKey (a file's uploadedByKind, a folder's createdByKind, a role's assignedByKind, an audit record's userKind). Never the key's secret nor its hash.",
			Response: "APIKey", Status: 200, ETag: true},
	}, s.featureRoutes()...)
}

// featureRoutes are the operations of the API's features.
func (s *Server) featureRoutes() []Route {
	var out []Route
	for _, f := range s.features {
		out = append(out, f.Routes()...)
	}
	return out
}

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
	s.routes = s.Routes()
	for _, r := range s.routes {
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
