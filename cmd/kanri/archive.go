package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/archive"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/wiring"
)

// runArchive is "kanri archive [server flags]": one pass of the archive of
// records before they expire over every tenant that archives
// (internal/archive; docs/backups.md, "Archive"), on the store and blob
// store the server's settings name (the embedded store with the server
// stopped). It prints the archives it wrote, as JSON; a pass that another
// holds the lease of is refused.
func runArchive(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig(args, getenv, stderr)
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	ds, _, err := openStore(ctx, cfg, log)
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	defer ds.Close()
	blobs, err := openBlobs(ctx, cfg)
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	keys, err := archiveKeys(cfg)
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	svcs := wiring.New(store.New(ds, log, features.Schema()), log, nil, wiring.Options{Roles: features.Roles(), Blobs: blobs, ArchiveKeys: keys})
	if cfg.Store != StoreCosmos {
		// The embedded store has one owner, this process: a lease left by a
		// pass that was killed is nobody's.
		if _, err := svcs.Scheduler.ForgetLeases(ctx, archive.Lease); err != nil {
			return fmt.Errorf("archive: %w", err)
		}
	}
	// KANRI_TEST_ARCHIVE_HALT makes the pass stop for good at that step
	// (written, recorded, verified, deleting), so that a test kills it
	// (SIGKILL) there.
	if step := getenv("KANRI_TEST_ARCHIVE_HALT"); step != "" {
		svcs.Archives.HaltAt(func(at string) {
			if at == step {
				log.Info("archive: halted for a test", "step", at)
				select {}
			}
		})
	}
	done, err := svcs.Archives.Run(ctx)
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(done)
}
