package schedule_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/cosmos"
	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/schedule/scheduletest"
)

// TestContractEmbedded runs the scheduler's contract on the embedded store.
func TestContractEmbedded(t *testing.T) {
	scheduletest.Run(t, func(t *testing.T) docstore.Store {
		return bolttest.Open(t)
	})
}

// TestContractCosmos runs the scheduler's contract on the Cosmos test
// server, a database per case.
func TestContractCosmos(t *testing.T) {
	srv := cosmostest.Start(t)
	scheduletest.Run(t, func(t *testing.T) docstore.Store {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		b := make([]byte, 8)
		rand.Read(b)
		st, err := cosmos.Open(ctx, cosmos.Config{
			Endpoint: srv.Endpoint, Key: srv.Key(), Database: "kanri-test-" + hex.EncodeToString(b), InsecureSkipVerify: true,
		}, docstore.Specs())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	})
}
