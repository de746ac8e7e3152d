package app

import (
	"context"
	"time"
)

// Feature is what a feature gives the composition root besides its
// pages and API: its one-time upgrades of the tenants' data and its
// workers. The root runs every feature's upgrades before serving and
// every feature's workers while it serves, without a list of its own
// (its document types are declared in package schema's list).
type Feature struct {
	Name     string
	Upgrades []Upgrade
	Work     []Work
}

// Upgrade is one named change of every tenant's data that a version
// brings, run by internal/upgrade's runner.
type Upgrade struct {
	// Name records the upgrade as done; it is never reused or renamed.
	Name string
	// Tenant upgrades one tenant, a page at a time, holding no more than a
	// page in memory. Run again on a tenant it upgraded (after a crash, or
	// by two instances starting at once) it changes nothing.
	Tenant func(ctx context.Context, tenantID string) error
}

// Work is a long-running part of a feature besides HTTP: either Run,
// which runs on every instance until its context ends and then returns,
// or Periodic, which is done once across the instances every Every (each
// slot claimed by one instance, through the scheduler; never when Every is
// 0).
type Work struct {
	Name     string
	Run      func(ctx context.Context) error
	Periodic func(ctx context.Context) error
	Every    time.Duration
}
