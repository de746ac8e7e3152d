package cosmos_test

import (
	"context"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/cosmos"
	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/docstore/storetest"
)

// open starts a local Cosmos test server and opens a store on a database of
// its own.
func open(t testing.TB, specs []docstore.Spec) docstore.Store {
	srv := cosmostest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := cosmos.Open(ctx, cosmos.Config{
		Endpoint:           srv.Endpoint,
		Key:                srv.Key(),
		Database:           cosmostest.NewDatabase(),
		InsecureSkipVerify: true,
	}, specs)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestCosmosContract(t *testing.T) { storetest.Run(t, open) }

func TestOpenFailsClearlyWhenUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	_, err := cosmos.Open(ctx, cosmos.Config{Endpoint: "https://127.0.0.1:1/", Key: "a2V5", InsecureSkipVerify: true}, features.Specs())
	if err == nil {
		t.Fatal("open of an unreachable endpoint: got no error")
	}
}
