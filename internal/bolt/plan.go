package bolt

import (
	"bytes"
	"fmt"
	"maps"
	"strings"

	"github.com/kanri/kanri/internal/docstore"
)

// Query planning for ordered queries.
//
// An ordered query (one with an OrderBy) is answered by one of these plans,
// tried in order until one can answer within its bounds:
//
//   - merge: one or more ranges of indexes whose last field is the sort
//     field and whose other fields the query fixes (an equality, one value
//     of an Or or In, or a range of the last of them expanded into its
//     distinct values), walked in step and merged in the order of (sort
//     value, id). A page costs O(page + ranges × log N).
//   - collect: ranges of an index that the filters narrow but that does not
//     end with the sort field, read whole and sorted in memory: bounded by
//     maxCollect documents, beyond which the next plan runs.
//   - the sort field's index walked whole, checking every filter on the
//     way, or, without one, the partition read and sorted in memory.
//
// Every plan yields the documents in the same order, and a continuation
// token holds only the last document's position in that order (its
// encoded sort value and id), so any plan resumes a page made by another.
// Filters are always checked on every document read: ranges only narrow
// what is read, they never decide what matches.

// Bounds of the plans that depend on the data.
const (
	// maxBranches bounds the distinct values a range of an index field is
	// expanded into before the plan gives way to the next.
	maxBranches = 128
	// maxCollect bounds the index entries a collect plan reads.
	maxCollect = 2000
	// probeFactor sets the documents a collect plan lets the walk of the
	// sort field's index read first, when its ranges hold more entries
	// than that: probeFactor pages of them, plus probeSlack. A filter that
	// a fair share of the documents pass (users not deleted) fills its
	// page within them, at the cost of the page rather than of every
	// document in the ranges; a rarer one falls back to the collect plan.
	probeFactor = 4
	probeSlack  = 16
)

// errTooWide is the signal of a plan that exceeded its bound.
var errTooWide = fmt.Errorf("bolt: plan exceeded its bound")

// span is a range of index keys: those that start with prefix and, after
// it, fall in [lo, hi) (nil bounds are open). With expand, the field that
// follows prefix is a range to expand into one branch per distinct value.
type span struct {
	ix     *index
	prefix []byte
	eqs    int // how many of ix's fields prefix holds
	lo, hi []byte
	expand bool
	// sortLo and sortHi bound the encoded sort value that follows the
	// prefix (and the expanded value) in a merge plan.
	sortLo, sortHi []byte
	about          string // for Explain
}

// orderedPlan is how an ordered query runs.
type orderedPlan struct {
	kind   planKind
	spans  []span
	fixed  int      // how many conditions narrow each range, at least
	served []string // descriptions of the conditions the ranges serve
	next   *orderedPlan
}

type planKind int

const (
	planMerge     planKind = iota + 1 // ranges ending in the sort field, merged
	planCollect                       // narrowed ranges read whole, sorted in memory
	planPartition                     // the partition read, sorted in memory
)

// bound is what the filters say about one field: an encoded equality, or
// a range [lo, hi) of encoded values.
type bound struct {
	eq     []byte
	lo, hi []byte
	about  string
}

func (b bound) isEq() bool { return b.eq != nil }

// conditions are the bounds of one conjunction of filters, by field.
type conditions map[string]bound

// boundOf returns the bound a filter puts on its field, if an index can
// serve it.
func boundOf(f docstore.Filter) (string, bound, bool) {
	v, err := docstore.Normalize(f.Value)
	if err != nil {
		return "", bound{}, false
	}
	about := describe(f)
	switch f.Op {
	case docstore.OpEq:
		switch v.(type) {
		case nil, bool, float64, string:
			return f.Field, bound{eq: encodeValue(nil, v, true), about: about}, true
		}
	case docstore.OpDefined:
		if present, _ := v.(bool); !present {
			return f.Field, bound{eq: encodeValue(nil, nil, false), about: about}, true
		}
	case docstore.OpArrayContains:
		switch v.(type) {
		case nil, bool, float64, string:
			return f.Field + "[]", bound{eq: encodeValue(nil, v, true), about: about}, true
		}
	case docstore.OpNe:
		if v == nil { // any defined value but null: every tag above null's
			return f.Field, bound{lo: []byte{tagFalse}, hi: []byte{tagOther + 1}, about: about}, true
		}
	case docstore.OpPrefix, docstore.OpArrayPrefix:
		s, _ := v.(string)
		lo := encodeValue(nil, s, true)
		lo = lo[:len(lo)-2] // without the terminator: every string that starts with s
		field := f.Field
		if f.Op == docstore.OpArrayPrefix {
			field += "[]"
		}
		return field, bound{lo: lo, hi: upperBound(lo), about: about}, true
	case docstore.OpGt, docstore.OpGte, docstore.OpLt, docstore.OpLte:
		var tag byte
		switch v.(type) {
		case float64:
			tag = tagNumber
		case string:
			tag = tagString
		default:
			return "", bound{}, false
		}
		enc := encodeValue(nil, v, true)
		b := bound{lo: []byte{tag}, hi: []byte{tag + 1}, about: about}
		switch f.Op {
		case docstore.OpGt:
			b.lo = upperBound(enc)
		case docstore.OpGte:
			b.lo = enc
		case docstore.OpLt:
			b.hi = enc
		case docstore.OpLte:
			b.hi = upperBound(enc)
		}
		return f.Field, b, true
	}
	return "", bound{}, false
}

// add narrows c by the bound b of field: equalities win over ranges, and
// two ranges intersect.
func (c conditions) add(field string, b bound) {
	old, ok := c[field]
	switch {
	case !ok || (b.isEq() && !old.isEq()):
		c[field] = b
	case strings.HasSuffix(field, "[]"):
		// Two conditions on an array's elements may hold for different
		// elements: keep the narrower, the longer prefix.
		if !old.isEq() && len(b.lo) > len(old.lo) {
			c[field] = b
		}
	case !old.isEq() && !b.isEq():
		if bytes.Compare(b.lo, old.lo) > 0 {
			old.lo = b.lo
		}
		if bytes.Compare(b.hi, old.hi) < 0 {
			old.hi = b.hi
		}
		old.about += " and " + b.about
		c[field] = old
	}
}

// alternatives returns, for an Or or In filter, one set of bounds per
// member, or nil if some member is not one an index can serve.
func alternatives(f docstore.Filter) []conditions {
	var members []docstore.Filter
	switch f.Op {
	case docstore.OpOr:
		members = f.Any
	case docstore.OpIn:
		for _, v := range f.Values {
			members = append(members, docstore.Eq(f.Field, v))
		}
	default:
		return nil
	}
	var out []conditions
	for _, m := range members {
		field, b, ok := boundOf(m)
		if !ok {
			return nil
		}
		out = append(out, conditions{field: b})
	}
	return out
}

// planOrdered returns the plans of an ordered query in partition pk, the
// preferred first, each linked to the one that runs when it exceeds its
// bound; the last is always able to answer.
func (c *container) planOrdered(pk string, q docstore.Query) *orderedPlan {
	common := conditions{}
	var ors []docstore.Filter
	for _, f := range q.Where {
		if f.Op == docstore.OpOr || f.Op == docstore.OpIn {
			ors = append(ors, f)
			continue
		}
		if field, b, ok := boundOf(f); ok {
			common.add(field, b)
		}
	}
	// Each way to read: the common bounds alone, or with one Or or In
	// expanded into its members.
	sets := [][]conditions{{common}}
	for _, f := range ors {
		alts := alternatives(f)
		if alts == nil {
			continue
		}
		var set []conditions
		for _, a := range alts {
			cs := maps.Clone(common)
			for field, b := range a {
				cs.add(field, b)
			}
			set = append(set, cs)
		}
		sets = append(sets, set)
	}
	var merge, collect *orderedPlan
	for i, set := range sets {
		if p := c.mergePlan(pk, q, set, i > 0); p != nil && (merge == nil || better(p, merge)) {
			merge = p
		}
		if p := c.collectPlan(pk, q, set); p != nil && (collect == nil || better(p, collect)) {
			collect = p
		}
	}
	// The last resort answers every page, at the cost of what it skips:
	// the sort field's own index walked whole, or the partition.
	last := &orderedPlan{kind: planPartition}
	if whole := c.mergePlan(pk, q, []conditions{sortBoundsOnly(common, q.OrderBy)}, false); whole != nil && !whole.spans[0].expand {
		last = whole
	}
	var chain []*orderedPlan
	if collect != nil && (merge == nil || collect.fixed > merge.fixed) && collect.fixed > last.fixed {
		chain = append(chain, collect)
	}
	if merge != nil && merge.fixed > last.fixed {
		chain = append(chain, merge)
	}
	chain = append(chain, last)
	for i := range chain[:len(chain)-1] {
		chain[i].next = chain[i+1]
	}
	return chain[0]
}

// sortBoundsOnly returns the bounds of cs on the sort field alone.
func sortBoundsOnly(cs conditions, orderBy string) conditions {
	out := conditions{}
	if b, ok := cs[orderBy]; ok {
		out[orderBy] = b
	}
	return out
}

// better reports whether plan a narrows more than b: more conditions per
// range, then fewer ranges.
func better(a, b *orderedPlan) bool {
	if a.fixed != b.fixed {
		return a.fixed > b.fixed
	}
	return len(a.spans) < len(b.spans)
}

// mergePlan returns a merge plan reading each alternative of set through
// the best index that ends with the sort field, or nil. With expanded, the
// set is an Or's members: each must be served by its range, or reading
// them separately gains nothing.
func (c *container) mergePlan(pk string, q docstore.Query, set []conditions, expanded bool) *orderedPlan {
	p := &orderedPlan{kind: planMerge, fixed: -1}
	for _, cs := range set {
		var best *span
		bestFixed := -1
		var bestServed []string
		for i := range c.indexes {
			ix := &c.indexes[i]
			n := len(ix.fields)
			if ix.typ != q.Type || ix.fields[n-1] != q.OrderBy || ix.hashed[n-1] || !fixesElements(ix, cs) {
				continue
			}
			sp, fixed, served, ok := fixLeading(ix, pk, cs, n-1)
			if ok && fixed > bestFixed {
				best, bestFixed, bestServed = sp, fixed, served
			}
		}
		if best == nil || (expanded && bestFixed == 0) {
			return nil
		}
		if b, ok := cs[q.OrderBy]; ok {
			best.sortLo, best.sortHi = b.lo, b.hi
			if b.isEq() {
				best.sortLo, best.sortHi = b.eq, upperBound(b.eq)
			}
			best.about = strings.TrimSuffix(best.about, "]") + sep(best.about) + b.about + "]"
			bestFixed++
			bestServed = append(bestServed, b.about)
		}
		if p.fixed < 0 || bestFixed < p.fixed {
			p.fixed = bestFixed
		}
		p.spans = append(p.spans, *best)
		p.served = append(p.served, bestServed...)
	}
	return p
}

// sep is what goes between the conditions of a range's description.
func sep(about string) string {
	if strings.HasSuffix(about, "[]") {
		return ""
	}
	return ", "
}

// collectPlan returns a plan reading, for each alternative of set, the
// range of an index whose leading fields it narrows most (by at least one
// condition), or nil.
func (c *container) collectPlan(pk string, q docstore.Query, set []conditions) *orderedPlan {
	p := &orderedPlan{kind: planCollect, fixed: -1}
	for _, cs := range set {
		var best *span
		bestFixed := 0
		var bestServed []string
		for i := range c.indexes {
			ix := &c.indexes[i]
			if ix.typ != q.Type || !fixesElements(ix, cs) {
				continue
			}
			sp, fixed, served, _ := fixLeading(ix, pk, cs, len(ix.fields))
			if fixed > bestFixed {
				best, bestFixed, bestServed = sp, fixed, served
			}
		}
		if best == nil {
			return nil
		}
		if p.fixed < 0 || bestFixed < p.fixed {
			p.fixed = bestFixed
		}
		p.spans = append(p.spans, *best)
		p.served = append(p.served, bestServed...)
	}
	return p
}

// fixesElements reports whether cs bounds every array-element field of
// ix: an index of elements has no entry for a document whose array is
// empty, so only a query that asks for some element may read it.
func fixesElements(ix *index, cs conditions) bool {
	for _, f := range ix.fields {
		if _, ok := cs[f]; !ok && strings.HasSuffix(f, "[]") {
			return false
		}
	}
	return true
}

// fixLeading returns the range of ix in partition pk that the conditions
// cs select through the first n fields of ix: equalities fix fields in
// turn, and a range on a field ends the prefix (expanded into its distinct
// values when that field is the n-th and last). ok reports whether all n
// fields were fixed.
func fixLeading(ix *index, pk string, cs conditions, n int) (sp *span, fixed int, served []string, ok bool) {
	sp = &span{ix: ix, prefix: ix.prefix(pk)}
	var about []string
	for i, f := range ix.fields[:n] {
		b, has := cs[f]
		if has && ix.hashed[i] && !b.isEq() {
			has = false // a hashed field is fixed by equality only
		}
		if !has {
			sp.about = ix.name + "[" + strings.Join(about, ", ") + "]"
			return sp, fixed, served, false
		}
		if b.isEq() {
			sp.prefix = ix.appendValue(sp.prefix, i, b.eq)
			sp.eqs++
		} else {
			sp.lo, sp.hi = b.lo, b.hi
			sp.expand = i == n-1
		}
		fixed++
		served = append(served, b.about)
		about = append(about, b.about)
		if !b.isEq() {
			sp.about = ix.name + "[" + strings.Join(about, ", ") + "]"
			return sp, fixed, served, sp.expand
		}
	}
	sp.about = ix.name + "[" + strings.Join(about, ", ") + "]"
	return sp, fixed, served, true
}

// describe renders a filter for Explain.
func describe(f docstore.Filter) string {
	switch f.Op {
	case docstore.OpOr:
		parts := make([]string, len(f.Any))
		for i, s := range f.Any {
			parts[i] = describe(s)
		}
		return "(" + strings.Join(parts, " or ") + ")"
	case docstore.OpIn:
		return fmt.Sprintf("%s in %v", f.Field, f.Values)
	case docstore.OpDefined:
		if present, _ := f.Value.(bool); present {
			return "defined(" + f.Field + ")"
		}
		return "undefined(" + f.Field + ")"
	}
	ops := map[docstore.Operator]string{
		docstore.OpEq: "=", docstore.OpNe: "!=", docstore.OpContains: "contains", docstore.OpPrefix: "starts with",
		docstore.OpGt: ">", docstore.OpGte: ">=", docstore.OpLt: "<", docstore.OpLte: "<=",
		docstore.OpArrayContains: "has", docstore.OpArrayPrefix: "has an element starting with",
	}
	return fmt.Sprintf("%s %s %q", f.Field, ops[f.Op], fmt.Sprint(f.Value))
}

// Explain says how the container would run q in partition pk (its
// preferred plan; a plan that exceeds its bound gives way to the next).
func (c *container) Explain(pk string, q docstore.Query) (docstore.Plan, error) {
	if err := q.Validate(); err != nil {
		return docstore.Plan{}, err
	}
	var checked []string
	for _, f := range q.Where {
		checked = append(checked, describe(f))
	}
	if ids := idsOf(q.Where); ids != nil {
		return docstore.Plan{Access: docstore.AccessIDs, Ranges: ids, Narrowed: true, Checked: checked}, nil
	}
	if q.OrderBy == "" {
		p := c.planFor(pk, q)
		if p == nil {
			return docstore.Plan{Access: docstore.AccessPartition, Checked: checked}, nil
		}
		return docstore.Plan{Access: docstore.AccessIndex, Ranges: []string{p.ix.name}, Narrowed: p.fixed > 0, Checked: checked}, nil
	}
	p := c.planOrdered(pk, q)
	out := docstore.Plan{Narrowed: p.fixed > 0, Served: p.served, Checked: checked}
	for _, sp := range p.spans {
		out.Ranges = append(out.Ranges, sp.about)
	}
	switch p.kind {
	case planMerge:
		out.Access = docstore.AccessIndex
	case planCollect:
		out.Access = docstore.AccessIndexSort
	default:
		out.Access = docstore.AccessPartition
	}
	if n := p.next; n != nil {
		out.Fallback = "partition"
		if n.kind != planPartition {
			out.Fallback = "index " + n.spans[0].about
		}
	}
	return out, nil
}
