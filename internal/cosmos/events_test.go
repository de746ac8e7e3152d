package cosmos_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/cosmos"
	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/events"
	"github.com/kanri/kanri/internal/events/eventstest"
)

// TestEventsContract runs the events contract on the Cosmos bus: events
// go through the messaging container's change feed (the test server's, as
// the launcher serves it), one database per case on one server.
func TestEventsContract(t *testing.T) {
	srv := cosmostest.Start(t)
	eventstest.Run(t, func(t *testing.T) events.Bus {
		st := openOn(t, srv)
		bus, err := st.Events(t.Context(), nil, 20*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		return bus
	})
}

// TestEventsCrossInstances publishes on one instance's bus and receives on
// another's, both over one database, as two Kanri processes would.
func TestEventsCrossInstances(t *testing.T) {
	srv := cosmostest.Start(t)
	db := "kanri-test-" + randomHex()
	a, b := openDB(t, srv, db), openDB(t, srv, db)
	busA, err := a.Events(t.Context(), nil, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer busA.Close()
	busB, err := b.Events(t.Context(), nil, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer busB.Close()
	sub, err := busB.Subscribe(t.Context(), "t1", "")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	id, err := busA.Publish(t.Context(), events.Event{TenantID: "t1", Topic: "channel:c1", Kind: "message.created"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-sub.C:
		if e.ID != id || e.Kind != "message.created" {
			t.Errorf("instance B received %+v, want the event %s", e, id)
		}
	case <-time.After(time.Minute):
		t.Fatal("instance B received nothing")
	}
}

func randomHex() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// openOn opens a store on a new database of srv.
func openOn(t *testing.T, srv *cosmostest.Server) *cosmos.Store {
	return openDB(t, srv, "kanri-test-"+randomHex())
}

func openDB(t *testing.T, srv *cosmostest.Server, db string) *cosmos.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := cosmos.Open(ctx, cosmos.Config{Endpoint: srv.Endpoint, Key: srv.Key(), Database: db, InsecureSkipVerify: true}, docstore.Specs())
	if err != nil {
		t.Fatal(err)
	}
	return st
}
