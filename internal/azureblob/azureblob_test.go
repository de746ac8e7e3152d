//go:build unix

package azureblob_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/azureblob"
	"github.com/kanri/kanri/internal/azureblob/azuritetest"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/blob/blobtest"
)

// TestContract runs the blob contract on Azurite, one container per case.
func TestContract(t *testing.T) {
	s := azuritetest.Start(t)
	var n atomic.Int64
	blobtest.Run(t, func(t *testing.T) *blob.Bucket {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		d, err := azureblob.New(ctx, azureblob.Config{
			ConnectionString: s.ConnectionString(),
			Container:        fmt.Sprintf("contract-%d", n.Add(1)),
		})
		if err != nil {
			t.Fatal(err)
		}
		return blob.New(d)
	})
}

// TestConfig checks both ways of naming the account, that a container is
// created once and found afterwards, and that bad settings are refused.
func TestConfig(t *testing.T) {
	s := azuritetest.Start(t)
	ctx := t.Context()
	for _, cfg := range []azureblob.Config{
		{ConnectionString: s.ConnectionString(), Container: "kanri"},
		{Endpoint: s.Endpoint, Account: azuritetest.Account, Key: azuritetest.Key, Container: "kanri"},
	} {
		d, err := azureblob.New(ctx, cfg)
		if err != nil {
			t.Fatalf("New(%+v): %v", cfg, err)
		}
		if _, err := blob.New(d).Stat(ctx, "nothing"); err == nil {
			t.Errorf("Stat of a missing blob succeeded")
		}
	}
	for _, cfg := range []azureblob.Config{
		{ConnectionString: s.ConnectionString()},
		{Container: "kanri"},
		{Endpoint: s.Endpoint, Account: azuritetest.Account, Container: "kanri"},
		{Endpoint: s.Endpoint, Account: azuritetest.Account, Key: "not base64!", Container: "kanri"},
		{Endpoint: s.Endpoint, Account: azuritetest.Account, Key: azuritetest.Key, Container: "Bad_Name"},
	} {
		if _, err := azureblob.New(ctx, cfg); err == nil {
			t.Errorf("New(%+v) succeeded, want an error", cfg)
		}
	}
}
