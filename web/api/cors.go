package api

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/web/httpkit"
)

// Browser access to the API (CORS). A tenant's administrators list the
// origins whose pages may call the API; none by default. A preflight
// request carries no key, so it is answered for an origin that some tenant
// lists (the operator-wide index); the answer to the call itself carries
// Access-Control-Allow-Origin only when the key's own tenant lists it, so
// a page of another origin never reads the answer.

// corsMethods and corsHeaders are what a listed origin's pages may send.
const (
	corsMethods = "GET, HEAD, POST, PATCH, DELETE"
	corsHeaders = "Authorization, Content-Type, If-Match, If-None-Match, If-Range, Range, Idempotency-Key, Accept-Language, " +
		"Tus-Resumable, Upload-Length, Upload-Offset, Upload-Metadata, Upload-Checksum"
	// corsExposed are the answer's headers a listed origin's pages may
	// read: each the document says an answer carries, and Allow (beside
	// those CORS lets pages read anyway, such as Content-Type).
	corsExposed = "ETag, Location, Link, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Idempotent-Replayed, X-Request-Id, WWW-Authenticate, Allow, " +
		"Accept-Ranges, Content-Disposition, Content-Range, Tus-Resumable, Tus-Version, Tus-Extension, Tus-Max-Size, Tus-Checksum-Algorithm, " +
		"Upload-Offset, Upload-Length, Upload-Expires, Upload-Metadata, Kanri-File-Id"
	corsMaxAge = "600"
)

// Preflight answers browsers' CORS preflight requests to the API
// (OPTIONS with Access-Control-Request-Method) before any route's own
// middleware (a preflight carries no key), but after the server's (its
// answer has a request id and the security headers as any): with the
// permissions for an origin some tenant lists, and with none otherwise
// (the browser then sends nothing).
func (s *Server) Preflight(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" ||
			!strings.HasPrefix(r.URL.Path, Prefix+"/") {
			return next(c)
		}
		h := c.Response().Header()
		h.Add("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
		origin := kanri.NormalizeOrigin(r.Header.Get("Origin"))
		if origin != "" && origin == r.Header.Get("Origin") {
			listed, err := s.Keys.OriginListed(r.Context(), origin)
			if err != nil {
				return err
			}
			if listed {
				h.Set("Access-Control-Allow-Origin", origin)
				h.Set("Access-Control-Allow-Methods", corsMethods)
				h.Set("Access-Control-Allow-Headers", corsHeaders)
				h.Set("Access-Control-Max-Age", corsMaxAge)
			}
		}
		return c.NoContent(http.StatusNoContent)
	}
}

// apiCORS lets a page of an origin the key's tenant lists read the answer.
// It runs after apiAuth: the tenant is the key's.
func (s *Server) apiCORS(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		origin := c.Request().Header.Get("Origin")
		if origin == "" {
			return next(c)
		}
		h := c.Response().Header()
		h.Add("Vary", "Origin")
		if GrantOf(c).settings.Allows(origin) {
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Expose-Headers", corsExposed)
		}
		return next(c)
	}
}

// corsBeforeKey lets a page of an origin that some tenant lists read an
// API answer given before the request's key was known (a 401, a 404 of no
// API version, a 413): whoever a preflight lets send the request may read
// why it was refused, or the page sees only a failed request. Such an
// answer tells nothing of any tenant. Once the key is known, apiCORS
// decides by the key's tenant alone.
func (s *Server) corsBeforeKey(c echo.Context) {
	origin := c.Request().Header.Get("Origin")
	if _, known := c.Get(ctxGrant).(*Grant); origin == "" || known {
		return
	}
	h := c.Response().Header()
	h.Add("Vary", "Origin")
	if kanri.NormalizeOrigin(origin) != origin {
		return
	}
	listed, err := s.Keys.OriginListed(c.Request().Context(), origin)
	if err != nil {
		s.Logger.WarnContext(c.Request().Context(), "CORS: origin not looked up", "err", err, "request_id", httpkit.RequestID(c))
		return
	}
	if listed {
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Expose-Headers", corsExposed)
	}
}
