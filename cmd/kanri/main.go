// Command kanri serves the Kanri management console. It is the one
// composition root: it reads the configuration, opens the document store
// and wires the web server.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/cosmos"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/events"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/telemetry"
	"github.com/kanri/kanri/web/httpkit"
	"github.com/kanri/kanri/web/live"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if os.Getenv("GOGC") == "" {
		go tuneGC(ctx)
	}
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr, nil); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "kanri:", err)
		os.Exit(1)
	}
}

// run starts Kanri and serves until ctx is done. ready, if not nil,
// receives the listening address once the server accepts connections.
//
// Shutdown goes in order: the HTTP server stops accepting and drains the
// requests in flight, then the workers are cancelled and waited for, then
// the store is closed, so that nothing still running writes to it.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, ready chan<- string) error {
	if len(args) > 0 && args[0] == "check" {
		return runCheck(args[1:], getenv, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "backup" {
		return runHotCopy(ctx, args[1:], getenv, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "migrate" {
		return runMigrate(ctx, args[1:], getenv, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "archive" {
		return runArchive(ctx, args[1:], getenv, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "archive-keys" {
		return runArchiveKeys(args[1:], getenv, stdout, stderr)
	}
	cfg, err := parseConfig(args, getenv, stdout)
	if err != nil {
		return err
	}
	log := slog.New(telemetry.LogHandler(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel})))
	o, stopTracing, err := newObservers(cfg, log)
	if err != nil {
		return err
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := stopTracing(ctx); err != nil {
			log.Warn("traces not all sent at shutdown", "err", err)
		}
	}()

	ds, ws, err := openStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer func() {
		if err := ds.Close(); err != nil {
			log.Error("close the store", "err", err)
		}
		log.Info("store closed")
	}()
	_, billed := ds.(*cosmos.Store)
	st := store.New(telemetry.Store(ds, o.metrics, o.spans(), billed), log, features.Schema())
	bus, err := openEvents(ctx, ds, log)
	if err != nil {
		return err
	}
	defer bus.Close()
	streams := &live.Running{}
	handler, appWorkers, err := newHandler(ctx, cfg, st, bus, streams, log, o)
	if err != nil {
		return err
	}

	// Requests run in a context that shutdown cancels when draining takes
	// too long (a long export), so that they stop before the store closes.
	// Their cause, httpkit.ErrStopping, tells them apart from requests whose
	// clients went away.
	reqCtx, cancelCause := context.WithCancelCause(context.Background())
	cancelRequests := func() { cancelCause(httpkit.ErrStopping) }
	defer cancelRequests()
	srv := &http.Server{
		Handler:           handler,
		BaseContext:       func(net.Listener) context.Context { return reqCtx },
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	// Live pages (server-sent events) stay open: shutting down ends them
	// rather than waiting for them.
	srv.RegisterOnShutdown(func() { bus.Close() })
	if cfg.DebugAddr != "" {
		w, err := debugServer(cfg.DebugAddr, o.metrics, log)
		if err != nil {
			return err
		}
		ws = append(ws, w)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	log.Info("kanri listening", "addr", ln.Addr().String(), "store", cfg.Store)
	if ready != nil {
		ready <- ln.Addr().String()
	}
	bg := startWorkers(log, o.metrics, append(ws, appWorkers...))
	defer bg.stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	if err := drain(srv, cancelRequests, 15*time.Second, 5*time.Second); err != nil {
		return err
	}
	log.Info("http server drained")
	// Live streams outlive their requests (live.Out): the bus closing at
	// the shutdown's start ends them, and they are waited for here, before
	// the store they read closes.
	bus.Close()
	if !streams.Wait(5 * time.Second) {
		log.Warn("live streams still running at shutdown")
	}
	return nil
}

// drain stops srv: it waits up to grace for the requests in flight to end,
// then cancels the ones still running (their context ends) and waits up to
// stop more for them to return.
func drain(srv *http.Server, cancelRequests context.CancelFunc, grace, stop time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(ctx); err == nil {
		return nil
	}
	cancelRequests()
	ctx2, cancel2 := context.WithTimeout(context.Background(), stop)
	defer cancel2()
	if err := srv.Shutdown(ctx2); err != nil {
		return fmt.Errorf("shutdown: requests still running after they were cancelled: %w", err)
	}
	return nil
}

// eventsPoll is how often an instance on Cosmos DB reads the change feed
// of the messaging container for the events of other instances.
const eventsPoll = 250 * time.Millisecond

// openEvents returns the events bus of the store: the change feed of the
// messaging container on Cosmos DB (events published on any instance
// reach the pages open on every one), else an in-process bus (the
// embedded store has one instance).
func openEvents(ctx context.Context, ds docstore.Store, log *slog.Logger) (events.Bus, error) {
	if c, ok := ds.(*cosmos.Store); ok {
		bus, err := c.Events(ctx, log, eventsPoll)
		if err != nil {
			return nil, fmt.Errorf("events: %w", err)
		}
		return bus, nil
	}
	return events.NewLocal(), nil
}

// purgeInterval is how often the embedded store deletes expired documents
// (they are invisible at once either way).
const purgeInterval = time.Minute

// openStore opens the configured document store backend, and returns the
// workers it needs.
func openStore(ctx context.Context, cfg Config, log *slog.Logger) (docstore.Store, []worker, error) {
	switch cfg.Store {
	case StoreCosmos:
		if cfg.Cosmos.InsecureSkipVerify {
			log.Warn("TLS verification of the Cosmos endpoint is OFF: use this only with a local test server")
		}
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		st, err := cosmos.Open(ctx, cosmos.Config{
			Endpoint:           cfg.Cosmos.Endpoint,
			Key:                cfg.Cosmos.Key,
			Database:           cfg.Cosmos.Database,
			InsecureSkipVerify: cfg.Cosmos.InsecureSkipVerify,
		}, features.Specs())
		if err != nil {
			return nil, nil, fmt.Errorf("cosmos store unreachable: %w", err)
		}
		return st, nil, nil
	default:
		if err := checkWritable(cfg.DataDir); err != nil {
			return nil, nil, err
		}
		st, err := bolt.Open(cfg.DataDir, features.Specs(), bolt.Options{Logger: log})
		if err != nil {
			return nil, nil, err
		}
		purge := worker{"purge expired documents", func(ctx context.Context) error { return st.RunPurge(ctx, purgeInterval) }}
		return st, []worker{purge, hotCopyWorker(cfg.DataDir, st, log)}, nil
	}
}

// checkWritable fails clearly when the data directory cannot be written.
func checkWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("data directory %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return fmt.Errorf("data directory %s is not writable: %w", dir, err)
	}
	f.Close()
	return os.Remove(filepath.Clean(f.Name()))
}
