// Package api serves the tenant JSON API under /api/v1: programs
// authenticate with an API key (never a cookie), the key's tenant is the
// only one they reach, and errors are RFC 9457 problem documents. The core
// here holds what every operation shares (keys, rate limits, usage,
// problems, idempotency, CORS, the OpenAPI document and its reference
// pages) and the key's own operations; each feature's operations come in
// an api.Feature of their own package (accountapi, fileapi, chatapi).
package api

import (
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
	routes      []Route // the operations served, once Register has added them
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
	// Tags group its operations in the document and the reference, in
	// their order.
	Tags() []Tag
	// PathParams describe the path parameters of its operations, by name.
	PathParams() map[string]PathParam
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
