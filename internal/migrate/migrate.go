// Package migrate brings every tenant's documents to their types' current
// schema versions in one batch (docs/data-model.md, "Schema versions"),
// with the same upgrades as the lazy migration on read (store.Upgrade),
// so that the two cannot disagree: a dry run that counts what is behind,
// with samples of the change and an estimate of the time; and a run that
// goes tenant by tenant, validates every upgraded document against its Go
// type before writing it, reports every failure by document, and records
// its position after each tenant, so that a run cut short (kill -9)
// resumes there, migrating nothing twice and skipping nothing.
package migrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/backup"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/schedule"
	"github.com/kanri/kanri/internal/tenant"
)

// Runner migrates the documents of every tenant.
type Runner struct {
	app.Deps
	tenants *tenant.Service
	// backups, when set, take a copy of what a run will change in each
	// tenant before it changes it, to roll back to.
	backups *backup.Service
	// sched, when set, holds the lease of a run started in the
	// background (Start), which jobs hands to the instance's worker.
	sched *schedule.Scheduler
	jobs  chan job
}

// New returns the batch migration of d's store over the tenants; with
// backups, each tenant's parts that a run changes are archived first;
// with sched, runs and rollbacks can be started in the background
// (Start), one at a time across instances, by the instance's Work.
func New(d app.Deps, tenants *tenant.Service, backups *backup.Service, sched *schedule.Scheduler) *Runner {
	r := &Runner{Deps: d, tenants: tenants, backups: backups, sched: sched}
	if sched != nil {
		r.jobs = make(chan job, 1) // a run waits there for the worker, lease held
	}
	return r
}

// Pending is what one tenant holds below the current versions.
type Pending struct {
	TenantID string `json:"tenantId"`
	// Types counts the documents behind by type ("container/type").
	Types   map[string]int `json:"types"`
	Samples []Sample       `json:"samples,omitempty"`
}

// Sample is one document behind, before and after its upgrade, with the
// values of the fields its type declares personal data masked (the shape
// of the change shows; whose data it is does not).
type Sample struct {
	Container string          `json:"container"`
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Before    json.RawMessage `json:"before"`
	After     json.RawMessage `json:"after"`
}

// Plan is a dry run's finding.
type Plan struct {
	// Tenants are those with documents behind.
	Tenants []Pending `json:"tenants"`
	// Documents are behind, of Scanned read, in Took.
	Documents int           `json:"documents"`
	Scanned   int           `json:"scanned"`
	Took      time.Duration `json:"took"`
	// Estimate is the run's: the dry run's reads again, and a write per
	// document behind at writeCost reads.
	Estimate time.Duration `json:"estimate"`
}

// writeCost is what the estimate takes a document's upgrade and write to
// cost, in reads of the dry run's: measured on the embedded store (100
// tenants of 1,000 users, batches of 100: 3.4 µs a document read by the
// dry run, 54 µs a document migrated), about 15.
const writeCost = 15

// DryRun counts, tenant by tenant, the documents below their types'
// current versions, keeping up to samples of them per tenant with their
// upgrade. It writes nothing.
func (r *Runner) DryRun(ctx context.Context, samples int) (*Plan, error) {
	start := time.Now()
	p := &Plan{}
	err := r.overTenants(ctx, "", 0, func(tenantID string) error {
		pend := Pending{TenantID: tenantID, Types: map[string]int{}}
		n, err := r.scan(ctx, tenantID, func(container string, t doctype.Type, it docstore.Item) error {
			pend.Types[container+"/"+t.Name]++
			if len(pend.Samples) < samples {
				after, _, err := r.Store.Upgrade(t.Name, it.Body)
				if err != nil {
					return err
				}
				pend.Samples = append(pend.Samples, Sample{Container: container, Type: t.Name, ID: it.ID, Before: masked(t, it.Body), After: masked(t, after)})
			}
			return nil
		})
		p.Scanned += n
		if len(pend.Types) > 0 {
			for _, c := range pend.Types {
				p.Documents += c
			}
			p.Tenants = append(p.Tenants, pend)
		}
		return err
	})
	p.Took = time.Since(start)
	if p.Scanned > 0 {
		p.Estimate = p.Took + time.Duration(p.Documents*writeCost)*p.Took/time.Duration(p.Scanned)
	}
	return p, err
}

// masked returns body with every string or number under t's personal
// data fields replaced by "•••".
func masked(t doctype.Type, body []byte) json.RawMessage {
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		return json.RawMessage(`"(not JSON)"`)
	}
	for _, path := range slices.Concat(t.Personal.Data, t.Personal.SubjectData) {
		at, name := doc, path
		for {
			head, rest, ok := strings.Cut(name, ".")
			if !ok {
				break
			}
			next, _ := at[strings.TrimSuffix(head, "[]")].(map[string]any)
			if next == nil {
				break
			}
			at, name = next, rest
		}
		name = strings.TrimSuffix(name, "[]")
		if v, ok := at[name]; ok {
			at[name] = mask(v)
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return json.RawMessage(`"(not JSON)"`)
	}
	return out
}

// mask replaces the strings and numbers of v.
func mask(v any) any {
	switch v := v.(type) {
	case string, float64:
		return "•••"
	case map[string]any:
		for k, x := range v {
			v[k] = mask(x)
		}
		return v
	case []any:
		for i, x := range v {
			v[i] = mask(x)
		}
		return v
	default:
		return v
	}
}

// scan passes every document of a tenant that is behind to fn, once
// (store.Each), and returns how many documents it read.
func (r *Runner) scan(ctx context.Context, tenantID string, fn func(container string, t doctype.Type, it docstore.Item) error) (int, error) {
	return r.Store.Each(ctx, tenantID, func(container string, t doctype.Type, it docstore.Item) error {
		behind, err := r.behind(t, it)
		if err != nil || !behind {
			return err
		}
		return fn(container, t, it)
	})
}

// Failure is a document the run could not migrate, and why.
type Failure struct {
	TenantID  string `json:"tenantId"`
	Container string `json:"container"`
	ID        string `json:"id"`
	Error     string `json:"error"`
}

// Report is what one call of Run did.
type Report struct {
	// Run names the run (Record.Run).
	Run      string        `json:"run"`
	Tenants  int           `json:"tenants"`
	Migrated int           `json:"migrated"`
	Failures []Failure     `json:"failures,omitempty"`
	Took     time.Duration `json:"took"`
	// Resumed says the run went on from where an earlier one stopped.
	Resumed bool `json:"resumed"`
	// Verified is the pass after the run, when it got there.
	Verified *Verification `json:"verified,omitempty"`
}

// Run migrates every tenant's documents that are behind, tenant by
// tenant, and records its position and counts after each one (the record
// in the _system partition, Last); it resumes the run an earlier call to
// the same versions left cut short, and starts a new one otherwise. Once
// every tenant is done it verifies: it counts every document again, and
// those still behind. progress, when set, is told of each tenant done.
func (r *Runner) Run(ctx context.Context, progress func(tenantID string, migrated int)) (*Report, error) {
	start := time.Now()
	by := audit.ActorFrom(ctx).UserName
	rec, resumed, err := r.begin(ctx, by)
	if err != nil {
		return nil, err
	}
	rep := &Report{Run: rec.Run, Resumed: resumed}
	before := 0
	keep := context.WithoutCancel(ctx) // what is done is recorded, even when the run is stopped
	err = r.overTenants(ctx, rec.Page, rec.Done, func(tenantID string) error {
		n, read, failed, err := r.migrateTenant(ctx, tenantID, rec.Run)
		if err != nil {
			return err
		}
		before += read
		rep.Tenants++
		rep.Migrated += n
		rep.Failures = append(rep.Failures, failed...)
		rec.Tenants++
		rec.Migrated += n
		rec.FailureCount += len(failed)
		for _, f := range failed {
			r.Logger.Error("migration: document not migrated", "tenant", f.TenantID, "container", f.Container, "id", f.ID, "err", f.Error)
			if len(rec.Failures) < maxFailures {
				rec.Failures = append(rec.Failures, f)
			}
		}
		if progress != nil {
			progress(tenantID, n)
		}
		return nil
	}, func(page string, done int) error {
		rec.Page, rec.Done = page, done
		return r.save(keep, rec)
	})
	if err == nil {
		rep.Verified, err = r.verify(ctx)
		if rep.Verified != nil {
			rep.Verified.Before = before
		}
	}
	rep.Took = time.Since(start)
	if err != nil {
		rec.State, rec.Error = StateStopped, err.Error()
		if serr := r.save(keep, rec); serr != nil {
			r.Logger.Error("migration: recording its stop", "err", serr)
		}
		return rep, err
	}
	rec.State, rec.Verified, rec.FinishedAt = StateDone, rep.Verified, kanri.NewTime(r.Now())
	return rep, r.save(keep, rec)
}

// verify counts every document of every tenant, and those still behind.
func (r *Runner) verify(ctx context.Context) (*Verification, error) {
	v := &Verification{}
	err := r.overTenants(ctx, "", 0, func(tenantID string) error {
		n, err := r.Store.Each(ctx, tenantID, func(_ string, t doctype.Type, it docstore.Item) error {
			behind, err := r.behind(t, it)
			if behind {
				v.Behind++
			}
			return err
		})
		v.After += n
		return err
	})
	return v, err
}

// behind reports whether a document of type t is below t's version.
func (r *Runner) behind(t doctype.Type, it docstore.Item) (bool, error) {
	var hd struct {
		SchemaVersion string `json:"schemaVersion"`
	}
	if err := json.Unmarshal(it.Body, &hd); err != nil {
		return false, fmt.Errorf("%s: %w", it.ID, err)
	}
	return r.Store.Behind(t.Name, hd.SchemaVersion), nil
}

// migrateTenant upgrades, validates and writes back one tenant's
// documents that are behind, and returns how many it wrote, how many
// documents it read, and the failures. It reads and writes them in batches of a container (one
// transaction, one round trip each); a batch whose write loses a race
// with another writer is done again a document at a time.
func (r *Runner) migrateTenant(ctx context.Context, tenantID, run string) (int, int, []Failure, error) {
	byContainer := map[string][]string{}
	types := map[string]doctype.Type{}
	var order, parts []string
	read, err := r.scan(ctx, tenantID, func(container string, t doctype.Type, it docstore.Item) error {
		if byContainer[container] == nil {
			order = append(order, container)
		}
		byContainer[container] = append(byContainer[container], it.ID)
		types[container+"\x00"+it.ID] = t
		if p := t.Backup.Part; p != "" && !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
		return nil
	})
	if err != nil {
		return 0, read, nil, err
	}
	if err := r.backUp(ctx, tenantID, run, parts); err != nil {
		return 0, read, nil, err
	}
	n := 0
	var failed []Failure
	for _, container := range order {
		ids := byContainer[container]
		for len(ids) > 0 {
			chunk := ids[:min(len(ids), docstore.MaxBatchOps)]
			ids = ids[len(chunk):]
			wrote, bad, err := r.migrateBatch(ctx, tenantID, container, chunk, types)
			if err != nil {
				// A race or a document gone: one at a time.
				wrote, bad = 0, nil
				for _, id := range chunk {
					ok, err := r.migrateDoc(ctx, tenantID, container, types[container+"\x00"+id], id)
					if err != nil {
						bad = append(bad, Failure{TenantID: tenantID, Container: container, ID: id, Error: err.Error()})
					} else if ok {
						wrote++
					}
				}
			}
			n += wrote
			failed = append(failed, bad...)
		}
	}
	return n, read, failed, nil
}

// migrateBatch reads the documents ids of a container in one batch,
// upgrades and validates them, and writes them back in another, each at
// the ETag read. A document that fails its validation is a failure, and
// the others are written. An error means nothing was written.
func (r *Runner) migrateBatch(ctx context.Context, tenantID, container string, ids []string, types map[string]doctype.Type) (int, []Failure, error) {
	c := r.Store.Port().Container(container)
	reads := make([]docstore.Op, len(ids))
	for i, id := range ids {
		reads[i] = docstore.Op{Kind: docstore.OpRead, ID: id}
	}
	res, err := c.Batch(ctx, tenantID, reads)
	if err != nil {
		return 0, nil, err
	}
	var writes []docstore.Op
	var failed []Failure
	for i, id := range ids {
		t := types[container+"\x00"+id]
		body, changed, err := r.Store.Upgrade(t.Name, res[i].Body)
		if err == nil && changed {
			err = valid(t, body)
		}
		if err != nil {
			failed = append(failed, Failure{TenantID: tenantID, Container: container, ID: id, Error: err.Error()})
			continue
		}
		if changed {
			writes = append(writes, docstore.Op{Kind: docstore.OpReplace, ID: id, Body: body, IfMatch: res[i].ETag})
		}
	}
	if len(writes) == 0 {
		return 0, failed, nil
	}
	if _, err := c.Batch(ctx, tenantID, writes); err != nil {
		return 0, nil, err
	}
	return len(writes), failed, nil
}

// migrateDoc reads one document, upgrades it, checks that it decodes into
// its Go type and writes it back if it has not changed meanwhile (then it
// is read again: a read may have upgraded it already). It reports whether
// it wrote.
func (r *Runner) migrateDoc(ctx context.Context, tenantID, container string, t doctype.Type, id string) (bool, error) {
	c := r.Store.Port().Container(container)
	for range 5 {
		it, err := c.Read(ctx, tenantID, id)
		if kanri.IsCode(err, kanri.ENOTFOUND) {
			return false, nil // deleted meanwhile
		}
		if err != nil {
			return false, err
		}
		body, changed, err := r.Store.Upgrade(t.Name, it.Body)
		if err != nil || !changed {
			return false, err
		}
		if err := valid(t, body); err != nil {
			return false, err
		}
		_, err = c.Replace(ctx, tenantID, id, body, it.ETag)
		if !kanri.IsCode(err, kanri.ESTALE) {
			return err == nil, err
		}
	}
	return false, fmt.Errorf("changed by others on every attempt")
}

// valid checks that an upgraded document decodes into its type's Go type.
func valid(t doctype.Type, body []byte) error {
	v := reflect.New(reflect.TypeOf(t.Of).Elem()).Interface()
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("the upgraded document is not a valid %s: %w", t.Name, err)
	}
	return nil
}

// tenantPage is how many tenants a page of the run holds.
const tenantPage = 100

// overTenants calls fn for each tenant, from the page at token, skipping
// the first skip tenants of it; after each tenant it calls at, when set,
// with the position: the page's token and how many of its tenants are done.
//
// A run from the start begins with the _system partition (the catalog,
// the role definitions), done again by a resumed run: it changes nothing
// done.
func (r *Runner) overTenants(ctx context.Context, token string, skip int, fn func(tenantID string) error, at ...func(page string, done int) error) error {
	if err := fn(kanri.SystemTenantID); err != nil {
		return fmt.Errorf("partition %s: %w", kanri.SystemTenantID, err)
	}
	for {
		page, next, err := r.tenants.List(ctx, tenant.ListFilter{Status: "all", Limit: tenantPage, Continuation: token})
		if err != nil {
			return err
		}
		ids := make([]string, 0, len(page)+1)
		for _, t := range page {
			ids = append(ids, t.ID)
		}
		for i, id := range ids {
			if i < skip {
				continue
			}
			if err := fn(id); err != nil {
				return fmt.Errorf("tenant %s: %w", id, err)
			}
			for _, f := range at {
				if err := f(token, i+1); err != nil {
					return err
				}
			}
		}
		if next == "" {
			return nil
		}
		token, skip = next, 0
		for _, f := range at {
			if err := f(token, 0); err != nil {
				return err
			}
		}
	}
}

// backUp archives the parts of a tenant that run will change, unless an
// earlier attempt of the same run did (before it changed anything).
// Types no part holds (sessions, say) are not copied.
func (r *Runner) backUp(ctx context.Context, tenantID, run string, parts []string) error {
	if r.backups == nil || len(parts) == 0 || tenantID == kanri.SystemTenantID {
		return nil
	}
	if _, err := r.backups.LatestSnapshot(ctx, tenantID, run); err == nil || !kanri.IsCode(err, kanri.ENOTFOUND) {
		return err
	}
	h, err := r.backups.Snapshot(ctx, tenantID, parts, run)
	if err != nil {
		return fmt.Errorf("the backup before the migration: %w", err)
	}
	r.Logger.Info("migration: backed up before migrating", "tenant", tenantID, "history", h.ID, "parts", parts)
	return nil
}

// Rollback restores, in every tenant, the copy the last run took before
// changing it (the parts it changed become what they were then: what was
// written in them since is gone too), and returns how many tenants it
// restored. A tenant without such a copy is left as it is. A rollback cut
// short is done again from the start: restoring a tenant twice gives the
// same copy.
func (r *Runner) Rollback(ctx context.Context) (int, error) {
	if r.backups == nil {
		return 0, errors.New("migrate: no backups to roll back from")
	}
	rec, err := r.Last(ctx)
	if err != nil {
		return 0, err
	}
	if rec == nil || rec.State == StateRolledBack {
		return 0, kanri.E(kanri.EINVALID, "migrations.nothing_to_roll_back")
	}
	keep := context.WithoutCancel(ctx)
	rec.State, rec.Error, rec.RolledBack = StateRollingBack, "", 0
	if err := r.save(keep, rec); err != nil {
		return 0, err
	}
	err = r.overTenants(ctx, "", 0, func(tenantID string) error {
		h, err := r.backups.LatestSnapshot(ctx, tenantID, rec.Run)
		if kanri.IsCode(err, kanri.ENOTFOUND) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := r.backups.Restore(ctx, tenantID, h.ID, h.Parts); err != nil {
			return err
		}
		r.backups.Wait()
		res, err := r.backups.LatestRestore(ctx, tenantID)
		if err != nil {
			return err
		}
		if res.Status != kanri.RestoreDone {
			return fmt.Errorf("the restore of %s ended %s: %s", h.ID, res.Status, res.ErrorMessage)
		}
		rec.RolledBack++
		r.Logger.Info("migration: rolled back", "tenant", tenantID, "history", h.ID)
		return r.save(keep, rec)
	})
	if err != nil {
		rec.Error = err.Error()
	} else {
		rec.State, rec.FinishedAt = StateRolledBack, kanri.NewTime(r.Now())
	}
	if serr := r.save(keep, rec); err == nil {
		err = serr
	}
	return rec.RolledBack, err
}
