package schedule_test

import (
	"testing"

	"github.com/kanri/kanri/internal/bolt/bolttest"
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
		return cosmostest.OpenNew(t, srv)
	})
}
