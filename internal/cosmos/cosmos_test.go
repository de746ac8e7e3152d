package cosmos_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/cosmos"
	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/docstore/storetest"
	"github.com/kanri/kanri/internal/kanri"
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

func TestRequestChargesAreAddedUp(t *testing.T) {
	ds := open(t, features.Specs())
	c := ds.Container(kanri.ContainerTenant)
	ctx, charge := docstore.WithCharge(t.Context())
	// The test server bills every response 1 unit (x-ms-request-charge),
	// a refused one too.
	steps := []struct {
		name string
		call func() error
	}{
		{"create", func() error {
			_, err := c.Create(ctx, "t1", []byte(`{"id":"d1","tenantId":"t1","type":"tenant"}`))
			return err
		}},
		{"read", func() error { _, err := c.Read(ctx, "t1", "d1"); return err }},
		{"read of a missing document", func() error {
			if _, err := c.Read(ctx, "t1", "nothing"); !kanri.IsCode(err, kanri.ENOTFOUND) {
				return fmt.Errorf("got %v, want ENOTFOUND", err)
			}
			return nil
		}},
		{"delete", func() error { return c.Delete(ctx, "t1", "d1", "") }},
	}
	for i, s := range steps {
		if err := s.call(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got, want := charge.Units(), float64(i+1); got != want {
			t.Errorf("after the %s: %v units, want %v", s.name, got, want)
		}
	}
}
