package api

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/httpkit"
)

// The docs page is read from the OpenAPI document itself, as a client
// would read it (the JSON served at /api/v1/openapi.json, decoded into the
// part of OpenAPI it shows), so that the page says what the document says
// and nothing else.

// oaDoc is the part of an OpenAPI document the docs page shows.
type oaDoc struct {
	Info struct {
		Title, Description string
	}
	Servers []struct{ URL string }
	Tags    []struct{ Name, Description string }
	Paths   map[string]map[string]oaOperation
	// Components' schemas, by name.
	Components struct{ Schemas map[string]*oaSchema }
}

type oaOperation struct {
	OperationID, Summary, Description string
	Tags                              []string
	Scope                             string `json:"x-kanri-scope"`
	Parameters                        []struct {
		Name, In, Description string
		Required              bool
		Schema                *oaSchema
		Example               any
	}
	RequestBody *oaBody
	Responses   map[string]struct {
		Description string
		Content     map[string]oaMedia
	}
}

type oaBody struct{ Content map[string]oaMedia }

// json returns the body's JSON, if it is JSON.
func (b *oaBody) json() (oaMedia, bool) {
	if b == nil {
		return oaMedia{}, false
	}
	m, ok := b.Content["application/json"]
	return m, ok
}

// bytesType returns the media type of a body that is bytes, not JSON
// (a tus PATCH's), or "".
func (b *oaBody) bytesType() string {
	if b == nil {
		return ""
	}
	for ct := range b.Content {
		if ct != "application/json" {
			return ct
		}
	}
	return ""
}

type oaMedia struct {
	Schema  *oaSchema
	Example any
}

type oaSchema struct {
	Ref                  string `json:"$ref"`
	Type                 any    // a name, or a list of names
	Format, Description  string
	Enum                 []any
	Default              any
	Minimum, Maximum     *float64
	MinLength, MaxLength *int
	Required             []string
	Properties           map[string]*oaSchema
	Items                *oaSchema
}

// resolve returns the schema a reference names, or s itself.
func (d *oaDoc) resolve(s *oaSchema) *oaSchema {
	if s != nil && s.Ref != "" {
		if r, ok := d.Components.Schemas[strings.TrimPrefix(s.Ref, "#/components/schemas/")]; ok {
			return r
		}
	}
	return s
}

// typeName says a schema's type as the page shows it: string (date),
// integer, User[], string | null.
func (d *oaDoc) typeName(s *oaSchema) string {
	if s == nil {
		return ""
	}
	if s.Ref != "" {
		return strings.TrimPrefix(s.Ref, "#/components/schemas/")
	}
	var names []string
	switch t := s.Type.(type) {
	case string:
		names = []string{t}
	case []any:
		for _, n := range t {
			names = append(names, fmt.Sprint(n))
		}
	}
	for i, n := range names {
		switch {
		case n == "array" && s.Items != nil:
			names[i] = d.typeName(s.Items) + "[]"
		case n != "null" && s.Format != "":
			names[i] = n + " (" + s.Format + ")"
		}
	}
	return strings.Join(names, " | ")
}

// limits says the bounds a schema puts on a value, in the page's language.
func (d *oaDoc) limits(c echo.Context, s *oaSchema) string {
	ctx := c.Request().Context()
	if s == nil {
		return ""
	}
	var out []string
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			vals[i] = fmt.Sprint(v)
		}
		out = append(out, i18n.T(ctx, "apidocs.limit_enum", strings.Join(vals, ", ")))
	}
	if s.Minimum != nil && s.Maximum != nil {
		out = append(out, i18n.T(ctx, "apidocs.limit_range", *s.Minimum, *s.Maximum))
	}
	if s.MinLength != nil && *s.MinLength > 0 {
		out = append(out, i18n.T(ctx, "apidocs.limit_min_length", *s.MinLength))
	}
	if s.MaxLength != nil {
		out = append(out, i18n.T(ctx, "apidocs.limit_max_length", *s.MaxLength))
	}
	if s.Default != nil {
		out = append(out, i18n.T(ctx, "apidocs.limit_default", fmt.Sprint(s.Default)))
	}
	return strings.Join(out, "; ")
}

// apiDocs is the overview of the API's reference: how to call the API,
// the problem types that problems' type addresses point to, and the
// contents, which lead to each tag's page (apiDocsTag).
func (s *Server) apiDocs(c echo.Context) error {
	d, err := s.apiReference(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	p := views.Page{Title: i18n.T(ctx, "apidocs.title"), Lang: i18n.Lang(ctx), Theme: httpkit.Theme(c)}
	return httpkit.Render(c, http.StatusOK, views.APIDocsPage(p, d))
}

// apiDocsTag is the page of one tag of the API's reference: every
// operation of the tag with its parameters, body fields, an example
// request against this server and its answer, and its statuses. A tag the
// document does not have is the site's page not found (a page, not a
// problem: it is asked for by a browser, as its overview is).
func (s *Server) apiDocsTag(c echo.Context) error {
	d, err := s.apiReference(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	i := slices.IndexFunc(d.Tags, func(t views.APITag) bool { return t.Slug == c.Param("tag") })
	if i < 0 {
		return s.notFound(c)
	}
	m := views.APITagDocs{Tag: d.Tags[i]}
	if i > 0 {
		m.Prev = d.Tags[i-1]
	}
	if i+1 < len(d.Tags) {
		m.Next = d.Tags[i+1]
	}
	p := views.Page{Title: m.Tag.Name + " · " + i18n.T(ctx, "apidocs.title"), Lang: i18n.Lang(ctx), Theme: httpkit.Theme(c)}
	return httpkit.Render(c, http.StatusOK, views.APIDocsTagPage(p, m))
}

// apiReference reads the API's reference from the OpenAPI document the
// server serves: every operation, grouped by tag in the document's order
// of tags, and the problem types.
func (s *Server) apiReference(c echo.Context) (views.APIDocs, error) {
	base := httpkit.BaseURL(c)
	b, err := json.Marshal(s.openAPIDoc(base))
	if err != nil {
		return views.APIDocs{}, err
	}
	var doc oaDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		return views.APIDocs{}, err
	}
	ctx := c.Request().Context()
	m := views.APIDocs{Title: doc.Info.Title, Description: doc.Info.Description, OpenAPI: base + Prefix + "/openapi.json"}
	if len(doc.Servers) > 0 {
		m.Server = doc.Servers[0].URL
	}
	for _, t := range doc.Tags {
		m.Tags = append(m.Tags, views.APITag{Name: t.Name, Description: t.Description, Slug: TagSlug(t.Name)})
	}
	methodOrder := []string{"options", "get", "head", "post", "put", "patch", "delete"}
	for _, p := range slices.Sorted(maps.Keys(doc.Paths)) {
		for _, method := range methodOrder {
			o, ok := doc.Paths[p][method]
			if !ok {
				continue
			}
			op := s.docOperation(c, &doc, m.Server, p, strings.ToUpper(method), o)
			tag := "API"
			if len(o.Tags) > 0 {
				tag = o.Tags[0]
			}
			i := slices.IndexFunc(m.Tags, func(t views.APITag) bool { return t.Name == tag })
			if i < 0 {
				m.Tags = append(m.Tags, views.APITag{Name: tag, Slug: TagSlug(tag)})
				i = len(m.Tags) - 1
			}
			m.Tags[i].Ops = append(m.Tags[i].Ops, op)
		}
	}
	m.Tags = slices.DeleteFunc(m.Tags, func(t views.APITag) bool { return len(t.Ops) == 0 })
	for _, code := range slices.Sorted(maps.Keys(problemTypes)) {
		kind := problemTypes[code]
		m.Problems = append(m.Problems, views.APIProblem{
			Anchor: problemAnchor(kind), Type: ProblemType(base, code), Status: code, Title: http.StatusText(code),
			Description: i18n.T(ctx, "apidocs.problem."+kind),
		})
	}
	return m, nil
}

// TagSlug is the last segment of the address of a tag's page: its name in
// lower case, each run of other characters than ASCII letters and digits
// a hyphen (Users is users).
func TagSlug(name string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(name) {
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			hyphen = false
		} else {
			hyphen = true
		}
	}
	return b.String()
}

// docOperation returns an operation of the document as the docs page
// shows it.
func (s *Server) docOperation(c echo.Context, doc *oaDoc, server, path, method string, o oaOperation) views.APIOperation {
	op := views.APIOperation{
		ID: o.OperationID, Method: method, Path: Prefix + path, Summary: o.Summary, Description: o.Description, Scope: o.Scope,
	}
	if key := summaryKey(o.OperationID); i18n.Has(key) {
		op.Summary = i18n.T(c.Request().Context(), key) // the document's summaries are the catalog's English
	}
	example := path
	for _, p := range o.Parameters {
		op.Params = append(op.Params, views.APIField{
			Name: p.Name, In: p.In, Type: doc.typeName(p.Schema), Required: p.Required, Limits: doc.limits(c, p.Schema), Description: p.Description,
		})
		if p.In == "path" && p.Example != nil {
			example = strings.ReplaceAll(example, "{"+p.Name+"}", fmt.Sprint(p.Example))
		}
	}
	curl := []string{"curl"}
	switch method {
	case http.MethodGet:
	case http.MethodHead:
		curl[0] += " --head" // -X HEAD would wait for a body that never comes
	default:
		curl[0] += " -X " + method
	}
	curl[0] += " " + shellQuote(server+example)
	curl = append(curl, `-H "Authorization: Bearer $KANRI_API_KEY"`)
	for _, p := range o.Parameters {
		if p.In == "header" && p.Required && p.Schema != nil && len(p.Schema.Enum) == 1 {
			curl = append(curl, fmt.Sprintf(`-H "%s: %v"`, p.Name, p.Schema.Enum[0])) // Tus-Resumable: 1.0.0
		}
	}
	if ct := o.RequestBody.bytesType(); ct != "" {
		curl = append(curl, `-H "Content-Type: `+ct+`"`, "--data-binary @file")
	}
	if media, ok := o.RequestBody.json(); ok {
		schema := doc.resolve(media.Schema)
		if schema != nil {
			for _, n := range slices.Sorted(maps.Keys(schema.Properties)) {
				f := schema.Properties[n]
				op.Body = append(op.Body, views.APIField{
					Name: n, Type: doc.typeName(f), Required: slices.Contains(schema.Required, n), Limits: doc.limits(c, f), Description: f.Description,
				})
			}
		}
		curl = append(curl, `-H "Content-Type: application/json"`)
		if media.Example != nil {
			b, _ := json.Marshal(media.Example)
			curl = append(curl, "-d "+shellQuote(string(b)))
		}
	}
	op.Curl = strings.Join(curl, " \\\n  ")
	for _, code := range slices.Sorted(maps.Keys(o.Responses)) {
		r := o.Responses[code]
		st := views.APIStatus{Code: code, Description: r.Description}
		if n, err := strconv.Atoi(code); err == nil {
			if kind, ok := problemTypes[n]; ok && n >= 400 {
				st.Problem = problemAnchor(kind)
			}
			if n < 300 && op.ExampleStatus == "" {
				op.ExampleStatus = code + " " + http.StatusText(n)
				if media, ok := r.Content["application/json"]; ok && media.Example != nil {
					b, _ := json.MarshalIndent(media.Example, "", "  ")
					op.ExampleResponse = string(b)
				}
			}
		}
		op.Statuses = append(op.Statuses, st)
	}
	return op
}

// shellQuote quotes s for a POSIX shell: in single quotes, a single quote
// written as '\”.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
