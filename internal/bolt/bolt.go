// Package bolt implements the document store port on bbolt: one file in the
// data directory, ACID transactions fsynced on commit, an ETag on every
// write, per-item time to live and opaque continuation tokens.
//
// Each container is a bucket whose keys are "partition\x00id", so the
// documents of one tenant are contiguous and a tenant's queries never read
// another tenant's data. A separate bucket indexes expiry times so that the
// background purge touches only expired documents.
package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	bbolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/kanri/kanri/internal/docstore"
)

// FileName is the name of the store's file in the data directory.
const FileName = "kanri.db"

// expiryBucket indexes documents that expire: key = expiry (8 bytes, big
// endian Unix seconds) + container + 0 + partition + 0 + id, stored in
// blocks (blocks.go) of one group.
var expiryBucket = []byte("_expiry")

// expiryFormatKey marks, in the meta bucket, that the expiry keys are in
// blocks: a store written before has one bbolt key for each, which Open
// rewrites (migrateExpiry).
var expiryFormatKey = []byte("expiry:format")

// migrateExpiry rewrites the expiry keys of a store written before they
// were kept in blocks, holding them in memory meanwhile (about 70 bytes
// each), and marks the format.
func migrateExpiry(tx *bbolt.Tx) error {
	meta := tx.Bucket(metaBucket)
	if meta.Get(expiryFormatKey) != nil {
		return nil
	}
	var keys [][]byte
	err := tx.Bucket(expiryBucket).ForEach(func(k, _ []byte) error {
		keys = append(keys, bytes.Clone(k))
		return nil
	})
	if err != nil {
		return err
	}
	if len(keys) > 0 {
		if err := tx.DeleteBucket(expiryBucket); err != nil {
			return err
		}
		exp, err := tx.CreateBucket(expiryBucket)
		if err != nil {
			return err
		}
		if err := appendBlocks(exp, keys); err != nil {
			return err
		}
	}
	return meta.Put(expiryFormatKey, []byte("2"))
}

// Options tunes a Store. The zero value is ready to use.
type Options struct {
	// Now returns the current time; time.Now when nil. Tests set it.
	Now func() time.Time
	// Logger receives purge errors; slog.Default() when nil.
	Logger *slog.Logger
}

// Store is the embedded document store.
type Store struct {
	db         *bbolt.DB
	containers map[string]*container
	codec      *codec // documents' compression (dict.go)
	// writes holds the index blocks the current write transaction
	// changed (blocks.go): bbolt runs one at a time, in update.
	writes *blockWrites
	now    func() time.Time
	log    *slog.Logger
	// evaluated counts the documents queries decoded and matched, for the
	// tests of what a plan costs.
	evaluated atomic.Int64
}

// growBy is how much the store's file grows when its pages run out:
// bbolt's 16 MiB, added at any size, made up half of a store of 50,000
// messages (BenchmarkStoreSize); each growth costs one sync, and the
// initial mapping spares readers a remap.
const growBy = 1 << 20

// Open opens (creating if needed) the store in dir with the given
// containers. Expired documents are invisible at once; RunPurge deletes
// them in the background.
func Open(dir string, specs []docstore.Spec, opts Options) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("bolt: data directory: %w", err)
	}
	path := filepath.Join(dir, FileName)
	// A large initial mapping (address space, not memory) spares readers the
	// pauses of remapping while the file grows under writes.
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: 2 * time.Second, InitialMmapSize: 1 << 30})
	if err != nil {
		if errors.Is(err, bolterrors.ErrTimeout) {
			return nil, fmt.Errorf("bolt: %s is in use by another process", path)
		}
		return nil, fmt.Errorf("bolt: open %s: %w", path, err)
	}
	db.AllocSize = growBy
	s := &Store{db: db, containers: map[string]*container{}, now: opts.Now, log: opts.Logger}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		for _, b := range [][]byte{expiryBucket, metaBucket} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		for _, sp := range specs {
			if len(sp.Indexes) > maxIndexes {
				return fmt.Errorf("bolt: container %s declares %d indexes, at most %d", sp.Name, len(sp.Indexes), maxIndexes)
			}
			c := &container{s: s, spec: sp, name: []byte(sp.Name), defaultTTL: int64(sp.DefaultTTL / time.Second), indexes: newIndexes(sp)}
			c.indexed = map[string]bool{}
			for _, ix := range c.indexes {
				for f := range ix.need {
					c.indexed[f] = true
				}
			}
			s.containers[sp.Name] = c
			for _, b := range [][]byte{c.name, indexBucket(c.name)} {
				if _, err := tx.CreateBucketIfNotExists(b); err != nil {
					return err
				}
			}
		}
		if err := migrateExpiry(tx); err != nil {
			return err
		}
		s.codec, err = loadCodec(tx)
		return err
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("bolt: create containers: %w", err)
	}
	if err := s.buildIndexes(s.log); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Container returns the named container. It panics if the store was not
// opened with that container, which is a programming error.
func (s *Store) Container(name string) docstore.Container {
	c, ok := s.containers[name]
	if !ok {
		panic("bolt: unknown container " + strconv.Quote(name))
	}
	return c
}

// Ping reports whether the store's file can be read.
func (s *Store) Ping(ctx context.Context) error {
	return s.db.View(func(*bbolt.Tx) error { return nil })
}

// update runs fn in a write transaction and, if it succeeds, stores the
// index blocks it changed before the commit.
func (s *Store) update(fn func(tx *bbolt.Tx) error) error {
	return s.db.Update(func(tx *bbolt.Tx) error {
		s.writes = &blockWrites{}
		defer func() { s.writes = nil }()
		if err := fn(tx); err != nil {
			return err
		}
		return s.writes.flush()
	})
}

// Close closes the file. Stop RunPurge first.
func (s *Store) Close() error { return s.db.Close() }

// Purge deletes every document that has expired by now and returns how many
// it deleted. The background loop calls it; tests may too.
func (s *Store) Purge() (int, error) {
	const perTx = 1000
	total := 0
	for {
		n := 0
		err := s.update(func(tx *bbolt.Tx) error {
			exp := tx.Bucket(expiryBucket)
			now := s.now().Unix()
			// The expired keys first: deleting them changes the blocks a
			// cursor reads.
			var expired [][]byte
			cur := newIndexCursor(exp)
			for k := cur.First(); k != nil && len(expired) < perTx; k = cur.Next() {
				if len(k) < 9 {
					return fmt.Errorf("bolt: corrupt expiry key %q", k)
				}
				if int64(binary.BigEndian.Uint64(k[:8])) > now {
					break
				}
				expired = append(expired, k)
			}
			for _, k := range expired {
				name, key, ok := bytes.Cut(k[8:], []byte{0})
				if !ok {
					return fmt.Errorf("bolt: corrupt expiry key %q", k)
				}
				if b := tx.Bucket(name); b != nil {
					if c := s.containers[string(name)]; c != nil {
						if v := b.Get(key); v != nil {
							r, err := decodeRecord(v)
							if err != nil {
								return err
							}
							old, err := c.oldBody(r)
							if err != nil {
								return err
							}
							if err := c.reindex(tx, key, old, nil); err != nil {
								return err
							}
						}
					}
					if err := b.Delete(key); err != nil {
						return err
					}
				}
				if err := s.writes.delete(exp, whole, k); err != nil {
					return err
				}
				n++
			}
			return nil
		})
		total += n
		if err != nil || n < perTx {
			return total, err
		}
	}
}

// RunPurge deletes expired documents every interval until ctx ends. It is
// a worker of the server's lifecycle.
func (s *Store) RunPurge(ctx context.Context, every time.Duration) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if n, err := s.Purge(); err != nil {
				s.log.Error("purge expired documents", "err", err)
			} else if n > 0 {
				s.log.Debug("purged expired documents", "count", n)
			}
		}
	}
}

// record is a stored document with its system properties.
//
// Encoding, version 3: the version byte, then _ts (Unix seconds), the
// expiry (Unix seconds, 0 = never), the number of the ETag and the
// dictionary generation the body is compressed with (0 = not compressed,
// see dict.go), uvarints each; then the body. Versions 1 and 2, which
// stores wrote before and which still read: the version byte, _ts and
// expiry (8 bytes each), the ETag's length (1 byte) and the ETag; in
// version 2 the generation (uvarint); then the body.
type record struct {
	ts     int64
	expiry int64
	seq    uint64 // the ETag's number (version 3)
	etag   string // the ETag as versions 1 and 2 stored it
	dict   uint32 // 0: data is the body's JSON
	data   []byte
}

// ETag returns the record's ETag.
func (r record) ETag() string {
	if r.etag != "" {
		return r.etag
	}
	return etagOf(r.seq)
}

// etagOf returns the ETag of number seq: 16 hexadecimal digits in quotes.
func etagOf(seq uint64) string {
	const digits = "0123456789abcdef"
	var b [18]byte
	b[0], b[17] = '"', '"'
	for i := 16; i > 0; i-- {
		b[i] = digits[seq&0xf]
		seq >>= 4
	}
	return string(b[:])
}

func (r record) encode() []byte {
	b := make([]byte, 0, 1+4*binary.MaxVarintLen64+len(r.data))
	b = append(b, 3)
	b = binary.AppendUvarint(b, uint64(r.ts))
	b = binary.AppendUvarint(b, uint64(r.expiry))
	b = binary.AppendUvarint(b, r.seq)
	b = binary.AppendUvarint(b, uint64(r.dict))
	return append(b, r.data...)
}

// decodeRecord decodes v, leaving its body as stored (see Store.body).
// The data aliases v, which bbolt only keeps valid for the life of the
// transaction: callers copy what they keep.
func decodeRecord(v []byte) (record, error) {
	if len(v) > 0 && v[0] == 3 {
		var r record
		rest := v[1:]
		var fields [4]uint64
		for i := range fields {
			n, size := binary.Uvarint(rest)
			if size <= 0 {
				return record{}, errCorruptRecord
			}
			fields[i], rest = n, rest[size:]
		}
		if fields[3] > 1<<32-1 {
			return record{}, errCorruptRecord
		}
		r.ts, r.expiry, r.seq, r.dict, r.data = int64(fields[0]), int64(fields[1]), fields[2], uint32(fields[3]), rest
		return r, nil
	}
	if len(v) < 18 || (v[0] != 1 && v[0] != 2) || len(v) < 18+int(v[17]) {
		return record{}, errCorruptRecord
	}
	n := int(v[17])
	r := record{
		ts:     int64(binary.BigEndian.Uint64(v[1:9])),
		expiry: int64(binary.BigEndian.Uint64(v[9:17])),
		etag:   string(v[18 : 18+n]),
		data:   v[18+n:],
	}
	if v[0] == 2 {
		id, size := binary.Uvarint(r.data)
		if size <= 0 || id > 1<<32-1 {
			return record{}, errCorruptRecord
		}
		r.dict, r.data = uint32(id), r.data[size:]
	}
	return r, nil
}

var errCorruptRecord = errors.New("bolt: corrupt record")

// body returns r's JSON: its data, or its data decompressed (a new
// slice).
func (s *Store) body(r record) ([]byte, error) {
	if r.dict == 0 {
		return r.data, nil
	}
	return s.codec.unpack(r.dict, r.data)
}

// keep returns r's JSON in a slice of its own, which outlives the
// transaction.
func (s *Store) keep(r record) ([]byte, error) {
	if r.dict == 0 {
		return bytes.Clone(r.data), nil
	}
	return s.codec.unpack(r.dict, r.data)
}

// readRecord decodes v and returns it with its JSON body.
func (s *Store) readRecord(v []byte) (record, []byte, error) {
	r, err := decodeRecord(v)
	if err != nil {
		return record{}, nil, err
	}
	body, err := s.body(r)
	return r, body, err
}

func (r record) live(now int64) bool { return r.expiry == 0 || now < r.expiry }

func itemKey(pk, id string) []byte {
	k := make([]byte, 0, len(pk)+1+len(id))
	k = append(k, pk...)
	k = append(k, 0)
	return append(k, id...)
}

func expiryKey(expiry int64, container, key []byte) []byte {
	k := make([]byte, 0, 9+len(container)+len(key))
	k = binary.BigEndian.AppendUint64(k, uint64(expiry))
	k = append(k, container...)
	k = append(k, 0)
	return append(k, key...)
}
