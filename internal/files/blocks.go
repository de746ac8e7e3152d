package files

import "sync"

// The buffers of the blocks being received stay off the Go heap where the
// system allows (blocks_unix.go): two buffers of 1 MiB or more in flight
// per upload would otherwise count in the live heap that the collector's
// goal doubles, and the collector would keep the heap they left behind
// once the upload ends. A buffer's memory goes back to the system when
// its upload's request ends; the buffer itself is kept for the next one.

// blockLists hold, by size, the buffers of blocks being received:
// an upload stages blocks of its blob store's size (blob.Bucket.BlockSize).
var blockLists sync.Map // int → *blockList

// blockList is the free buffers of one size.
type blockList struct {
	size int
	mu   sync.Mutex
	free []*[]byte
}

// blocksOf returns the list of buffers of size bytes.
func blocksOf(size int) *blockList {
	if l, ok := blockLists.Load(size); ok {
		return l.(*blockList)
	}
	l, _ := blockLists.LoadOrStore(size, &blockList{size: size})
	return l.(*blockList)
}

// get returns a free buffer, or a new one.
func (l *blockList) get() *[]byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.free); n > 0 {
		b := l.free[n-1]
		l.free = l.free[:n-1]
		return b
	}
	b := newBlock(l.size)
	return &b
}

// put gives a buffer's memory back to the system and keeps the buffer.
func (l *blockList) put(b *[]byte) {
	releaseBlock(*b)
	l.mu.Lock()
	l.free = append(l.free, b)
	l.mu.Unlock()
}
