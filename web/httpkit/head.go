package httpkit

import (
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
)

// ctxHead marks a HEAD request routed as a GET.
const ctxHead = "head"

// HeadAsGet answers HEAD as GET (RFC 9110 §9.3.2): before routing, the
// request becomes a GET (Echo routes the request the server holds, so it
// is changed in place), and its answer's status and headers are sent
// without its body. HeadRestored makes it a HEAD again once routed.
//
// A path with a HEAD route of its own (in *heads, set once the routes
// are: a tus upload's, where HEAD says how far the upload got and GET is
// no operation) keeps its HEAD, which is routed to that route.
func HeadAsGet(heads *PathSet) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if req := c.Request(); req.Method == http.MethodHead && !heads.Match(echo.GetPath(req)) {
				req.Method = http.MethodGet
				c.Set(ctxHead, true)
				c.Response().Writer = headWriter{c.Response().Writer}
			}
			return next(c)
		}
	}
}

// HeadRestored gives a HEAD request routed as a GET its method back, the
// first thing after routing: the server must know it answers a HEAD, or
// an answer whose Content-Length is declared (a download, a page) would
// look cut short to it, and it would close a connection the client keeps.
func HeadRestored(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if head, _ := c.Get(ctxHead).(bool); head {
			c.Request().Method = http.MethodHead
		}
		return next(c)
	}
}

// headWriter is the writer of a HEAD request's answer: it sends no body.
type headWriter struct{ http.ResponseWriter }

func (w headWriter) Write(b []byte) (int, error) { return len(b), nil }

// Unwrap returns the writer underneath, for http.ResponseController.
func (w headWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Reads reports whether the request only reads: a GET, or a HEAD.
func Reads(c echo.Context) bool {
	m := c.Request().Method
	return m == http.MethodGet || m == http.MethodHead
}

// PathSet is a set of route paths (/t/:tenant/uploads/:upload), which
// match request paths as Echo routes them.
type PathSet []*regexp.Regexp

// RoutePattern returns the expression of an Echo route's path: a
// parameter (:id) is one segment, a final * anything.
func RoutePattern(path string) *regexp.Regexp {
	p := PathParam.ReplaceAllString(regexp.QuoteMeta(path), "[^/]+")
	if rest, ok := strings.CutSuffix(p, `\*`); ok {
		p = rest + ".*"
	}
	return regexp.MustCompile("^" + p + "$")
}

// HeadRoutes returns the paths of the routes of method HEAD.
func HeadRoutes(routes []*echo.Route) PathSet {
	var out PathSet
	for _, r := range routes {
		if r.Method == http.MethodHead {
			out = append(out, RoutePattern(r.Path))
		}
	}
	return out
}

// Match reports whether a request path (as Echo routes it) is one of the
// set's.
func (ps PathSet) Match(path string) bool {
	return slices.ContainsFunc(ps, func(re *regexp.Regexp) bool { return re.MatchString(path) })
}

// PathParam matches an Echo path parameter (:id), which OpenAPI writes
// {id}.
var PathParam = regexp.MustCompile(`:([A-Za-z]+)`)
