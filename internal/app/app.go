// Package app holds what every service of Kanri shares: the tenant-scoped
// store, the audit log, the logger and the clock. A service takes one Deps
// rather than a long list of positional arguments, and adding a shared
// dependency changes this file, not every constructor.
package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
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

// TenantOpen reads the tenant and returns its CheckOpen: the services call
// it before a change that adds to a tenant's data, so that the console and
// the API share the rule that a deleted tenant gains nothing. A partition
// without a tenant document (data of a tenant Kanri no longer knows, or a
// test's) is not deleted; whether the caller may reach the tenant at all is
// the web layer's decision.
func (d Deps) TenantOpen(ctx context.Context, tenantID string) error {
	_, err := d.OpenTenant(ctx, tenantID)
	return err
}

// OpenTenant is TenantOpen for a caller that needs the tenant too (its
// time zone, say). A partition without a tenant document gives an empty
// tenant, whose settings are the defaults.
func (d Deps) OpenTenant(ctx context.Context, tenantID string) (*kanri.Tenant, error) {
	t, err := d.Store.Tenant(tenantID).Profile(ctx)
	switch {
	case kanri.IsCode(err, kanri.ENOTFOUND):
		return &kanri.Tenant{}, nil
	case err != nil:
		return nil, err
	}
	return t, t.CheckOpen()
}
