package bolt

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"sync"

	bbolt "go.etcd.io/bbolt"

	"github.com/kanri/kanri/internal/docstore"
)

// cursorToken is the content of a continuation token: the position of the
// last item returned and a fingerprint of the query it belongs to.
type cursorToken struct {
	Query uint64 `json:"q"`
	Key   []byte `json:"k"`           // the last item's store key, or index key
	Index string `json:"i,omitempty"` // the index walked, if any
	// After is, for an ordered query, the last item's position in the
	// query's order: its encoded sort value and id. Every plan of the
	// query resumes from it.
	After []byte `json:"a,omitempty"`
}

// match is a document that matched a query, with its sort value. key and
// rec alias the transaction's memory; item copies them out, decompressing
// the body only of the documents a page returns.
type match struct {
	key     []byte
	rec     record
	sort    any
	hasSort bool
}

// item returns the match as an Item that owns its memory.
func (m match) item(s *Store) (docstore.Item, error) {
	pk, id, _ := bytes.Cut(m.key, []byte{0})
	body, err := s.keep(m.rec)
	return docstore.Item{ID: string(id), PartitionKey: string(pk), ETag: m.rec.ETag(), Body: body}, err
}

// scratch holds the bodies evaluate decompresses, each only until it has
// matched it.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

func (c *container) Query(ctx context.Context, pk string, q docstore.Query) (docstore.Page, error) {
	if err := docstore.CheckKey(pk, "x"); err != nil {
		return docstore.Page{}, err
	}
	return c.query(q, pk, itemKey(pk, idPrefix(q.Where)))
}

// idPrefix returns what a query's filters say every matching id starts
// with: keys are "partition\x00id", so the scan can skip straight to those
// ids (as Cosmos DB serves STARTSWITH(c.id) from its index). The filters are
// still evaluated; this only narrows the range read.
func idPrefix(where []docstore.Filter) string {
	for _, f := range where {
		if v, ok := f.Value.(string); ok && f.Field == "id" && (f.Op == docstore.OpPrefix || f.Op == docstore.OpEq) {
			return v
		}
	}
	return ""
}

func (c *container) QueryAcrossPartitions(ctx context.Context, q docstore.Query) (docstore.Page, error) {
	if q.OrderBy != "" {
		return docstore.Page{}, docstore.ErrInvalid(errors.New("bolt: cross-partition queries cannot be ordered"))
	}
	return c.query(q, "", nil)
}

// query runs q in partition pk ("" across partitions) over the keys that
// start with prefix: an ordered query by its plans (planOrdered), an
// unordered one by walking an index that serves it, else by scanning.
func (c *container) query(q docstore.Query, pk string, prefix []byte) (docstore.Page, error) {
	if err := q.Validate(); err != nil {
		return docstore.Page{}, err
	}
	m, err := compile(q)
	if err != nil {
		return docstore.Page{}, err
	}
	fp := docstore.Fingerprint(q, string(prefix))
	var after *cursorToken
	if q.Continuation != "" {
		if after, err = decodeToken(q.Continuation, fp); err != nil {
			return docstore.Page{}, err
		}
		if (q.OrderBy != "") != (after.After != nil) {
			return docstore.Page{}, docstore.ErrContinuation()
		}
	}
	var page docstore.Page
	if ids := idsOf(q.Where); ids != nil && pk != "" {
		err = c.s.db.View(func(tx *bbolt.Tx) error {
			page, err = c.lookupIDs(tx, pk, ids, m, q, after, fp)
			return err
		})
		return page, err
	}
	if q.OrderBy != "" {
		p := c.planOrdered(pk, q)
		var from []byte
		if after != nil {
			from = after.After
		}
		err = c.s.db.View(func(tx *bbolt.Tx) error {
			page, err = c.runOrdered(tx, pk, p, m, q, prefix, from, fp)
			return err
		})
		return page, err
	}
	var p *plan
	if pk != "" {
		p = c.planFor(pk, q)
	}
	if after != nil && ((p == nil) != (after.Index == "") || (p != nil && (p.ix.name != after.Index || !bytes.HasPrefix(after.Key, p.prefix)))) {
		return docstore.Page{}, docstore.ErrContinuation() // made by another plan (an upgrade)
	}
	limit := q.PageSize()
	err = c.s.db.View(func(tx *bbolt.Tx) error {
		if p != nil {
			page, err = c.scanIndex(tx, pk, p, m, after, limit, fp)
		} else {
			page, err = c.scanInKeyOrder(tx, prefix, m, after, limit, fp)
		}
		return err
	})
	return page, err
}

// idsOf returns the ids a query's top-level Eq or In filter on "id" names,
// sorted and without repeats, or nil.
func idsOf(where []docstore.Filter) []string {
	for _, f := range where {
		if f.Field != "id" || (f.Op != docstore.OpEq && f.Op != docstore.OpIn) {
			continue
		}
		vals := f.Values
		if f.Op == docstore.OpEq {
			vals = []any{f.Value}
		}
		ids := make([]string, 0, len(vals))
		for _, v := range vals {
			if s, ok := v.(string); ok {
				ids = append(ids, s)
			}
		}
		slices.Sort(ids)
		return slices.Compact(ids)
	}
	return nil
}

// lookupIDs answers a query that names its ids by reading those documents:
// in key order, or in the query's order when it has one.
func (c *container) lookupIDs(tx *bbolt.Tx, pk string, ids []string, m matcher, q docstore.Query, after *cursorToken, fp uint64) (docstore.Page, error) {
	now := c.s.now().Unix()
	docs := tx.Bucket(c.name)
	var all []sorted
	for _, id := range ids {
		if docstore.CheckKey(pk, id) != nil {
			continue
		}
		key := itemKey(pk, id)
		v := docs.Get(key)
		if v == nil {
			continue
		}
		mt, ok, err := c.evaluate(key, v, m, now, q.OrderBy)
		if err != nil {
			return docstore.Page{}, err
		}
		if !ok {
			continue
		}
		if q.OrderBy != "" {
			all = append(all, sorted{match: mt, pos: position(mt, []byte(id))})
		} else if after == nil || bytes.Compare(key, after.Key) > 0 {
			all = append(all, sorted{match: mt, pos: key})
		}
	}
	if q.OrderBy != "" {
		var from []byte
		if after != nil {
			from = after.After
		}
		return c.s.pageOf(all, q, from, fp)
	}
	var page docstore.Page
	limit := q.PageSize()
	for i, s := range all {
		if i == limit {
			page.Continuation = encodeToken(cursorToken{Query: fp, Key: bytes.Clone(all[i-1].key)})
			break
		}
		it, err := s.item(c.s)
		if err != nil {
			return docstore.Page{}, err
		}
		page.Items = append(page.Items, it)
	}
	return page, nil
}

// scanInKeyOrder streams matches in key order, stopping as soon as it knows
// whether a page follows this one.
func (c *container) scanInKeyOrder(tx *bbolt.Tx, prefix []byte, m matcher, after *cursorToken, limit int, fp uint64) (docstore.Page, error) {
	var page docstore.Page
	now := c.s.now().Unix()
	cur := tx.Bucket(c.name).Cursor()
	k, v := cur.Seek(prefix)
	if after != nil {
		k, v = cur.Seek(after.Key)
		if k != nil && bytes.Equal(k, after.Key) {
			k, v = cur.Next()
		}
	}
	var last []byte
	for ; k != nil && bytes.HasPrefix(k, prefix); k, v = cur.Next() {
		mt, ok, err := c.evaluate(k, v, m, now, "")
		if err != nil {
			return docstore.Page{}, err
		}
		if !ok {
			continue
		}
		if len(page.Items) == limit {
			page.Continuation = encodeToken(cursorToken{Query: fp, Key: last})
			break
		}
		it, err := mt.item(c.s)
		if err != nil {
			return docstore.Page{}, err
		}
		page.Items = append(page.Items, it)
		last = mt.key
	}
	return page, nil
}

// scanSorted collects every match of the partition's keys that start with
// prefix, sorts them and cuts the page after the position after.
func (c *container) scanSorted(tx *bbolt.Tx, prefix []byte, m matcher, q docstore.Query, after []byte, fp uint64) (docstore.Page, error) {
	now := c.s.now().Unix()
	var all []sorted
	cur := tx.Bucket(c.name).Cursor()
	for k, v := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = cur.Next() {
		mt, ok, err := c.evaluate(k, v, m, now, q.OrderBy)
		if err != nil {
			return docstore.Page{}, err
		}
		if ok {
			_, id, _ := bytes.Cut(k, []byte{0})
			all = append(all, sorted{match: mt, pos: position(mt, id)})
		}
	}
	return c.s.pageOf(all, q, after, fp)
}

// evaluate decodes the record at k and reports whether it is live and
// matches.
func (c *container) evaluate(k, v []byte, m matcher, now int64, orderBy string) (match, bool, error) {
	c.s.evaluated.Add(1)
	r, err := decodeRecord(v)
	if err != nil {
		return match{}, false, err
	}
	if !r.live(now) {
		return match{}, false, nil
	}
	body := r.data
	if r.dict != 0 {
		buf := scratch.Get().(*[]byte)
		defer scratch.Put(buf)
		if body, err = c.s.codec.unpackInto(r.dict, r.data, (*buf)[:0]); err != nil {
			return match{}, false, err
		}
		*buf = body
	}
	if !m.mayMatch(body) {
		return match{}, false, nil
	}
	doc, err := newLazyDoc(body, m.fields)
	if err != nil {
		return match{}, false, err
	}
	if !m.match(doc) {
		return match{}, false, nil
	}
	mt := match{key: k, rec: r}
	if orderBy != "" {
		mt.sort, mt.hasSort = doc.get(orderBy)
	}
	return mt, true, nil
}

func encodeToken(t cursorToken) string {
	b, _ := json.Marshal(t)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeToken(s string, fp uint64) (*cursorToken, error) {
	bad := docstore.ErrContinuation()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, bad
	}
	var t cursorToken
	if err := json.Unmarshal(b, &t); err != nil || t.Query != fp || (len(t.Key) == 0) == (len(t.After) == 0) {
		return nil, bad
	}
	return &t, nil
}
