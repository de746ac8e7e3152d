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

// runMigrate is "kanri migrate [-dry-run | -rollback] [-samples N] [-lease D] [server flags]":
// the batch migration of every tenant's documents to their types' current
// schema versions (internal/migrate), on the store the server's settings
// name (the embedded store with the server stopped: its file has one
// owner). The dry run prints what is behind, per tenant and type, with
// samples and an estimate; the run archives what it will change in each
// tenant first (the backups' archives, trigger "migration"), prints its
// report, logs each tenant, and fails when a document could not be
// migrated; -rollback restores those archives.
func runMigrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	mode, samples, term, rest, err := migrateFlags(args)
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
	blobs, err := openBlobs(ctx, cfg)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	keys, err := archiveKeys(cfg)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	svcs := wiring.New(st, log, nil, wiring.Options{Roles: features.Roles(), Blobs: blobs, ArchiveKeys: keys})
	r := migrate.New(svcs.Deps, svcs.Tenants, svcs.Backups, svcs.Scheduler)
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if mode == "dry-run" {
		plan, err := r.DryRun(ctx, samples)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		return enc.Encode(plan)
	}
	lease, err := svcs.Scheduler.Acquire(ctx, kanri.SystemTenantID, migrate.Lease, "batch migration (command)", term)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	// KANRI_TEST_MIGRATE_HALT_AFTER makes the run stop for good after that
	// many tenants, so that a test kills it (SIGKILL) at a known point.
	halt, _ := strconv.Atoi(getenv("KANRI_TEST_MIGRATE_HALT_AFTER"))
	if mode == "rollback" {
		var n int
		err := lease.Hold(ctx, func(ctx context.Context) error {
			n, err = r.Rollback(ctx)
			return err
		})
		fmt.Fprintf(stdout, "rolled back %d tenants\n", n)
		if err != nil {
			return fmt.Errorf("migrate: rollback: %w", err)
		}
		return nil
	}
	var rep *migrate.Report
	tenants := 0
	err = lease.Hold(ctx, func(ctx context.Context) error {
		rep, err = r.Run(ctx, func(tenantID string, migrated int) {
			log.Info("migration: tenant done", "tenant", tenantID, "migrated", migrated)
			if tenants++; halt > 0 && tenants == halt {
				log.Info("migration: halted for a test")
				select {}
			}
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

// migrateFlags takes kanri migrate's own flags (-dry-run or -rollback,
// the mode; -samples N; -lease D) out of args and returns the rest, the
// server's settings.
func migrateFlags(args []string) (mode string, samples int, term time.Duration, rest []string, err error) {
	samples, term = 3, migrate.LeaseTerm
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if (name == "samples" || name == "lease") && !hasValue {
			if i+1 == len(args) {
				return "", 0, 0, nil, fmt.Errorf("-%s needs a value", name)
			}
			i++
			value = args[i]
		}
		switch name {
		case "dry-run", "rollback":
			if mode != "" && mode != name {
				return "", 0, 0, nil, errors.New("-dry-run and -rollback go alone")
			}
			mode = name
		case "samples":
			if samples, err = strconv.Atoi(value); err != nil || samples < 0 {
				return "", 0, 0, nil, fmt.Errorf("-samples %q: want a number of at least 0", value)
			}
		case "lease":
			if term, err = time.ParseDuration(value); err != nil || term < time.Second {
				return "", 0, 0, nil, fmt.Errorf("-lease %q: want a duration of at least 1s", value)
			}
		default:
			rest = append(rest, args[i])
		}
	}
	return mode, samples, term, rest, nil
}
