// Package docstoretest has helpers for tests of code above the document
// store port.
package docstoretest

import (
	"context"
	"slices"
	"sync"

	"github.com/kanri/kanri/internal/docstore"
)

// Recorded is one query a Recorder saw.
type Recorded struct {
	Container string
	// PartitionKey is "" for a query across partitions.
	PartitionKey string
	Query        docstore.Query
}

// Recorder wraps a store and records the queries sent through it, so that
// a test can see what the application really asks (and explain it).
type Recorder struct {
	docstore.Store
	mu      sync.Mutex
	queries []Recorded
}

// NewRecorder returns a Recorder over st.
func NewRecorder(st docstore.Store) *Recorder { return &Recorder{Store: st} }

// Container returns the named container of the wrapped store, recording
// its queries.
func (r *Recorder) Container(name string) docstore.Container {
	return &recordingContainer{Container: r.Store.Container(name), name: name, r: r}
}

// Queries returns the queries recorded so far and forgets them.
func (r *Recorder) Queries() []Recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.queries
	r.queries = nil
	return out
}

func (r *Recorder) add(q Recorded) {
	r.mu.Lock()
	r.queries = append(r.queries, q)
	r.mu.Unlock()
}

type recordingContainer struct {
	docstore.Container
	name string
	r    *Recorder
}

func (c *recordingContainer) Query(ctx context.Context, pk string, q docstore.Query) (docstore.Page, error) {
	c.r.add(Recorded{Container: c.name, PartitionKey: pk, Query: q})
	return c.Container.Query(ctx, pk, q)
}

func (c *recordingContainer) QueryAcrossPartitions(ctx context.Context, q docstore.Query) (docstore.Page, error) {
	c.r.add(Recorded{Container: c.name, Query: q})
	return c.Container.QueryAcrossPartitions(ctx, q)
}

// Chunked applies ops in batches of at most docstore.MaxBatchOps, each
// with apply: for tests that load many documents at once. The whole is
// not atomic.
func Chunked(ops []docstore.Op, apply func(batch []docstore.Op) error) error {
	for batch := range slices.Chunk(ops, docstore.MaxBatchOps) {
		if err := apply(batch); err != nil {
			return err
		}
	}
	return nil
}
