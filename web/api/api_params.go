package api

import (
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
)

// ParamKind is the type of a query parameter's value.
type ParamKind int

// The kinds of query parameters.
const (
	StringParam ParamKind = iota
	IntegerParam
	BooleanParam // "true" is true; any other value is false
	DateParam    // YYYY-MM-DD
)

// Param declares a query parameter of an API operation. The handlers
// read the parameter through its declaration and the OpenAPI document
// describes it from the same one, so that the two cannot differ.
type Param struct {
	Name string
	Kind ParamKind
	Doc  string
	// enum lists the values an operation honours; the handler passes any
	// other value on as "" (the parameter's default).
	Enum []string
	// min, max and def are an integer parameter's bounds and default;
	// invalid is the message key of a value out of bounds (422).
	Min, Max, Def int
	Invalid       string
	// def is a string parameter's default, for the document.
	DefString string
	// checked says the handler refuses a value that names nothing (422),
	// such as a folder that does not exist.
	Checked bool
}

// The query parameters of the API's operations.
var (
	ParamLimit = Param{Name: "limit", Kind: IntegerParam, Min: 1, Max: 100, Def: 50, Invalid: "validation.limit",
		Doc: "Page size. A value that is not an integer from 1 to 100 (digits only) is refused (400)."}
	ParamNext = Param{Name: "next", Doc: "The next token of the previous page. A token that cannot be read is refused (422)."}
	ParamDesc = Param{Name: "desc", Kind: BooleanParam, Doc: "true for descending order, false (the default) for ascending; another value is refused (400)."}
)

// refusable reports whether a value of the parameter can make the
// operation answer 422.
func (p Param) refusable() bool {
	return p.Kind == DateParam || p.Name == ParamNext.Name || p.Checked
}

// digits matches an integer parameter's value: digits only (no sign, no
// spaces).
var digits = regexp.MustCompile(`^[0-9]{1,9}$`)

// check refuses (EMALFORMED, 400) a value of the parameter that the
// operation cannot take: a parameter given twice, an enumerated or boolean
// parameter with another value, an integer parameter that is not digits
// within its bounds (an empty value included, as the document says).
func (p Param) check(q url.Values) error {
	vs := q[p.Name]
	if len(vs) > 1 {
		return kanri.E(kanri.EMALFORMED, "input.param_repeated", p.Name)
	}
	if len(vs) == 0 {
		return nil
	}
	v := vs[0]
	enum := p.Enum
	if p.Kind == BooleanParam {
		enum = []string{"true", "false"}
	}
	if enum != nil && !slices.Contains(enum, v) {
		return kanri.E(kanri.EMALFORMED, "input.param_value", p.Name, strings.Join(enum, ", "))
	}
	if p.Kind == IntegerParam {
		if n, err := strconv.Atoi(v); !digits.MatchString(v) || err != nil || n < p.Min || n > p.Max {
			return kanri.E(kanri.EMALFORMED, "input.param_integer", p.Name, p.Min, p.Max)
		}
	}
	return nil
}

// checkQuery refuses a request whose query parameters an operation
// declaring params cannot take (see apiParam.check), and one with a
// parameter it does not declare (limt=5), which would otherwise be passed
// over as if the client had not meant it (EMALFORMED, 400, naming it).
func checkQuery(params []Param) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			q := c.QueryParams()
			for _, name := range slices.Sorted(maps.Keys(q)) {
				if !slices.ContainsFunc(params, func(p Param) bool { return p.Name == name }) {
					return kanri.E(kanri.EMALFORMED, "input.param_unknown", name)
				}
			}
			for _, p := range params {
				if err := p.check(q); err != nil {
					return err
				}
			}
			return next(c)
		}
	}
}

// Str returns the parameter's value: for an enumerated parameter, "" unless
// the value is one of the enum.
func (p Param) Str(c echo.Context) string {
	v := c.QueryParam(p.Name)
	if p.Enum != nil && !slices.Contains(p.Enum, v) {
		return ""
	}
	return v
}

// Bool returns a boolean parameter's value.
func (p Param) Bool(c echo.Context) bool { return c.QueryParam(p.Name) == "true" }

// Int returns an integer parameter's value, its default when it is
// absent, and EINVALID naming the parameter when it is not an integer
// within the bounds.
func (p Param) Int(c echo.Context) (int, error) {
	v := c.QueryParam(p.Name)
	if v == "" {
		return p.Def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < p.Min || n > p.Max {
		return 0, kanri.Invalid(kanri.Fields{p.Name: p.Invalid})
	}
	return n, nil
}

// schema returns the parameter's JSON schema in the OpenAPI document.
func (p Param) schema() map[string]any {
	s := map[string]any{"type": "string"}
	switch p.Kind {
	case IntegerParam:
		s = map[string]any{"type": "integer", "format": "int32", "minimum": p.Min, "maximum": p.Max, "default": p.Def}
	case BooleanParam:
		s = map[string]any{"type": "boolean", "default": false}
	case DateParam:
		s["format"] = "date"
	}
	if p.Enum != nil {
		s["enum"] = p.Enum
	}
	if p.DefString != "" {
		s["default"] = p.DefString
	}
	return s
}
