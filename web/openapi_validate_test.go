package web_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// apiDocument is the OpenAPI document the server serves, parsed once per
// test binary, with a validator (pb33f/libopenapi-validator) that checks
// every API call the tests make against it: e.api reports each mismatch as
// an error of the test that made the call.
type apiDocument struct {
	once sync.Once
	err  error
	doc  []byte // the document as served
	// mu serialises validations: the validator keeps caches and does not
	// promise to be safe for concurrent use.
	mu      sync.Mutex
	v       validator.Validator
	problem *base.Schema // components/schemas/Problem
	schemas schema_validation.SchemaValidator
}

// servedDocument is the document of the test binary, loaded from the
// first test server that needs it (every server serves the same one).
var servedDocument apiDocument

// load fetches and parses the document served at base, once.
func (d *apiDocument) load(base string) error {
	d.once.Do(func() {
		// A transport of its own: closing a test's server closes the idle
		// connections of http.DefaultTransport (httptest.Server.Close).
		tr := http.DefaultTransport.(*http.Transport).Clone()
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Get(base + "/api/v1/openapi.json")
		if err != nil {
			d.err = err
			return
		}
		defer resp.Body.Close()
		d.doc, d.err = io.ReadAll(resp.Body)
		if d.err != nil {
			return
		}
		if resp.StatusCode != http.StatusOK {
			d.err = fmt.Errorf("GET /api/v1/openapi.json: %d", resp.StatusCode)
			return
		}
		d.err = d.parse(d.doc)
	})
	return d.err
}

// parse builds the validator of a document.
func (d *apiDocument) parse(doc []byte) error {
	parsed, err := libopenapi.NewDocument(doc)
	if err != nil {
		return fmt.Errorf("parse the OpenAPI document: %w", err)
	}
	// Formats (date-time, idn-email, uri) are asserted, not just
	// annotations. Strict mode also reports what the document does not
	// declare (a query parameter, a response header such as an ETag on an
	// operation that does not document it), except the security headers
	// the server sets on every response, pages and API alike, and the keys
	// of the three maps of the API, a problem's field errors, an audit
	// record's changes and a message's reactions (strict mode reports them
	// although the schemas say additionalProperties; a key with a dot, a
	// nested field's such as profile.firstName, is written in brackets).
	v, errs := validator.NewValidator(parsed, config.WithFormatAssertions(), config.WithStrictMode(),
		config.WithStrictIgnoredHeaders(ignoredHeaders...),
		config.WithStrictIgnorePaths("$.body.errors.*", "$.body.errors['**']", "$.body.items[*].changes.**", "$.body.reactions.*", "$.body.items[*].reactions.*"))
	if len(errs) > 0 {
		return fmt.Errorf("build the validator: %v", errs)
	}
	if ok, errs := v.ValidateDocument(); !ok {
		return fmt.Errorf("the OpenAPI document is not valid OpenAPI 3.1: %s", joinErrors(errs))
	}
	m, err := parsed.BuildV3Model()
	if err != nil {
		return err
	}
	p, ok := m.Model.Components.Schemas.Get("Problem")
	if !ok {
		return fmt.Errorf("the document defines no Problem schema")
	}
	d.v, d.problem, d.schemas = v, p.Schema(), schema_validation.NewSchemaValidator(config.WithFormatAssertions())
	return nil
}

// ignoredHeaders are the headers strict validation lets through
// undeclared: those of HTTP itself (the validator's defaults, less ETag and
// If-Match, which the document declares where the API uses them) and the
// security headers the server sets on every response, pages and API alike,
// and the CORS headers of answers to pages of a listed origin (which the
// document's description explains).
var ignoredHeaders = []string{
	"Content-Type", "Content-Length", "Accept", "Authorization", "User-Agent", "Host", "Connection", "Accept-Encoding",
	"Accept-Language", "Cache-Control", "Pragma", "Origin", "Referer", "Cookie", "Date", "Expires",
	"If-None-Match", "If-Modified-Since", "Last-Modified", "Transfer-Encoding", "Vary", "X-Forwarded-For",
	"X-Forwarded-Proto", "X-Real-Ip", "X-Request-Id",
	"Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options", "Referrer-Policy", "Cross-Origin-Opener-Policy",
	"Access-Control-Allow-Origin", "Access-Control-Expose-Headers",
}

// outsideAPI says whether a path under /api/v1 is not an operation of the
// API: the document itself and the pages of its reference, checked by
// their own tests.
func outsideAPI(path string) bool {
	return path == "/api/v1/openapi.json" || path == "/api/v1/docs" || strings.HasPrefix(path, "/api/v1/docs/")
}

// mismatches says how an API call differs from the document: a status
// the operation does not document, a documented header missing or
// malformed, a body not of its schema, and a request the document calls
// invalid that was answered with success. A path or method the document
// does not have must be answered 404 or 405 (with Allow) as a problem.
// The request's and the response's bodies are given separately, as both
// have been read.
func (d *apiDocument) mismatches(req *http.Request, reqBody []byte, resp *http.Response, body []byte) []string {
	if !strings.HasPrefix(req.URL.Path, "/api/v1/") || outsideAPI(req.URL.Path) {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(reqBody))
	r := *resp
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.Request = req

	var out []string
	_, errs := d.v.ValidateHttpResponse(req, &r)
	if undocumented(errs) {
		switch resp.StatusCode {
		case http.StatusMethodNotAllowed:
			if resp.Header.Get("Allow") == "" {
				out = append(out, "405 without an Allow header")
			}
		case http.StatusNotFound:
		default:
			out = append(out, fmt.Sprintf("the operation is not documented, so the answer must be 404 or 405, not %d", resp.StatusCode))
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
			out = append(out, fmt.Sprintf("content type %q, want application/problem+json", ct))
		}
		if _, errs := d.schemas.ValidateSchemaBytes(d.problem, body); len(errs) > 0 {
			out = append(out, "the body is not a Problem: "+joinErrors(errs))
		}
		return out
	}
	for _, err := range errs {
		out = append(out, "response: "+err.Error())
	}
	if resp.StatusCode/100 == 2 {
		// The API accepted the request: the document must accept it too.
		if _, errs := d.v.ValidateHttpRequestSync(req); len(errs) > 0 {
			for _, err := range errs {
				out = append(out, "request answered with success, but the document refuses it: "+err.Error())
			}
		}
	}
	return out
}

// check reports each mismatch of an API call as an error of t.
func (d *apiDocument) check(t *testing.T, base string, req *http.Request, reqBody []byte, resp *http.Response, body []byte) {
	t.Helper()
	if err := d.load(base); err != nil {
		t.Fatal(err)
	}
	for _, m := range d.mismatches(req, reqBody, resp, body) {
		t.Errorf("%s %s answered %d, which the OpenAPI document does not describe: %s\nbody: %.300s", req.Method, req.URL.RequestURI(), resp.StatusCode, m, body)
	}
}

// undocumented reports whether the validator found no operation for the
// request's path and method.
func undocumented(errs []*liberrors.ValidationError) bool {
	for _, err := range errs {
		if err.IsPathMissingError() || err.IsOperationMissingError() {
			return true
		}
	}
	return false
}

func joinErrors(errs []*liberrors.ValidationError) string {
	s := make([]string, len(errs))
	for i, err := range errs {
		s[i] = err.Error()
	}
	return strings.Join(s, "; ")
}

// TestOpenAPIValidatorCatchesMismatches feeds the validator that checks
// every API call answers the API does not give: each must be reported,
// and a true answer must not.
func TestOpenAPIValidatorCatchesMismatches(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if err := servedDocument.load(e.srv.URL); err != nil {
		t.Fatal(err)
	}
	user := `{"id":"user_1","tenantId":"acme","username":"bob","email":"bob@acme.test","displayName":"Bob","isActive":true,"status":"active","createdAt":"2026-01-02T03:04:05Z","updatedAt":null,"lastLoginAt":null}`
	problem := `{"type":"` + e.srv.URL + `/api/v1/docs#problem-not-found","title":"Not Found","status":404,"detail":"No such resource.","instance":"urn:kanri:request:abc"}`
	rateLimit := []string{"RateLimit-Limit", "100", "RateLimit-Remaining", "99", "RateLimit-Reset", "60", "X-Request-Id", "Yk3v9QeL2pXz7RtA0mNc"}
	for _, tc := range []struct {
		name, method, path, reqBody string
		status                      int
		headers                     []string // name, value, …; Content-Type is application/json unless given
		reqHeaders                  []string // the request's, beside Authorization and Content-Type
		body                        string
		want                        []string // in the mismatches, each; none for a true answer
	}{
		{name: "a true answer", method: "GET", path: "/api/v1/users/user_1", status: 200,
			headers: append([]string{"ETag", `"1"`}, rateLimit...), body: user},
		{name: "a true problem", method: "GET", path: "/api/v1/users/user_1", status: 404,
			headers: append([]string{"Content-Type", "application/problem+json"}, rateLimit...), body: problem},
		{name: "an undocumented status", method: "GET", path: "/api/v1/users/user_1", status: http.StatusTeapot,
			headers: rateLimit, body: user, want: []string{"418"}},
		{name: "a required field missing", method: "GET", path: "/api/v1/users/user_1", status: 200,
			headers: append([]string{"ETag", `"1"`}, rateLimit...), body: strings.Replace(user, `"username":"bob",`, "", 1), want: []string{"username"}},
		{name: "a field of the wrong type", method: "GET", path: "/api/v1/users/user_1", status: 200,
			headers: append([]string{"ETag", `"1"`}, rateLimit...), body: strings.Replace(user, `"isActive":true`, `"isActive":"yes"`, 1), want: []string{"isActive"}},
		{name: "an undocumented field", method: "GET", path: "/api/v1/users/user_1", status: 200,
			headers: append([]string{"ETag", `"1"`}, rateLimit...), body: strings.Replace(user, `{`, `{"passwordHash":"x",`, 1), want: []string{"passwordHash"}},
		{name: "not a date-time", method: "GET", path: "/api/v1/users/user_1", status: 200,
			headers: append([]string{"ETag", `"1"`}, rateLimit...), body: strings.Replace(user, `"2026-01-02T03:04:05Z"`, `"yesterday"`, 1), want: []string{"date-time"}},
		{name: "no ETag", method: "GET", path: "/api/v1/users/user_1", status: 200,
			headers: rateLimit, body: user, want: []string{"ETag"}},
		{name: "no RateLimit headers", method: "GET", path: "/api/v1/users/user_1", status: 200,
			headers: []string{"ETag", `"1"`}, body: user, want: []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"}},
		{name: "a RateLimit header not an integer", method: "GET", path: "/api/v1/users/user_1", status: 200,
			headers: []string{"ETag", `"1"`, "RateLimit-Limit", "many", "RateLimit-Remaining", "99", "RateLimit-Reset", "60"}, body: user, want: []string{"RateLimit-Limit"}},
		{name: "a RateLimit header over its maximum", method: "GET", path: "/api/v1/users/user_1", status: 200,
			headers: []string{"ETag", `"1"`, "RateLimit-Limit", "100", "RateLimit-Remaining", "99", "RateLimit-Reset", "90000", "X-Request-Id", "a"}, body: user, want: []string{"RateLimit-Reset"}},
		{name: "no request id", method: "GET", path: "/api/v1/users/user_1", status: 200,
			headers: []string{"ETag", `"1"`, "RateLimit-Limit", "100", "RateLimit-Remaining", "99", "RateLimit-Reset", "60"}, body: user, want: []string{"X-Request-Id"}},
		{name: "an ETag without its quotes", method: "GET", path: "/api/v1/users/user_1", status: 200,
			headers: append([]string{"ETag", `1`}, rateLimit...), body: user, want: []string{"ETag"}},
		{name: "an undocumented header", method: "GET", path: "/api/v1/users/user_1", status: 200,
			headers: append([]string{"ETag", `"1"`, "Link", `<http://x/api/v1/users?next=a>; rel="next"`}, rateLimit...), body: user, want: []string{"Link"}},
		{name: "a list without hasMore", method: "GET", path: "/api/v1/users", status: 200,
			headers: append([]string{"ETag", `"1"`}, rateLimit...), body: `{"items":[]}`, want: []string{"hasMore"}},
		{name: "If-Match where it is not honoured", method: "POST", path: "/api/v1/users/user_1/roles", status: 201, reqBody: `{"serviceId":"auth-service","role":"viewer"}`,
			headers: rateLimit, body: `{"id":"ra_1","userId":"user_1","serviceId":"auth-service","roleName":"閲覧者","role":"viewer","roleLabel":"Viewer","assignedBy":"ak_1","assignedAt":null}`,
			reqHeaders: []string{"If-Match", `"1"`}, want: []string{"If-Match"}},
		{name: "an undocumented query parameter accepted", method: "GET", path: "/api/v1/users?colour=red", status: 200,
			headers: rateLimit, body: `{"items":[],"hasMore":false}`, want: []string{"colour"}},
		{name: "a creation without Location", method: "POST", path: "/api/v1/users", status: 201,
			reqBody: `{"username":"bob","email":"bob@acme.test","displayName":"Bob","password":"Bob-pass-12345"}`,
			headers: append([]string{"ETag", `"1"`}, rateLimit...), body: user, want: []string{"Location"}},
		{name: "401 without WWW-Authenticate", method: "GET", path: "/api/v1/users", status: 401,
			headers: []string{"Content-Type", "application/problem+json"}, body: strings.ReplaceAll(problem, "404", "401"), want: []string{"WWW-Authenticate"}},
		{name: "429 without Retry-After", method: "GET", path: "/api/v1/users", status: 429,
			headers: append([]string{"Content-Type", "application/problem+json"}, rateLimit...), body: strings.ReplaceAll(problem, "404", "429"), want: []string{"Retry-After"}},
		{name: "a problem without its type", method: "GET", path: "/api/v1/users/user_1", status: 404,
			headers: append([]string{"Content-Type", "application/problem+json"}, rateLimit...), body: `{"title":"Not Found","status":404}`, want: []string{"type"}},
		{name: "a problem as plain JSON", method: "GET", path: "/api/v1/users/user_1", status: 404,
			headers: rateLimit, body: problem, want: []string{"application/json"}},
		{name: "an out-of-range limit accepted", method: "GET", path: "/api/v1/users?limit=1000", status: 200,
			headers: rateLimit, body: `{"items":[],"hasMore":false}`, want: []string{"limit"}},
		{name: "an unknown status accepted", method: "GET", path: "/api/v1/users?status=sleeping", status: 200,
			headers: rateLimit, body: `{"items":[],"hasMore":false}`, want: []string{"status"}},
		{name: "a body the document refuses accepted", method: "PATCH", path: "/api/v1/users/user_1", status: 200, reqBody: `{"isAdmin":true}`,
			headers: append([]string{"ETag", `"1"`}, rateLimit...), body: user, want: []string{"isAdmin"}},
		{name: "an undocumented route answered", method: "GET", path: "/api/v1/nothing", status: 200,
			headers: rateLimit, body: `{}`, want: []string{"404 or 405"}},
		{name: "405 without Allow", method: "PUT", path: "/api/v1/users", status: 405,
			headers: []string{"Content-Type", "application/problem+json"}, body: strings.ReplaceAll(problem, "404", "405"), want: []string{"Allow"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, e.srv.URL+tc.path, strings.NewReader(tc.reqBody))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer ak_live_x")
			if tc.reqBody != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			for i := 0; i+1 < len(tc.reqHeaders); i += 2 {
				req.Header.Set(tc.reqHeaders[i], tc.reqHeaders[i+1])
			}
			resp := &http.Response{StatusCode: tc.status, Header: http.Header{"Content-Type": {"application/json"}}}
			for i := 0; i+1 < len(tc.headers); i += 2 {
				resp.Header.Set(tc.headers[i], tc.headers[i+1])
			}
			got := servedDocument.mismatches(req, []byte(tc.reqBody), resp, []byte(tc.body))
			if len(tc.want) == 0 && len(got) > 0 {
				t.Errorf("got mismatches %q, want none", got)
			}
			if len(tc.want) > 0 && len(got) == 0 {
				t.Errorf("got no mismatch, want one naming %q", tc.want)
			}
			all := strings.ToLower(strings.Join(got, "\n")) // the validator writes some header names in lower case
			for _, w := range tc.want {
				if !strings.Contains(all, strings.ToLower(w)) {
					t.Errorf("got mismatches %q, want one naming %s", got, w)
				}
			}
		})
	}
}

// TestAPIAnswersAsDocumented makes each operation give the statuses its
// document lists, so that e.api validates a real answer of each: the
// validation is what this test checks, beside the statuses.
func TestAPIAnswersAsDocumented(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")
	_, read := e.apiKey(t, e.acme.ID, "read")
	bob := "/api/v1/users/" + e.acmeBob.ID
	big := `{"displayName":"` + strings.Repeat("x", 70<<10) + `"}`
	created := e.api(t, http.MethodPost, "/api/v1/users", rw, map[string]string{"username": "ゆき", "email": "ゆき@例え.jp", "displayName": "雪", "password": password})
	if created.status != http.StatusCreated {
		t.Fatalf("create a user with an internationalised address: %d %s", created.status, created.body)
	}
	for _, tc := range []struct {
		method, path, secret string
		body                 any
		headers              []string
		want                 int
	}{
		{http.MethodGet, "/api/v1/users?status=inactive&sort=lastLogin&desc=true&limit=1", rw, nil, nil, http.StatusOK},
		{http.MethodGet, "/api/v1/users?status=deleted&sort=email&desc=false&q=bo", rw, nil, nil, http.StatusOK},
		{http.MethodGet, "/api/v1/users?limit=0", rw, nil, nil, http.StatusBadRequest},
		{http.MethodGet, "/api/v1/users?limit=%2B5&status=sleeping", rw, nil, nil, http.StatusBadRequest},
		{http.MethodGet, "/api/v1/users", "", nil, nil, http.StatusUnauthorized},
		{http.MethodGet, "/api/v1/users", "", nil, []string{"Authorization", "Bearer " + rw, "Authorization", "Bearer " + read}, http.StatusBadRequest},
		{http.MethodGet, "/api/v1/users", rw, big, nil, http.StatusRequestEntityTooLarge},
		{http.MethodPost, "/api/v1/users", read, map[string]string{}, nil, http.StatusForbidden},
		{http.MethodPost, "/api/v1/users", rw, map[string]string{"username": "bob", "email": "bob2@acme.test", "displayName": "Bob", "password": password}, nil, http.StatusUnprocessableEntity},
		{http.MethodPost, "/api/v1/users", rw, "[]", nil, http.StatusBadRequest},
		{http.MethodPost, "/api/v1/users", rw, "{}", []string{"Content-Type", "text/plain"}, http.StatusUnsupportedMediaType},
		{http.MethodGet, bob, rw, nil, nil, http.StatusOK},
		{http.MethodGet, "/api/v1/users/user_missing", rw, nil, nil, http.StatusNotFound},
		{http.MethodPatch, bob, rw, map[string]string{"email": "not an address"}, nil, http.StatusUnprocessableEntity},
		{http.MethodPatch, bob, rw, map[string]string{"displayName": "Robert"}, []string{"If-Match", `"nope"`}, http.StatusPreconditionFailed},
		{http.MethodPatch, bob, rw, map[string]string{"displayName": "Robert"}, []string{"If-Match", "*"}, http.StatusOK},
		{http.MethodPost, bob + "/deactivate", rw, nil, []string{"If-Match", `"nope"`}, http.StatusPreconditionFailed},
		{http.MethodPost, bob + "/deactivate", rw, nil, nil, http.StatusOK},
		{http.MethodPost, bob + "/reactivate", rw, nil, []string{"If-Match", "*"}, http.StatusOK},
		{http.MethodPost, "/api/v1/users/" + e.acmeAdmin.ID + "/deactivate", rw, nil, nil, http.StatusConflict},
		{http.MethodGet, bob + "/roles", rw, nil, nil, http.StatusOK},
		{http.MethodPost, bob + "/roles", rw, map[string]string{"serviceId": "auth-service", "role": "admin"}, nil, http.StatusCreated},
		{http.MethodPost, bob + "/roles", rw, map[string]string{"serviceId": "auth-service", "role": "管理者"}, nil, http.StatusOK},
		{http.MethodPost, bob + "/roles", rw, map[string]string{"serviceId": "auth-service"}, nil, http.StatusUnprocessableEntity},
		{http.MethodDelete, bob + "/roles/auth-service/admin", rw, nil, nil, http.StatusNoContent},
		{http.MethodDelete, bob + "/roles/auth-service/owner", rw, nil, nil, http.StatusNotFound},
		{http.MethodGet, "/api/v1/audit?action=user.&user=bob&resource=User&from=2000-01-01&to=2100-01-01&limit=100", rw, nil, nil, http.StatusOK},
		{http.MethodGet, "/api/v1/audit?from=2026-02-01&to=2026-01-01", rw, nil, nil, http.StatusUnprocessableEntity},
		{http.MethodGet, "/api/v1/audit?next=garbage", rw, nil, nil, http.StatusUnprocessableEntity},
		{http.MethodDelete, "/api/v1/audit", rw, nil, nil, http.StatusMethodNotAllowed},
		{http.MethodGet, "/api/v1/me", read, nil, nil, http.StatusOK},
		{http.MethodGet, "/api/v1/me", read, nil, []string{"If-None-Match", "*"}, http.StatusNotModified},
		{http.MethodGet, "/api/v1/roles", read, nil, nil, http.StatusOK},
		{http.MethodGet, "/api/v1/users?limit=1", rw, nil, []string{"If-None-Match", "*"}, http.StatusNotModified},
		{http.MethodGet, bob, rw, nil, []string{"If-None-Match", "*"}, http.StatusNotModified},
		{http.MethodDelete, "/api/v1/users/" + e.acmeAdmin.ID, rw, nil, nil, http.StatusConflict},
		{http.MethodDelete, "/api/v1/users/user_missing", rw, nil, nil, http.StatusNotFound},
		{http.MethodDelete, bob, rw, nil, []string{"If-Match", `"nope"`}, http.StatusPreconditionFailed},
		{http.MethodDelete, bob, rw, nil, []string{"If-Match", "*"}, http.StatusNoContent},
	} {
		a := e.api(t, tc.method, tc.path, tc.secret, tc.body, tc.headers...)
		if a.status != tc.want {
			t.Errorf("%s %s: got %d, want %d: %s", tc.method, tc.path, a.status, tc.want, a.body)
		}
	}
}
