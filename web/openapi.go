package web

import (
	"net/http"
	"regexp"
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
// the list routes registers: an endpoint cannot be served undocumented.
func (s *Server) openAPIDoc() map[string]any {
	ref := func(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }
	problem := func(desc string) map[string]any {
		return map[string]any{"description": desc, "content": map[string]any{"application/problem+json": map[string]any{"schema": ref("Problem")}}}
	}
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
			params = append(params, map[string]any{"name": q, "in": "query", "required": false, "schema": map[string]any{"type": "string"}, "description": queryDocs[q]})
		}
		ok := map[string]any{"description": http.StatusText(r.status)}
		if r.response != "" {
			ok["content"] = map[string]any{"application/json": map[string]any{"schema": ref(r.response)}}
		}
		responses := map[string]any{
			strconv.Itoa(r.status): ok,
			"401":                  problem("The API key is missing, malformed, unknown, inactive, expired or revoked."),
			"403":                  problem("The key lacks the scope " + r.scope + ", its creator the permission " + r.perm + ", or the tenant's API service is suspended or expired."),
			"429":                  problem("The key's rate limit is spent; Retry-After says when to try again."),
			"503":                  problem("Other writes kept winning the race for what the request reads or changes; Retry-After says when to try again."),
		}
		if strings.Contains(r.path, ":") {
			responses["404"] = problem("No such resource in the key's tenant.")
		}
		if r.method != http.MethodGet {
			responses["409"] = problem("The change conflicts with the current state.")
			responses["412"] = problem("If-Match does not match the current ETag.")
			responses["422"] = problem("The input is invalid; errors names the fields.")
		}
		if r.request != "" {
			responses["400"] = problem("The body is not one JSON object of the documented fields.")
			responses["413"] = problem("The body is larger than 64 KB.")
			responses["415"] = problem("The body is not application/json.")
		}
		op := map[string]any{
			"operationId":   operationID(r),
			"summary":       r.summary,
			"description":   "Needs the scope `" + r.scope + "`.",
			"x-kanri-scope": r.scope,
			"responses":     responses,
		}
		if len(params) > 0 {
			op["parameters"] = params
		}
		if r.request != "" {
			op["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": ref(r.request)}}}
		}
		paths[p][strings.ToLower(r.method)] = op
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "Kanri tenant API",
			"version":     "1.0.0",
			"description": "The API of one tenant, reached with one of its API keys (Authorization: Bearer ak_live_…). Lists page with the next token; errors are RFC 9457 problem documents; every response carries RateLimit headers.",
		},
		"servers":    []map[string]any{{"url": "/"}},
		"security":   []map[string]any{{"apiKey": []string{}}},
		"paths":      paths,
		"components": map[string]any{"securitySchemes": map[string]any{"apiKey": map[string]any{"type": "http", "scheme": "bearer", "bearerFormat": "ak_live_ + 43 base62 characters + 6 of checksum"}}, "schemas": apiSchemas()},
	}
}

// queryDocs describe the query parameters.
var queryDocs = map[string]string{
	"q":        "Search in username, e-mail and display name.",
	"status":   "active, inactive, locked or deleted.",
	"sort":     "username (default), displayName, email, createdAt or lastLogin.",
	"desc":     "true for descending order.",
	"limit":    "Page size, 1 to 100 (default 50).",
	"next":     "The next token of the previous page.",
	"action":   "An action (user.update) or a prefix ending in a dot (user.).",
	"user":     "A user id or username.",
	"resource": "A resource type, such as User.",
	"from":     "First day (YYYY-MM-DD), inclusive.",
	"to":       "Last day (YYYY-MM-DD), inclusive.",
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
			"id": str, "tenantId": str, "username": str, "email": map[string]any{"type": "string", "format": "email"}, "displayName": str,
			"isActive": map[string]any{"type": "boolean"}, "status": map[string]any{"enum": []string{"active", "inactive", "locked", "deleted"}},
			"createdAt": when, "updatedAt": when, "lastLoginAt": when,
		}),
		"UserList": list("User"),
		"UserCreate": obj([]string{"username", "email", "displayName", "password"}, map[string]any{
			"username": str, "email": str, "displayName": str,
			"password": map[string]any{"type": "string", "description": i18n.Translate(i18n.English, "validation.password_policy")},
		}),
		"UserUpdate": obj(nil, map[string]any{"email": str, "displayName": str}),
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
