package bolt

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/kanri/kanri/internal/docstore"
)

// matcher reports whether a document matches a query, and names the
// top-level fields it (and the query's order) reads.
type matcher struct {
	match  func(doc *lazyDoc) bool
	fields map[string]bool
	// needles are lower-case ASCII strings the query's text searches
	// (Contains) require: a document whose raw JSON holds one of them in
	// no case cannot match, and is passed over without being decoded.
	needles [][]byte
}

// predicate is one compiled filter.
type predicate func(doc *lazyDoc) bool

// compile turns a query's type and filters into a matcher, normalising the
// filter values once. The semantics follow Cosmos DB SQL: a comparison with
// a missing field or a value of another type does not match.
func compile(q docstore.Query) (matcher, error) {
	where := append([]docstore.Filter{docstore.Eq("type", q.Type)}, q.Where...)
	fs, err := compileFilters(where)
	if err != nil {
		return matcher{}, err
	}
	fields := map[string]bool{}
	collectFields(where, fields)
	if q.OrderBy != "" {
		fields[topField(q.OrderBy)] = true
	}
	return matcher{match: func(doc *lazyDoc) bool { return all(fs, doc) }, fields: fields, needles: needles(q.Where)}, nil
}

// needles returns, for each filter that is a text search (Contains, or an
// OR of Contains of one string), the string it needs, when a raw-bytes
// check can decide it: printable ASCII that JSON writes as is.
func needles(fs []docstore.Filter) [][]byte {
	var out [][]byte
	for _, f := range fs {
		subs := []docstore.Filter{f}
		if f.Op == docstore.OpOr {
			subs = f.Any
		}
		needle := ""
		for i, sub := range subs {
			v, ok := sub.Value.(string)
			if sub.Op != docstore.OpContains || !ok || !plainASCII(v) || (i > 0 && strings.ToLower(v) != needle) {
				needle = ""
				break
			}
			needle = strings.ToLower(v)
		}
		if needle != "" {
			out = append(out, []byte(needle))
		}
	}
	return out
}

// plainASCII reports whether s is printable ASCII that JSON encoding
// leaves unchanged.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return s != ""
}

// The only runes strings.ToLower turns into ASCII (İ into i, the Kelvin
// sign into k), and the escape that can hide any character: a body with
// one of them is decoded, not judged by its bytes.
var (
	dottedI    = []byte("\xc4\xb0")
	kelvin     = []byte("\xe2\x84\xaa")
	unicodeEsc = []byte(`\u`)
)

// mayMatch reports whether a document's raw JSON can match the query's
// text searches: false only when one of the needles is certainly absent.
func (m matcher) mayMatch(body []byte) bool {
	if len(m.needles) == 0 || bytes.Contains(body, unicodeEsc) || bytes.Contains(body, dottedI) || bytes.Contains(body, kelvin) {
		return true
	}
	for _, n := range m.needles {
		if !containsFold(body, n) {
			return false
		}
	}
	return true
}

// containsFold reports whether b holds the lower-case ASCII needle n in
// any ASCII case.
func containsFold(b, n []byte) bool {
	for i := 0; i+len(n) <= len(b); i++ {
		j := 0
		for ; j < len(n); j++ {
			c := b[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != n[j] {
				break
			}
		}
		if j == len(n) {
			return true
		}
	}
	return false
}

func collectFields(fs []docstore.Filter, into map[string]bool) {
	for _, f := range fs {
		if f.Op == docstore.OpOr {
			collectFields(f.Any, into)
		} else {
			into[topField(f.Field)] = true
		}
	}
}

func topField(path string) string { top, _, _ := cut(path); return top }

func all(fs []predicate, doc *lazyDoc) bool {
	for _, f := range fs {
		if !f(doc) {
			return false
		}
	}
	return true
}

func compileFilters(fs []docstore.Filter) ([]predicate, error) {
	out := make([]predicate, 0, len(fs))
	for _, f := range fs {
		m, err := compileFilter(f)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func compileFilter(f docstore.Filter) (predicate, error) {
	if f.Op == docstore.OpOr {
		subs, err := compileFilters(f.Any)
		if err != nil {
			return nil, err
		}
		return func(doc *lazyDoc) bool {
			for _, s := range subs {
				if s(doc) {
					return true
				}
			}
			return false
		}, nil
	}
	want, err := docstore.Normalize(f.Value)
	if err != nil {
		return nil, err
	}
	field := f.Field
	get := func(doc *lazyDoc) (any, bool) { return doc.get(field) }
	switch f.Op {
	case docstore.OpEq:
		return func(doc *lazyDoc) bool { v, ok := get(doc); return ok && equal(v, want) }, nil
	case docstore.OpNe:
		return func(doc *lazyDoc) bool { v, ok := get(doc); return ok && !equal(v, want) }, nil
	case docstore.OpIn:
		vals := make([]any, len(f.Values))
		for i, v := range f.Values {
			if vals[i], err = docstore.Normalize(v); err != nil {
				return nil, err
			}
		}
		return func(doc *lazyDoc) bool {
			v, ok := get(doc)
			if !ok {
				return false
			}
			for _, w := range vals {
				if equal(v, w) {
					return true
				}
			}
			return false
		}, nil
	case docstore.OpContains:
		sub := strings.ToLower(want.(string))
		return func(doc *lazyDoc) bool {
			v, ok := get(doc)
			s, isStr := v.(string)
			return ok && isStr && strings.Contains(strings.ToLower(s), sub)
		}, nil
	case docstore.OpPrefix:
		pre := want.(string)
		return func(doc *lazyDoc) bool {
			v, ok := get(doc)
			s, isStr := v.(string)
			return ok && isStr && strings.HasPrefix(s, pre)
		}, nil
	case docstore.OpGt, docstore.OpGte, docstore.OpLt, docstore.OpLte:
		op := f.Op
		return func(doc *lazyDoc) bool {
			v, ok := get(doc)
			if !ok {
				return false
			}
			c, comparable := compareSameType(v, want)
			if !comparable {
				return false
			}
			switch op {
			case docstore.OpGt:
				return c > 0
			case docstore.OpGte:
				return c >= 0
			case docstore.OpLt:
				return c < 0
			default:
				return c <= 0
			}
		}, nil
	case docstore.OpArrayContains:
		return func(doc *lazyDoc) bool {
			v, _ := get(doc)
			arr, ok := v.([]any)
			if !ok {
				return false
			}
			for _, e := range arr {
				if equal(e, want) {
					return true
				}
			}
			return false
		}, nil
	case docstore.OpArrayPrefix:
		pre := want.(string)
		return func(doc *lazyDoc) bool {
			v, _ := get(doc)
			arr, _ := v.([]any)
			for _, e := range arr {
				if s, ok := e.(string); ok && strings.HasPrefix(s, pre) {
					return true
				}
			}
			return false
		}, nil
	case docstore.OpDefined:
		present, _ := want.(bool)
		return func(doc *lazyDoc) bool { _, ok := get(doc); return ok == present }, nil
	}
	return nil, docstore.ErrInvalid(fmt.Errorf("bolt: unknown filter operator %d", f.Op))
}

// equal compares two decoded JSON scalars; objects and arrays never match.
func equal(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case string, bool, float64:
		return a == b
	}
	return false
}

// compareSameType compares two strings or two numbers.
func compareSameType(a, b any) (int, bool) {
	switch a := a.(type) {
	case string:
		if b, ok := b.(string); ok {
			return strings.Compare(a, b), true
		}
	case float64:
		if b, ok := b.(float64); ok {
			switch {
			case a < b:
				return -1, true
			case a > b:
				return 1, true
			}
			return 0, true
		}
	case bool:
		if b, ok := b.(bool); ok {
			switch {
			case a == b:
				return 0, true
			case !a:
				return -1, true
			}
			return 1, true
		}
	}
	return 0, false
}

// typeRank orders values of different types the way Cosmos DB's ORDER BY
// does: undefined, null, booleans, numbers, strings.
func typeRank(v any) int {
	switch v.(type) {
	case nil:
		return 1
	case bool:
		return 2
	case float64:
		return 3
	case string:
		return 4
	}
	return 5
}

// compareOrder compares two sort values of any type.
func compareOrder(a, b any) int {
	ra, rb := typeRank(a), typeRank(b)
	if ra != rb {
		return ra - rb
	}
	c, _ := compareSameType(a, b)
	return c
}
