package httpkit

import (
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/kanri/kanri/internal/telemetry"
)

// RouteUnmatched is the route label of requests no route matched: their
// paths, which anybody can make up, never become label values.
const RouteUnmatched = "unmatched"

// Observe returns the middleware that counts each request in m by its
// route pattern, method and status class, and, when tr is not nil, traces
// it as a span of tr. It comes first, so that the span is the request's
// whole, and its context is the one every log line of the request is
// written with.
//
// A request's traceparent header is followed only from a trusted proxy
// (o): anyone else could choose the trace id, and have every request of
// theirs sampled whatever KANRI_TRACE_SAMPLE says. Theirs is linked to,
// not continued.
func Observe(m *telemetry.Metrics, tr trace.Tracer, o Origin) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			req := c.Request()
			method := methodLabel(req.Method)
			var span trace.Span
			if tr != nil {
				span = startSpan(c, tr, o, method)
			}
			// Deferred, so that a request cut short by a panic the
			// recovery passes on (http.ErrAbortHandler) is counted too.
			defer func() {
				route := RouteLabel(c)
				status := LoggedStatus(c)
				m.Request(route, method, status, time.Since(start))
				if span != nil {
					span.SetName(method + " " + route)
					span.SetAttributes(attribute.String("http.route", route), attribute.Int("http.response.status_code", status))
					if status >= 500 && status != StatusClientClosed {
						span.SetStatus(codes.Error, http.StatusText(status))
					}
					span.End()
				}
			}()
			if err := next(c); err != nil {
				c.Error(err) // now, so that the status is the one sent
			}
			return nil
		}
	}
}

// startSpan starts the span of the request c and gives the request its
// context.
func startSpan(c echo.Context, tr trace.Tracer, o Origin, method string) trace.Span {
	req := c.Request()
	ctx := req.Context()
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
		attribute.String("http.request.method", method), attribute.String("url.path", req.URL.Path))}
	if method != req.Method {
		opts = append(opts, trace.WithAttributes(attribute.String("http.request.method_original", req.Method)))
	}
	if req.Header.Get("Traceparent") != "" {
		caller := telemetry.Propagator.Extract(ctx, propagation.HeaderCarrier(req.Header))
		if o.viaProxy(req) {
			ctx = caller
		} else if sc := trace.SpanContextFromContext(caller); sc.IsValid() {
			opts = append(opts, trace.WithNewRoot(), trace.WithLinks(trace.Link{SpanContext: sc}))
		}
	}
	ctx, span := tr.Start(ctx, method, opts...)
	c.SetRequest(req.WithContext(ctx))
	return span
}

// RouteLabel returns the pattern of the route that served c, or
// RouteUnmatched when none did (a group's catch-all of unknown paths).
func RouteLabel(c echo.Context) string {
	if p := c.Path(); matched(p) {
		return p
	}
	return RouteUnmatched
}

// matched reports whether p, a route's pattern, is one of the server's
// own rather than a catch-all of unknown paths.
func matched(p string) bool { return p != "" && !strings.HasSuffix(p, "/*") }

// Gettable reports whether a GET of path reaches a route of e.
func Gettable(e *echo.Echo, path string) bool {
	ctx := e.NewContext(nil, nil)
	e.Router().Find(http.MethodGet, path, ctx)
	return matched(ctx.Path())
}

// methodLabel returns method if it is one of HTTP's, and "_OTHER" for
// any other (as OpenTelemetry's HTTP conventions name it): a client can
// send any token as a method, and a label value per token would grow the
// metrics without bound.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "_OTHER"
}

// MetricsHandler serves m to requests that carry token as their bearer
// token, and answers others 401: the public listener's /metrics, for an
// operator whose scraper cannot reach the debug listener.
func MetricsHandler(m *telemetry.Metrics, token string) echo.HandlerFunc {
	h := m.Handler()
	want := []byte("Bearer " + token)
	return func(c echo.Context) error {
		got := []byte(c.Request().Header.Get(echo.HeaderAuthorization))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			c.Response().Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			return c.NoContent(http.StatusUnauthorized)
		}
		h.ServeHTTP(c.Response(), c.Request())
		return nil
	}
}
