package files

import (
	"testing"

	"github.com/kanri/kanri/internal/blob"
)

func TestBlocksGrowWithTheUploadToStayWithinTheBlobsLimit(t *testing.T) {
	const MiB = 1 << 20
	half := int64(blob.MaxBlocks / 2)
	tests := []struct {
		base int
		size int64
		want int
	}{
		{MiB, 10 * MiB, MiB},
		{MiB, half * MiB, MiB},
		{MiB, half*MiB + 1, 2 * MiB},
		{MiB, 3 * half * MiB, 4 * MiB},
		{4 * MiB, 10 * MiB, 4 * MiB},
		{MiB, 1 << 50, blob.MaxBlockSize}, // larger than any blob: the largest blocks
	}
	for _, tt := range tests {
		if got := blockSize(tt.base, tt.size); got != tt.want {
			t.Errorf("blockSize(%d, %d) = %d, want %d", tt.base, tt.size, got, tt.want)
		}
	}
}
