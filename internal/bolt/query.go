package bolt

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"sort"

	bbolt "go.etcd.io/bbolt"

	"github.com/kanri/kanri/internal/docstore"
)

// cursorToken is the content of a continuation token: the position of the
// last item returned and a fingerprint of the query it belongs to.
type cursorToken struct {
	Query uint64 `json:"q"`
	Key   []byte `json:"k"`           // the last item's store key, or index key
	Sort  any    `json:"s,omitempty"` // the last item's sort value, when sorted in memory
	Index string `json:"i,omitempty"` // the index walked, if any
}

// match is a document that matched a query, with its sort value. key and
// rec alias the transaction's memory; item copies them out.
type match struct {
	key  []byte
	rec  record
	sort any
}

// item returns the match as an Item that owns its memory.
func (m match) item() docstore.Item {
	pk, id, _ := bytes.Cut(m.key, []byte{0})
	return docstore.Item{ID: string(id), PartitionKey: string(pk), ETag: m.rec.etag, Body: bytes.Clone(m.rec.body)}
}

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
// start with prefix: by walking an index that serves it, else by scanning.
func (c *container) query(q docstore.Query, pk string, prefix []byte) (docstore.Page, error) {
	if err := q.Validate(); err != nil {
		return docstore.Page{}, err
	}
	m, err := compile(q)
	if err != nil {
		return docstore.Page{}, err
	}
	fp := docstore.Fingerprint(q, string(prefix))
	var p *plan
	if pk != "" {
		p = c.planFor(pk, q)
	}
	var after *cursorToken
	if q.Continuation != "" {
		if after, err = decodeToken(q.Continuation, fp); err != nil {
			return docstore.Page{}, err
		}
		if (p == nil) != (after.Index == "") || (p != nil && (p.ix.name != after.Index || !bytes.HasPrefix(after.Key, p.prefix))) {
			return docstore.Page{}, docstore.ErrContinuation() // made by another plan (an upgrade)
		}
	}
	limit := q.PageSize()
	var page docstore.Page
	err = c.s.db.View(func(tx *bbolt.Tx) error {
		if p != nil {
			page, err = c.scanIndex(tx, pk, p, m, after, limit, q.Desc && q.OrderBy != "", fp)
		} else if q.OrderBy == "" {
			page, err = c.scanInKeyOrder(tx, prefix, m, after, limit, fp)
		} else {
			page, err = c.scanSorted(tx, prefix, m, q, after, limit, fp)
		}
		return err
	})
	return page, err
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
		page.Items = append(page.Items, mt.item())
		last = mt.key
	}
	return page, nil
}

// scanSorted collects every match, sorts them and cuts the page after the
// token's position.
func (c *container) scanSorted(tx *bbolt.Tx, prefix []byte, m matcher, q docstore.Query, after *cursorToken, limit int, fp uint64) (docstore.Page, error) {
	now := c.s.now().Unix()
	var all []match
	cur := tx.Bucket(c.name).Cursor()
	for k, v := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = cur.Next() {
		mt, ok, err := c.evaluate(k, v, m, now, q.OrderBy)
		if err != nil {
			return docstore.Page{}, err
		}
		if ok {
			all = append(all, mt)
		}
	}
	less := func(as any, ak []byte, bs any, bk []byte) bool {
		if c := compareOrder(as, bs); c != 0 {
			return (c < 0) != q.Desc
		}
		return bytes.Compare(ak, bk) < 0
	}
	sort.Slice(all, func(i, j int) bool { return less(all[i].sort, all[i].key, all[j].sort, all[j].key) })
	start := 0
	if after != nil {
		start = sort.Search(len(all), func(i int) bool { return less(after.Sort, after.Key, all[i].sort, all[i].key) })
	}
	end := min(start+limit, len(all))
	var page docstore.Page
	for _, mt := range all[start:end] {
		page.Items = append(page.Items, mt.item())
	}
	if end < len(all) {
		lastM := all[end-1]
		page.Continuation = encodeToken(cursorToken{Query: fp, Key: bytes.Clone(lastM.key), Sort: lastM.sort})
	}
	return page, nil
}

// evaluate decodes the record at k and reports whether it is live and
// matches.
func (c *container) evaluate(k, v []byte, m matcher, now int64, orderBy string) (match, bool, error) {
	r, err := decodeRecord(v)
	if err != nil {
		return match{}, false, err
	}
	if !r.live(now) || !m.mayMatch(r.body) {
		return match{}, false, nil
	}
	doc, err := newLazyDoc(r.body, m.fields)
	if err != nil {
		return match{}, false, err
	}
	if !m.match(doc) {
		return match{}, false, nil
	}
	mt := match{key: k, rec: r}
	if orderBy != "" {
		mt.sort, _ = doc.get(orderBy)
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
	if err := json.Unmarshal(b, &t); err != nil || t.Query != fp || len(t.Key) == 0 {
		return nil, bad
	}
	return &t, nil
}
