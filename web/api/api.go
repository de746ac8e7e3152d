package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/telemetry"
	"github.com/kanri/kanri/web/httpkit"
	"github.com/kanri/kanri/web/tus"
)

// The tenant JSON API, /api/v1: programs authenticate with an API key
// (Authorization: Bearer), never a cookie, so it has no CSRF check; the
// key's tenant is the only tenant it reaches. Errors are RFC 9457
// problem+json.

// apiBodyLimit is the largest request body the API reads.
const apiBodyLimit = 64 << 10 // 65,536 bytes: 65,537 are refused

// apiAuth authenticates the request's API key and makes its tenant the
// request's tenant and the key the actor of its changes. What it reads
// (the key, its tenant, its creator's rights and the api-service
// assignment) is kept for GrantTTL; the key and the assignment are
// checked again against the clock at every call.
func (s *Server) apiAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if len(c.Request().Header.Values(echo.HeaderAuthorization)) > 1 {
			return kanri.E(kanri.EMALFORMED, "input.header_repeated", echo.HeaderAuthorization) // which one would be meant?
		}
		h := c.Request().Header.Get(echo.HeaderAuthorization)
		scheme, secret, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(secret) == "" {
			return kanri.E(kanri.EUNAUTHENTICATED, "api.key_missing")
		}
		secret = strings.TrimSpace(secret)
		if !apikey.WellFormed(secret) {
			return kanri.E(kanri.EUNAUTHENTICATED, "api.key_invalid")
		}
		ctx := c.Request().Context()
		hash, now := apikey.Hash(secret), s.Now()
		g, ok := s.grants.get(hash, now)
		if ok {
			if err := apikey.Verify(g.key, hash, now); err != nil {
				return err
			}
		} else {
			var err error
			gen := s.grants.generation()
			if g, err = s.readGrant(ctx, secret); err != nil {
				return err
			}
			s.grants.put(hash, g, gen)
		}
		if !g.tenant.OpenAt(s.Now()) {
			return kanri.E(kanri.EUNAUTHENTICATED, "api.tenant_inactive")
		}
		k, t := *g.key, *g.tenant // the request's own copies
		actor := audit.ActorFrom(ctx)
		actor.UserID, actor.UserName, actor.TenantID = k.ID, "API key "+k.Name+" ("+k.KeyPrefix+"…)", k.TenantID
		c.SetRequest(c.Request().WithContext(audit.WithActor(ctx, actor)))
		c.Set(KeyAPIKey, &k)
		c.Set(httpkit.KeyTenant, &t)
		c.Set(ctxGrant, g)
		return next(c)
	}
}

// readGrant authenticates a secret and reads what its calls need.
func (s *Server) readGrant(ctx context.Context, secret string) (*Grant, error) {
	at := s.Now()
	k, err := s.Keys.Authenticate(ctx, secret)
	if err != nil {
		return nil, err
	}
	t, err := s.Tenants.Get(ctx, k.TenantID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, kanri.E(kanri.EUNAUTHENTICATED, "api.tenant_inactive")
	} else if err != nil {
		return nil, err
	}
	g := &Grant{key: k, tenant: t, home: t.ID, at: at}
	if g.assignment, g.service, err = s.Catalog.Usability(ctx, t.ID, kanri.APIServiceID); err != nil {
		return nil, err
	}
	if g.settings, err = s.Keys.Settings(ctx, t.ID); err != nil {
		return nil, err
	}
	g.Perms, g.home, g.CreatorName, err = s.creatorPerms(ctx, k, t)
	if kanri.ErrorCode(err) == kanri.EUNAUTHENTICATED {
		g.permsErr, err = err, nil
	}
	// A key does what its creator may do in its tenant, on its tenant's
	// plan: what the plan lacks, the key lacks too.
	g.Perms = s.Roles.Catalog.ForPlan(g.Perms, t.Plan)
	return g, err
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
		if unlogged, _ := c.Get(ctxUnlogged).(bool); unlogged {
			return nil
		}
		k := KeyOf(c)
		u := apikey.NewUsage(k, start)
		u.Endpoint, u.Method, u.StatusCode = c.Path(), c.Request().Method, httpkit.LoggedStatus(c)
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
		d, err := s.Limiter.Allow(c.Request().Context(), KeyOf(c))
		if err != nil {
			return err // EBUSY when the shared counter is too contended: 503
		}
		reset := strconv.Itoa(int((d.Reset + time.Second - 1) / time.Second))
		h := c.Response().Header()
		h.Set("RateLimit-Limit", strconv.Itoa(d.Limit))
		h.Set("RateLimit-Remaining", strconv.Itoa(d.Remaining))
		h.Set("RateLimit-Reset", reset)
		if !d.Allowed {
			s.Metrics.RateLimited("api_key")
			h.Set("Retry-After", reset)
			if !d.FirstRefused {
				// A key over its limit costs no more store writes: only
				// the first refusal of a window goes to the usage log.
				c.Set(ctxUnlogged, true)
			}
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
			if !KeyOf(c).HasScope(scope) {
				return kanri.E(kanri.EFORBIDDEN, "api.scope_missing", scope)
			}
			return next(c)
		}
	}
}

// apiUsable lets a call through only if the tenant may use the API
// service now: its plan includes it, it is assigned and active, and the
// tenant's apiAccess setting is on.
func (s *Server) apiUsable(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		g := GrantOf(c)
		if err := s.Catalog.UsableAt(g.tenant, kanri.APIServiceID, g.assignment, g.service, s.Now()); err != nil {
			return err
		}
		return next(c)
	}
}

// apiPerm lets a call through only if the key's creator may do it in the
// console now: a key never does more than the person who made it, and
// stops working when they leave (their account deactivated or deleted).
// A key the operator's staff made for the tenant has the rights of a
// global administrator while its creator is one.
func (s *Server) apiPerm(perm string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			g := GrantOf(c)
			if g.permsErr != nil {
				return g.permsErr
			}
			if perm != "" && !g.Perms.Has(perm) {
				return kanri.E(kanri.EFORBIDDEN, "api.creator_lacks", perm)
			}
			return next(c)
		}
	}
}

// creatorPerms returns what the creator of key k may do in its tenant t,
// the creator's own tenant, and the name people know the creator by (their
// display name, else their username).
func (s *Server) creatorPerms(ctx context.Context, k *kanri.APIKey, t *kanri.Tenant) (role.Set, string, string, error) {
	home := t
	u, err := s.Users.Get(ctx, t.ID, k.CreatedBy)
	if kanri.IsCode(err, kanri.ENOTFOUND) && !t.IsPrivileged {
		var op *kanri.Tenant
		if op, err = s.Tenants.Get(ctx, kanri.PrivilegedTenantID); err == nil {
			home = op
			u, err = s.Users.Get(ctx, home.ID, k.CreatedBy)
		}
	}
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, home.ID, "", kanri.E(kanri.EUNAUTHENTICATED, "api.creator_gone")
	} else if err != nil {
		return nil, home.ID, "", err
	}
	if !u.IsActive || !u.DeletedAt.IsZero() {
		return nil, home.ID, "", kanri.E(kanri.EUNAUTHENTICATED, "api.creator_gone")
	}
	access, err := s.Roles.AccessOf(ctx, home.ID, u.ID)
	if err != nil {
		return nil, home.ID, "", err
	}
	if home != t && !access.GlobalAdmin {
		return role.Set{}, home.ID, "", nil // the operator's staff reach other tenants only as global administrators
	}
	name := u.DisplayName
	if name == "" {
		name = u.Username
	}
	return access.Perms, home.ID, name, nil
}

// Problem is an RFC 9457 problem document.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
	// Instance is the occurrence: urn:kanri:request:<request id>, and
	// :trace:<trace id> after it when the request is traced. Not the
	// request's path, which names the resource and is the same for every
	// problem with it; the request id names this one, and is what the
	// server's log and the X-Request-Id header carry.
	Instance  string            `json:"instance,omitempty"`
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
	http.StatusRequestTimeout:        "timeout",
	http.StatusConflict:              "conflict",
	http.StatusPreconditionFailed:    "stale",
	http.StatusPreconditionRequired:  "precondition-required",
	http.StatusRequestEntityTooLarge: "too-large",
	http.StatusUnsupportedMediaType:  "unsupported-media-type",
	http.StatusUnprocessableEntity:   "invalid",
	http.StatusTooManyRequests:       "rate-limited",
	http.StatusInternalServerError:   "internal",
	http.StatusServiceUnavailable:    "unavailable",
}

// problemAnchor returns the anchor of a problem type's description on the
// docs page (problem-not-found).
func problemAnchor(kind string) string { return "problem-" + kind }

// ProblemType returns the type of the API's problems of a status: the
// absolute address of its description on the docs page of the server at
// base (https://kanri.example.jp/api/v1/docs#problem-not-found), or
// about:blank for a status without one.
func ProblemType(base string, status int) string {
	if t, ok := problemTypes[status]; ok {
		return base + Prefix + "/docs#" + problemAnchor(t)
	}
	return "about:blank"
}

// ProblemInstance returns the instance of a request's problem:
// urn:kanri:request:<request id>, followed by :trace:<trace id> when the
// request is traced, so that the problem leads to the request's log lines
// and to its trace.
func ProblemInstance(c echo.Context) string {
	id := httpkit.RequestID(c)
	if id == "" {
		return ""
	}
	if t := telemetry.TraceID(c.Request().Context()); t != "" {
		return "urn:kanri:request:" + id + ":trace:" + t
	}
	return "urn:kanri:request:" + id
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
		if code == http.StatusNotFound {
			if allow := s.apiMethods(c); allow != "" {
				code = http.StatusMethodNotAllowed
				c.Response().Header().Set("Allow", allow)
			}
		}
	case httpkit.ClientGone(err):
		code = http.StatusServiceUnavailable // nobody reads it, unless the server is stopping
	case kanri.ErrorCode(err) != "":
		code = httpkit.Status(err)
	}
	p := Problem{Type: ProblemType(httpkit.BaseURL(c), code), Title: http.StatusText(code), Status: code, Instance: ProblemInstance(c), RequestID: httpkit.RequestID(c)}
	switch {
	case httpkit.ClientGone(err):
		httpkit.Abandoned(s.Logger, c, err)
		p.Detail = i18n.T(ctx, "input.abandoned")
	case code == http.StatusInternalServerError:
		s.Logger.ErrorContext(c.Request().Context(), "internal error", "err", err, "request_id", httpkit.RequestID(c), "path", c.Request().URL.Path)
		p.Detail = i18n.T(ctx, "error.internal_body", httpkit.RequestID(c))
	case code == http.StatusNotFound:
		p.Detail = i18n.T(ctx, "api.not_found")
	case code == http.StatusRequestEntityTooLarge:
		p.Detail = i18n.T(ctx, "api.too_large", apiBodyLimit)
	case code == http.StatusTooManyRequests:
		p.Detail = i18n.T(ctx, "api.rate_limited")
	case code == http.StatusRequestTimeout:
		p.Detail = i18n.T(ctx, "input.body_stalled")
	case code == http.StatusMethodNotAllowed:
		p.Detail = i18n.T(ctx, "api.method_not_allowed")
	case code == http.StatusBadRequest && he != nil:
		detail, _ := he.Message.(string)
		p.Detail = i18n.T(ctx, "api.bad_json", detail)
	case code == http.StatusUnsupportedMediaType:
		p.Detail = i18n.T(ctx, "api.json_only")
	default:
		p.Errors, p.Detail = FieldErrors(ctx, err, httpkit.Message(ctx, err, "error.title"))
	}
	s.corsBeforeKey(c)
	switch code {
	case http.StatusUnauthorized:
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="kanri"`)
	case http.StatusServiceUnavailable:
		c.Response().Header().Set("Retry-After", httpkit.RetryAfter)
	}
	b, _ := json.Marshal(p)
	c.Response().Header().Set(echo.HeaderContentType, "application/problem+json")
	if err := c.Blob(code, "application/problem+json", b); err != nil {
		s.Logger.WarnContext(c.Request().Context(), "problem not sent", "err", err, "request_id", httpkit.RequestID(c))
	}
}

// FieldErrors returns a problem's errors, the message of each field err
// names in the request's language (nil when it names none), and its
// detail: detail, or what is wrong with the fields when err says no more
// than that the input is invalid (never "Error").
func FieldErrors(ctx context.Context, err error, detail string) (map[string]string, string) {
	fields := kanri.ErrorFields(err)
	if len(fields) == 0 {
		return nil, detail
	}
	out := map[string]string{}
	var says []string
	for _, f := range slices.Sorted(maps.Keys(fields)) {
		out[f] = i18n.T(ctx, fields[f])
		says = append(says, f+": "+out[f])
	}
	if key, _ := kanri.ErrorMessage(err); key == "error.invalid" || !i18n.Has(key) {
		detail = strings.Join(says, " ")
	}
	return out, detail
}

// apiNotFound answers a path under /api/ that is no API version's: 404.
func apiNotFound(echo.Context) error { return echo.ErrNotFound }

// apiMethods returns the methods the API serves at the request's path
// ("GET, POST"), or "" when it serves none: a path that exists with
// another method is 405, not 404. The path is the one Echo routed, as
// the request wrote it (echo.GetPath): /api/v1/%75sers is not /users,
// and so not found, as the router found no route for it.
func (s *Server) apiMethods(c echo.Context) string {
	path, ok := strings.CutPrefix(echo.GetPath(c.Request()), Prefix)
	if !ok {
		return ""
	}
	var allow []string
	for _, r := range s.routes {
		if !httpkit.RoutePattern(r.Path).MatchString(path) {
			continue
		}
		methods := []string{r.Method}
		if r.Method == http.MethodGet {
			methods = append(methods, http.MethodHead) // answered as GET (headAsGet)
		}
		for _, m := range methods {
			if !slices.Contains(allow, m) {
				allow = append(allow, m)
			}
		}
	}
	return strings.Join(allow, ", ")
}

// ReadJSON reads a request's JSON body into v: it must be declared as
// application/json in UTF-8 (the only charset JSON has, RFC 8259 §8.1:
// another is 415), be valid UTF-8 (else 400: never read with its bad
// bytes replaced) and hold one object whose keys are fields of v, spelt
// exactly as documented, each once. A body that stalls is 408, one that
// ends before its Content-Length 400, one over the limit 413. null for a
// field that cannot be null is invalid (422, naming the field).
func ReadJSON(c echo.Context, v any) error {
	ct, params, err := mime.ParseMediaType(c.Request().Header.Get(echo.HeaderContentType))
	if err != nil || ct != "application/json" {
		return echo.NewHTTPError(http.StatusUnsupportedMediaType)
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return echo.NewHTTPError(http.StatusUnsupportedMediaType)
	}
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		if e := httpkit.BodyError(err); e != nil {
			return e
		}
		return err
	}
	if !utf8.Valid(body) {
		return badRequest("the body is not valid UTF-8")
	}
	if err := checkObject(body, v); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest(jsonProblem(err))
	}
	if f := nullFields(body, reflect.TypeOf(v), ""); len(f) > 0 {
		return kanri.Invalid(f)
	}
	return nil
}

// unmarshaler is the type of json.Unmarshaler.
var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// nullFields returns the fields of the JSON object body that are null
// but cannot be, named as in the body (profile.firstName, tags): those
// read into struct t's fields, at any depth, unless the field's type
// reads null itself (a json.Unmarshaler, such as optionalID, whose null
// means something). encoding/json would read such a null as "leave the
// field as it is", which the document does not allow.
func nullFields(body []byte, t reflect.Type, prefix string) kanri.Fields {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var obj map[string]json.RawMessage
	if t.Kind() != reflect.Struct || json.Unmarshal(body, &obj) != nil {
		return nil
	}
	out := kanri.Fields{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		raw, ok := obj[name]
		if !ok || name == "-" || !f.IsExported() || reflect.PointerTo(f.Type).Implements(unmarshaler) {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case string(bytes.TrimSpace(raw)) == "null":
			out[prefix+name] = "validation.not_null"
		case ft.Kind() == reflect.Struct:
			maps.Copy(out, nullFields(raw, ft, prefix+name+"."))
		case ft.Kind() == reflect.Slice && !reflect.PointerTo(ft.Elem()).Implements(unmarshaler):
			var items []json.RawMessage
			if json.Unmarshal(raw, &items) == nil && slices.ContainsFunc(items, func(r json.RawMessage) bool { return string(r) == "null" }) {
				out[prefix+name] = "validation.not_null"
			}
		}
	}
	return out
}

// checkObject checks that body is one JSON object whose keys are the JSON
// names of v's fields, exactly (encoding/json would match them ignoring
// case), each at most once.
func checkObject(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	tok, err := dec.Token()
	if err != nil {
		return badRequest(jsonProblem(err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return badRequest("the body must be a JSON object, not " + jsonKind(tok))
	}
	fields := jsonFields(reflect.TypeOf(v))
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return badRequest(jsonProblem(err))
		}
		key, _ := tok.(string)
		if !slices.Contains(fields, key) {
			return badRequest(fmt.Sprintf("unknown field %q", key))
		}
		if seen[key] {
			return badRequest(fmt.Sprintf("the field %q is given twice", key))
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return badRequest(jsonProblem(unexpectedEOF(err)))
		}
	}
	if _, err := dec.Token(); err != nil {
		return badRequest(jsonProblem(unexpectedEOF(err)))
	}
	if _, err := dec.Token(); err != io.EOF {
		return badRequest("more than one JSON value")
	}
	return nil
}

// unexpectedEOF is err, io.ErrUnexpectedEOF when it is io.EOF: the end of
// a body within its object.
func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// jsonFields returns the JSON names of the fields of the struct t points
// to.
func jsonFields(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}

// jsonKind names the JSON type of a token: "null", "an array", "a string"…
func jsonKind(tok json.Token) string {
	switch t := tok.(type) {
	case nil:
		return "null"
	case json.Delim:
		if t == '[' {
			return "an array"
		}
		return "an object"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

// jsonTypeName names the JSON type a Go type is read from.
func jsonTypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	}
	return "object"
}

// badRequest is the error of a body that cannot be read as the endpoint's
// JSON (400); what is wrong goes in the problem's detail.
func badRequest(detail string) error {
	return &echo.HTTPError{Code: http.StatusBadRequest, Message: detail}
}

// jsonProblem says what is wrong with a JSON body, without echoing it and
// without the server's type names.
func jsonProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("syntax error at byte %d", syn.Offset)
	case errors.As(err, &typ) && typ.Field != "":
		return fmt.Sprintf("%s must be a %s", typ.Field, jsonTypeName(typ.Type))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	case errors.Is(err, io.EOF):
		return "the body is empty"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON ends too soon"
	}
	return "not a JSON object"
}

// refuseIfMatch refuses If-Match on a change that is not conditional
// (400): a client that sends it expects the change to depend on it, and
// it would not.
func refuseIfMatch(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if _, ok := c.Request().Header["If-Match"]; ok {
			return WriteProblem(c, http.StatusBadRequest, "This operation does not take If-Match: it changes no document a client reads with an ETag. Send it without If-Match.")
		}
		return next(c)
	}
}

// Precondition checks the request's If-Match header (RFC 9110 §13.1.1)
// against a document's ETag: it returns the ETag to save at, which is the
// document's when the header matches or is "*", and "" when there is no
// header (the caller then guards its write itself). A header that matches
// none is ESTALE (412). Weak tags never match.
func Precondition(c echo.Context, docETag string) (string, error) {
	h := strings.TrimSpace(c.Request().Header.Get("If-Match"))
	if h == "" {
		return "", nil
	}
	want := strings.Trim(docETag, `"`)
	for _, tag := range strings.Split(h, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" || (!strings.HasPrefix(tag, "W/") && strings.Trim(tag, `"`) == want) {
			return docETag, nil
		}
	}
	return "", kanri.Stale()
}

// WriteProblem answers a status as a problem document with detail (none
// when empty), for a refusal made where no error is returned (tus,
// http.ServeContent).
func WriteProblem(c echo.Context, status int, detail string) error {
	return WriteFieldProblem(c, status, detail, nil)
}

// WriteFieldProblem is apiProblem with the invalid fields and why (errors),
// as every 422 of the API has them.
func WriteFieldProblem(c echo.Context, status int, detail string, errs map[string]string) error {
	title := http.StatusText(status)
	if status == tus.StatusChecksumMismatch {
		title = "Checksum Mismatch"
	}
	p := Problem{Type: ProblemType(httpkit.BaseURL(c), status), Title: title, Status: status, Detail: detail, Errors: errs, Instance: ProblemInstance(c), RequestID: httpkit.RequestID(c)}
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return c.Blob(status, "application/problem+json", b)
}

// BadNext names the next parameter in a list's refusal of its
// continuation token: the console starts such a list over at its first
// page, but an API client asked for a page after another and gets none.
func BadNext(err error) error {
	if key, _ := kanri.ErrorMessage(err); kanri.IsCode(err, kanri.EINVALID) && key == "validation.continuation" {
		return kanri.Invalid(map[string]string{ParamNext.Name: "api.next_invalid"})
	}
	return err
}

// HandleError answers an API request's error as problem+json.
func (s *Server) HandleError(err error, c echo.Context) { s.apiError(c, err) }
