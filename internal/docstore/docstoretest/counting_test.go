package docstoretest_test

import (
	"context"
	"testing"

	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/docstore/docstoretest"
	"github.com/kanri/kanri/internal/kanri"
)

// TestCountingStoreCountsEachMethod makes one call of each method and
// checks that exactly its counter moved, in total and for its container.
func TestCountingStoreCountsEachMethod(t *testing.T) {
	ds := bolttest.Open(t)
	s := docstoretest.NewCounting(ds)
	ctx := context.Background()
	c := s.Container(kanri.ContainerAuth)
	doc := func(id string) []byte { return []byte(`{"id":"` + id + `","tenantId":"t1","type":"thing"}`) }
	for _, tc := range []struct {
		name string
		call func() error
		want docstoretest.Calls
	}{
		{"create", func() error { _, err := c.Create(ctx, "t1", doc("a")); return err }, docstoretest.Calls{Create: 1}},
		{"read", func() error { _, err := c.Read(ctx, "t1", "a"); return err }, docstoretest.Calls{Read: 1}},
		{"read of a missing document", func() error { c.Read(ctx, "t1", "nope"); return nil }, docstoretest.Calls{Read: 1}},
		{"replace", func() error { _, err := c.Replace(ctx, "t1", "a", doc("a"), ""); return err }, docstoretest.Calls{Replace: 1}},
		{"upsert", func() error { _, err := c.Upsert(ctx, "t1", doc("b"), ""); return err }, docstoretest.Calls{Upsert: 1}},
		{"query", func() error { _, err := c.Query(ctx, "t1", docstore.Query{Type: "thing"}); return err }, docstoretest.Calls{Query: 1}},
		{"cross-partition query", func() error { _, err := c.QueryAcrossPartitions(ctx, docstore.Query{Type: "thing"}); return err }, docstoretest.Calls{QueryAcrossPartitions: 1}},
		{"batch of two", func() error {
			_, err := c.Batch(ctx, "t1", []docstore.Op{{Kind: docstore.OpCreate, Body: doc("c")}, {Kind: docstore.OpRead, ID: "a"}})
			return err
		}, docstoretest.Calls{Batch: 1}},
		{"delete", func() error { return c.Delete(ctx, "t1", "a", "") }, docstoretest.Calls{Delete: 1}},
	} {
		before := s.CallsTo(kanri.ContainerAuth)
		var err error
		got := s.Count(func() { err = tc.call() })
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
		if got, want := s.CallsTo(kanri.ContainerAuth).Sub(before), tc.want; got != want {
			t.Errorf("%s: container %s got %v, want %v", tc.name, kanri.ContainerAuth, got, want)
		}
	}
	if got, want := s.CallsTo(kanri.ContainerAPI), (docstoretest.Calls{}); got != want {
		t.Errorf("calls to an unused container: got %v, want %v", got, want)
	}
	if got, want := s.Calls().Total(), 9; got != want {
		t.Errorf("total: got %d, want %d", got, want)
	}
}
