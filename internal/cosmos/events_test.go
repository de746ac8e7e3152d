package cosmos_test

import (
	"testing"
	"time"

	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/events"
	"github.com/kanri/kanri/internal/events/eventstest"
)

// TestEventsContract runs the events contract on the Cosmos bus: events
// go through the messaging container's change feed (the test server's, as
// the launcher serves it), one database per case on one server.
func TestEventsContract(t *testing.T) {
	srv := cosmostest.Start(t)
	eventstest.Run(t, func(t *testing.T) events.Bus {
		st := cosmostest.OpenNew(t, srv)
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
	db := cosmostest.NewDatabase()
	a, b := cosmostest.Open(t, srv, db), cosmostest.Open(t, srv, db)
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
