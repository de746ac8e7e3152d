package bolt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"
	bbolt "go.etcd.io/bbolt"
)

// Index entries are stored in blocks: runs of consecutive keys of one
// index of one partition, each run one bbolt key (its first key when the
// block was made) whose value holds the run's keys, each written as the
// length of the prefix it shares with the one before and the rest
// (front coding). Neighbouring entries share most of their bytes (the
// partition, the index, the leading values, often the start of the id),
// and bbolt spends 16 bytes and a slot of its page on every key: a
// message's search entries took 529 bytes in separate keys
// (BenchmarkStoreSize).
//
// A block's key is at most its first entry, and its entries are below the
// next block's key, so the blocks are in the order of their entries and a
// cursor (indexCursor) walks the entries in key order as the separate
// keys were walked. A block that grows past maxBlockBytes splits in two.
//
// Front coding stops at the first byte that differs, and what follows it
// (the rest of a number, the id) still repeats from entry to entry: a
// block is stored compressed (zstd) when that makes it smaller, which
// takes a message's search entries from about 40 bytes each to about 10.
//
// Block value: version byte 1, the number of entries (uvarint), then each
// entry: shared prefix length, rest length (uvarints), rest; or version
// byte 2 and the rest of a version 1 block compressed (a zstd frame).

// maxBlockBytes is the most a block's encoded entries take (before
// compression) before it splits: small enough that a write rewrites
// little, large enough to compress well.
const maxBlockBytes = 4096

// blockZstd compresses and decompresses blocks (both are safe for
// concurrent use).
var blockZstd = sync.OnceValues(func() (*zstd.Encoder, *zstd.Decoder) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(false), zstd.WithLowerEncoderMem(true), zstd.WithWindowSize(maxBlockBytes*2))
	if err != nil {
		panic(err) // the options are constant
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxMemory(1<<20))
	if err != nil {
		panic(err)
	}
	return enc, dec
})

// sealBlock returns the stored form of version 1 block v: compressed when
// that is shorter.
func sealBlock(v []byte) []byte {
	enc, _ := blockZstd()
	z := enc.EncodeAll(v[1:], []byte{2})
	if len(z) < len(v) {
		return z
	}
	return v
}

// openBlock returns stored block v in version 1.
func openBlock(v []byte) ([]byte, error) {
	if len(v) == 0 || v[0] != 2 {
		return v, nil
	}
	_, dec := blockZstd()
	out, err := dec.DecodeAll(v[1:], []byte{1})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errCorruptBlock, err)
	}
	return out, nil
}

// A grouping returns the group of a key of a bucket: a block holds keys of
// one group.
type grouping func(k []byte) []byte

// byIndex groups index keys by partition and index: it returns the
// partition and index tag at the start of k (partition \x00 tag \x00).
func byIndex(k []byte) []byte {
	i := bytes.IndexByte(k, 0)
	if i < 0 || len(k) < i+3 {
		return k
	}
	return k[:i+3]
}

// encodeBlock returns the value of a block of entries (sorted, distinct).
func encodeBlock(entries [][]byte) []byte {
	size := 1 + binary.MaxVarintLen32
	for _, e := range entries {
		size += len(e) + 2
	}
	b := make([]byte, 0, size)
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(len(entries)))
	var prev []byte
	for _, e := range entries {
		b = appendEntry(b, prev, e)
		prev = e
	}
	return b
}

func sharedPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// decodeBlock returns the entries of stored block v, in one buffer.
func decodeBlock(v []byte) ([][]byte, error) {
	v, err := openBlock(v)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 0, 2*len(v))
	var out [][]byte
	_, _, err = blockWalk(v, func(e []byte, _, _ int) bool {
		start := len(buf)
		buf = append(buf, e...) // a grown buf leaves the earlier entries in the old one, unchanged
		out = append(out, buf[start:len(buf):len(buf)])
		return true
	})
	return out, err
}

var errCorruptBlock = fmt.Errorf("bolt: corrupt index block")

// blockOf returns the key and value of the block that holds k, or would:
// the last block of k's group whose key is at most k. It returns a nil key
// when k is below every block of its group. The value is bbolt's memory.
func blockOf(b *bbolt.Bucket, group grouping, k []byte) ([]byte, []byte) {
	cur := b.Cursor()
	bk, bv := cur.Seek(k)
	if bk == nil || !bytes.Equal(bk, k) {
		if bk == nil {
			bk, bv = cur.Last()
		} else {
			bk, bv = cur.Prev()
		}
	}
	if bk == nil || !bytes.Equal(group(bk), group(k)) {
		return nil, nil
	}
	return bytes.Clone(bk), bv
}

// blockWalk walks the entries of version 1 block v, rebuilding each in one
// buffer: fn gets the entry (valid until the next), and its encoding's
// start and end in v. fn returns false to stop. It returns the number of
// entries v declares and the offset of the first.
func blockWalk(v []byte, fn func(e []byte, from, to int) bool) (int, int, error) {
	if len(v) == 0 || v[0] != 1 {
		return 0, 0, errCorruptBlock
	}
	count, size := binary.Uvarint(v[1:])
	if size <= 0 || count > uint64(len(v)) {
		return 0, 0, errCorruptBlock
	}
	first := 1 + size
	var e []byte
	at := first
	for range count {
		shared, s1 := binary.Uvarint(v[at:])
		if s1 <= 0 {
			return 0, 0, errCorruptBlock
		}
		n, s2 := binary.Uvarint(v[at+s1:])
		if s2 <= 0 || shared > uint64(len(e)) || n > uint64(len(v)-at-s1-s2) {
			return 0, 0, errCorruptBlock
		}
		end := at + s1 + s2 + int(n)
		e = append(e[:shared], v[at+s1+s2:end]...)
		if !fn(e, at, end) {
			return int(count), first, nil
		}
		at = end
	}
	if at != len(v) {
		return 0, 0, errCorruptBlock
	}
	return int(count), first, nil
}

// appendEntry appends the encoding of entry e after prev to b.
func appendEntry(b, prev, e []byte) []byte {
	n := sharedPrefix(prev, e)
	b = binary.AppendUvarint(b, uint64(n))
	b = binary.AppendUvarint(b, uint64(len(e)-n))
	return append(b, e[n:]...)
}

// spliced returns block value v with its entries from byte from to byte
// to replaced by the encoding of entries (after prev, the entry before
// from), and count entries in all.
func spliced(v []byte, count, first, from, to int, prev []byte, entries ...[]byte) []byte {
	out := make([]byte, 0, len(v)+len(entries)*64)
	out = append(out, 1)
	out = binary.AppendUvarint(out, uint64(count))
	out = append(out, v[first:from]...)
	for _, e := range entries {
		out = appendEntry(out, prev, e)
		prev = e
	}
	return append(out, v[to:]...)
}

// blockWrites holds the blocks a write transaction changed, decoded to
// version 1 and not yet stored: a batch's writes to one block (a batch of
// messages adds to the same blocks of their words) compress it once, when
// the transaction stores them (flush, which Store.update calls before the
// commit). A block that splits or moves is stored at once. A nil
// *blockWrites stores every change at once.
type blockWrites struct {
	dirty map[*bbolt.Bucket]map[string][]byte
}

// block returns the version 1 form of block bk (stored value bv) of b.
func (w *blockWrites) block(b *bbolt.Bucket, bk, bv []byte) ([]byte, error) {
	if w != nil {
		if v, ok := w.dirty[b][string(bk)]; ok {
			return v, nil
		}
	}
	return openBlock(bv)
}

// store writes block bk of b as version 1 block v, now or at the flush.
func (w *blockWrites) store(b *bbolt.Bucket, bk, v []byte) error {
	if w == nil {
		return b.Put(bk, sealBlock(v))
	}
	if w.dirty == nil {
		w.dirty = map[*bbolt.Bucket]map[string][]byte{}
	}
	if w.dirty[b] == nil {
		w.dirty[b] = map[string][]byte{}
	}
	w.dirty[b][string(bk)] = v
	return nil
}

// forget drops what w holds of block bk of b, about to be written or
// deleted at once.
func (w *blockWrites) forget(b *bbolt.Bucket, bk []byte) {
	if w != nil {
		delete(w.dirty[b], string(bk))
	}
}

// flush stores the blocks w holds.
func (w *blockWrites) flush() error {
	if w == nil {
		return nil
	}
	for b, blocks := range w.dirty {
		for bk, v := range blocks {
			if err := b.Put([]byte(bk), sealBlock(v)); err != nil {
				return err
			}
		}
	}
	w.dirty = nil
	return nil
}

// whole puts every key of a bucket in one group: the expiry keys.
func whole([]byte) []byte { return nil }

// put adds index key k to index bucket b. It rewrites one block's bytes
// around k, without decoding its entries, unless the block splits.
func (w *blockWrites) put(b *bbolt.Bucket, group grouping, k []byte) error {
	bk, bv := blockOf(b, group, k)
	if bk == nil {
		// Below every block of its group: it starts the group's first
		// block, which becomes the block's key.
		next, nv := b.Cursor().Seek(k)
		if next != nil && bytes.Equal(group(next), group(k)) {
			next = bytes.Clone(next)
			v, err := w.block(b, next, nv)
			if err != nil {
				return err
			}
			entries, err := decodeBlock(v)
			if err != nil {
				return err
			}
			w.forget(b, next)
			if err := b.Delete(next); err != nil {
				return err
			}
			return writeBlock(b, bytes.Clone(k), append([][]byte{k}, entries...))
		}
		return b.Put(bytes.Clone(k), sealBlock(encodeBlock([][]byte{k})))
	}
	bv, err := w.block(b, bk, bv)
	if err != nil {
		return err
	}
	// Find the first entry after k: k goes before it.
	var prev []byte
	found, at, to := false, -1, 0
	var next []byte
	count, first, err := blockWalk(bv, func(e []byte, from, end int) bool {
		switch c := bytes.Compare(e, k); {
		case c == 0:
			found = true
			return false
		case c > 0:
			at, to, next = from, end, bytes.Clone(e)
			return false
		}
		prev = append(prev[:0], e...)
		return true
	})
	if err != nil || found {
		return err
	}
	var v []byte
	if at < 0 {
		v = spliced(bv, count+1, first, len(bv), len(bv), prev, k)
	} else {
		v = spliced(bv, count+1, first, at, to, prev, k, next)
	}
	if len(v) <= maxBlockBytes {
		return w.store(b, bk, v)
	}
	entries, err := decodeBlock(v)
	if err != nil {
		return err
	}
	w.forget(b, bk)
	return writeBlock(b, bk, entries)
}

// appendBlocks writes keys (sorted, distinct, of one group, all after
// every key of b) as new blocks at the end of bucket b, each filled up to
// maxBlockBytes.
func appendBlocks(b *bbolt.Bucket, keys [][]byte) error {
	b.FillPercent = 1 // blocks arrive in order, each full
	start, size := 0, 1+binary.MaxVarintLen32
	for i, k := range keys {
		n := len(k) + 2*binary.MaxVarintLen16 // at most, with its lengths
		if i > start {
			n -= sharedPrefix(keys[i-1], k)
		}
		if i > start && size+n > maxBlockBytes {
			if err := b.Put(bytes.Clone(keys[start]), sealBlock(encodeBlock(keys[start:i]))); err != nil {
				return err
			}
			start, size, n = i, 1+binary.MaxVarintLen32, len(k)+2*binary.MaxVarintLen16
		}
		size += n
	}
	if start < len(keys) {
		return b.Put(bytes.Clone(keys[start]), sealBlock(encodeBlock(keys[start:])))
	}
	return nil
}

// writeBlock writes the block at key bk with entries, split in two when
// it grew too large: the second half becomes a block of its own, under
// its first entry.
func writeBlock(b *bbolt.Bucket, bk []byte, entries [][]byte) error {
	v := encodeBlock(entries)
	if len(v) <= maxBlockBytes || len(entries) < 2 {
		return b.Put(bk, sealBlock(v))
	}
	half := len(entries) / 2
	if err := b.Put(bk, sealBlock(encodeBlock(entries[:half]))); err != nil {
		return err
	}
	return b.Put(bytes.Clone(entries[half]), sealBlock(encodeBlock(entries[half:])))
}

// delete removes index key k from index bucket b, if it is there.
func (w *blockWrites) delete(b *bbolt.Bucket, group grouping, k []byte) error {
	bk, bv := blockOf(b, group, k)
	if bk == nil {
		return nil
	}
	bv, err := w.block(b, bk, bv)
	if err != nil {
		return err
	}
	var prev, next []byte
	at, to, found := -1, -1, false
	count, first, err := blockWalk(bv, func(e []byte, from, end int) bool {
		if found {
			to, next = end, bytes.Clone(e)
			return false
		}
		switch c := bytes.Compare(e, k); {
		case c == 0:
			found, at, to = true, from, end
			return true
		case c > 0:
			return false
		}
		prev = append(prev[:0], e...)
		return true
	})
	if err != nil || !found {
		return err
	}
	if count == 1 {
		w.forget(b, bk)
		return b.Delete(bk)
	}
	if next == nil {
		return w.store(b, bk, spliced(bv, count-1, first, at, to, prev))
	}
	return w.store(b, bk, spliced(bv, count-1, first, at, to, prev, next))
}

// hasEntry reports whether bucket b, of blocks grouped by group, holds
// key k.
func hasEntry(b *bbolt.Bucket, group grouping, k []byte) (bool, error) {
	bk, bv := blockOf(b, group, k)
	if bk == nil {
		return false, nil
	}
	bv, err := openBlock(bv)
	if err != nil {
		return false, err
	}
	found := false
	_, _, err = blockWalk(bv, func(e []byte, _, _ int) bool {
		c := bytes.Compare(e, k)
		found = c == 0
		return c < 0
	})
	return found, err
}

// indexCursor walks the entries of an index bucket in key order, as a
// bbolt cursor walks keys. The keys it returns stay valid for the
// transaction. A corrupt block ends the walk (Check reports it). Unlike
// bbolt's, a step back after Next ran off the end returns the last entry
// (and a step forward after Prev ran off the start the first): the
// planner never steps a cursor that returned nil but to Seek, First or
// Last it again.
type indexCursor struct {
	c       *bbolt.Cursor
	entries [][]byte // the current block's
	i       int      // the current entry; len(entries) past the end
}

func newIndexCursor(b *bbolt.Bucket) *indexCursor { return &indexCursor{c: b.Cursor()} }

// load makes the block at bk (value bv) the current one and returns false
// when there is none.
func (ic *indexCursor) load(bk, bv []byte) bool {
	if bk == nil {
		ic.entries, ic.i = nil, 0
		return false
	}
	entries, err := decoded.entries(bv)
	if err != nil || len(entries) == 0 {
		ic.entries, ic.i = nil, 0
		return false
	}
	ic.entries = entries
	return true
}

func (ic *indexCursor) current() []byte {
	if ic.i < 0 || ic.i >= len(ic.entries) {
		return nil
	}
	return ic.entries[ic.i]
}

// Seek moves to the first entry at or after k.
func (ic *indexCursor) Seek(k []byte) []byte {
	bk, bv := ic.c.Seek(k)
	if bk == nil || !bytes.Equal(bk, k) {
		// The block before holds the entries from its key to this one's.
		var pk, pv []byte
		if bk == nil {
			pk, pv = ic.c.Last()
		} else {
			pk, pv = ic.c.Prev()
		}
		if ic.load(pk, pv) {
			i, _ := slices.BinarySearchFunc(ic.entries, k, bytes.Compare)
			if ic.i = i; i < len(ic.entries) {
				return ic.current()
			}
			return ic.Next()
		}
		bk, bv = ic.c.Seek(k)
	}
	ic.load(bk, bv)
	ic.i = 0
	return ic.current()
}

// First moves to the first entry.
func (ic *indexCursor) First() []byte {
	ic.load(ic.c.First())
	ic.i = 0
	return ic.current()
}

// Last moves to the last entry.
func (ic *indexCursor) Last() []byte {
	ic.load(ic.c.Last())
	ic.i = len(ic.entries) - 1
	return ic.current()
}

// Next moves to the next entry.
func (ic *indexCursor) Next() []byte {
	if ic.entries == nil {
		return nil
	}
	if ic.i++; ic.i < len(ic.entries) {
		return ic.current()
	}
	if !ic.load(ic.c.Next()) {
		// Past the end: Prev returns the last entry.
		ic.load(ic.c.Last())
		ic.i = len(ic.entries)
		return nil
	}
	ic.i = 0
	return ic.current()
}

// Prev moves to the entry before.
func (ic *indexCursor) Prev() []byte {
	if ic.entries == nil {
		return nil
	}
	if ic.i--; ic.i >= 0 {
		return ic.current()
	}
	if !ic.load(ic.c.Prev()) {
		ic.load(ic.c.First())
		ic.i = -1
		return nil
	}
	ic.i = len(ic.entries) - 1
	return ic.current()
}
