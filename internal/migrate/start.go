package migrate

import (
	"context"
	"errors"
	"time"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/schedule"
)

// Lease is the lease, in the _system partition, that makes one batch
// migration or rollback run at a time across instances and the command;
// LeaseTerm is how long one cut short (kill -9) keeps the next waiting.
const (
	Lease     = "migration"
	LeaseTerm = 2 * time.Minute
)

// What Start starts.
const (
	OpRun      = "run"
	OpRollback = "rollback"
)

// job is a run or a rollback started from the console, with its lease.
type job struct {
	op    string
	lease *schedule.Lease
	actor audit.Actor
}

// Work is the instance's runner of the migrations and rollbacks started
// from the console (Start): one at a time, on the instance's lifetime, so
// that a shutdown stops it where a run resumes.
func (r *Runner) Work() app.Work {
	return app.Work{Name: "batch migration", Run: r.serve}
}

func (r *Runner) serve(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case j := <-r.jobs:
			r.do(ctx, j)
		}
	}
}

// do runs j holding its lease, and logs how it ended (the record says
// it too).
func (r *Runner) do(ctx context.Context, j job) {
	ctx = audit.WithActor(ctx, j.actor)
	err := j.lease.Hold(ctx, func(ctx context.Context) error {
		if j.op == OpRollback {
			n, err := r.Rollback(ctx)
			r.Logger.Info("migration: rollback ended", "tenants", n, "err", err)
			return err
		}
		rep, err := r.Run(ctx, func(tenantID string, migrated int) {
			r.Logger.Info("migration: tenant done", "tenant", tenantID, "migrated", migrated)
		})
		if rep != nil {
			r.Logger.Info("migration: run ended", "run", rep.Run, "tenants", rep.Tenants, "migrated", rep.Migrated, "failures", len(rep.Failures), "verified", rep.Verified, "err", err)
		}
		return err
	})
	if err != nil && ctx.Err() == nil {
		r.Logger.Error("migration: "+j.op+" stopped", "err", err)
	}
}

// Start has this instance run op (OpRun or OpRollback) in the background,
// and records who started it in the audit trail. It fails with ECONFLICT
// when a run or rollback is going on here or elsewhere (the lease is
// held), and with EINVALID when there is nothing to roll back.
func (r *Runner) Start(ctx context.Context, op string) error {
	if r.sched == nil || r.jobs == nil {
		return errors.New("migrate: this runner has no scheduler to run in the background")
	}
	if op == OpRollback {
		if last, err := r.Last(ctx); err != nil {
			return err
		} else if last == nil || last.State == StateRolledBack {
			return kanri.E(kanri.EINVALID, "migrations.nothing_to_roll_back")
		}
	}
	lease, err := r.sched.Acquire(ctx, kanri.SystemTenantID, Lease, "batch migration ("+op+")", LeaseTerm)
	if errors.Is(err, schedule.ErrHeld) {
		return kanri.Wrap(kanri.ECONFLICT, "migrations.busy", err)
	}
	if err != nil {
		return err
	}
	// Recorded before the worker starts, so that the run's counts never
	// depend on when the record is written. The lease makes the worker
	// idle and its one slot free.
	r.Audit.Record(ctx, audit.Entry{
		TenantID: kanri.SystemTenantID, Action: "migration." + op,
		Resource: kanri.AuditResource{Type: kanri.AuditMigration, ID: Lease},
	})
	select {
	case r.jobs <- job{op: op, lease: lease, actor: audit.ActorFrom(ctx)}:
		return nil
	default:
		_ = lease.Release(context.WithoutCancel(ctx))
		return kanri.E(kanri.ECONFLICT, "migrations.busy")
	}
}

// Busy returns who holds the migration's lease, or nil when nobody does.
func (r *Runner) Busy(ctx context.Context) (*schedule.LeaseInfo, error) {
	if r.sched == nil {
		return nil, nil
	}
	return r.sched.Holding(ctx, kanri.SystemTenantID, Lease)
}
