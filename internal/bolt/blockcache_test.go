package bolt

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// TestDecodedBlocksAreFoundByTheirBytes decodes blocks through a small
// cache: each read gives the block's own entries, a block whose bytes
// changed is decoded again, and the cache stays within its bound.
func TestDecodedBlocksAreFoundByTheirBytes(t *testing.T) {
	bc := newBlockCache(64 << 10)
	block := func(n, from int) ([]byte, [][]byte) {
		var entries [][]byte
		for i := range n {
			entries = append(entries, fmt.Appendf(nil, "p\x00\x01\x00entry-%06d", from+i))
		}
		return sealBlock(encodeBlock(entries)), entries
	}
	for round := range 3 {
		for i := range 200 {
			v, want := block(20, i*7+round)
			got, err := bc.entries(v)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, want, bytes.Equal) {
				t.Fatalf("round %d, block %d: got %q, want %q", round, i, got, want)
			}
			if bc.size > bc.max {
				t.Fatalf("the cache holds %d bytes, more than %d", bc.size, bc.max)
			}
		}
	}
	if bc.lru.Len() == 0 || bc.lru.Len() != len(bc.byHash) {
		t.Errorf("%d blocks in the list, %d in the map", bc.lru.Len(), len(bc.byHash))
	}
}
