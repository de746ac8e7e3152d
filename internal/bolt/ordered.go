package bolt

import (
	"bytes"
	"errors"
	"slices"

	bbolt "go.etcd.io/bbolt"

	"github.com/kanri/kanri/internal/docstore"
)

// runOrdered answers an ordered query with the first of p's plans that
// stays within its bounds. after is the position (encoded sort value and
// id) of the previous page's last document, or nil.
func (c *container) runOrdered(tx *bbolt.Tx, pk string, p *orderedPlan, m matcher, q docstore.Query, prefix, after []byte, fp uint64) (docstore.Page, error) {
	for ; ; p = p.next {
		var page docstore.Page
		var err error
		switch p.kind {
		case planMerge:
			page, err = c.runMerge(tx, pk, p, m, after, q.PageSize(), q.Desc, fp, 0)
		case planCollect:
			page, err = c.probeThenCollect(tx, pk, p, m, q, after, fp)
		default:
			page, err = c.scanSorted(tx, prefix, m, q, after, fp)
		}
		if errors.Is(err, errTooWide) && p.next != nil {
			continue
		}
		return page, err
	}
}

// branch is one range of index keys a merge walks: keys that start with
// prefix and whose rest (sort value, id) falls in [lo, hi).
type branch struct {
	cur    *indexCursor
	prefix []byte
	lo, hi []byte // whole keys; hi nil means the end of prefix
	k      []byte // the current key, nil when done
}

// rest returns the current key's sort value and id.
func (b *branch) rest() []byte { return b.k[len(b.prefix):] }

// valid reports whether k lies in the branch.
func (b *branch) valid(k []byte) bool {
	return k != nil && bytes.HasPrefix(k, b.prefix) && bytes.Compare(k, b.lo) >= 0 && (b.hi == nil || bytes.Compare(k, b.hi) < 0)
}

// start positions the branch at its first key after the position after
// (ascending) or its last key before it (descending).
func (b *branch) start(after []byte, desc bool) {
	var k []byte
	if !desc {
		from := b.lo
		if after != nil {
			if a := append(bytes.Clone(b.prefix), after...); bytes.Compare(a, from) >= 0 {
				from = a
				if k = b.cur.Seek(from); k != nil && bytes.Equal(k, from) {
					k = b.cur.Next()
				}
				b.set(k)
				return
			}
		}
		k = b.cur.Seek(from)
		b.set(k)
		return
	}
	to := b.hi
	if to == nil {
		to = upperBound(b.prefix)
	}
	if after != nil {
		if a := append(bytes.Clone(b.prefix), after...); to == nil || bytes.Compare(a, to) < 0 {
			to = a
		}
	}
	if to == nil {
		k = b.cur.Last()
	} else if k = b.cur.Seek(to); k == nil {
		k = b.cur.Last()
	} else {
		k = b.cur.Prev()
	}
	b.set(k)
}

func (b *branch) set(k []byte) {
	if b.valid(k) {
		b.k = k
	} else {
		b.k = nil
	}
}

func (b *branch) step(desc bool) {
	var k []byte
	if desc {
		k = b.cur.Prev()
	} else {
		k = b.cur.Next()
	}
	b.set(k)
}

// branches returns the ranges a merge plan walks: one per span, or, for a
// span that expands a range, one per distinct value in it (errTooWide past
// maxBranches).
func (c *container) branches(tx *bbolt.Tx, p *orderedPlan) ([]*branch, error) {
	idx := tx.Bucket(indexBucket(c.name))
	var out []*branch
	add := func(sp *span, prefix []byte) {
		b := &branch{cur: newIndexCursor(idx), prefix: prefix, lo: append(bytes.Clone(prefix), sp.sortLo...)}
		if sp.sortHi != nil {
			b.hi = append(bytes.Clone(prefix), sp.sortHi...)
		}
		out = append(out, b)
	}
	for i := range p.spans {
		sp := &p.spans[i]
		if !sp.expand {
			add(sp, sp.prefix)
			continue
		}
		cur := newIndexCursor(idx)
		lo := append(bytes.Clone(sp.prefix), sp.lo...)
		hi := upperBound(sp.prefix)
		if sp.hi != nil {
			hi = append(bytes.Clone(sp.prefix), sp.hi...)
		}
		for k := cur.Seek(lo); k != nil && bytes.HasPrefix(k, sp.prefix) && bytes.Compare(k, hi) < 0; {
			rest, err := skipIndexValue(k[len(sp.prefix):])
			if err != nil {
				return nil, err
			}
			value := k[:len(k)-len(rest)]
			if len(out) == maxBranches {
				return nil, errTooWide
			}
			add(sp, bytes.Clone(value))
			k = cur.Seek(upperBound(value))
		}
	}
	return out, nil
}

// runMerge walks the branches of a merge plan in step, in the order of
// their keys' rest (sort value, id), and returns the documents that are
// live and match. A document found by several branches (an Or whose
// members it matches both) is returned once.
//
// With a budget above 0 it reads at most that many documents, or fails
// with errTooWide.
func (c *container) runMerge(tx *bbolt.Tx, pk string, p *orderedPlan, m matcher, after []byte, limit int, desc bool, fp uint64, budget int) (docstore.Page, error) {
	bs, err := c.branches(tx, p)
	if err != nil {
		return docstore.Page{}, err
	}
	for _, b := range bs {
		b.start(after, desc)
	}
	var page docstore.Page
	now := c.s.now().Unix()
	docs := tx.Bucket(c.name)
	var last []byte
	for {
		var best []byte
		for _, b := range bs {
			if b.k == nil {
				continue
			}
			if r := b.rest(); best == nil || (bytes.Compare(r, best) < 0) != desc {
				best = r
			}
		}
		if best == nil {
			return page, nil
		}
		best = bytes.Clone(best)
		for _, b := range bs {
			if b.k != nil && bytes.Equal(b.rest(), best) {
				b.step(desc)
			}
		}
		id, err := skipIndexValue(best) // the sort value, then the id
		if err != nil {
			return docstore.Page{}, err
		}
		if budget--; budget == 0 {
			return docstore.Page{}, errTooWide
		}
		mt, ok, err := c.fetch(docs, pk, p.spans[0].ix.name, id, m, now, "")
		if err != nil {
			return docstore.Page{}, err
		}
		if !ok {
			continue
		}
		if len(page.Items) == limit {
			page.Continuation = encodeToken(cursorToken{Query: fp, After: last})
			return page, nil
		}
		it, err := mt.item(c.s)
		if err != nil {
			return docstore.Page{}, err
		}
		page.Items = append(page.Items, it)
		last = best
	}
}

// probeThenCollect answers with collect plan p, unless its ranges hold
// more entries than a few pages and a later plan walks the sort field's
// index: then that walk is tried first, for as many documents (the
// probe). The two plans' pages and continuations are alike, so either
// may answer any page.
func (c *container) probeThenCollect(tx *bbolt.Tx, pk string, p *orderedPlan, m matcher, q docstore.Query, after []byte, fp uint64) (docstore.Page, error) {
	budget := probeFactor*(q.PageSize()+1) + probeSlack
	if walk := p.nextOf(planMerge); walk != nil && !c.entriesAtMost(tx, p, budget) {
		page, err := c.runMerge(tx, pk, walk, m, after, q.PageSize(), q.Desc, fp, budget+1)
		if !errors.Is(err, errTooWide) {
			return page, err
		}
	}
	return c.runCollect(tx, pk, p, m, q, after, fp)
}

// nextOf returns the first plan of kind after p, or nil.
func (p *orderedPlan) nextOf(kind planKind) *orderedPlan {
	for n := p.next; n != nil; n = n.next {
		if n.kind == kind {
			return n
		}
	}
	return nil
}

// bounds returns the first key of a span and the key it stops before (nil:
// the end of its prefix).
func (sp *span) bounds() (lo, hi []byte) {
	lo = append(bytes.Clone(sp.prefix), sp.lo...)
	if sp.hi != nil {
		hi = append(bytes.Clone(sp.prefix), sp.hi...)
	}
	return lo, hi
}

// entriesAtMost reports whether the ranges of collect plan p hold at most
// n index entries, counting no further.
func (c *container) entriesAtMost(tx *bbolt.Tx, p *orderedPlan, n int) bool {
	cur := newIndexCursor(tx.Bucket(indexBucket(c.name)))
	for i := range p.spans {
		sp := &p.spans[i]
		lo, hi := sp.bounds()
		for k := cur.Seek(lo); k != nil && bytes.HasPrefix(k, sp.prefix) && (hi == nil || bytes.Compare(k, hi) < 0); k = cur.Next() {
			if n--; n < 0 {
				return false
			}
		}
	}
	return true
}

// runCollect reads the ranges of a collect plan whole (errTooWide past
// maxCollect entries), keeps the live documents that match, sorts them and
// cuts the page after the token's position.
func (c *container) runCollect(tx *bbolt.Tx, pk string, p *orderedPlan, m matcher, q docstore.Query, after []byte, fp uint64) (docstore.Page, error) {
	idx := tx.Bucket(indexBucket(c.name))
	docs := tx.Bucket(c.name)
	now := c.s.now().Unix()
	seen := map[string]bool{}
	var all []sorted
	read := 0
	for i := range p.spans {
		sp := &p.spans[i]
		lo, hi := sp.bounds()
		cur := newIndexCursor(idx)
		for k := cur.Seek(lo); k != nil && bytes.HasPrefix(k, sp.prefix) && (hi == nil || bytes.Compare(k, hi) < 0); k = cur.Next() {
			if read++; read > maxCollect {
				return docstore.Page{}, errTooWide
			}
			id := k[len(sp.prefix):]
			for range len(sp.ix.fields) - sp.eqs {
				var err error
				if id, err = skipIndexValue(id); err != nil {
					return docstore.Page{}, err
				}
			}
			if seen[string(id)] {
				continue
			}
			seen[string(id)] = true
			mt, ok, err := c.fetch(docs, pk, sp.ix.name, id, m, now, q.OrderBy)
			if err != nil {
				return docstore.Page{}, err
			}
			if ok {
				all = append(all, sorted{match: mt, pos: position(mt, id)})
			}
		}
	}
	return c.s.pageOf(all, q, after, fp)
}

// sorted is a match with its position in the order of an ordered query.
type sorted struct {
	match
	pos []byte // encoded sort value, then id
}

// position returns a match's position in its query's order: the encoding
// of its sort value followed by its id, as the sort field's index keys end.
func position(mt match, id []byte) []byte {
	return append(encodeValue(nil, mt.sort, mt.hasSort), id...)
}

// pageOf sorts matches and returns the page that follows after.
func (s *Store) pageOf(all []sorted, q docstore.Query, after []byte, fp uint64) (docstore.Page, error) {
	slices.SortFunc(all, func(a, b sorted) int {
		if q.Desc {
			return bytes.Compare(b.pos, a.pos)
		}
		return bytes.Compare(a.pos, b.pos)
	})
	start := 0
	if after != nil {
		start, _ = slices.BinarySearchFunc(all, after, func(s sorted, t []byte) int {
			c := bytes.Compare(s.pos, t)
			if q.Desc {
				c = -c
			}
			if c == 0 {
				return -1 // the token's own document comes before
			}
			return c
		})
	}
	limit := q.PageSize()
	end := min(start+limit, len(all))
	var page docstore.Page
	for _, m := range all[start:end] {
		it, err := m.item(s)
		if err != nil {
			return docstore.Page{}, err
		}
		page.Items = append(page.Items, it)
	}
	if end < len(all) {
		page.Continuation = encodeToken(cursorToken{Query: fp, After: bytes.Clone(all[end-1].pos)})
	}
	return page, nil
}

// fetch reads the document of partition pk with the given id, found
// through the named index, and reports whether it is live and matches. An
// index entry without its document is logged (orphan) and passed over.
func (c *container) fetch(docs *bbolt.Bucket, pk, index string, id []byte, m matcher, now int64, orderBy string) (match, bool, error) {
	key := itemKey(pk, string(id))
	v := docs.Get(key)
	if v == nil {
		c.orphan(index, id)
		return match{}, false, nil
	}
	return c.evaluate(key, v, m, now, orderBy)
}

// orphan logs an index entry without its document: a bug or a damaged
// file, which `kanri check --repair` mends. The query goes on without it.
func (c *container) orphan(index string, id []byte) {
	c.s.log.Warn("index entry without its document; run kanri check --repair", "container", string(c.name), "index", index, "id", string(id))
}
