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

	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/cosmos"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/store"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
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
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, ready chan<- string) error {
	cfg, err := parseConfig(args, getenv, stdout)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))

	ds, err := openStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer ds.Close()
	st := store.New(ds, log)
	handler, err := newHandler(ctx, cfg, st, log)
	if err != nil {
		return err
	}

	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	log.Info("kanri listening", "addr", ln.Addr().String(), "store", cfg.Store)
	if ready != nil {
		ready <- ln.Addr().String()
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// openStore opens the configured document store backend.
func openStore(ctx context.Context, cfg Config, log *slog.Logger) (docstore.Store, error) {
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
		}, docstore.Specs())
		if err != nil {
			return nil, fmt.Errorf("cosmos store unreachable: %w", err)
		}
		return st, nil
	default:
		if err := checkWritable(cfg.DataDir); err != nil {
			return nil, err
		}
		return bolt.Open(cfg.DataDir, docstore.Specs(), bolt.Options{Logger: log})
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
