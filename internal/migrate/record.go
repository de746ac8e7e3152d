package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"sort"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// TypeMigration is the record of the last batch migration.
const TypeMigration = "migration"

// recordID is the id of the one record: the last run, or the one going on.
const recordID = "migration"

// The states of a run.
const (
	StateRunning     = "running"      // going on, or cut short (kill -9): run again to resume
	StateStopped     = "stopped"      // stopped with an error or by a shutdown: run again to resume
	StateDone        = "done"         // every tenant done
	StateRollingBack = "rolling-back" // its archives being restored
	StateRolledBack  = "rolled-back"  // its archives restored
)

// maxFailures is how many failures the record keeps (the log has all).
const maxFailures = 100

// Record is the last run of the batch migration, or the one going on:
// what it migrates to, where it is (the page of tenants, its continuation
// token, "" for the first, and how many of the page's tenants are done),
// what it did so far, and the verification after it. Every instance reads
// it: it is the progress the operator's page shows.
type Record struct {
	kanri.Doc
	// Run names the run: its archives' trigger id.
	Run      string            `json:"run"`
	Versions map[string]string `json:"versions"`
	State    string            `json:"state"`
	// By is who started it ("" for the command).
	By         string     `json:"by,omitempty"`
	StartedAt  kanri.Time `json:"startedAt"`
	UpdatedAt  kanri.Time `json:"updatedAt"`
	FinishedAt kanri.Time `json:"finishedAt,omitzero"`
	Page       string     `json:"page"`
	Done       int        `json:"done"`
	// Tenants and Migrated count the tenants done and the documents
	// written, over every attempt of the run.
	Tenants  int `json:"tenants"`
	Migrated int `json:"migrated"`
	// Failures are the first maxFailures documents not migrated, of
	// FailureCount.
	Failures     []Failure `json:"failures,omitempty"`
	FailureCount int       `json:"failureCount"`
	// Verified is the pass after the run, once done.
	Verified *Verification `json:"verified,omitempty"`
	// RolledBack counts the tenants restored by a rollback.
	RolledBack int `json:"rolledBack"`
	// Error is why the run or its rollback stopped.
	Error string `json:"error,omitempty"`
}

// Verification is the pass after a run: the documents it read before
// migrating (Before) and after (After: the records of the archives it took
// first are more, and others may have written meanwhile), and those still
// behind (failures, or written by an instance of an older release
// meanwhile).
type Verification struct {
	Before int `json:"before"`
	After  int `json:"after"`
	Behind int `json:"behind"`
}

// DocTypes are the document types of the batch migration.
var DocTypes = []doctype.Type{{
	Name: TypeMigration, Container: kanri.ContainerTenant, Of: &Record{},
	Backup: doctype.NotBackedUp("the operator's record of the last migration, in the _system partition"),
}}

func (r *Runner) records() *store.Repo[Record, *Record] {
	return store.Of[Record](r.Store.Tenant(kanri.SystemTenantID), kanri.ContainerTenant, TypeMigration)
}

// Last returns the record of the last run, or nil when there was none.
func (r *Runner) Last(ctx context.Context) (*Record, error) {
	rec, err := r.records().Get(ctx, recordID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, nil
	}
	return rec, err
}

// versions are the current versions of every type.
func (r *Runner) versions() map[string]string {
	v := map[string]string{}
	for _, t := range r.Store.Types().Types() {
		v[t.Name] = t.Version()
	}
	return v
}

// begin returns the run to go on with: the last one when it is to the
// current versions and was cut short (resumed), or a new one.
func (r *Runner) begin(ctx context.Context, by string) (rec *Record, resumed bool, err error) {
	last, err := r.Last(ctx)
	if err != nil {
		return nil, false, err
	}
	versions := r.versions()
	if last != nil && maps.Equal(last.Versions, versions) && (last.State == StateRunning || last.State == StateStopped) {
		last.State, last.Error = StateRunning, ""
		return last, true, r.save(ctx, last)
	}
	now := r.Now()
	rec = &Record{Doc: kanri.Doc{ID: recordID}, Run: runID(versions, now), Versions: versions, State: StateRunning, By: by, StartedAt: kanri.NewTime(now)}
	return rec, false, r.save(ctx, rec)
}

// runID names a run by the versions it migrates to and its start.
func runID(versions map[string]string, at time.Time) string {
	keys := make([]string, 0, len(versions))
	for k, v := range versions {
		keys = append(keys, k+"="+v)
	}
	sort.Strings(keys)
	sum := sha256.Sum256([]byte(strings.Join(keys, ",")))
	return "migration_" + hex.EncodeToString(sum[:6]) + "_" + at.UTC().Format("20060102T150405")
}

// save records the run as it is now, over whatever was there.
func (r *Runner) save(ctx context.Context, rec *Record) error {
	rec.ETag = ""
	rec.UpdatedAt = kanri.NewTime(r.Now())
	return r.records().Upsert(ctx, rec)
}
