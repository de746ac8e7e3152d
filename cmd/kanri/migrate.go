package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/migrate"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/wiring"
)

// migrationLease is the lease that makes one batch migration run at a
// time across instances, in the _system partition.
const (
	migrationLease     = "migration"
	migrationLeaseTerm = 2 * time.Minute
)

// runMigrate is "kanri migrate [-dry-run] [-samples N] [server flags]":
// the batch migration of every tenant's documents to their types' current
// schema versions (internal/migrate), on the store the server's settings
// name (the embedded store with the server stopped: its file has one
// owner). The dry run prints what is behind, per tenant and type, with
// samples and an estimate; the run prints its report, logs each tenant,
// and fails when a document could not be migrated.
func runMigrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	dry, samples, rest, err := migrateFlags(args)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	cfg, err := parseConfig(rest, getenv, stderr)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	ds, _, err := openStore(ctx, cfg, log)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer ds.Close()
	st := store.New(ds, log, features.Schema())
	svcs := wiring.New(st, log, nil, wiring.Options{Roles: features.Roles()})
	r := migrate.New(svcs.Deps, svcs.Tenants)
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if dry {
		plan, err := r.DryRun(ctx, samples)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		return enc.Encode(plan)
	}
	lease, err := svcs.Scheduler.Acquire(ctx, kanri.SystemTenantID, migrationLease, "batch migration", migrationLeaseTerm)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var rep *migrate.Report
	err = lease.Hold(ctx, func(ctx context.Context) error {
		rep, err = r.Run(ctx, func(tenantID string, migrated int) {
			log.Info("migration: tenant done", "tenant", tenantID, "migrated", migrated)
		})
		return err
	})
	if rep != nil {
		if eerr := enc.Encode(rep); eerr != nil {
			return eerr
		}
	}
	if err != nil {
		return fmt.Errorf("migrate: %w (run it again to go on from where it stopped)", err)
	}
	if len(rep.Failures) > 0 {
		return fmt.Errorf("migrate: %d documents could not be migrated (listed above); they are left as they were", len(rep.Failures))
	}
	return nil
}

// migrateFlags takes kanri migrate's own flags (-dry-run, -samples N) out
// of args and returns the rest, the server's settings.
func migrateFlags(args []string) (dry bool, samples int, rest []string, err error) {
	samples = 3
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		switch name {
		case "dry-run":
			dry = !hasValue || value == "true"
		case "samples":
			if !hasValue {
				if i+1 == len(args) {
					return false, 0, nil, errors.New("-samples needs a number")
				}
				i++
				value = args[i]
			}
			if samples, err = strconv.Atoi(value); err != nil || samples < 0 {
				return false, 0, nil, fmt.Errorf("-samples %q: want a number of at least 0", value)
			}
		default:
			rest = append(rest, args[i])
		}
	}
	return dry, samples, rest, nil
}
