package bolt

import (
	"context"
	"errors"
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

type container struct {
	s          *Store
	spec       docstore.Spec
	name       []byte
	defaultTTL int64 // seconds; 0 = documents without a ttl live forever
	indexes    []index
	indexed    map[string]bool // the top-level members the indexes read
}

func (c *container) Read(ctx context.Context, pk, id string) (docstore.Item, error) {
	if err := docstore.CheckKey(pk, id); err != nil {
		return docstore.Item{}, err
	}
	var it docstore.Item
	err := c.s.db.View(func(tx *bbolt.Tx) error {
		r, err := c.get(tx, itemKey(pk, id))
		if err != nil {
			return err
		}
		body, err := c.s.keep(r)
		it = docstore.Item{ID: id, PartitionKey: pk, ETag: r.ETag(), Body: body}
		return err
	})
	return it, err
}

func (c *container) Create(ctx context.Context, pk string, body []byte) (string, error) {
	return c.update(func(tx *bbolt.Tx) (string, error) { return c.create(tx, pk, body) })
}

func (c *container) Replace(ctx context.Context, pk, id string, body []byte, ifMatch string) (string, error) {
	return c.update(func(tx *bbolt.Tx) (string, error) { return c.replace(tx, pk, id, body, ifMatch) })
}

func (c *container) Upsert(ctx context.Context, pk string, body []byte, ifMatch string) (string, error) {
	return c.update(func(tx *bbolt.Tx) (string, error) { return c.upsert(tx, pk, body, ifMatch) })
}

func (c *container) Delete(ctx context.Context, pk, id, ifMatch string) error {
	_, err := c.update(func(tx *bbolt.Tx) (string, error) { return "", c.delete(tx, pk, id, ifMatch) })
	return err
}

func (c *container) Batch(ctx context.Context, pk string, ops []docstore.Op) ([]docstore.Result, error) {
	if len(ops) > docstore.MaxBatchOps {
		return nil, docstore.ErrInvalid(fmt.Errorf("a batch of %d operations: at most %d", len(ops), docstore.MaxBatchOps))
	}
	results := make([]docstore.Result, len(ops))
	err := c.s.update(func(tx *bbolt.Tx) error {
		c.fill(tx)
		for i, op := range ops {
			var err error
			switch op.Kind {
			case docstore.OpCreate:
				results[i].ETag, err = c.create(tx, pk, op.Body)
			case docstore.OpReplace:
				results[i].ETag, err = c.replace(tx, pk, op.ID, op.Body, op.IfMatch)
			case docstore.OpUpsert:
				results[i].ETag, err = c.upsert(tx, pk, op.Body, op.IfMatch)
			case docstore.OpDelete:
				err = c.delete(tx, pk, op.ID, op.IfMatch)
			case docstore.OpRead:
				var r record
				if err = docstore.CheckKey(pk, op.ID); err == nil {
					if r, err = c.get(tx, itemKey(pk, op.ID)); err == nil {
						results[i].ETag = r.ETag()
						results[i].Body, err = c.s.keep(r)
					}
				}
			default:
				err = docstore.ErrInvalid(fmt.Errorf("bolt: unknown batch operation %d", op.Kind))
			}
			if err != nil {
				return docstore.BatchError(i, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// update runs fn in a read-write transaction.
func (c *container) update(fn func(tx *bbolt.Tx) (string, error)) (string, error) {
	var etag string
	err := c.s.update(func(tx *bbolt.Tx) error {
		c.fill(tx)
		var err error
		etag, err = fn(tx)
		return err
	})
	return etag, err
}

// appendFill is how full a write of a container whose keys mostly
// arrive in order (docstore.Spec.Appends) leaves the pages it splits,
// rather than bbolt's half. Measured (BenchmarkStoreSize, 50,000
// messages): the file is 129 MiB rather than 245, its pages 85% full
// rather than 47%; but random keys at this fill leave pages 49% full
// rather than 69%.
const appendFill = 0.9

// fill sets the fill of the buckets a write of the container changes.
// Expiry keys start with their expiry, so they arrive in order whatever
// the container: at bbolt's half fill, 50,000 messages' expiry keys took
// 9.4 MB of pages half empty (BenchmarkStoreSize).
func (c *container) fill(tx *bbolt.Tx) {
	if b := tx.Bucket(expiryBucket); b != nil {
		b.FillPercent = appendFill
	}
	if !c.spec.Appends {
		return
	}
	for _, name := range [][]byte{c.name, indexBucket(c.name)} {
		if b := tx.Bucket(name); b != nil {
			b.FillPercent = appendFill
		}
	}
}

// get returns the live record at key, or ENOTFOUND.
func (c *container) get(tx *bbolt.Tx, key []byte) (record, error) {
	v := tx.Bucket(c.name).Get(key)
	if v == nil {
		return record{}, notFound()
	}
	r, err := decodeRecord(v)
	if err != nil {
		return record{}, err
	}
	if !r.live(c.s.now().Unix()) {
		return record{}, notFound()
	}
	return r, nil
}

// lookup returns the record at key, if any and live.
func (c *container) lookup(tx *bbolt.Tx, key []byte) (record, bool, error) {
	r, err := c.get(tx, key)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return record{}, false, nil
	}
	return r, err == nil, err
}

func (c *container) create(tx *bbolt.Tx, pk string, body []byte) (string, error) {
	h, err := c.spec.Parse(pk, body)
	if err != nil {
		return "", err
	}
	key := itemKey(pk, h.ID)
	if _, ok, err := c.lookup(tx, key); err != nil {
		return "", err
	} else if ok {
		return "", docstore.ErrConflict(fmt.Errorf("bolt: document %q exists", h.ID))
	}
	return c.put(tx, key, h, body)
}

func (c *container) replace(tx *bbolt.Tx, pk, id string, body []byte, ifMatch string) (string, error) {
	h, err := c.spec.Parse(pk, body)
	if err != nil {
		return "", err
	}
	if h.ID != id {
		return "", docstore.ErrInvalid(fmt.Errorf("bolt: document id %q does not match %q", h.ID, id))
	}
	key := itemKey(pk, id)
	old, err := c.get(tx, key)
	if err != nil {
		return "", err
	}
	if ifMatch != "" && ifMatch != old.ETag() {
		return "", stale()
	}
	return c.put(tx, key, h, body)
}

func (c *container) upsert(tx *bbolt.Tx, pk string, body []byte, ifMatch string) (string, error) {
	h, err := c.spec.Parse(pk, body)
	if err != nil {
		return "", err
	}
	key := itemKey(pk, h.ID)
	if ifMatch != "" {
		old, ok, err := c.lookup(tx, key)
		if err != nil {
			return "", err
		}
		if !ok || old.ETag() != ifMatch {
			return "", stale()
		}
	}
	return c.put(tx, key, h, body)
}

func (c *container) delete(tx *bbolt.Tx, pk, id, ifMatch string) error {
	if err := docstore.CheckKey(pk, id); err != nil {
		return err
	}
	key := itemKey(pk, id)
	old, err := c.get(tx, key)
	if err != nil {
		return err
	}
	if ifMatch != "" && ifMatch != old.ETag() {
		return stale()
	}
	if old.expiry != 0 {
		if err := c.s.writes.delete(tx.Bucket(expiryBucket), whole, expiryKey(old.expiry, c.name, key)); err != nil {
			return err
		}
	}
	oldBody, err := c.oldBody(old)
	if err != nil {
		return err
	}
	if err := c.reindex(tx, key, oldBody, nil); err != nil {
		return err
	}
	return tx.Bucket(c.name).Delete(key)
}

// put writes the parsed document d (whose JSON is body) at key with a
// fresh ETag, keeping the expiry index and the secondary indexes in step
// with the old and new versions.
func (c *container) put(tx *bbolt.Tx, key []byte, d docstore.Document, body []byte) (string, error) {
	b := tx.Bucket(c.name)
	idx := tx.Bucket(expiryBucket)
	var oldBody []byte
	if v := b.Get(key); v != nil {
		old, err := decodeRecord(v)
		if err != nil {
			return "", err
		}
		if old.expiry != 0 {
			if err := c.s.writes.delete(idx, whole, expiryKey(old.expiry, c.name, key)); err != nil {
				return "", err
			}
		}
		if oldBody, err = c.oldBody(old); err != nil {
			return "", err
		}
	}
	if err := c.reindex(tx, key, oldBody, lazyDocOf(d.Members, c.indexed)); err != nil {
		return "", err
	}
	seq, err := b.NextSequence()
	if err != nil {
		return "", err
	}
	now := c.s.now().Unix()
	r := record{ts: now, seq: seq}
	if r.dict, r.data, err = c.s.codec.pack(tx, kindOf(c.name, d.Members), body); err != nil {
		return "", err
	}
	ttl := c.defaultTTL
	if d.TTL != nil {
		ttl = int64(*d.TTL)
	}
	if ttl > 0 {
		r.expiry = now + ttl
		if err := c.s.writes.put(idx, whole, expiryKey(r.expiry, c.name, key)); err != nil {
			return "", err
		}
	}
	if err := b.Put(key, r.encode()); err != nil {
		return "", err
	}
	return r.ETag(), nil
}

// oldBody returns the body of r, about to be replaced or deleted, for
// reindex: nil when the container has no indexes.
func (c *container) oldBody(r record) ([]byte, error) {
	if len(c.indexes) == 0 {
		return nil, nil
	}
	return c.s.body(r)
}

func notFound() error { return docstore.ErrNotFound(errors.New("bolt: no such document")) }

func stale() error {
	return docstore.ErrStale(errors.New("bolt: the ETag does not match"))
}
