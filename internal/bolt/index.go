package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"slices"
	"strings"

	bbolt "go.etcd.io/bbolt"

	"github.com/kanri/kanri/internal/docstore"
)

// Secondary indexes. Each container's indexes (docstore.Spec.Indexes) live
// in the bucket "_idx:<container>", one key per indexed document:
//
//	partition \x00 index tag \x00 value 1 … value n, id
//
// where the tag is one byte, the index's place among the container's
// indexes (from 1; a change of the declarations rebuilds the indexes), and
// the values are in an order-preserving encoding (encodeValue), so that a
// cursor walks a partition's documents in the order of the index, ties
// broken by id. Index keys change in the same transaction as their
// documents (put, delete, purge), so a query never sees a stale entry.

// indexBucket returns the name of the index bucket of a container.
func indexBucket(container []byte) []byte { return append([]byte("_idx:"), container...) }

// metaBucket holds, per container, the signature of the indexes its index
// bucket was built for; a different signature on open rebuilds them.
var metaBucket = []byte("_meta")

// Value tags, in the order ORDER BY sorts values of different types.
const (
	tagUndefined = 0x01
	tagNull      = 0x02
	tagFalse     = 0x03
	tagTrue      = 0x04
	tagNumber    = 0x05
	tagString    = 0x06
	tagOther     = 0x07
	// tagHashed stands before the hash of a hashed field's value
	// (docstore.Index.Hashed), which no range or order compares.
	tagHashed = 0x08
)

// hashedValue appends, for a field an index hashes, the tag and the
// 8-byte hash of enc, the value's encoding, to b. Two values may share a
// hash: a query reads both documents and its filter keeps the right one.
func hashedValue(b, enc []byte) []byte {
	h := fnv.New64a()
	h.Write(enc)
	return h.Sum(append(b, tagHashed))
}

// encodeValue appends the order-preserving encoding of v (as decoded from
// JSON; ok false for a missing field) to b.
func encodeValue(b []byte, v any, ok bool) []byte {
	if !ok {
		return append(b, tagUndefined)
	}
	switch v := v.(type) {
	case nil:
		return append(b, tagNull)
	case bool:
		if v {
			return append(b, tagTrue)
		}
		return append(b, tagFalse)
	case float64:
		bits := math.Float64bits(v)
		if bits&(1<<63) == 0 {
			bits |= 1 << 63
		} else {
			bits = ^bits
		}
		return binary.BigEndian.AppendUint64(append(b, tagNumber), bits)
	case string:
		b = append(b, tagString)
		for i := 0; i < len(v); i++ {
			if v[i] == 0 {
				b = append(b, 0, 0xff)
			} else {
				b = append(b, v[i])
			}
		}
		return append(b, 0, 0x01)
	}
	return append(b, tagOther)
}

// skipValue returns b after its first encoded value.
func skipIndexValue(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, errCorruptIndex
	}
	switch b[0] {
	case tagUndefined, tagNull, tagFalse, tagTrue, tagOther:
		return b[1:], nil
	case tagNumber, tagHashed:
		if len(b) < 9 {
			return nil, errCorruptIndex
		}
		return b[9:], nil
	case tagString:
		for i := 1; i+1 < len(b); i++ {
			if b[i] == 0 {
				if b[i+1] == 0x01 {
					return b[i+2:], nil
				}
				i++ // an escaped 0x00
			}
		}
	}
	return nil, errCorruptIndex
}

var errCorruptIndex = errors.New("bolt: corrupt index key")

// index is one secondary index of a container.
type index struct {
	name string
	// tag stands for the index in its keys: its place among the
	// container's indexes, from 1 (never 0, the keys' separator).
	tag    byte
	typ    string
	fields []string
	// hashed says, for each field, that its keys hold its value's hash
	// (hashedValue): only an equality fixes it.
	hashed []bool
	need   map[string]bool // the top-level members the fields read
	// multi says a field indexes an array's elements ("tags[]"): the
	// document has one entry per distinct element, and none for an empty
	// or missing array, so only a query that fixes that field walks it.
	multi bool
}

func newIndexes(sp docstore.Spec) []index {
	var out []index
	for i, ix := range sp.Indexes {
		need := map[string]bool{"type": true}
		multi := false
		for _, f := range ix.Fields {
			need[topField(strings.TrimSuffix(f, "[]"))] = true
			multi = multi || strings.HasSuffix(f, "[]")
		}
		hashed := make([]bool, len(ix.Fields))
		for j, f := range ix.Fields {
			hashed[j] = slices.Contains(ix.Hashed, f)
		}
		out = append(out, index{name: ix.Name, tag: byte(i + 1), typ: ix.Type, fields: ix.Fields, hashed: hashed, need: need, multi: multi})
	}
	return out
}

// indexFormat is the version of the index keys' layout and of
// encodeValue. Change it with them (TestIndexEncodingIsPinned fails until
// then): a store whose indexes were built in another format rebuilds them
// on open.
//
// Format 2 added indexes of an array's elements; format 3 names the index
// in its keys by a one-byte tag instead of its name (14 to 24 bytes, in
// every entry); format 4 stores the entries in blocks (blocks.go).
const indexFormat = 4

// maxIndexes is how many indexes a container may declare: their tags are
// one byte, and never 0.
const maxIndexes = 255

// signature identifies a container's index declarations and the format
// they were built in.
func signature(ixs []index) []byte {
	var parts []string
	for _, ix := range ixs {
		fields := slices.Clone(ix.fields)
		for i, h := range ix.hashed {
			if h {
				fields[i] += "#"
			}
		}
		parts = append(parts, ix.name+"="+ix.typ+":"+strings.Join(fields, ","))
	}
	return []byte(fmt.Sprintf("v%d|%s", indexFormat, strings.Join(parts, "|")))
}

// appendValue appends the encoding enc of the value of field i to a key
// of ix: as it is, or hashed.
func (ix index) appendValue(k []byte, i int, enc []byte) []byte {
	if ix.hashed[i] {
		return hashedValue(k, enc)
	}
	return append(k, enc...)
}

// prefix returns the start of the keys of index ix in partition pk:
//
//	partition \x00 tag \x00
func (ix index) prefix(pk string) []byte {
	k := make([]byte, 0, len(pk)+3)
	k = append(k, pk...)
	return append(k, 0, ix.tag, 0)
}

// indexKeys returns the index keys of the document with key docKey and
// the given body, one per index of its type (one per distinct element for
// an index of an array's elements).
func (c *container) indexKeys(docKey, body []byte) ([][]byte, error) {
	if len(c.indexes) == 0 || body == nil {
		return nil, nil
	}
	doc, err := newLazyDoc(body, c.indexed)
	if err != nil {
		return nil, err
	}
	return c.keysOf(docKey, doc), nil
}

// keysOf returns the index keys of doc, stored at docKey.
func (c *container) keysOf(docKey []byte, doc *lazyDoc) [][]byte {
	pk, id, _ := bytes.Cut(docKey, []byte{0})
	typ, _ := doc.get("type")
	var out [][]byte
	for _, ix := range c.indexes {
		if typ != ix.typ {
			continue
		}
		keys := [][]byte{ix.prefix(string(pk))}
		for j, f := range ix.fields {
			elems, multi := strings.CutSuffix(f, "[]")
			v, ok := doc.get(elems)
			if !multi {
				for i := range keys {
					keys[i] = ix.appendValue(keys[i], j, encodeValue(nil, v, ok))
				}
				continue
			}
			arr, _ := v.([]any)
			var next [][]byte
			seen := map[string]bool{}
			for _, e := range arr {
				enc := encodeValue(nil, e, true)
				if seen[string(enc)] {
					continue
				}
				seen[string(enc)] = true
				for _, k := range keys {
					next = append(next, append(bytes.Clone(k), enc...))
				}
			}
			keys = next
		}
		for _, k := range keys {
			out = append(out, append(k, id...))
		}
	}
	return out
}

// reindex replaces the index keys of the document at docKey: those of its
// old body (nil: none) by those of its new version (nil: deleted).
func (c *container) reindex(tx *bbolt.Tx, docKey, oldBody []byte, newDoc *lazyDoc) error {
	if len(c.indexes) == 0 {
		return nil
	}
	b := tx.Bucket(indexBucket(c.name))
	oldKeys, err := c.indexKeys(docKey, oldBody)
	if err != nil {
		return err
	}
	var newKeys [][]byte
	if newDoc != nil {
		newKeys = c.keysOf(docKey, newDoc)
	}
	for _, k := range oldKeys {
		if !slices.ContainsFunc(newKeys, func(n []byte) bool { return bytes.Equal(n, k) }) {
			if err := c.s.writes.delete(b, byIndex, k); err != nil {
				return err
			}
		}
	}
	for _, k := range newKeys {
		if !slices.ContainsFunc(oldKeys, func(o []byte) bool { return bytes.Equal(o, k) }) {
			if err := c.s.writes.put(b, byIndex, k); err != nil {
				return err
			}
		}
	}
	return nil
}

// plan is how a query walks an index: the index, the encoded values of its
// leading fields that the query's equality filters fix, and how many those
// are.
type plan struct {
	ix     index
	prefix []byte
	fixed  int
}

// planFor returns the index that serves q in partition pk, or nil. With an
// OrderBy, it is one of q.Type whose last field is OrderBy and whose other
// fields q's equality filters fix. Without one, it is any index of q.Type,
// the one with the most leading fields fixed: even a walk of a whole index
// reads only documents of the type, not the partition's others. Among
// candidates, the one with the most fixed fields wins.
func (c *container) planFor(pk string, q docstore.Query) *plan {
	if q.OrderBy == "" && idPrefix(q.Where) != "" {
		return nil // the ids narrow the scan more than an index would
	}
	eq := map[string]any{}
	for _, f := range q.Where {
		if f.Op == docstore.OpEq {
			switch f.Value.(type) {
			case nil, bool, string, float64, int, int64:
				eq[f.Field] = f.Value
			}
		}
	}
	var best *plan
	for _, ix := range c.indexes {
		n := len(ix.fields)
		if ix.typ != q.Type || ix.multi || (q.OrderBy != "" && ix.fields[n-1] != q.OrderBy) {
			continue
		}
		k := ix.prefix(pk)
		fixed := 0
		for i, f := range ix.fields[:n-1] {
			v, ok := eq[f]
			if !ok {
				break
			}
			k = ix.appendValue(k, i, encodeValue(nil, jsonValue(v), true))
			fixed++
		}
		if q.OrderBy != "" && fixed < n-1 {
			continue
		}
		if best == nil || fixed > best.fixed {
			best = &plan{ix: ix, prefix: k, fixed: fixed}
		}
	}
	return best
}

// jsonValue returns v as encoding/json decodes it (numbers as float64).
func jsonValue(v any) any {
	switch v := v.(type) {
	case int:
		return float64(v)
	case int64:
		return float64(v)
	}
	return v
}

// docID returns the id at the end of an index key of p: after the prefix
// (the fixed leading fields) come the values of the other fields, then the
// id.
func (p *plan) docID(k []byte) ([]byte, error) {
	rest := k[len(p.prefix):]
	for range len(p.ix.fields) - p.fixed {
		var err error
		if rest, err = skipIndexValue(rest); err != nil {
			return nil, err
		}
	}
	return rest, nil
}

// scanIndex walks p's range of the index in order, from after the
// token's key, and returns the documents that are live and match, stopping
// as soon as it knows whether a page follows. (Only unordered queries come
// here: ordered ones run their plans, see runOrdered.)
func (c *container) scanIndex(tx *bbolt.Tx, pk string, p *plan, m matcher, after *cursorToken, limit int, fp uint64) (docstore.Page, error) {
	var page docstore.Page
	now := c.s.now().Unix()
	docs := tx.Bucket(c.name)
	cur := newIndexCursor(tx.Bucket(indexBucket(c.name)))
	k := cur.Seek(p.prefix)
	if after != nil {
		if k = cur.Seek(after.Key); k != nil && bytes.Equal(k, after.Key) {
			k = cur.Next()
		}
	}
	var last []byte
	for ; k != nil && bytes.HasPrefix(k, p.prefix); k = cur.Next() {
		id, err := p.docID(k)
		if err != nil {
			return docstore.Page{}, err
		}
		mt, ok, err := c.fetch(docs, pk, p.ix.name, id, m, now, "")
		if err != nil {
			return docstore.Page{}, err
		}
		if !ok {
			continue
		}
		if len(page.Items) == limit {
			page.Continuation = encodeToken(cursorToken{Query: fp, Key: last, Index: p.ix.name})
			break
		}
		it, err := mt.item(c.s)
		if err != nil {
			return docstore.Page{}, err
		}
		page.Items = append(page.Items, it)
		last = bytes.Clone(k)
	}
	return page, nil
}

// upperBound returns the smallest key greater than every key that starts
// with prefix.
func upperBound(prefix []byte) []byte {
	b := bytes.Clone(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return b[:i+1]
		}
	}
	return nil
}

// buildIndexes makes the index bucket of every container match its
// declarations, rebuilding those declared differently from when they were
// built (a data directory of an earlier version has none): it reads each
// document once, in transactions of batch documents, and logs its progress.
func (s *Store) buildIndexes(log *slog.Logger) error {
	for name, c := range s.containers {
		sig := signature(c.indexes)
		var current []byte
		if err := s.db.View(func(tx *bbolt.Tx) error {
			current = bytes.Clone(tx.Bucket(metaBucket).Get([]byte("indexes:" + name)))
			return nil
		}); err != nil {
			return err
		}
		if bytes.Equal(current, sig) {
			continue
		}
		if err := s.rebuild(c, sig, log); err != nil {
			return fmt.Errorf("bolt: index %s: %w", name, err)
		}
	}
	return nil
}

func (s *Store) rebuild(c *container, sig []byte, log *slog.Logger) error {
	const batch = 5000
	if err := s.db.Update(func(tx *bbolt.Tx) error {
		if tx.Bucket(indexBucket(c.name)) != nil {
			if err := tx.DeleteBucket(indexBucket(c.name)); err != nil {
				return err
			}
		}
		_, err := tx.CreateBucket(indexBucket(c.name))
		return err
	}); err != nil {
		return err
	}
	var from []byte
	total := 0
	for {
		n := 0
		err := s.update(func(tx *bbolt.Tx) error {
			cur := tx.Bucket(c.name).Cursor()
			k, v := cur.First()
			if from != nil {
				if k, v = cur.Seek(from); k != nil && bytes.Equal(k, from) {
					k, v = cur.Next()
				}
			}
			for ; k != nil && n < batch; k, v = cur.Next() {
				_, body, err := s.readRecord(v)
				if err != nil {
					return err
				}
				doc, err := newLazyDoc(body, c.indexed)
				if err != nil {
					return err
				}
				if err := c.reindex(tx, k, nil, doc); err != nil {
					return err
				}
				from = bytes.Clone(k)
				n++
			}
			if k == nil {
				return tx.Bucket(metaBucket).Put([]byte("indexes:"+string(c.name)), sig)
			}
			return nil
		})
		if err != nil {
			return err
		}
		total += n
		if n < batch {
			if total > 0 {
				log.Info("indexed the embedded store", "container", string(c.name), "documents", total)
			}
			return nil
		}
		log.Info("indexing the embedded store", "container", string(c.name), "documents", total)
	}
}
