// Package app holds what every service of Kanri shares: the tenant-scoped
// store, the audit log, the logger and the clock. A service takes one Deps
// rather than a long list of positional arguments, and adding a shared
// dependency changes this file, not every constructor.
package app

import (
	"log/slog"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/store"
)

// Deps are the dependencies every service shares.
type Deps struct {
	// Store reaches the documents, one tenant at a time.
	Store *store.Store
	// Audit records who changed what.
	Audit *audit.Log
	// Logger receives what operators need to know.
	Logger *slog.Logger
	// Now is the clock.
	Now func() time.Time
}

// NewDeps returns the dependencies over st with an audit log writing to it.
// A nil log is slog.Default and a nil now is time.Now.
func NewDeps(st *store.Store, log *slog.Logger, now func() time.Time) Deps {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	return Deps{Store: st, Audit: audit.New(st, log, now), Logger: log, Now: now}
}
