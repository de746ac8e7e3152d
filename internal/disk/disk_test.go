package disk_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/blob/blobtest"
	"github.com/kanri/kanri/internal/disk"
	"github.com/kanri/kanri/internal/kanri"
)

func TestContract(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) *blob.Bucket {
		d, err := disk.New(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return blob.New(d)
	})
}

// TestTheLocalStoreStagesSmallBlocks checks that uploads to the local
// store hold 1 MiB blocks, not Azure's 4 (disk.Driver.BlockSize).
func TestTheLocalStoreStagesSmallBlocks(t *testing.T) {
	d, err := disk.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := blob.New(d).BlockSize(), 1<<20; got != want {
		t.Errorf("BlockSize() = %d, want %d", got, want)
	}
}

// TestOpenRemovesWhatACrashLeft checks that a half-written temporary file
// (a crash during a Put) is removed when the store opens again and never
// seen as a blob.
func TestOpenRemovesWhatACrashLeft(t *testing.T) {
	root := t.TempDir()
	if _, err := disk.New(root); err != nil {
		t.Fatal(err)
	}
	half := filepath.Join(root, "tmp", "put-123")
	if err := os.WriteFile(half, []byte("half a file"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := disk.New(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(half); !os.IsNotExist(err) {
		t.Errorf("the temporary file is still there after opening: %v", err)
	}
	for info, err := range blob.New(d).List(t.Context(), "") {
		t.Errorf("List yields %+v, %v; want nothing", info, err)
	}
}

// TestABatchShowsNothingUntilCommitted: the local directory's batch keeps
// its blobs out of sight (and out of the blob tree) until Commit; a
// failed Put and a Discard leave no temporary file behind.
func TestABatchShowsNothingUntilCommitted(t *testing.T) {
	root := t.TempDir()
	d, err := disk.New(root)
	if err != nil {
		t.Fatal(err)
	}
	b := blob.New(d)
	ctx := t.Context()
	bt := b.NewBatch()
	if _, err := bt.Put(ctx, "batch/a", strings.NewReader("first")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Stat(ctx, "batch/a"); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("before Commit: Stat = %v, want ENOTFOUND", err)
	}
	if err := bt.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if info, err := b.Stat(ctx, "batch/a"); err != nil || info.Size != 5 {
		t.Errorf("after Commit: Stat = %+v, %v; want 5 bytes", info, err)
	}
	if _, err := bt.Put(ctx, "batch/b", iotest.ErrReader(errors.New("gone"))); err == nil {
		t.Error("a Put from a failing reader succeeded")
	}
	if _, err := bt.Put(ctx, "batch/c", strings.NewReader("third")); err != nil {
		t.Fatal(err)
	}
	bt.Discard()
	for _, name := range []string{"batch/b", "batch/c"} {
		if _, err := b.Stat(ctx, name); !kanri.IsCode(err, kanri.ENOTFOUND) {
			t.Errorf("%s after Discard: Stat = %v, want ENOTFOUND", name, err)
		}
	}
	if left, _ := os.ReadDir(filepath.Join(root, "tmp")); len(left) != 0 {
		t.Errorf("temporary files left: %d", len(left))
	}
}
