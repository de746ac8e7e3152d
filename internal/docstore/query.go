package docstore

import (
	"encoding/json"
	"hash/fnv"
	"regexp"
)

// Query selects documents of one type. Filters are ANDed. Values are always
// passed to the store as parameters, never spliced into query text.
type Query struct {
	// Type is the required "type" discriminator.
	Type string
	// Where holds the filters, all of which must match.
	Where []Filter
	// OrderBy is the field to sort by; "" sorts in the store's own stable
	// order. Only one field is supported, as in a Cosmos DB query without a
	// composite index.
	OrderBy string
	// Desc sorts in descending order.
	Desc bool
	// Limit is the page size: 1 to MaxPageSize, DefaultPageSize when 0.
	Limit int
	// Continuation is the token of the previous page, or "" for the first.
	Continuation string
}

// Operator is a filter's comparison.
type Operator int

// Filter operators.
const (
	OpEq            Operator = iota + 1 // field = value
	OpNe                                // field != value
	OpIn                                // field is one of values
	OpContains                          // field contains value, case-insensitively
	OpPrefix                            // field starts with value
	OpGt                                // field > value
	OpGte                               // field >= value
	OpLt                                // field < value
	OpLte                               // field <= value
	OpArrayContains                     // array field has value as an element
	OpOr                                // any of Any matches
	OpDefined                           // field is present (Value true) or absent (false)
	OpArrayPrefix                       // array field has an element that starts with value
)

// Filter is one condition of a query. Field is a dotted path of JSON names
// such as "metadata.industry".
type Filter struct {
	Field  string
	Op     Operator
	Value  any
	Values []any    // for OpIn
	Any    []Filter // for OpOr
}

// Eq matches documents whose field equals v.
func Eq(field string, v any) Filter { return Filter{Field: field, Op: OpEq, Value: v} }

// Ne matches documents whose field differs from v.
func Ne(field string, v any) Filter { return Filter{Field: field, Op: OpNe, Value: v} }

// In matches documents whose field equals one of vs.
func In(field string, vs ...any) Filter { return Filter{Field: field, Op: OpIn, Values: vs} }

// Contains matches string fields that contain s, ignoring case.
func Contains(field, s string) Filter { return Filter{Field: field, Op: OpContains, Value: s} }

// Prefix matches string fields that start with s.
func Prefix(field, s string) Filter { return Filter{Field: field, Op: OpPrefix, Value: s} }

// Gt matches documents whose field is greater than v.
func Gt(field string, v any) Filter { return Filter{Field: field, Op: OpGt, Value: v} }

// Gte matches documents whose field is greater than or equal to v.
func Gte(field string, v any) Filter { return Filter{Field: field, Op: OpGte, Value: v} }

// Lt matches documents whose field is less than v.
func Lt(field string, v any) Filter { return Filter{Field: field, Op: OpLt, Value: v} }

// Lte matches documents whose field is less than or equal to v.
func Lte(field string, v any) Filter { return Filter{Field: field, Op: OpLte, Value: v} }

// ArrayContains matches array fields that have v as an element.
func ArrayContains(field string, v any) Filter {
	return Filter{Field: field, Op: OpArrayContains, Value: v}
}

// Defined matches documents that have (or, with false, lack) the field.
func Defined(field string, present bool) Filter {
	return Filter{Field: field, Op: OpDefined, Value: present}
}

// ArrayPrefix matches array fields that have an element starting with s.
// An index declared on the field's elements ("field[]") serves it.
func ArrayPrefix(field, s string) Filter {
	return Filter{Field: field, Op: OpArrayPrefix, Value: s}
}

// Or matches documents that match any of fs.
func Or(fs ...Filter) Filter { return Filter{Op: OpOr, Any: fs} }

var fieldPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$`)

// Validate checks q before a backend runs it. Field names come from code,
// not from users, but are checked anyway so that no backend ever has to
// trust them.
func (q Query) Validate() error {
	if q.Type == "" {
		return invalid("query without a type")
	}
	if q.Limit < 0 || q.Limit > MaxPageSize {
		return invalid("page size %d out of range 1..%d", q.Limit, MaxPageSize)
	}
	if q.OrderBy != "" && !fieldPattern.MatchString(q.OrderBy) {
		return invalid("bad order field %q", q.OrderBy)
	}
	return validateFilters(q.Where)
}

// PageSize returns the effective page size of q.
func (q Query) PageSize() int {
	if q.Limit == 0 {
		return DefaultPageSize
	}
	return q.Limit
}

func validateFilters(fs []Filter) error {
	for _, f := range fs {
		if f.Op == OpOr {
			if len(f.Any) == 0 {
				return invalid("empty OR filter")
			}
			if err := validateFilters(f.Any); err != nil {
				return err
			}
			continue
		}
		if f.Op < OpEq || f.Op > OpArrayPrefix {
			return invalid("bad filter operator %d", f.Op)
		}
		if !fieldPattern.MatchString(f.Field) {
			return invalid("bad filter field %q", f.Field)
		}
		if f.Op == OpIn && len(f.Values) == 0 {
			return invalid("empty IN filter on %q", f.Field)
		}
		if (f.Op == OpContains || f.Op == OpPrefix || f.Op == OpArrayPrefix) && !isString(f.Value) {
			return invalid("%q filter needs a string", f.Field)
		}
	}
	return nil
}

func isString(v any) bool { _, ok := v.(string); return ok }

// Fingerprint identifies the shape of q (everything but its page size and
// continuation) within scope, a partition key or "" across partitions.
// Backends put it in their continuation tokens so that a token cannot be
// replayed against another query, tenant or order.
func Fingerprint(q Query, scope string) uint64 {
	h := fnv.New64a()
	b, _ := json.Marshal(struct {
		S string
		T string
		W []Filter
		O string
		D bool
	}{scope, q.Type, q.Where, q.OrderBy, q.Desc})
	h.Write(b)
	return h.Sum64()
}
