package docstoretest

import (
	"context"
	"fmt"
	"sync"

	"github.com/kanri/kanri/internal/docstore"
)

// Calls counts the calls made to a store's containers, by method. Each
// call is one round trip to the store, whatever it returned.
type Calls struct {
	Read, Query, QueryAcrossPartitions int
	Create, Replace, Upsert, Delete    int
	Batch                              int
}

// Total returns the number of round trips.
func (c Calls) Total() int {
	return c.Read + c.Query + c.QueryAcrossPartitions + c.Create + c.Replace + c.Upsert + c.Delete + c.Batch
}

// Reads returns the calls that only read: point reads and queries.
func (c Calls) Reads() int { return c.Read + c.Query + c.QueryAcrossPartitions }

// Sub returns the calls made since an earlier count d.
func (c Calls) Sub(d Calls) Calls {
	return Calls{
		Read: c.Read - d.Read, Query: c.Query - d.Query, QueryAcrossPartitions: c.QueryAcrossPartitions - d.QueryAcrossPartitions,
		Create: c.Create - d.Create, Replace: c.Replace - d.Replace, Upsert: c.Upsert - d.Upsert, Delete: c.Delete - d.Delete,
		Batch: c.Batch - d.Batch,
	}
}

// String lists the non-zero counts, as in "3 read, 1 query".
func (c Calls) String() string {
	s := ""
	for _, n := range []struct {
		name string
		n    int
	}{
		{"read", c.Read}, {"query", c.Query}, {"cross-partition query", c.QueryAcrossPartitions}, {"create", c.Create},
		{"replace", c.Replace}, {"upsert", c.Upsert}, {"delete", c.Delete}, {"batch", c.Batch},
	} {
		if n.n != 0 {
			if s != "" {
				s += ", "
			}
			s += fmt.Sprintf("%d %s", n.n, n.name)
		}
	}
	if s == "" {
		return "no calls"
	}
	return s
}

// CountingStore is a docstore.Store that counts the calls made to its
// containers before passing them on, so that a test can assert how many
// round trips a request or a start-up costs. It is safe for concurrent use.
type CountingStore struct {
	docstore.Store
	mu    sync.Mutex
	calls Calls
	by    map[string]Calls // by container
}

// NewCounting returns a store that counts the calls made through it to s.
func NewCounting(s docstore.Store) *CountingStore {
	return &CountingStore{Store: s, by: map[string]Calls{}}
}

// Calls returns the calls made so far.
func (s *CountingStore) Calls() Calls {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// CallsTo returns the calls made so far to one container.
func (s *CountingStore) CallsTo(container string) Calls {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.by[container]
}

// Count runs f and returns the calls made while it ran (by f, and by
// anything else using the store meanwhile).
func (s *CountingStore) Count(f func()) Calls {
	before := s.Calls()
	f()
	return s.Calls().Sub(before)
}

// Container returns the named container, counting its calls.
func (s *CountingStore) Container(name string) docstore.Container {
	return countingContainer{Container: s.Store.Container(name), s: s, name: name}
}

func (s *CountingStore) add(container string, f func(*Calls)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.calls)
	c := s.by[container]
	f(&c)
	s.by[container] = c
}

// countingContainer counts the calls of the port's methods; methods it
// does not know of pass through the embedded Container uncounted.
type countingContainer struct {
	docstore.Container
	s    *CountingStore
	name string
}

func (c countingContainer) Read(ctx context.Context, pk, id string) (docstore.Item, error) {
	c.s.add(c.name, func(n *Calls) { n.Read++ })
	return c.Container.Read(ctx, pk, id)
}

func (c countingContainer) Create(ctx context.Context, pk string, body []byte) (string, error) {
	c.s.add(c.name, func(n *Calls) { n.Create++ })
	return c.Container.Create(ctx, pk, body)
}

func (c countingContainer) Replace(ctx context.Context, pk, id string, body []byte, ifMatch string) (string, error) {
	c.s.add(c.name, func(n *Calls) { n.Replace++ })
	return c.Container.Replace(ctx, pk, id, body, ifMatch)
}

func (c countingContainer) Upsert(ctx context.Context, pk string, body []byte, ifMatch string) (string, error) {
	c.s.add(c.name, func(n *Calls) { n.Upsert++ })
	return c.Container.Upsert(ctx, pk, body, ifMatch)
}

func (c countingContainer) Delete(ctx context.Context, pk, id, ifMatch string) error {
	c.s.add(c.name, func(n *Calls) { n.Delete++ })
	return c.Container.Delete(ctx, pk, id, ifMatch)
}

func (c countingContainer) Query(ctx context.Context, pk string, q docstore.Query) (docstore.Page, error) {
	c.s.add(c.name, func(n *Calls) { n.Query++ })
	return c.Container.Query(ctx, pk, q)
}

func (c countingContainer) QueryAcrossPartitions(ctx context.Context, q docstore.Query) (docstore.Page, error) {
	c.s.add(c.name, func(n *Calls) { n.QueryAcrossPartitions++ })
	return c.Container.QueryAcrossPartitions(ctx, q)
}

func (c countingContainer) Batch(ctx context.Context, pk string, ops []docstore.Op) ([]docstore.Result, error) {
	c.s.add(c.name, func(n *Calls) { n.Batch++ })
	return c.Container.Batch(ctx, pk, ops)
}
