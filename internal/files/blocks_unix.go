//go:build unix

package files

import "syscall"

// newBlock returns a buffer of size bytes in an anonymous mapping of its
// own, outside the Go heap (on the heap if the system refuses one).
func newBlock(size int) []byte {
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, size)
	}
	return b
}

// releaseBlock gives b's memory back to the system: its pages read as
// zeros until written again. The mapping stays (it is never unmapped), so
// that a late reader of a block (a blob store's request still sending it)
// reads zeros rather than faulting. On a buffer of the heap it fails
// harmlessly.
func releaseBlock(b []byte) {
	syscall.Madvise(b, syscall.MADV_DONTNEED)
}
