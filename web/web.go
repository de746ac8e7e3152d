// Package web is Kanri's HTTP layer: Echo routes that render templ views.
// It depends on the domain and the tenant-scoped store, never on a store
// backend.
package web

import (
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/store"
)

// Config holds the web layer's dependencies.
type Config struct {
	Store  *store.Store
	Logger *slog.Logger
}

// Server holds what the handlers share.
type Server struct {
	store *store.Store
	log   *slog.Logger
}

// New returns the console's HTTP handler.
func New(cfg Config) http.Handler {
	s := &Server{store: cfg.Store, log: cfg.Logger}
	if s.log == nil {
		s.log = slog.Default()
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	s.routes(e)
	return e
}
