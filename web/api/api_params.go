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

// paramKind is the type of a query parameter's value.
type paramKind int

// The kinds of query parameters.
const (
	stringParam paramKind = iota
	integerParam
	booleanParam // "true" is true; any other value is false
	dateParam    // YYYY-MM-DD
)

// apiParam declares a query parameter of an API operation. The handlers
// read the parameter through its declaration and the OpenAPI document
// describes it from the same one, so that the two cannot differ.
type apiParam struct {
	name string
	kind paramKind
	doc  string
	// enum lists the values an operation honours; the handler passes any
	// other value on as "" (the parameter's default).
	enum []string
	// min, max and def are an integer parameter's bounds and default;
	// invalid is the message key of a value out of bounds (422).
	min, max, def int
	invalid       string
	// def is a string parameter's default, for the document.
	defString string
	// checked says the handler refuses a value that names nothing (422),
	// such as a folder that does not exist.
	checked bool
}

// The query parameters of the API's operations.
var (
	paramLimit = apiParam{name: "limit", kind: integerParam, min: 1, max: 100, def: 50, invalid: "validation.limit",
		doc: "Page size. A value that is not an integer from 1 to 100 (digits only) is refused (400)."}
	paramNext = apiParam{name: "next", doc: "The next token of the previous page. A token that cannot be read is refused (422)."}
	paramDesc = apiParam{name: "desc", kind: booleanParam, doc: "true for descending order, false (the default) for ascending; another value is refused (400)."}

	paramUserSearch = apiParam{name: "q", doc: "Words that begin words of the username, e-mail or display name."}
	paramUserStatus = apiParam{name: "status", enum: []string{kanri.UserActive, kanri.UserInactive, kanri.UserLocked, kanri.UserDeleted},
		doc: "Only the users of this status; without it, every user not deleted. Another value is refused (400)."}
	paramUserSort = apiParam{name: "sort", enum: []string{"username", "displayName", "email", "createdAt", "lastLogin"}, defString: "username",
		doc: "The order of the list. Another value is refused (400)."}

	paramConfirm = apiParam{name: "confirm", enum: []string{confirmDisableKey},
		doc: "disable-this-key: deactivate or delete the person who made the request's API key, which disables the key itself. Without it, that is refused (409)."}

	paramAuditAction   = apiParam{name: "action", doc: "An action (user.update) or a prefix ending in a dot (user.)."}
	paramAuditUser     = apiParam{name: "user", doc: "A user id or username."}
	paramAuditResource = apiParam{name: "resource", doc: "A resource type, such as User."}
	paramAuditFrom     = apiParam{name: "from", kind: dateParam, doc: "First day, inclusive. A value that is not a date is refused (422)."}
	paramAuditTo       = apiParam{name: "to", kind: dateParam, doc: "Last day, inclusive. A value that is not a date, or before from, is refused (422)."}
)

// confirmDisableKey is the value of the confirm parameter by which a key
// deactivates or deletes its own creator.
const confirmDisableKey = "disable-this-key"

// refusable reports whether a value of the parameter can make the
// operation answer 422.
func (p apiParam) refusable() bool {
	return p.kind == dateParam || p.name == paramNext.name || p.checked
}

// digits matches an integer parameter's value: digits only (no sign, no
// spaces).
var digits = regexp.MustCompile(`^[0-9]{1,9}$`)

// check refuses (EMALFORMED, 400) a value of the parameter that the
// operation cannot take: a parameter given twice, an enumerated or boolean
// parameter with another value, an integer parameter that is not digits
// within its bounds (an empty value included, as the document says).
func (p apiParam) check(q url.Values) error {
	vs := q[p.name]
	if len(vs) > 1 {
		return kanri.E(kanri.EMALFORMED, "input.param_repeated", p.name)
	}
	if len(vs) == 0 {
		return nil
	}
	v := vs[0]
	enum := p.enum
	if p.kind == booleanParam {
		enum = []string{"true", "false"}
	}
	if enum != nil && !slices.Contains(enum, v) {
		return kanri.E(kanri.EMALFORMED, "input.param_value", p.name, strings.Join(enum, ", "))
	}
	if p.kind == integerParam {
		if n, err := strconv.Atoi(v); !digits.MatchString(v) || err != nil || n < p.min || n > p.max {
			return kanri.E(kanri.EMALFORMED, "input.param_integer", p.name, p.min, p.max)
		}
	}
	return nil
}

// checkQuery refuses a request whose query parameters an operation
// declaring params cannot take (see apiParam.check), and one with a
// parameter it does not declare (limt=5), which would otherwise be passed
// over as if the client had not meant it (EMALFORMED, 400, naming it).
func checkQuery(params []apiParam) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			q := c.QueryParams()
			for _, name := range slices.Sorted(maps.Keys(q)) {
				if !slices.ContainsFunc(params, func(p apiParam) bool { return p.name == name }) {
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

// str returns the parameter's value: for an enumerated parameter, "" unless
// the value is one of the enum.
func (p apiParam) str(c echo.Context) string {
	v := c.QueryParam(p.name)
	if p.enum != nil && !slices.Contains(p.enum, v) {
		return ""
	}
	return v
}

// boolean returns a boolean parameter's value.
func (p apiParam) boolean(c echo.Context) bool { return c.QueryParam(p.name) == "true" }

// integer returns an integer parameter's value, its default when it is
// absent, and EINVALID naming the parameter when it is not an integer
// within the bounds.
func (p apiParam) integer(c echo.Context) (int, error) {
	v := c.QueryParam(p.name)
	if v == "" {
		return p.def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < p.min || n > p.max {
		return 0, kanri.Invalid(kanri.Fields{p.name: p.invalid})
	}
	return n, nil
}

// schema returns the parameter's JSON schema in the OpenAPI document.
func (p apiParam) schema() map[string]any {
	s := map[string]any{"type": "string"}
	switch p.kind {
	case integerParam:
		s = map[string]any{"type": "integer", "format": "int32", "minimum": p.min, "maximum": p.max, "default": p.def}
	case booleanParam:
		s = map[string]any{"type": "boolean", "default": false}
	case dateParam:
		s["format"] = "date"
	}
	if p.enum != nil {
		s["enum"] = p.enum
	}
	if p.defString != "" {
		s["default"] = p.defString
	}
	return s
}
