package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/kanri/kanri/internal/telemetry"
)

// debugServer returns the worker serving the Go profiler and the metrics
// (/metrics) on addr, apart from the console so that its routes never
// reach the public listener. It is how the load benchmark profiles the
// real binary, and where a Prometheus inside the operator's network
// scrapes.
func debugServer(addr string, m *telemetry.Metrics, log *slog.Logger) (worker, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return worker{}, fmt.Errorf("debug listener on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("/metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Warn("profiler listening", "addr", ln.Addr().String())
	return worker{"profiler", func(ctx context.Context) error {
		go func() {
			<-ctx.Done()
			srv.Close()
		}()
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}}, nil
}
