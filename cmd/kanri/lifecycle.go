package main

import (
	"context"
	"log/slog"
	"sync"

	"github.com/kanri/kanri/internal/telemetry"
)

// A worker is a long-running part of the server besides HTTP: the embedded
// store's purge today, schedulers and brokers as features bring them. It
// runs until its context ends and then returns.
type worker struct {
	name string
	run  func(ctx context.Context) error
}

// workers runs workers, each in a goroutine with a context the server's
// shutdown cancels, and stops them together.
type workers struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	log    *slog.Logger
}

// startWorkers starts ws. A worker that fails is logged; the others go on.
func startWorkers(log *slog.Logger, m *telemetry.Metrics, ws []worker) *workers {
	ctx, cancel := context.WithCancel(context.Background())
	g := &workers{cancel: cancel, log: log}
	for _, w := range ws {
		g.wg.Go(func() {
			if err := w.run(ctx); err != nil {
				log.Error("worker stopped", "worker", w.name, "err", err)
				m.WorkerStopped(w.name)
			}
		})
	}
	return g
}

// stop cancels the workers and waits until every one has returned.
func (g *workers) stop() {
	g.cancel()
	g.wg.Wait()
	g.log.Info("workers stopped")
}
