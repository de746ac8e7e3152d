// Package schedule runs work that must happen once across every instance
// of Kanri: scheduled backups, service health checks, domain re-checks and
// file cleanups.
//
// It keeps its state in the document store, never in memory alone, so
// that instances agree without talking to each other:
//
//   - A run is claimed with a create-if-absent document whose id names the
//     job and its time slot. The first instance to create it runs the job;
//     every other gets a conflict and skips that slot.
//   - A running job holds a lease: a document with an ETag and an expiry,
//     renewed while it runs. Another instance may take the lease only once
//     it has expired, so a crashed holder blocks its work for one lease
//     term at most, and two runs of one job never overlap.
//
// Run documents and leases live in the backup-service container: in the
// _system partition for the operator's work, in a tenant's partition for
// that tenant's jobs.
package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// System is the partition of the operator's scheduled work.
const System = "_system"

// Document types of the scheduler.
const (
	TypeRun   = "schedule_run"
	TypeLease = "schedule_lease"
)

// runTTL is how long a run document is kept: long enough that no instance
// still considers its slot, short enough that they do not pile up.
const runTTL = 30 * 24 * time.Hour

// ErrHeld is returned by Acquire when another holder's lease has not
// expired.
var ErrHeld = errors.New("schedule: the lease is held by another holder")

// ErrLost is returned by Renew and Release when the lease was taken over
// (it had expired) or removed.
var ErrLost = errors.New("schedule: the lease was lost")

// Scheduler claims runs and leases in one document store. It is safe for
// concurrent use; every instance has its own, with its own Holder name.
type Scheduler struct {
	c      docstore.Container
	holder string
	clock  Clock
	count  func(work, outcome string)
}

// Outcomes of a slot of periodic work (Every), which CountRuns hears.
const (
	RunDone      = "done"      // this instance ran it
	RunFailed    = "failed"    // this instance ran it and it failed
	RunSkipped   = "skipped"   // its last run was still going
	RunElsewhere = "elsewhere" // another instance claimed it
)

// CountRuns has count told of every slot of periodic work that Every
// meets, and its outcome (RunDone...). It must be called before Every.
func (s *Scheduler) CountRuns(count func(work, outcome string)) { s.count = count }

// Clock tells the time and waits. Tests give a fake one that they advance.
type Clock interface {
	Now() time.Time
	// Sleep waits until the clock reads at least until, or ctx ends.
	Sleep(ctx context.Context, until time.Time) error
}

// New returns a scheduler over the store's backup-service container.
// holder names this instance in leases and run documents (host and
// process, for people reading them); a nil clock is the system's.
func New(ds docstore.Store, holder string, clock Clock) *Scheduler {
	if clock == nil {
		clock = SystemClock{}
	}
	return &Scheduler{c: ds.Container(kanri.ContainerBackup), holder: holder, clock: clock}
}

// Holder returns the name this instance claims runs and leases with.
func (s *Scheduler) Holder() string { return s.holder }

// Now returns the scheduler's time.
func (s *Scheduler) Now() time.Time { return s.clock.Now() }

// Run is the document that claims one slot of one job.
type Run struct {
	kanri.Doc
	Job       string     `json:"job"`
	Slot      kanri.Time `json:"slot"`
	ClaimedBy string     `json:"claimedBy"`
	ClaimedAt kanri.Time `json:"claimedAt"`
	TTL       int        `json:"ttl"`
}

// RunID returns the id of the run document of job's slot: the job and the
// slot's instant in UTC, so that every instance names it alike.
func RunID(job string, slot time.Time) string {
	return "run_" + job + "_" + slot.UTC().Format("20060102T150405Z")
}

// Claim takes the slot of job in partition scope for this instance. It
// reports false, without error, when another instance claimed it first.
func (s *Scheduler) Claim(ctx context.Context, scope, job string, slot time.Time) (bool, error) {
	if err := checkName(job); err != nil {
		return false, err
	}
	body, err := json.Marshal(Run{
		Doc: kanri.Doc{ID: RunID(job, slot), TenantID: scope, Type: TypeRun, SchemaVersion: "1.0"},
		Job: job, Slot: kanri.NewTime(slot), ClaimedBy: s.holder, ClaimedAt: kanri.NewTime(s.clock.Now()),
		TTL: int(runTTL / time.Second),
	})
	if err != nil {
		return false, err
	}
	_, err = s.c.Create(ctx, scope, body)
	switch {
	case err == nil:
		return true, nil
	case kanri.IsCode(err, kanri.ECONFLICT):
		return false, nil
	default:
		return false, fmt.Errorf("claim %s: %w", RunID(job, slot), err)
	}
}

// Claimed returns the run document of job's slot; ENOTFOUND if nobody
// claimed it.
func (s *Scheduler) Claimed(ctx context.Context, scope, job string, slot time.Time) (*Run, error) {
	it, err := s.c.Read(ctx, scope, RunID(job, slot))
	if err != nil {
		return nil, err
	}
	var r Run
	if err := json.Unmarshal(it.Body, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

func checkName(name string) error {
	if name == "" || strings.ContainsAny(name, "/\\?#") {
		return fmt.Errorf("schedule: bad job or lease name %q", name)
	}
	return nil
}

// InstanceName names this process for leases and run documents: its host
// name and process id.
func InstanceName() string {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown"
	}
	return fmt.Sprintf("%s/%d", host, os.Getpid())
}
