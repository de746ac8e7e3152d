package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
)

// The tenant JSON API, /api/v1: programs authenticate with an API key
// (Authorization: Bearer), never a cookie, so it has no CSRF check; the
// key's tenant is the only tenant it reaches. Errors are RFC 9457
// problem+json.

// apiBodyLimit is the largest request body the API reads.
const apiBodyLimit = 64 << 10

// ctxKey holds the request's API key.
const ctxKey = "apikey"

// apiRoute is one endpoint of the API: its route, the scope it needs, and
// what the OpenAPI document says of it.
type apiRoute struct {
	method, path, scope string
	h                   echo.HandlerFunc
	summary             string
	query               []string // query parameters
	request, response   string   // schema names; "" for none
	status              int      // the success status
}

// apiRoutes lists the API. routes registers them and openAPI documents
// them, from this one list.
func (s *Server) apiRoutes() []apiRoute {
	return []apiRoute{
		{http.MethodGet, "/users", kanri.ScopeRead, s.apiListUsers, "List the tenant's users", []string{"q", "status", "sort", "desc", "limit", "next"}, "", "UserList", 200},
		{http.MethodPost, "/users", kanri.ScopeWrite, s.apiCreateUser, "Create a user", nil, "UserCreate", "User", 201},
		{http.MethodGet, "/users/:id", kanri.ScopeRead, s.apiGetUser, "Read a user", nil, "", "User", 200},
		{http.MethodPatch, "/users/:id", kanri.ScopeWrite, s.apiUpdateUser, "Change a user's e-mail or display name (If-Match: the ETag read)", nil, "UserUpdate", "User", 200},
		{http.MethodPost, "/users/:id/deactivate", kanri.ScopeWrite, s.apiDeactivateUser, "Deactivate a user", nil, "", "User", 200},
		{http.MethodPost, "/users/:id/reactivate", kanri.ScopeWrite, s.apiReactivateUser, "Reactivate a user", nil, "", "User", 200},
		{http.MethodGet, "/users/:id/roles", kanri.ScopeRead, s.apiListRoles, "List a user's role assignments", nil, "", "RoleAssignmentList", 200},
		{http.MethodPost, "/users/:id/roles", kanri.ScopeWrite, s.apiAssignRole, "Give a user a role", nil, "RoleAssignmentCreate", "RoleAssignment", 201},
		{http.MethodDelete, "/users/:id/roles/:service/:role", kanri.ScopeWrite, s.apiRemoveRole, "Take a role from a user (role: admin, viewer)", nil, "", "", 204},
		{http.MethodGet, "/audit", kanri.ScopeRead, s.apiListAudit, "List the tenant's audit log, newest first", []string{"action", "user", "resource", "from", "to", "limit", "next"}, "", "AuditList", 200},
	}
}

// apiKeyOf returns the request's API key.
func apiKeyOf(c echo.Context) *kanri.APIKey { return c.Get(ctxKey).(*kanri.APIKey) }

// apiAuth authenticates the request's API key and makes its tenant the
// request's tenant and the key the actor of its changes.
func (s *Server) apiAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Request().Header.Get(echo.HeaderAuthorization)
		scheme, secret, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(secret) == "" {
			return kanri.E(kanri.EUNAUTHENTICATED, "api.key_missing")
		}
		ctx := c.Request().Context()
		k, err := s.Keys.Authenticate(ctx, strings.TrimSpace(secret))
		if err != nil {
			return err
		}
		t, err := s.Tenants.Get(ctx, k.TenantID)
		if err != nil || t.Status != kanri.TenantActive {
			return kanri.E(kanri.EUNAUTHENTICATED, "api.tenant_inactive")
		}
		actor := audit.ActorFrom(ctx)
		actor.UserID, actor.UserName, actor.TenantID = k.ID, "API key "+k.Name+" ("+k.KeyPrefix+"…)", k.TenantID
		c.SetRequest(c.Request().WithContext(audit.WithActor(ctx, actor)))
		c.Set(ctxKey, k)
		c.Set(ctxTenant, t)
		return next(c)
	}
}

// apiUsage logs the call (after it is answered) for the usage pages,
// off the request path.
func (s *Server) apiUsage(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := s.Now()
		err := next(c)
		if err != nil {
			c.Error(err) // answer now, so that the status is known
		}
		k := apiKeyOf(c)
		u := apikey.NewUsage(k, start)
		u.Endpoint, u.Method, u.StatusCode = c.Path(), c.Request().Method, c.Response().Status
		u.ResponseTime = int(s.Now().Sub(start) / time.Millisecond)
		u.RequestSize, u.ResponseSize = max(0, c.Request().ContentLength), c.Response().Size
		u.ClientIP, u.UserAgent = c.RealIP(), truncate(c.Request().UserAgent(), 256)
		s.Usage.Record(u)
		return nil
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// apiLimit spends one call of the key's rate limit, and says how many are
// left in the RateLimit headers.
func (s *Server) apiLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		d, err := s.Limiter.Allow(c.Request().Context(), apiKeyOf(c))
		if err != nil {
			return err
		}
		reset := strconv.Itoa(int((d.Reset + time.Second - 1) / time.Second))
		h := c.Response().Header()
		h.Set("RateLimit-Limit", strconv.Itoa(d.Limit))
		h.Set("RateLimit-Remaining", strconv.Itoa(d.Remaining))
		h.Set("RateLimit-Reset", reset)
		if !d.Allowed {
			h.Set("Retry-After", reset)
			return errRateLimited
		}
		return next(c)
	}
}

// errRateLimited is the error of a call over its key's limit.
var errRateLimited = echo.NewHTTPError(http.StatusTooManyRequests)

// apiScope lets a call through only if its key holds scope.
func apiScope(scope string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if !apiKeyOf(c).HasScope(scope) {
				return kanri.E(kanri.EFORBIDDEN, "api.scope_missing", scope)
			}
			return next(c)
		}
	}
}

// apiUsable lets a call through only while the tenant may use the API
// service (its assignment of api-service is active).
func (s *Server) apiUsable(next echo.HandlerFunc) echo.HandlerFunc {
	return s.usable(role.APIService)(next)
}

// problem is an RFC 9457 problem document.
type problem struct {
	Type      string            `json:"type"`
	Title     string            `json:"title"`
	Status    int               `json:"status"`
	Detail    string            `json:"detail,omitempty"`
	Errors    map[string]string `json:"errors,omitempty"`
	RequestID string            `json:"requestId,omitempty"`
}

// problemTypes are the stable types of the API's problems, by status.
var problemTypes = map[int]string{
	http.StatusBadRequest:            "bad-request",
	http.StatusUnauthorized:          "unauthenticated",
	http.StatusForbidden:             "forbidden",
	http.StatusNotFound:              "not-found",
	http.StatusMethodNotAllowed:      "method-not-allowed",
	http.StatusConflict:              "conflict",
	http.StatusPreconditionFailed:    "stale",
	http.StatusPreconditionRequired:  "precondition-required",
	http.StatusRequestEntityTooLarge: "too-large",
	http.StatusUnsupportedMediaType:  "unsupported-media-type",
	http.StatusUnprocessableEntity:   "invalid",
	http.StatusTooManyRequests:       "rate-limited",
	http.StatusInternalServerError:   "internal",
}

// ProblemType returns the type URI of the API's problems of a status.
func ProblemType(status int) string {
	if t, ok := problemTypes[status]; ok {
		return "urn:kanri:problem:" + t
	}
	return "about:blank"
}

// apiError answers an API request's error as problem+json. Another
// tenant's ids are simply not found: the API never says they exist.
func (s *Server) apiError(c echo.Context, err error) {
	ctx := c.Request().Context()
	code := http.StatusInternalServerError
	var he *echo.HTTPError
	switch {
	case errors.As(err, &he):
		code = he.Code
		if code == http.StatusForbidden {
			code = http.StatusNotFound // Echo's 403 is a route we hide
		}
	case kanri.ErrorCode(err) != "":
		code = status(err)
	}
	p := problem{Type: ProblemType(code), Title: http.StatusText(code), Status: code, RequestID: reqID(c)}
	switch code {
	case http.StatusInternalServerError:
		s.Logger.Error("internal error", "err", err, "request_id", reqID(c), "path", c.Request().URL.Path)
		p.Detail = i18n.T(ctx, "error.internal_body", reqID(c))
	case http.StatusNotFound:
		p.Detail = i18n.T(ctx, "api.not_found")
	case http.StatusRequestEntityTooLarge:
		p.Detail = i18n.T(ctx, "api.too_large", apiBodyLimit)
	case http.StatusTooManyRequests:
		p.Detail = i18n.T(ctx, "api.rate_limited")
	case http.StatusMethodNotAllowed:
		p.Detail = i18n.T(ctx, "api.method_not_allowed")
	case http.StatusBadRequest:
		detail := "?"
		if he != nil {
			detail, _ = he.Message.(string)
		}
		p.Detail = i18n.T(ctx, "api.bad_json", detail)
	case http.StatusUnsupportedMediaType:
		p.Detail = i18n.T(ctx, "api.json_only")
	default:
		p.Detail = message(ctx, err, "error.title")
		if fields := kanri.ErrorFields(err); len(fields) > 0 {
			p.Errors = map[string]string{}
			for f, key := range fields {
				p.Errors[f] = i18n.T(ctx, key)
			}
		}
	}
	if code == http.StatusUnauthorized {
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="kanri"`)
	}
	b, _ := json.Marshal(p)
	c.Response().Header().Set(echo.HeaderContentType, "application/problem+json")
	if err := c.Blob(code, "application/problem+json", b); err != nil {
		s.Logger.Warn("problem not sent", "err", err, "request_id", reqID(c))
	}
}

// readJSON reads a request's JSON body into v: it must be declared as
// application/json, hold one object, and no field v does not know.
func readJSON(c echo.Context, v any) error {
	ct, _, err := mime.ParseMediaType(c.Request().Header.Get(echo.HeaderContentType))
	if err != nil || ct != "application/json" {
		return echo.NewHTTPError(http.StatusUnsupportedMediaType)
	}
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return err // over the body limit: 413
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest(jsonProblem(err))
	}
	if dec.More() {
		return badRequest("more than one JSON value")
	}
	return nil
}

// badRequest is the error of a body that cannot be read as the endpoint's
// JSON (400); what is wrong goes in the problem's detail.
func badRequest(detail string) error {
	return &echo.HTTPError{Code: http.StatusBadRequest, Message: detail}
}

// jsonProblem says what is wrong with a JSON body, without echoing it.
func jsonProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("syntax error at byte %d", syn.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("%s must be a %s", typ.Field, typ.Type)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	case errors.Is(err, io.EOF):
		return "the body is empty"
	}
	return "not a JSON object"
}

// etag returns a document's ETag as an HTTP header value.
func etag(v string) string { return `"` + strings.Trim(v, `"`) + `"` }

// ifMatch returns the ETag of the request's If-Match header, or "".
func ifMatch(c echo.Context) string {
	v := strings.TrimSpace(c.Request().Header.Get("If-Match"))
	return strings.Trim(strings.TrimPrefix(v, "W/"), `"`)
}

// storedETag returns the stored form of an ETag the client sent back.
func storedETag(doc, sent string) string {
	if strings.Trim(doc, `"`) == sent {
		return doc
	}
	return sent
}
