package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/docstore/docstoretest"
	"github.com/kanri/kanri/internal/events"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/tenant"
)

// TestStartReadsTheSameWhateverTheTenants counts the store calls of a
// start (the wiring before serving) once the upgrades are recorded as
// done: with 3 tenants and with 30, the same calls, none per tenant.
func TestStartReadsTheSameWhateverTheTenants(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	var got []docstoretest.Calls
	for _, n := range []int{3, 30} {
		dir := t.TempDir()
		cfg, err := parseConfig([]string{"-data-dir", dir, "-bcrypt-cost", "4"}, env(nil), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		ds, err := bolt.Open(dir, features.Specs(), bolt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ds.Close() })
		calls := docstoretest.NewCounting(ds)
		st := store.New(calls, log, features.Schema())
		ts := tenant.New(app.NewDeps(st, log, nil))
		ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", GlobalAdmin: true})
		for i := range n {
			if _, err := ts.Create(ctx, kanri.TenantInput{Name: fmt.Sprintf("t%02d", i), DisplayName: "T", Plan: kanri.PlanFree, MaxUsers: 5}); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := newHandler(context.Background(), cfg, st, events.NewLocal(), nil, log, observers{}); err != nil { // the first start upgrades
			t.Fatal(err)
		}
		got = append(got, calls.Count(func() {
			if _, _, err := newHandler(context.Background(), cfg, st, events.NewLocal(), nil, log, observers{}); err != nil {
				t.Fatal(err)
			}
		}))
	}
	if got[0] != got[1] {
		t.Errorf("a start's store calls: got %v with 3 tenants and %v with 30, want the same", got[0], got[1])
	}
	t.Logf("a start: %v", got[0])
}
