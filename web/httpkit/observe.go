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

// Observe returns the middleware that traces each request as a span of tr
// (continuing the trace of its traceparent header) and counts it in m by
// its route pattern, method and status class. It comes first, so that the
// span is the request's whole, and its context is the one every log line
// of the request is written with.
func Observe(m *telemetry.Metrics, tr trace.Tracer) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			req := c.Request()
			ctx := telemetry.Propagator.Extract(req.Context(), propagation.HeaderCarrier(req.Header))
			ctx, span := tr.Start(ctx, req.Method, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
				attribute.String("http.request.method", req.Method), attribute.String("url.path", req.URL.Path)))
			defer span.End()
			c.SetRequest(req.WithContext(ctx))
			err := next(c)
			if err != nil {
				c.Error(err) // now, so that the status is the one sent
			}
			route := c.Path()
			if route == "" || strings.HasSuffix(route, "/*") { // a group's catch-all of unknown paths
				route = RouteUnmatched
			}
			status := LoggedStatus(c)
			span.SetName(methodLabel(req.Method) + " " + route)
			span.SetAttributes(attribute.String("http.route", route), attribute.Int("http.response.status_code", status))
			if status >= 500 && status != StatusClientClosed {
				span.SetStatus(codes.Error, http.StatusText(status))
			}
			m.Request(route, methodLabel(req.Method), status, time.Since(start))
			return nil
		}
	}
}

// methodLabel returns method if it is one of HTTP's, and "other" for any
// other: a client can send any token as a method, and a label value per
// token would grow the metrics without bound.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "other"
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
