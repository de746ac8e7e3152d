package bolt

import (
	"bytes"
	"container/list"
	"hash/maphash"
	"sync"
)

// Decoding a block (decompressing it and rebuilding its entries) took a
// fifth of the server's CPU under load (BenchmarkHTTPLoad/Mixed): a page
// seeks a few index ranges, each into a block. decoded keeps the entries
// of the blocks read last, found by the stored bytes themselves (their
// hash, then a comparison): the same bytes always decode to the same
// entries, so an entry is never stale, whatever was written since, and
// the cache serves every store of the process.

// maxDecodedBytes bounds what decoded holds (the stored bytes and the
// entries of each block).
const maxDecodedBytes = 4 << 20

var decoded = newBlockCache(maxDecodedBytes)

// blockCache is a least-recently-used cache of decoded blocks.
type blockCache struct {
	mu     sync.Mutex
	seed   maphash.Seed
	byHash map[uint64]*list.Element // of *cachedBlock
	lru    list.List                // front: used last
	size   int
	max    int
}

type cachedBlock struct {
	hash    uint64
	stored  []byte
	entries [][]byte // shared: read only
	size    int
}

func newBlockCache(max int) *blockCache {
	return &blockCache{seed: maphash.MakeSeed(), byHash: map[uint64]*list.Element{}, max: max}
}

// entries returns the entries of stored block v, decoded once. The
// entries are shared: callers only read them.
func (bc *blockCache) entries(v []byte) ([][]byte, error) {
	h := maphash.Bytes(bc.seed, v)
	bc.mu.Lock()
	if e, ok := bc.byHash[h]; ok {
		cb := e.Value.(*cachedBlock)
		if bytes.Equal(cb.stored, v) {
			bc.lru.MoveToFront(e)
			bc.mu.Unlock()
			return cb.entries, nil
		}
	}
	bc.mu.Unlock()
	entries, err := decodeBlock(v)
	if err != nil {
		return nil, err
	}
	cb := &cachedBlock{hash: h, stored: bytes.Clone(v), entries: entries, size: 2 * len(v)}
	for _, e := range entries {
		cb.size += len(e) + 24
	}
	if cb.size > bc.max/8 {
		return entries, nil
	}
	bc.mu.Lock()
	defer bc.mu.Unlock()
	if old, ok := bc.byHash[h]; ok {
		bc.remove(old)
	}
	bc.byHash[h] = bc.lru.PushFront(cb)
	bc.size += cb.size
	for bc.size > bc.max {
		bc.remove(bc.lru.Back())
	}
	return entries, nil
}

// remove drops e; bc.mu is held.
func (bc *blockCache) remove(e *list.Element) {
	cb := bc.lru.Remove(e).(*cachedBlock)
	delete(bc.byHash, cb.hash)
	bc.size -= cb.size
}
