package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/kanri/kanri/internal/azureblob"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/disk"
)

// openBlobs opens the blob store of file contents: the local directory
// KANRI_BLOB_DIR (by default blobs/ in the data directory), or an Azure
// Blob Storage container with KANRI_BLOB=azure.
func openBlobs(ctx context.Context, cfg Config) (*blob.Bucket, error) {
	var (
		d   blob.Driver
		err error
	)
	switch cfg.Blob {
	case BlobAzure:
		d, err = azureblob.New(ctx, azureblob.Config{
			ConnectionString: cfg.Azure.ConnectionString,
			Endpoint:         cfg.Azure.Endpoint,
			Account:          cfg.Azure.Account,
			Key:              cfg.Azure.Key,
			Container:        cfg.Azure.Container,
		})
	default:
		dir := cfg.BlobDir
		if dir == "" {
			dir = filepath.Join(cfg.DataDir, "blobs")
		}
		d, err = disk.New(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("open the blob store: %w", err)
	}
	return blob.New(d), nil
}
