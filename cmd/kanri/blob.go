package main

import (
	"fmt"
	"path/filepath"

	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/disk"
)

// openBlobs opens the blob store of file contents: the local directory
// KANRI_BLOB_DIR (by default blobs/ in the data directory).
func openBlobs(cfg Config) (*blob.Bucket, error) {
	dir := cfg.BlobDir
	if dir == "" {
		dir = filepath.Join(cfg.DataDir, "blobs")
	}
	d, err := disk.New(dir)
	if err != nil {
		return nil, fmt.Errorf("open the blob store: %w", err)
	}
	return blob.New(d), nil
}
