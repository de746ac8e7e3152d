package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
	_ "time/tzdata" // every IANA time zone a tenant may choose, whatever the machine has

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/events"
	"github.com/kanri/kanri/internal/schedule"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/telemetry"
	"github.com/kanri/kanri/internal/upgrade"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web"
	"github.com/kanri/kanri/web/live"
)

// usageQueue is how many API calls may wait to be logged; more are
// counted as lost.
const usageQueue = 10_000

// newHandler wires the services and the web layer over st, bootstrapping
// the operator's tenant on the first start, and returns the workers the
// services need.
func newHandler(ctx context.Context, cfg Config, st *store.Store, bus events.Bus, streams *live.Running, log *slog.Logger, o observers) (http.Handler, []worker, error) {
	blobs, err := openBlobs(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	blobs.Observe(telemetry.BlobObserver(o.metrics, o.spans()))
	twoFactor, err := twoFactorKey(cfg)
	if err != nil {
		return nil, nil, err
	}
	archiveKeys, err := archiveKeys(cfg)
	if err != nil {
		return nil, nil, err
	}
	svcs := wiring.New(st, log, nil, wiring.Options{Roles: features.Roles(),
		Hasher: auth.Hasher{Cost: cfg.BcryptCost}, DNSServer: cfg.DNSServer, UsageQueue: usageQueue, UsageFlush: cfg.UsageFlush,
		Blobs: blobs, Events: bus, TwoFactorKey: twoFactor, ArchiveKeys: archiveKeys,
		RepairGrace: cfg.RepairGrace, HealthInterval: cfg.HealthInterval, DomainRecheck: cfg.DomainRecheck, SSOAllowPrivate: cfg.SSOAllowPrivate, WebhookAllowPrivate: cfg.WebhookAllowPrivate,
		Metrics: o.metrics,
	})
	work, served := features.Start(svcs)
	tenants, roles, users := svcs.Tenants, svcs.Roles, svcs.Users
	if n, err := roles.Seed(ctx); err != nil {
		return nil, nil, fmt.Errorf("seed the service catalog: %w", err)
	} else if n > 0 {
		log.Info("seeded the service catalog and role definitions", "written", n)
	}

	generated, created, err := auth.Bootstrap(ctx, tenants, users, roles, cfg.BootstrapEmail, cfg.BootstrapPassword)
	if err != nil {
		return nil, nil, fmt.Errorf("bootstrap: %w", err)
	}
	if created {
		log.Info("created the operator's tenant and its first administrator", "tenant", "privileged", "username", cfg.BootstrapEmail)
	}
	if generated != "" {
		// Shown once: the hash is all that is stored.
		log.Warn("generated the first administrator's password; change it after signing in",
			"tenant", "privileged", "username", cfg.BootstrapEmail, "password", generated)
	}
	// Before serving: users created meanwhile would not see the addresses
	// of existing users reserved yet.
	var upgrades []upgrade.Upgrade
	for _, f := range work {
		upgrades = append(upgrades, f.Upgrades...)
	}
	if err := upgrade.New(svcs.Deps, tenants).Run(ctx, upgrades); err != nil {
		return nil, nil, err
	}
	if cfg.Store != StoreCosmos {
		// The embedded store's file has one owner, this process, and it
		// serves nothing yet: every pending change of a user count was left
		// by a crash, and is settled now rather than after the grace.
		n, err := tenants.RepairUserCounts(ctx, 0)
		if err != nil {
			return nil, nil, fmt.Errorf("settle user counts: %w", err)
		}
		if n > 0 {
			log.Info("settled the user counts a crash left pending", "reversed", n)
		}
		// Likewise a backup marked running was stopped by a crash.
		if n, err := svcs.Backups.FailAbandoned(ctx, true); err != nil {
			return nil, nil, fmt.Errorf("mark interrupted backups: %w", err)
		} else if n > 0 {
			log.Error("backups interrupted by a crash marked failed", "count", n)
		}
	}
	secret, err := sessionSecret(cfg)
	if err != nil {
		return nil, nil, err
	}
	if cfg.RepairGrace < time.Minute {
		log.Warn("the repair of user counts may settle changes still in flight: a grace under a minute is for tests", "grace", cfg.RepairGrace)
	}
	// Work that must happen once across instances runs through the
	// scheduler: each slot is claimed by one instance.
	var ws []worker
	for _, f := range work {
		for _, w := range f.Work {
			run := w.Run
			if w.Periodic != nil {
				p := schedule.Periodic{Name: w.Name, Every: w.Every, Run: w.Periodic}
				run = func(ctx context.Context) error { return svcs.Scheduler.Every(ctx, log, p) }
			}
			ws = append(ws, worker{w.Name, run})
		}
	}
	return web.New(web.Config{
		Deps: svcs.Deps, Services: *svcs, Features: served, SessionSecret: secret,
		PublicURL: cfg.PublicURL, TrustedProxies: cfg.TrustedProxies, MaxActive: cfg.MaxActive, Streams: streams,
		Tracer: o.tracer, MetricsToken: cfg.MetricsToken,
	}), ws, nil
}

// observers are what tells the operator how the server does: its metrics
// and its tracer (nil when traces are off).
type observers struct {
	metrics *telemetry.Metrics
	tracer  trace.TracerProvider
}

// spans returns the tracer of the store's and blobs' calls, nil when
// traces are off.
func (o observers) spans() trace.Tracer {
	if o.tracer == nil {
		return nil
	}
	return o.tracer.Tracer(telemetry.TracerName)
}

// newObservers returns the server's metrics and the tracer cfg asks for,
// and the function that sends the traces still held and stops.
func newObservers(cfg Config, log *slog.Logger) (observers, func(context.Context) error, error) {
	t := cfg.Tracing
	t.Instance = schedule.InstanceName()
	tp, stop, err := telemetry.NewTracerProvider(t)
	if err != nil {
		return observers{}, nil, err
	}
	// The SDK tells of spans it could not send through OpenTelemetry's
	// one error handler, a global of its own: into the log, not stderr.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Warn("traces not sent", "err", err) }))
	return observers{metrics: telemetry.New(), tracer: tp}, stop, nil
}

// sessionSecret returns the secret of the session cookie: from
// KANRI_SESSION_SECRET, else from (or newly into) session.key in the data
// directory.
func sessionSecret(cfg Config) ([]byte, error) {
	secret, err := keyOf(cfg, cfg.SessionSecret, "session.key", 64, "KANRI_SESSION_SECRET")
	if err != nil {
		return nil, err
	}
	if len(secret) < 32 {
		return nil, errors.New("the session secret must be at least 32 bytes")
	}
	return secret, nil
}

// twoFactorKey returns the key that seals the TOTP secrets: from
// KANRI_TWO_FACTOR_KEY, else from (or newly into) twofactor.key in the
// data directory.
func twoFactorKey(cfg Config) ([]byte, error) {
	key, err := keyOf(cfg, cfg.TwoFactorKey, "twofactor.key", 32, "KANRI_TWO_FACTOR_KEY")
	if err != nil {
		return nil, err
	}
	if len(key) != 32 {
		return nil, errors.New("the two-factor key must be 32 bytes")
	}
	return key, nil
}

// keyOf returns a secret: the configured value decoded, else the file
// name in the data directory, made with n random bytes when missing.
func keyOf(cfg Config, configured, name string, n int, setting string) ([]byte, error) {
	if configured != "" {
		b, err := decodeSecret(configured)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", setting, err)
		}
		return b, nil
	}
	path := filepath.Join(cfg.DataDir, name)
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		return b, nil
	case errors.Is(err, os.ErrNotExist):
		b = make([]byte, n)
		rand.Read(b)
		if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return nil, fmt.Errorf("write %s: %w", name, err)
		}
		return b, nil
	default:
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
}

func decodeSecret(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if b, err := hex.DecodeString(s); err == nil {
		return b, nil
	}
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return nil, errors.New("must be hex or base64")
}
