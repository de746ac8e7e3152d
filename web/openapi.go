package web

import (
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/views"
)

// pathParam matches an Echo path parameter (:id), which OpenAPI writes
// {id}.
var pathParam = regexp.MustCompile(`:([A-Za-z]+)`)

// openAPIPath returns the OpenAPI form of an API route's path.
func openAPIPath(p string) string { return "/api/v1" + pathParam.ReplaceAllString(p, "{$1}") }

// openAPIDoc builds the OpenAPI 3.1 document of the API from apiRoutes,
// the list routes registers: an endpoint cannot be served undocumented,
// and what the document says of an endpoint's parameters, statuses and
// headers comes from the declarations its handler and middleware use.
func (s *Server) openAPIDoc() map[string]any {
	paths := map[string]map[string]any{}
	for _, r := range s.apiRoutes() {
		p := openAPIPath(r.path)
		if paths[p] == nil {
			paths[p] = map[string]any{}
		}
		var params []map[string]any
		for _, m := range pathParam.FindAllStringSubmatch(r.path, -1) {
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
		}
		for _, q := range r.query {
			params = append(params, map[string]any{"name": q.name, "in": "query", "required": false, "schema": q.schema(), "description": q.doc})
		}
		if r.ifMatch {
			params = append(params, map[string]any{"name": "If-Match", "in": "header", "required": false, "schema": map[string]any{"type": "string"},
				"description": "The ETag of the version read (or *): the change is made to that version only, else 412. Weak tags never match. Without it, the change is made to the current version."})
		}
		op := map[string]any{
			"operationId":   operationID(r),
			"summary":       r.summary,
			"description":   "Needs the scope `" + r.scope + "`.",
			"x-kanri-scope": r.scope,
			"responses":     apiResponses(r),
		}
		if len(params) > 0 {
			op["parameters"] = params
		}
		if r.request != "" {
			op["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": schemaRef(r.request)}}}
		}
		paths[p][strings.ToLower(r.method)] = op
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "Kanri tenant API",
			"version":     "1.0.0",
			"description": "The API of one tenant, reached with one of its API keys (Authorization: Bearer ak_live_…). Lists page with the next token; errors are RFC 9457 problem documents; the answers of the calls counted against a key's rate limit carry RateLimit headers.",
		},
		"servers":    []map[string]any{{"url": "/"}},
		"security":   []map[string]any{{"apiKey": []string{}}},
		"paths":      paths,
		"components": map[string]any{"securitySchemes": map[string]any{"apiKey": map[string]any{"type": "http", "scheme": "bearer", "bearerFormat": "ak_live_ + 43 base62 characters + 6 of checksum"}}, "schemas": apiSchemas()},
	}
}

// schemaRef refers to a schema of components/schemas.
func schemaRef(name string) map[string]any {
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

// The response headers of the API.
const (
	hdrETag               = "ETag"
	hdrLocation           = "Location"
	hdrRateLimitLimit     = "RateLimit-Limit"
	hdrRateLimitRemaining = "RateLimit-Remaining"
	hdrRateLimitReset     = "RateLimit-Reset"
	hdrRetryAfter         = "Retry-After"
	hdrWWWAuthenticate    = "WWW-Authenticate"
)

// headerDocs describe the response headers, with their schemas.
var headerDocs = map[string]struct {
	doc    string
	schema map[string]any
}{
	hdrETag:               {"The version of the resource: send it in If-Match to change this version only.", map[string]any{"type": "string"}},
	hdrLocation:           {"The path of the new resource.", map[string]any{"type": "string", "format": "uri-reference"}},
	hdrRateLimitLimit:     {"The calls the key may make in its window.", map[string]any{"type": "integer", "minimum": 0}},
	hdrRateLimitRemaining: {"The calls left in the current window.", map[string]any{"type": "integer", "minimum": 0}},
	hdrRateLimitReset:     {"Seconds until the window ends.", map[string]any{"type": "integer", "minimum": 0}},
	hdrRetryAfter:         {"Seconds to wait before calling again.", map[string]any{"type": "integer", "minimum": 0}},
	hdrWWWAuthenticate:    {"The authentication scheme the API takes: Bearer.", map[string]any{"type": "string"}},
}

// responseHeaders returns a response's headers object: the required
// headers and those it may carry.
func responseHeaders(required, optional []string) map[string]any {
	out := map[string]any{}
	for _, names := range [][]string{optional, required} {
		for _, n := range names {
			h := map[string]any{"description": headerDocs[n].doc, "schema": headerDocs[n].schema}
			if slices.Contains(required, n) {
				h["required"] = true
			}
			out[n] = h
		}
	}
	return out
}

// apiResponses returns an operation's responses: the statuses its handler
// and the API's middleware answer, with their headers.
//
// The middleware runs in this order (routes.go): the body limit (413), the
// key's authentication (401), the rate limit (429, or 503 when its shared
// counter is too contended), the tenant's API service (403), then the
// route's scope and its creator's permission (403, or 401 when the creator
// is gone). Every answer after the rate limit carries its RateLimit
// headers; the handler's body limit answers 413 after it too when the
// request did not say its length.
func apiResponses(r apiRoute) map[string]any {
	rateLimit := []string{hdrRateLimitLimit, hdrRateLimitRemaining, hdrRateLimitReset}
	response := func(desc, schema, mediaType string, required, optional []string) map[string]any {
		out := map[string]any{"description": desc}
		if schema != "" {
			out["content"] = map[string]any{mediaType: map[string]any{"schema": schemaRef(schema)}}
		}
		if h := responseHeaders(required, optional); len(h) > 0 {
			out["headers"] = h
		}
		return out
	}
	problem := func(desc string, required, optional []string) map[string]any {
		return response(desc, "Problem", "application/problem+json", required, optional)
	}
	success := slices.Clone(rateLimit)
	if r.etag {
		success = append(success, hdrETag)
	}
	if r.location {
		success = append(success, hdrLocation)
	}
	out := map[string]any{
		strconv.Itoa(r.status): response(http.StatusText(r.status), r.response, "application/json", success, nil),
		"401": problem("The API key is missing, malformed, unknown, inactive, expired or revoked, or its creator's account is no longer active.",
			[]string{hdrWWWAuthenticate}, rateLimit),
		"403": problem("The key lacks the scope "+r.scope+", its creator the permission "+r.perm+", or the tenant's API service is suspended or expired.", rateLimit, nil),
		"413": problem("The body is larger than 64 KB (every route has this limit).", nil, rateLimit),
		"429": problem("The key's rate limit is spent; Retry-After says when to try again.", append([]string{hdrRetryAfter}, rateLimit...), nil),
		"500": problem("An internal error; the detail gives the request id to quote.", nil, rateLimit),
		"503": problem("Other writes kept winning the race for what the request reads or changes, or the rate limit's shared counter is too contended; Retry-After says when to try again.", []string{hdrRetryAfter}, rateLimit),
	}
	if r.unchanged != 0 {
		out[strconv.Itoa(r.unchanged)] = response(http.StatusText(r.unchanged)+": the change was already made; the answer is the existing resource.", r.response, "application/json", success, nil)
	}
	if strings.Contains(r.path, ":") {
		out["404"] = problem("No such resource in the key's tenant.", rateLimit, nil)
	}
	if r.method != http.MethodGet {
		out["409"] = problem("The change conflicts with the current state (the last administrator, the tenant's user limit).", rateLimit, nil)
	}
	if r.ifMatch {
		out["412"] = problem("If-Match matches no current ETag.", rateLimit, nil)
	}
	if r.request != "" {
		out["400"] = problem("The body is not one JSON object of the documented fields.", rateLimit, nil)
		out["415"] = problem("The body is not application/json.", rateLimit, nil)
		out["422"] = problem("The input is invalid, a username or e-mail already taken included; errors names the fields.", rateLimit, nil)
	}
	for _, q := range r.query {
		if q.refusable() {
			out["422"] = problem("A parameter is invalid; errors names it.", rateLimit, nil)
		}
	}
	return out
}

func operationID(r apiRoute) string {
	id := strings.ToLower(r.method)
	for _, part := range strings.Split(strings.Trim(r.path, "/"), "/") {
		part = strings.TrimPrefix(part, ":")
		id += strings.ToUpper(part[:1]) + part[1:]
	}
	return id
}

func apiSchemas() map[string]any {
	str := map[string]any{"type": "string"}
	// An address as net/mail reads it, UTF-8 included (RFC 6532): the
	// API takes and returns internationalised addresses.
	email := map[string]any{"type": "string", "format": "idn-email"}
	when := map[string]any{"type": []string{"string", "null"}, "format": "date-time"}
	obj := func(required []string, props map[string]any) map[string]any {
		o := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
		if len(required) > 0 {
			o["required"] = required
		}
		return o
	}
	list := func(item string) map[string]any {
		return obj([]string{"items"}, map[string]any{
			"items": map[string]any{"type": "array", "items": map[string]any{"$ref": "#/components/schemas/" + item}},
			"next":  map[string]any{"type": "string", "description": "Pass as next to get the following page; absent on the last page."},
		})
	}
	return map[string]any{
		"User": obj([]string{"id", "tenantId", "username", "email", "displayName", "isActive", "status"}, map[string]any{
			"id": str, "tenantId": str, "username": str, "email": email, "displayName": str,
			"isActive": map[string]any{"type": "boolean"}, "status": map[string]any{"enum": []string{"active", "inactive", "locked", "deleted"}},
			"createdAt": when, "updatedAt": when, "lastLoginAt": when,
		}),
		"UserList": list("User"),
		"UserCreate": obj([]string{"username", "email", "displayName", "password"}, map[string]any{
			"username": str, "email": email, "displayName": str,
			"password": map[string]any{"type": "string", "description": i18n.Translate(i18n.English, "validation.password_policy")},
		}),
		"UserUpdate": obj(nil, map[string]any{"email": email, "displayName": str}),
		"RoleAssignment": obj([]string{"id", "userId", "serviceId", "roleName"}, map[string]any{
			"id": str, "userId": str, "serviceId": str, "roleName": str, "role": map[string]any{"enum": []string{"global_admin", "admin", "viewer"}},
			"assignedBy": str, "assignedAt": when,
		}),
		"RoleAssignmentList":   list("RoleAssignment"),
		"RoleAssignmentCreate": obj([]string{"serviceId", "role"}, map[string]any{"serviceId": str, "role": map[string]any{"type": "string", "description": "admin or viewer (or the role's name)"}}),
		"AuditRecord": obj([]string{"id", "timestamp", "action", "status"}, map[string]any{
			"id": str, "timestamp": when, "action": str, "status": map[string]any{"enum": []string{"success", "failure"}},
			"userId": str, "userName": str,
			"resource": obj(nil, map[string]any{"type": str, "id": str, "name": str}),
			"changes":  map[string]any{"type": "object", "additionalProperties": obj(nil, map[string]any{"before": map[string]any{}, "after": map[string]any{}})},
			"reason":   str, "ipAddress": str, "requestId": str,
		}),
		"AuditList": list("AuditRecord"),
		"Problem": map[string]any{"type": "object", "required": []string{"type", "title", "status"}, "properties": map[string]any{
			"type": map[string]any{"type": "string", "format": "uri", "description": "Stable: urn:kanri:problem:<kind>."}, "title": str,
			"status": map[string]any{"type": "integer"}, "detail": str, "requestId": str,
			"errors": map[string]any{"type": "object", "additionalProperties": str, "description": "The invalid fields and why."},
		}},
	}
}

// openAPI serves the OpenAPI document.
func (s *Server) openAPI(c echo.Context) error {
	return c.JSON(http.StatusOK, s.openAPIDoc())
}

// apiDocs is the human page of the API: its endpoints and a link to the
// OpenAPI document.
func (s *Server) apiDocs(c echo.Context) error {
	var eps []views.APIEndpoint
	for _, r := range s.apiRoutes() {
		eps = append(eps, views.APIEndpoint{Method: r.method, Path: openAPIPath(r.path), Scope: r.scope, Summary: r.summary})
	}
	p := views.Page{Title: "API", Lang: i18n.Lang(c.Request().Context()), Theme: theme(c)}
	return render(c, http.StatusOK, views.APIDocsPage(p, eps))
}
