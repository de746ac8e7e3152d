package disk_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/blob/blobtest"
	"github.com/kanri/kanri/internal/disk"
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
