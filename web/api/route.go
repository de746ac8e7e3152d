package api

import (
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"
)

// Route is one endpoint of the API: its route, the scope it needs, and
// what the OpenAPI document says of it.
type Route struct {
	Method, Path, Scope string
	// perm is the console permission the call needs: a key does what its
	// creator may do in the console now, within its scopes. "" needs none
	// (the creator's account must still be active).
	Perm    string
	Handler echo.HandlerFunc
	// op is the operationId (listUsers); tag groups the operation, for a
	// route whose path does not say it (see tagOf); summary says what the
	// operation does in a line (for the API's own routes, the catalog's
	// api.op.<op> says it, in both languages: see summaryKey), and doc
	// more when there is more to say.
	Op, Tag, Summary, Doc string
	Query                 []Param // query parameters, read by h through these declarations
	Request, Response     string  // schema names; "" for none
	Status                int     // the success status
	// unchanged is the status of a request whose change was already made
	// (0 when there is none): the answer is then the existing resource.
	Unchanged int
	IfMatch   bool // h honours If-Match: a tag that matches none is 412
	ETag      bool // the success answer carries its ETag (a GET's If-None-Match is honoured)
	Location  bool // the success answer carries the new resource's Location
	// service is a service the call needs usable (assigned and active) in
	// the key's tenant beside the API service, as the console's routes of
	// that service need it: kanri.FileServiceID for files.
	Service string
	// content is the media type of a success answer that is a file's
	// bytes rather than JSON: the operation takes Range (206) and its
	// answer is an attachment.
	Content string
	// tus marks an operation of the tus protocol (uploads): its request
	// and answer are headers (tusHeaderDocs), its body bytes; it is served
	// in the upload group, with the upload's own body limit and no write
	// deadline. Its creation (POST) takes an Idempotency-Key as every POST
	// does, its request headers counting as its body; the other
	// operations resume instead.
	Tus bool
	// reqHeaders and respHeaders name the request headers a tus operation
	// reads and the headers its success answer carries; optHeaders those
	// its success answer may carry.
	ReqHeaders              []Header
	RespHeaders, OptHeaders []string
	// reqBytes is the media type of a request body of bytes, not JSON (a
	// tus PATCH's).
	ReqBytes string
	// statuses are the statuses of the operation's own refusals beside
	// those every operation documents, with what each means.
	Statuses map[int]string
}

// Header declares a request header an operation reads (tus's), which
// the OpenAPI document describes from headerDocs.
type Header struct {
	Name     string
	Required bool
}

// reads reports whether the route only reads: a GET, or a HEAD.
func (r Route) reads() bool { return r.Method == http.MethodGet || r.Method == http.MethodHead }

// paged reports whether the route answers a list in pages.
func (r Route) paged() bool {
	return slices.ContainsFunc(r.Query, func(p Param) bool { return p.Name == ParamNext.Name })
}

// Tag groups operations of the document and of the docs page. An
// operation's tag is its route's, or else the tag named by the last
// segment of its path that names one (/users/:id/roles: Roles), or else
// its first segment's (/things: Things).
type Tag struct{ Name, Doc string }

// PathParam describes a path parameter of the API, with an example
// value.
type PathParam struct{ Doc, Example string }
