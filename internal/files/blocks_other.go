//go:build !unix

package files

// newBlock returns a buffer of size bytes.
func newBlock(size int) []byte { return make([]byte, size) }

// releaseBlock keeps b as it is: the buffer stays for the next upload.
func releaseBlock(b []byte) {}
