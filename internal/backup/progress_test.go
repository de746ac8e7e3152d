package backup_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// TestProgressIsNotWrittenInsideTheDump: a running backup's progress is
// written while the dump of the tenant is open, but never from the dump's
// own goroutine. On the embedded store the dump is a read transaction,
// and a write that must grow the store's memory map waits until every
// read transaction has ended: written from the dump's goroutine, it would
// wait for itself. The store here makes every write of a run's history
// wait like that, while the dump waits for the first progress write to
// begin; the backup must still end, with its progress written.
func TestProgressIsNotWrittenInsideTheDump(t *testing.T) {
	gate := &dumpGate{Store: bolttest.Open(t), writing: make(chan struct{}), dumped: make(chan struct{})}
	e := newEnv(t, gate, t.TempDir())
	e.fill(t)
	gate.armed.Store(true)
	done := make(chan *kanri.BackupHistory)
	go func() { done <- e.backup(t, []string{kanri.PartUsers}) }()
	select {
	case h := <-done:
		if gate.selfWait.Load() {
			t.Error("the run's progress was written from the dump's goroutine: on bbolt it would wait for ever")
		}
		if h.ItemsBackedUp == 0 {
			t.Error("the run records no items")
		}
	case <-time.After(3 * time.Minute):
		t.Fatal("the backup did not end: its progress was written from the dump's goroutine")
	}
}

// dumpGate is a store whose Dump, once armed, waits in its first document
// until a run's history is being written, and whose writes of a run's
// history wait until that Dump has ended.
type dumpGate struct {
	docstore.Store
	armed atomic.Bool
	once  sync.Once
	// selfWait is set when a history write waited for the dump in vain:
	// it came from the dump's goroutine.
	selfWait atomic.Bool
	writing  chan struct{} // closed when a history write begins during the dump
	dumped   chan struct{} // closed when the dump ends
	wrote    sync.Once
}

func (g *dumpGate) Dump(ctx context.Context, pk string, containers []string, fn func(string, docstore.Item) error) (bool, error) {
	if !g.armed.Load() {
		return g.Store.Dump(ctx, pk, containers, fn)
	}
	defer g.once.Do(func() { close(g.dumped) })
	first := true
	return g.Store.Dump(ctx, pk, containers, func(c string, it docstore.Item) error {
		if first {
			first = false
			select {
			case <-g.writing:
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(30 * time.Second):
				// No progress write began while the dump waited: it could
				// only come from this goroutine. Go on: that write marks
				// selfWait.
			}
		}
		return fn(c, it)
	})
}

func (g *dumpGate) Container(name string) docstore.Container {
	c := g.Store.Container(name)
	if name != kanri.ContainerBackup {
		return c
	}
	return gatedContainer{Container: c, g: g}
}

type gatedContainer struct {
	docstore.Container
	g *dumpGate
}

func (c gatedContainer) Replace(ctx context.Context, pk, id string, body []byte, ifMatch string) (string, error) {
	if c.g.armed.Load() && strings.HasPrefix(id, "history_") {
		c.g.wrote.Do(func() { close(c.g.writing) })
		select {
		case <-c.g.dumped:
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(30 * time.Second):
			c.g.selfWait.Store(true) // instead of waiting for ever, as bbolt would
		}
	}
	return c.Container.Replace(ctx, pk, id, body, ifMatch)
}
