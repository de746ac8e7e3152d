package api

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/web/httpkit"
	"github.com/kanri/kanri/web/tus"
)

// openAPIPath returns the OpenAPI form of an API route's path, relative
// to the document's server (…/api/v1).
func openAPIPath(p string) string { return httpkit.PathParam.ReplaceAllString(p, "{$1}") }

// coreTags are the tags of the core's own operations.
var coreTags = []Tag{
	{"Keys", "The tenant's API keys, read by id: who made a change through the API. Never a key's secret."},
	{"Me", "The API key of the request: what it is, its tenant and its rate limit."},
}

// tags are the document's tags in its order: each feature's, then the
// core's.
func (s *Server) tags() []Tag {
	var out []Tag
	for _, f := range s.features {
		out = append(out, f.Tags()...)
	}
	return append(out, coreTags...)
}

// tagOf returns the tag of an API route.
func tagOf(r Route, tags []Tag) string {
	if r.Tag != "" {
		return r.Tag
	}
	var segments []string
	for _, s := range strings.Split(strings.Trim(r.Path, "/"), "/") {
		if s != "" && !strings.HasPrefix(s, ":") {
			segments = append(segments, s)
		}
	}
	for i := len(segments) - 1; i >= 0; i-- {
		for _, t := range tags {
			if strings.EqualFold(segments[i], t.Name) {
				return t.Name
			}
		}
	}
	if len(segments) == 0 {
		return "API"
	}
	return strings.ToUpper(segments[0][:1]) + segments[0][1:]
}

// tagsOf returns the document's tags: those of tags that operations use,
// then any other tag an operation has.
func tagsOf(routes []Route, tags []Tag) []map[string]any {
	used := map[string]bool{}
	var order []string
	for _, r := range routes {
		if t := tagOf(r, tags); !used[t] {
			used[t] = true
			order = append(order, t)
		}
	}
	var out []map[string]any
	for _, t := range tags {
		if used[t.Name] {
			out = append(out, map[string]any{"name": t.Name, "description": t.Doc})
			delete(used, t.Name)
		}
	}
	for _, t := range order {
		if used[t] {
			out = append(out, map[string]any{"name": t, "description": "The operations on /" + strings.ToLower(t) + "."})
		}
	}
	return out
}

// corePathParams describe the path parameters of the core's operations.
var corePathParams = map[string]PathParam{
	"key": {"The API key's id (apikey_…).", ExampleKeyID},
}

// pathParameter returns the OpenAPI parameter of a path parameter, as
// the core or a feature describes it; a name none describes is the
// resource's id.
func (s *Server) pathParameter(name string) map[string]any {
	d, ok := corePathParams[name]
	for _, f := range s.features {
		if fd, found := f.PathParams()[name]; found && !ok {
			d, ok = fd, true
		}
	}
	if !ok {
		d = PathParam{Doc: "The resource's id.", Example: "id_1"}
	}
	return map[string]any{"name": name, "in": "path", "required": true, "description": d.Doc,
		"schema": map[string]any{"type": "string"}, "example": d.Example}
}

// openAPIDoc builds the OpenAPI 3.1 document of the API from Routes,
// the list routes registers: an endpoint cannot be served undocumented,
// and what the document says of an endpoint's parameters, statuses and
// headers comes from the declarations its handler and middleware use.
// base is the server's address (baseURL), from which the document's
// server and its problem types are absolute.
func (s *Server) openAPIDoc(base string) map[string]any { return s.Document(base, s.routes) }

// Document builds the OpenAPI document of routes.
func (s *Server) Document(base string, routes []Route) map[string]any {
	paths := map[string]map[string]any{}
	examples := s.apiExamples()
	tags := s.tags()
	for _, r := range routes {
		p := openAPIPath(r.Path)
		if paths[p] == nil {
			paths[p] = map[string]any{}
		}
		var params []map[string]any
		for _, m := range httpkit.PathParam.FindAllStringSubmatch(r.Path, -1) {
			params = append(params, s.pathParameter(m[1]))
		}
		for _, q := range r.Query {
			params = append(params, map[string]any{"name": q.Name, "in": "query", "required": false, "schema": q.schema(), "description": q.Doc})
		}
		if r.reads() && r.ETag {
			params = append(params, map[string]any{"name": "If-None-Match", "in": "header", "required": false, "schema": map[string]any{"type": "string"},
				"description": "ETags of answers already held (or *): when one is the current answer's, the answer is 304 Not Modified without a body."})
		}
		for _, h := range r.ReqHeaders {
			params = append(params, map[string]any{"name": h.Name, "in": "header", "required": h.Required, "schema": requestHeaderDocs[h.Name].schema, "description": requestHeaderDocs[h.Name].doc})
		}
		if r.Content != "" {
			for _, h := range []string{"Range", "If-Range"} {
				params = append(params, map[string]any{"name": h, "in": "header", "required": false, "schema": requestHeaderDocs[h].schema, "description": requestHeaderDocs[h].doc})
			}
		}
		if r.Method == http.MethodPost {
			params = append(params, map[string]any{"name": hdrIdempotencyKey, "in": "header", "required": false,
				"schema":      map[string]any{"type": "string", "minLength": 1, "maxLength": maxIdempotencyKey, "pattern": `^[\x20-\x7e]+$`},
				"description": "A key of the client's choice (a UUID) that makes the request happen once: sent again with the same key within 24 hours, the same request gets the first answer again (marked Idempotent-Replayed) instead of being served again. Keys are the API key's own. Answers of 5xx are not kept."})
		}
		if r.IfMatch {
			params = append(params, map[string]any{"name": "If-Match", "in": "header", "required": false, "schema": map[string]any{"type": "string"},
				"description": "The ETag of the version read (or *): the change is made to that version only, else 412. Weak tags never match. Without it, the change is made to the current version.",
				"example":     `"` + exampleETag + `"`})
		}
		description := "Needs the scope `" + r.Scope + "` on the key"
		if r.Perm != "" {
			description += ", and its creator the console permission `" + r.Perm + "`"
		}
		description += "."
		if r.Doc != "" {
			description = r.Doc + "\n\n" + description
		}
		summary := r.Summary
		if summary == "" {
			summary = i18n.Translate(i18n.English, summaryKey(operationID(r)))
		}
		op := map[string]any{
			"operationId":   operationID(r),
			"tags":          []string{tagOf(r, tags)},
			"summary":       summary,
			"description":   description,
			"x-kanri-scope": r.Scope,
			"responses":     apiResponses(r, examples),
		}
		if len(params) > 0 {
			op["parameters"] = params
		}
		if r.Request != "" {
			media := map[string]any{"schema": schemaRef(r.Request)}
			if ex, ok := examples[r.Request]; ok {
				media["example"] = ex
			}
			op["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": media}}
		}
		if r.ReqBytes != "" {
			op["requestBody"] = map[string]any{"required": true, "description": "The bytes, from Upload-Offset.", "content": map[string]any{r.ReqBytes: map[string]any{"schema": binarySchema}}}
		}
		paths[p][strings.ToLower(r.Method)] = op
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "Kanri tenant API",
			"version": "1.0.0",
			"description": "The API of one tenant, reached with one of its API keys (Authorization: Bearer ak_live_…). Lists page with the next token; " +
				"errors are RFC 9457 problem documents whose type is the address of its description on the docs page (" + base + Prefix + "/docs#problems); " +
				"the answers of the calls counted against a key's rate limit carry RateLimit headers. " +
				"Pages of the web origins a tenant's administrators list (API keys, Browser access) may call the API from a browser: " +
				"preflight requests are answered for them, and answers to them carry Access-Control-Allow-Origin; no origin is listed by default.",
		},
		"servers":  []map[string]any{{"url": base + Prefix, "description": "This Kanri server.", "x-internal": false}},
		"security": []map[string]any{{"apiKey": []string{}}},
		"tags":     tagsOf(routes, tags),
		"paths":    paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{"apiKey": map[string]any{"type": "http", "scheme": "bearer", "bearerFormat": "ak_live_ + 43 base62 characters + 6 of checksum"}},
			"schemas":         s.apiSchemas(base),
			"headers":         headerComponents(paths),
		},
	}
}

// EnumName is the name code generators give an enum's value (its
// x-enum-varnames entry), and what the value means (x-enum-descriptions).
type EnumName struct{ Name, Doc string }

// tusVersionNames and windowNames name the values of enums that start
// with a digit.
var (
	tusVersionNames = map[any]EnumName{tus.Version: {"V1_0_0", "tus 1.0.0."}}
	windowNames     = map[any]EnumName{"1m": {"MINUTE", "A minute."}, "1h": {"HOUR", "An hour."}, "1d": {"DAY", "A day."}}
)

// NamedEnum adds to an enum's schema the names of its values, in its
// order, as code generators read them (x-enum-varnames, and their
// meaning in x-enum-descriptions). It panics on a value without a name,
// which TestOpenAPIEnumsHaveReadableNames meets first.
func NamedEnum(schema map[string]any, names map[any]EnumName) map[string]any {
	var values []any
	switch e := schema["enum"].(type) {
	case []string:
		for _, v := range e {
			values = append(values, v)
		}
	case []any:
		values = e
	}
	var varnames, docs []string
	for _, v := range values {
		n, ok := names[v]
		if !ok {
			panic(fmt.Sprintf("the enum value %v has no name", v))
		}
		varnames, docs = append(varnames, n.Name), append(docs, n.Doc)
	}
	schema["x-enum-varnames"], schema["x-enum-descriptions"] = varnames, docs
	return schema
}

// schemaRef refers to a schema of components/schemas.
func schemaRef(name string) map[string]any {
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

// binarySchema is the schema of a body of bytes.
var binarySchema = map[string]any{"type": "string", "format": "binary"}

// requestHeaderDocs describe the request headers operations declare
// (apiRoute.reqHeaders, and Range and If-Range of a file's content), with
// their schemas.
var requestHeaderDocs = map[string]struct {
	doc    string
	schema map[string]any
}{
	HdrTusResumable: {"The tus version the client speaks: 1.0.0 (else 412).", NamedEnum(map[string]any{"type": "string", "enum": []string{tus.Version}}, tusVersionNames)},
	HdrUploadLength: {"The file's size in bytes.", map[string]any{"type": "string", "pattern": "^[0-9]+$"}},
	"Upload-Metadata": {"Comma-separated pairs of a key and its value in base64: filename (the file's name), filetype (its media type) and folderId (the folder it goes to; the top level without it).",
		map[string]any{"type": "string"}},
	HdrUploadOffset:   {"The byte of the upload the body starts at: where the upload stands (HEAD says).", map[string]any{"type": "string", "pattern": "^[0-9]+$"}},
	"Upload-Checksum": {"The checksum of this part: sha1 or sha256, a space, and the digest in base64 (else 460, and the part is not kept).", map[string]any{"type": "string"}},
	"Range": {"Part of the bytes, as bytes=first-last, first- or -last (RFC 9110 §14.2): answered 206 with that part. Several ranges (bytes=0-99,200-299) are answered 206 as multipart/byteranges, unless together they are more than the file, which is then sent whole. A range of another unit is ignored (the whole file is sent); a bytes range that cannot be read or that the file does not have is 416.",
		map[string]any{"type": "string"}},
	"If-Range": {"The ETag of the bytes held: Range is honoured only while it holds, else the whole file is sent.", map[string]any{"type": "string"}},
}

// Bounds of the numbers the API answers with.
const (
	maxSeconds = 24 * 60 * 60 // the longest rate limit window (1d), in seconds
	// maxCount bounds what has no bound of its own (a file's bytes, a
	// channel's messages): the largest integer every JSON reader holds
	// exactly (2^53-1), far beyond any a server reaches.
	maxCount = 1<<53 - 1
)

// Count returns the schema of a count or a sequence number of at least
// min, described by doc ("" for none).
func Count(min int, doc string) map[string]any {
	s := map[string]any{"type": "integer", "format": "int64", "minimum": min, "maximum": maxCount}
	if doc != "" {
		s["description"] = doc
	}
	return s
}

// Schemas of the response headers' values.
var (
	callsSchema   = map[string]any{"type": "integer", "format": "int32", "minimum": 0, "maximum": kanri.MaxRateLimit}
	secondsSchema = map[string]any{"type": "integer", "format": "int32", "minimum": 0, "maximum": maxSeconds}
	bytesSchema   = Count(0, "")
)

// headerDocs describe the response headers, with their schemas.
var headerDocs = map[string]struct {
	doc    string
	schema map[string]any
}{
	HdrETag: {"The version of the answer: send it in If-None-Match to be answered 304 while it holds, or in If-Match (where the operation takes it) to change this version only.",
		map[string]any{"type": "string", "pattern": `^"[\x21\x23-\x7e]*"$`, "maxLength": 128}},
	hdrIdempotentReplayed: {"true when the answer is the replay of the first answer to the request's Idempotency-Key.", map[string]any{"type": "string", "enum": []string{"true"}}},
	hdrLink:               {`The next page, when there is one: <https://…?next=…>; rel="next" (an absolute URL).`, map[string]any{"type": "string", "pattern": `^<[^>]+>; rel="next"$`, "maxLength": 8192}},
	HdrLocation:           {"The path of the new resource.", map[string]any{"type": "string", "format": "uri-reference", "maxLength": 2048}},
	hdrRateLimitLimit:     {"The calls the key may make in its window.", callsSchema},
	hdrRateLimitRemaining: {"The calls left in the current window.", callsSchema},
	hdrRateLimitReset:     {"Seconds until the window ends.", secondsSchema},
	hdrRetryAfter:         {"Seconds to wait before calling again.", secondsSchema},
	hdrWWWAuthenticate:    {"The authentication scheme the API takes: Bearer.", map[string]any{"type": "string", "const": `Bearer realm="kanri"`}},
	hdrRequestID: {"The request's id, which the server's log, a problem's requestId and the audit records of its changes carry: quote it when asking about the request.",
		map[string]any{"type": "string", "pattern": "^[A-Za-z0-9_-]+$", "maxLength": 64}},
	hdrAllowOrigin: {"The origin of the calling page, when the key's tenant lists it (API keys, Browser access): the browser lets the page read the answer.",
		map[string]any{"type": "string", "format": "uri", "maxLength": 2048}},
	hdrExposeHeaders: {"The headers of the answer the calling page may read, beside Access-Control-Allow-Origin.", map[string]any{"type": "string", "const": corsExposed}},

	hdrContentDisposition:   {"attachment, with the file's name (filename, and filename* in UTF-8 for a name beyond ASCII).", map[string]any{"type": "string", "pattern": "^attachment", "maxLength": 4096}},
	hdrAcceptRanges:         {"bytes: Range may ask for part of the file.", map[string]any{"type": "string", "const": "bytes"}},
	hdrContentRange:         {"The part sent and the file's size (bytes first-last/size), or bytes */size when the range is refused.", map[string]any{"type": "string", "pattern": `^bytes ([0-9]+-[0-9]+|\*)/[0-9]+$`, "maxLength": 100}},
	HdrTusResumable:         {"The tus version the server speaks: 1.0.0.", NamedEnum(map[string]any{"type": "string", "enum": []string{tus.Version}}, tusVersionNames)},
	HdrTusVersion:           {"The tus versions the server speaks: 1.0.0.", map[string]any{"type": "string", "const": tus.Version}},
	HdrTusExtension:         {"The tus extensions the server supports: " + tus.Extensions + ".", map[string]any{"type": "string", "const": tus.Extensions}},
	HdrTusMaxSize:           {"The largest file the tenant may upload, in bytes.", bytesSchema},
	HdrTusChecksumAlgorithm: {"The algorithms Upload-Checksum takes: " + tus.Checksums + ".", map[string]any{"type": "string", "const": tus.Checksums}},
	HdrUploadOffset:         {"The bytes of the upload received so far: where to resume.", bytesSchema},
	HdrUploadLength:         {"The upload's size in bytes.", bytesSchema},
	HdrUploadExpires:        {"When the upload expires unless completed (an HTTP date, RFC 9110 §5.6.7); its bytes and reservation are then given up.", map[string]any{"type": "string", "maxLength": 29}},
	HdrUploadMetadata:       {"The Upload-Metadata given when the upload was created, as it was sent.", map[string]any{"type": "string", "maxLength": 4096}},
	HdrKanriFileID:          {"The id of the file the upload became, once complete: GET /files/{file} reads it.", map[string]any{"type": "string", "pattern": "^file_[A-Za-z0-9_-]+$", "maxLength": 64}},
}

// everyAnswer are the headers of every answer of the API, and
// corsAnswer those of every answer to a page of an origin the key's
// tenant lists.
var (
	everyAnswer = []string{hdrRequestID}
	corsAnswer  = []string{hdrAllowOrigin, hdrExposeHeaders}
)

// requiredHeader marks the name of a header's component that the answers
// referring to it always carry (RateLimit-Limit.required); a component
// named as its header is of a header sent where it applies.
const requiredHeader = ".required"

// headerRef returns a response's reference to a header of
// components/headers, sent always (required) or only where it applies.
func headerRef(name string, required bool) map[string]any {
	if required {
		name += requiredHeader
	}
	return map[string]any{"$ref": "#/components/headers/" + name}
}

// responseHeaders returns a response's headers object: the required
// headers, those it may carry, and those of every answer.
func responseHeaders(required, optional []string) map[string]any {
	out := map[string]any{}
	for _, n := range slices.Concat(optional, corsAnswer) {
		out[n] = headerRef(n, false)
	}
	for _, n := range slices.Concat(required, everyAnswer) {
		out[n] = headerRef(n, true)
	}
	return out
}

// headerComponents returns the document's components/headers: each
// header its responses refer to, described once (headerDocs), as always
// sent or as sent where it applies.
func headerComponents(paths map[string]map[string]any) map[string]any {
	out := map[string]any{}
	for _, ops := range paths {
		for _, op := range ops {
			for _, resp := range op.(map[string]any)["responses"].(map[string]any) {
				headers, _ := resp.(map[string]any)["headers"].(map[string]any)
				for _, h := range headers {
					key := strings.TrimPrefix(h.(map[string]any)["$ref"].(string), "#/components/headers/")
					name, required := strings.CutSuffix(key, requiredHeader)
					out[key] = map[string]any{"description": headerDocs[name].doc, "schema": headerDocs[name].schema, "required": required}
				}
			}
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
// is gone), the service the route needs (403) and its query parameters
// (400). Every answer after the rate limit carries its RateLimit headers;
// the handler's body limit answers 413 after it too when the request did
// not say its length.
//
// examples are the example values of the schemas (apiExamples): a
// success answer's content has its schema's.
//
// An operation sending a file's bytes (content) answers them whole (200),
// in part (206) or not at all (304), and a range it cannot serve 416; a
// tus operation answers with tus's headers, each of its refusals but
// the key's (401, 429) with Tus-Resumable, and no 413 of the API's body
// limit, which its group does not have.
func apiResponses(r Route, examples map[string]any) map[string]any {
	rateLimit := []string{hdrRateLimitLimit, hdrRateLimitRemaining, hdrRateLimitReset}
	response := func(desc, schema, mediaType string, required, optional []string) map[string]any {
		out := map[string]any{"description": desc}
		if schema != "" {
			media := map[string]any{"schema": schemaRef(schema)}
			if ex, ok := examples[schema]; ok && mediaType == "application/json" {
				media["example"] = ex
			}
			out["content"] = map[string]any{mediaType: media}
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
	if r.ETag {
		success = append(success, HdrETag)
	}
	created := success
	if r.Location {
		created = append(slices.Clone(success), HdrLocation)
	}
	var optional []string
	if r.paged() {
		optional = append(optional, hdrLink)
	}
	forbidden := "The key lacks the scope " + r.Scope + ", its creator the permission " + r.Perm + ", or the tenant's API service is suspended or expired."
	if r.Perm == "" {
		forbidden = "The key lacks the scope " + r.Scope + ", or the tenant's API service is suspended or expired."
	}
	if r.Service != "" {
		forbidden = strings.TrimSuffix(forbidden, ".") + "; or the service " + r.Service + ", which the operation needs, is not assigned to the tenant, or is suspended, expired or inactive (as in the console)."
	}
	created = append(created, r.RespHeaders...)
	optional = append(optional, r.OptHeaders...)
	out := map[string]any{
		strconv.Itoa(r.Status): response(http.StatusText(r.Status), r.Response, "application/json", created, optional),
		"401": problem("The API key is missing, malformed, unknown, inactive, expired or revoked, or its creator's account is no longer active.",
			[]string{hdrWWWAuthenticate}, rateLimit),
		"403": problem(forbidden, rateLimit, nil),
		"400": problem("The request cannot be read: Authorization sent twice, a query parameter the operation does not take, repeated or with a value it does not take, or a body that ended before its Content-Length; the detail names what.", nil, rateLimit),
		"413": problem("The body is larger than 65,536 bytes (every route has this limit).", nil, rateLimit),
		"429": problem("The key's rate limit is spent; Retry-After says when to try again.", append([]string{hdrRetryAfter}, rateLimit...), nil),
		"500": problem("An internal error; the detail gives the request id to quote.", nil, rateLimit),
		"503": problem("Other writes kept winning the race for what the request reads or changes, or the rate limit's shared counter is too contended; Retry-After says when to try again.", []string{hdrRetryAfter}, rateLimit),
	}
	if r.Unchanged != 0 {
		out[strconv.Itoa(r.Unchanged)] = response(http.StatusText(r.Unchanged)+": the change was already made; the answer is the existing resource.", r.Response, "application/json", success, nil)
	}
	if r.reads() && r.ETag {
		out["304"] = response("Not Modified: If-None-Match names the current answer's ETag; no body.", "", "", success, optional)
	}
	if strings.Contains(r.Path, ":") {
		out["404"] = problem("No such resource in the key's tenant.", rateLimit, nil)
	}
	if !r.reads() {
		out["409"] = problem("The change conflicts with the current state (the last administrator, the tenant's user limit).", rateLimit, nil)
	}
	if r.IfMatch {
		out["412"] = problem("If-Match matches no current ETag.", rateLimit, nil)
	}
	if r.Request != "" {
		out["400"] = problem("The request cannot be read: the body is not valid UTF-8, or not one JSON object of the documented fields (spelt exactly, each once), or ended before its Content-Length; Authorization was sent twice, or a query parameter the operation does not take; the detail names what.", nil, rateLimit)
	}
	if !r.reads() && !r.IfMatch {
		bad := out["400"].(map[string]any)
		bad["description"] = strings.TrimSuffix(bad["description"].(string), ".") + "; or If-Match was sent: this operation does not take it."
	}
	if r.Request != "" {
		out["408"] = problem("The body did not arrive in time (it stalled); send the request again.", nil, rateLimit)
		out["415"] = problem("The body is not application/json, or is declared in another charset than UTF-8.", rateLimit, nil)
		out["422"] = problem("The input is invalid, a username or e-mail already taken included, or a field that cannot be null is; errors names the fields.", rateLimit, nil)
	}
	for _, q := range r.Query {
		if q.refusable() {
			out["422"] = problem("A parameter is invalid; errors names it.", rateLimit, nil)
		}
	}
	if r.Content != "" {
		// A file's bytes: the whole (200), a part (206), or not modified
		// (304), each as an attachment. Several ranges are one answer of
		// several parts (multipart/byteranges, as http.ServeContent
		// sends them), each part with its Content-Range.
		bytesOf := func(desc string, required, optional []string, types ...string) map[string]any {
			resp := response(desc, "", "", required, append(optional, hdrAcceptRanges))
			content := map[string]any{}
			for _, t := range types {
				content[t] = map[string]any{"schema": binarySchema}
			}
			resp["content"] = content
			return resp
		}
		out[strconv.Itoa(r.Status)] = bytesOf("The file's bytes.", append(slices.Clone(success), hdrContentDisposition), nil, r.Content)
		out["206"] = bytesOf("Partial Content: the part Range asked for, and Content-Range says which; or, for several ranges, "+
			"multipart/byteranges: a part for each range, each with its own Content-Range and no Content-Range on the answer.",
			append(slices.Clone(success), hdrContentDisposition), []string{hdrContentRange}, r.Content, "multipart/byteranges")
		out["304"] = response("Not Modified: If-None-Match names the file's ETag; no body.", "", "", success, []string{hdrContentDisposition, hdrAcceptRanges})
	}
	for status, desc := range r.Statuses {
		var required []string
		if status == http.StatusRequestedRangeNotSatisfiable {
			required = []string{hdrContentRange}
		}
		if status == http.StatusForbidden {
			desc = forbidden + " Or: " + desc // the checks before the handler refuse as they do everywhere
		}
		out[strconv.Itoa(status)] = problem(desc, append(required, rateLimit...), nil)
	}
	if r.Tus {
		// Every answer of the upload's handlers says the tus version, a
		// refused version which ones are spoken, a refused offset where
		// the upload stands; the body limit is the upload's length.
		delete(out, "413")
		if _, ok := r.Statuses[http.StatusConflict]; !ok {
			delete(out, "409")
		}
		if desc, ok := r.Statuses[http.StatusRequestEntityTooLarge]; ok {
			out["413"] = problem(desc, rateLimit, nil)
		}
		for status, resp := range out {
			if status == strconv.Itoa(r.Status) || status == "401" || status == "429" || status >= "500" {
				continue
			}
			h, _ := resp.(map[string]any)["headers"].(map[string]any)
			if h == nil {
				h = map[string]any{}
				resp.(map[string]any)["headers"] = h
			}
			extra := []string{HdrTusResumable}
			switch status {
			case "412":
				extra = append(extra, HdrTusVersion)
			case "409":
				extra = append(extra, HdrUploadOffset)
			}
			for _, n := range extra {
				h[n] = headerRef(n, false)
			}
		}
	}
	if r.Method == http.MethodPost {
		idempotent(out, rateLimit, problem)
	}
	return out
}

// idempotent completes the responses of a POST, which takes an
// Idempotency-Key: a key reused with another request is 422, a key whose
// first request is still served 409, and every answer the operation
// gives but those of the checks before it (401, 403, 413, 429) and 5xx
// may be a replay, marked Idempotent-Replayed.
func idempotent(out map[string]any, rateLimit []string, problem func(string, []string, []string) map[string]any) {
	const reuse = "The Idempotency-Key is malformed, or was sent with another request (method, path and query, body; a tus creation's Upload-Length and Upload-Metadata) in the last 24 hours."
	if p, ok := out["422"].(map[string]any); ok {
		p["description"] = p["description"].(string) + " Or: " + reuse
	} else {
		out["422"] = problem(reuse, rateLimit, nil)
	}
	const busy = "A request with the same Idempotency-Key is still being served."
	if p, ok := out["409"].(map[string]any); ok {
		p["description"] = p["description"].(string) + " Or: " + busy
	} else {
		out["409"] = problem(busy, rateLimit, nil) // a tus creation conflicts with nothing else
	}
	for status, r := range out {
		if status >= "500" || status == "401" || status == "403" || status == "413" || status == "429" {
			continue
		}
		resp := r.(map[string]any)
		h, _ := resp["headers"].(map[string]any)
		if h == nil {
			h = map[string]any{}
			resp["headers"] = h
		}
		h[hdrIdempotentReplayed] = headerRef(hdrIdempotentReplayed, false)
	}
}

// summaryKey returns the message key of the summary of the operation
// with the operationId op: the summaries of the API's operations are in
// the catalog (api.op.*), so that the docs page shows them in the
// reader's language and the document in English.
func summaryKey(op string) string { return "api.op." + op }

// SummaryKey is the catalog's key of the summary of r's operation.
func SummaryKey(r Route) string { return summaryKey(operationID(r)) }

// operationID returns the operationId of an API route: its own, or else
// one made of its method and path (postUsersIdRoles).
func operationID(r Route) string {
	if r.Op != "" {
		return r.Op
	}
	id := strings.ToLower(r.Method)
	for _, part := range strings.Split(strings.Trim(r.Path, "/"), "/") {
		part = strings.TrimPrefix(part, ":")
		id += strings.ToUpper(part[:1]) + part[1:]
	}
	return id
}

// apiSchemas returns the document's schemas: the core's, and each
// feature's; base is the server's address (baseURL).
func (s *Server) apiSchemas(base string) map[string]any {
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
		return obj([]string{"items", "hasMore"}, map[string]any{
			"items":   map[string]any{"type": "array", "items": map[string]any{"$ref": "#/components/schemas/" + item}},
			"next":    map[string]any{"type": "string", "description": "Pass as next to get the following page; absent on the last page. The Link header holds the next page's URL."},
			"hasMore": map[string]any{"type": "boolean", "description": "Whether there is a next page."},
		})
	}
	out := map[string]any{
		"APIKey": apiKeySchema(obj),
		"Me": obj([]string{"key", "tenant", "rateLimit"}, map[string]any{
			"key": obj([]string{"id", "name", "prefix", "scopes", "createdAt", "expiresAt"}, map[string]any{
				"id": str, "name": str,
				"prefix":    map[string]any{"type": "string", "description": "The key's first characters, as the console shows them; never the secret."},
				"scopes":    map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []string{"read", "write"}}},
				"createdAt": when,
				"expiresAt": map[string]any{"type": []string{"string", "null"}, "format": "date-time", "description": "null when the key does not expire."},
			}),
			"tenant": obj([]string{"id", "name", "displayName"}, map[string]any{"id": str, "name": str, "displayName": str}),
			"rateLimit": obj([]string{"limit", "window", "windowSeconds"}, map[string]any{
				"limit":         map[string]any{"type": "integer", "format": "int32", "minimum": 1, "maximum": kanri.MaxRateLimit, "description": "Calls per window."},
				"window":        NamedEnum(map[string]any{"type": "string", "enum": []string{"1m", "1h", "1d"}}, windowNames),
				"windowSeconds": map[string]any{"type": "integer", "format": "int32", "minimum": 1, "maximum": maxSeconds},
			}),
		}),
		"Problem": map[string]any{"type": "object", "required": []string{"type", "title", "status"}, "properties": map[string]any{
			"type": map[string]any{"type": "string", "format": "uri",
				"description": "The problem's type: the address of its description on the docs page, " + base + Prefix + "/docs#problem-<kind> (about:blank for a status without one)."},
			"title":     str,
			"status":    map[string]any{"type": "integer", "format": "int32", "minimum": 400, "maximum": 599},
			"detail":    str,
			"instance":  map[string]any{"type": "string", "format": "uri", "description": "This occurrence of the problem: urn:kanri:request:<requestId>, the request's id, which the server's log and the X-Request-Id header carry; followed by :trace:<trace id> when the server traces the request (OpenTelemetry)."},
			"requestId": str,
			"errors":    map[string]any{"type": "object", "additionalProperties": str, "description": "The invalid fields and why."},
		}},
	}
	for _, f := range s.features {
		maps.Copy(out, f.Schemas(obj, list))
	}
	return out
}

// apiExamples returns an example of each schema a request sends or a
// success answers with. The linters check each against its schema, and the
// docs page shows them.
func (s *Server) apiExamples() map[string]any {
	at := "2026-04-01T09:30:00Z"
	out := map[string]any{
		"APIKey": map[string]any{"id": ExampleKeyID, "name": "Nightly sync", "prefix": "ak_live_3x", "scopes": []any{kanri.ScopeRead, kanri.ScopeWrite},
			"status": kanri.KeyActive, "createdAt": at, "expiresAt": nil},
	}
	for _, f := range s.features {
		maps.Copy(out, f.Examples(at))
	}
	return out
}

// openAPI serves the OpenAPI document.
func (s *Server) openAPI(c echo.Context) error {
	// The document names the server it was asked of (unless the server's
	// address is configured): caches keep one per host, and ask again
	// before using it (a new version).
	h := c.Response().Header()
	h.Set(echo.HeaderCacheControl, "no-cache")
	if v := s.origin.Vary(); v != "" {
		h.Set(echo.HeaderVary, v)
	}
	return c.JSON(http.StatusOK, s.openAPIDoc(httpkit.BaseURL(c)))
}
