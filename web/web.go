// Package web builds Kanri's HTTP server from its parts: the console's
// features (web/console/...), the JSON API and its features (web/api/...),
// the live streams (web/live) and the kit they share (web/httpkit). It
// depends on the domain, the services and the tenant-scoped store, never
// on a store backend.
package web

import (
	"net/netip"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/telemetry"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web/api"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
	"github.com/kanri/kanri/web/live"
	"github.com/kanri/kanri/web/scim"
)

// Services are the application services the handlers call, built by
// wiring.New.
type Services = wiring.Set

// Config holds the web layer's dependencies.
type Config struct {
	// Deps are the store, audit log, logger and clock the services share.
	Deps app.Deps
	Services
	// SessionSecret keys the session cookie: at least 32 random bytes, from
	// which the cookie's authentication and encryption keys are derived.
	SessionSecret []byte
	// PublicURL is the absolute address the server's users reach it at
	// (https://kanri.example.jp): when set, the OpenAPI document's server,
	// the problems' types and the absolute links the server writes use it
	// rather than the request's Host.
	PublicURL string
	// TrustedProxies are the addresses of the reverse proxies in front of
	// the server: only a request whose connection comes from one of them
	// has its X-Forwarded-Proto, X-Forwarded-Host and X-Forwarded-For
	// believed. None by default: anybody can send those headers.
	TrustedProxies []netip.Prefix
	// Features are what the features serve, in the order of their routes
	// and navigation.
	Features []Feature
	// BodyTimeout is how long a request's body may take to arrive from its
	// first read (DefaultBodyTimeout when zero); a stalled body is 408.
	BodyTimeout time.Duration
	// LiveRecheck is how often a live stream checks its session and rights
	// again untold (a minute when zero): a backstop, since the changes that
	// may take them away tell the streams at once.
	LiveRecheck time.Duration
	// Streams counts the live streams that outlive their requests, for
	// the server's shutdown to wait for (none counted when nil).
	Streams *live.Running
	// MaxActive is how many requests run their handlers at once, the
	// others waiting their turn (httpkit.Admission); everyone at once when
	// 0. Streams, downloads and uploads give their place up once they
	// start; health checks and static files never wait.
	MaxActive int
	// Tracer traces the requests (telemetry.NewTracerProvider); none when
	// nil.
	Tracer trace.TracerProvider
	// MetricsToken, when set, has /metrics served on this listener to
	// requests with it as their bearer token (Services.Metrics); when
	// empty, the metrics are only on the debug listener.
	MetricsToken string
}

// Server holds what the handlers share.
type Server struct {
	*console.Console
	api         *api.Server
	scim        *scim.Server
	live        *live.Streams
	bodyTimeout time.Duration
	maxActive   int             // Config.MaxActive
	heads       httpkit.PathSet // the paths of the routes of HEAD's own, which HEAD is not answered as GET on
	origin      httpkit.Origin  // where the server is reached, and which proxies are believed
	metrics     *telemetry.Metrics
	tracer      trace.Tracer // nil: no traces
	metricsKey  string       // Config.MetricsToken
}
