package backup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// A restore's dry run compares an archive with the tenant. A large
// tenant's takes a while (every document of the archive and of the tenant
// is read), so it runs in the background and is kept in the store: its
// record (TypeDryRun) says how far it has come while it runs, then what
// the restore would change per part; the changes themselves are in
// documents of changesPerDoc each (TypeDryRunChanges). Any instance shows
// it, a page of changes costs a read or two, and the restore form shown
// again costs nothing more. A restore of the tenant, and an erasure,
// delete the tenant's dry runs (they are out of date, and their changes
// name people).

// Document types of dry runs.
const (
	TypeDryRun        = "backup_dry_run"
	TypeDryRunChanges = "backup_dry_run_changes"
)

// A dry run's states.
const (
	DryRunRunning = "running"
	DryRunDone    = "done"
	DryRunFailed  = "failed"
)

// A running dry run's phases.
const (
	DryRunReading   = "reading"   // the archive, verified as it is read
	DryRunComparing = "comparing" // the tenant's documents with the archive's
	DryRunWriting   = "writing"   // its changes
)

// dryRunTTL is how long a dry run is kept after it was computed: until
// then its pages and the restore form cost a read; the page says when it
// compared and can compare again.
const dryRunTTL = time.Hour

// dryRunStale is how long a running dry run's record may go unwritten
// before it is taken for one a stopped instance left, and started again
// by the next visit. A running one writes its progress every second
// (Service.dryRunBeat).
const dryRunStale = 30 * time.Second

// changesPerDoc is how many changes one TypeDryRunChanges document holds
// (about 60 KB); a variable for tests.
var changesPerDoc = 500

// dryRunWait is how long a page waits for a dry run it started before it
// shows its progress instead: a small tenant's result shows at once.
const dryRunWait = 2 * time.Second

// DryRunRecord is a restore's dry run: an archive's comparison with the
// tenant, for one restorer (a restore keeps the restorer's own user and
// roles) and a choice of parts.
type DryRunRecord struct {
	kanri.Doc
	HistoryID string   `json:"historyId"`
	Parts     []string `json:"parts"`
	StartedBy string   `json:"startedBy"`
	// Generation names this computation's changes documents: comparing
	// again writes new ones.
	Generation string     `json:"generation"`
	Status     string     `json:"status"`
	Phase      string     `json:"phase,omitempty"`
	Count      int        `json:"count"`
	StartedAt  kanri.Time `json:"startedAt"`
	// UpdatedAt is when a running dry run last said how far it had come.
	UpdatedAt  kanri.Time `json:"updatedAt"`
	ComputedAt kanri.Time `json:"computedAt"`
	Diffs      []PartDiff `json:"diffs"`
	Total      int        `json:"total"`
	// ErrorKey and ErrorDetail say why a dry run failed: the message of
	// a damaged archive and what is wrong with it.
	ErrorKey    string `json:"errorKey,omitempty"`
	ErrorDetail string `json:"errorDetail,omitempty"`
	TTL         int    `json:"ttl,omitempty"`
}

// TTLField implements kanri.Expiring.
func (r *DryRunRecord) TTLField() (*int, int) { return &r.TTL, int(dryRunTTL / time.Second) }

// DryRunChanges holds changesPerDoc changes of a dry run, from
// Index*changesPerDoc.
type DryRunChanges struct {
	kanri.Doc
	Index   int      `json:"index"`
	Changes []Change `json:"changes"`
	TTL     int      `json:"ttl,omitempty"`
}

// TTLField implements kanri.Expiring: the changes outlive their record.
func (c *DryRunChanges) TTLField() (*int, int) {
	return &c.TTL, int((dryRunTTL + 10*time.Minute) / time.Second)
}

func (s *Service) dryRunRecords(tenantID string) *store.Repo[DryRunRecord, *DryRunRecord] {
	return store.Of[DryRunRecord](s.Store.Tenant(tenantID), kanri.ContainerBackup, TypeDryRun)
}

func (s *Service) dryRunChanges(tenantID string) *store.Repo[DryRunChanges, *DryRunChanges] {
	return store.Of[DryRunChanges](s.Store.Tenant(tenantID), kanri.ContainerBackup, TypeDryRunChanges)
}

// dryRunID names the dry run of an archive for a restorer and parts.
func dryRunID(historyID, userID string, parts []string) string {
	sum := sha256.Sum256([]byte(strings.Join([]string{historyID, userID, strings.Join(parts, ",")}, "\x00")))
	return "dryrun_" + hex.EncodeToString(sum[:16])
}

// changesID names a dry run's changes document.
func changesID(r *DryRunRecord, index int) string {
	return fmt.Sprintf("%s_%s_%d", r.ID, r.Generation, index)
}

// errSuperseded stops a dry run whose record was replaced (compared again
// elsewhere) or deleted (by a restore) while it ran.
var errSuperseded = errors.New("the dry run was superseded")

// dryRunning are the dry runs computed on this instance, by record id and
// generation, each closed when it ends.
type dryRunning struct {
	mu   sync.Mutex
	done map[string]chan struct{}
}

func (d *dryRunning) start(key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done == nil {
		d.done = map[string]chan struct{}{}
	}
	d.done[key] = make(chan struct{})
}

func (d *dryRunning) end(key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	close(d.done[key])
	delete(d.done, key)
}

func (d *dryRunning) get(key string) chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.done[key]
}

// DryRun returns the dry run of restoring the chosen parts of an archive
// into the tenant, for the restorer of ctx, with one page of its changes
// from offset. When none is kept, or fresh asks to compare again, it is
// started in the background and waited for up to dryRunWait; one still
// running is returned with its progress. The archive's manifest and the
// parts are checked at once (EINVALID); a damaged part fails the dry run
// itself (Status, Err).
func (s *Service) DryRun(ctx context.Context, tenantID, historyID string, parts []string, offset, limit int, fresh bool) (*DryRun, error) {
	m, err := s.Archive(ctx, tenantID, historyID)
	if err != nil {
		return nil, err
	}
	if parts, err = s.restorable(m, parts); err != nil {
		return nil, err
	}
	userID := audit.ActorFrom(ctx).UserID
	repo := s.dryRunRecords(tenantID)
	id := dryRunID(historyID, userID, parts)
	r, err := repo.Get(ctx, id)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		r, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	if r == nil || fresh && r.Status != DryRunRunning || r.Status == DryRunRunning && s.Now().Sub(r.UpdatedAt.Time) >= dryRunStale {
		started, err := s.startDryRun(ctx, tenantID, historyID, parts, userID, m, r)
		if err != nil {
			return nil, err
		}
		r = started
		if done := s.dryRunning.get(r.ID + r.Generation); done != nil && s.dryRunWait > 0 {
			t := time.NewTimer(s.dryRunWait)
			select {
			case <-done:
			case <-t.C:
			case <-ctx.Done():
			}
			t.Stop()
			if now, err := repo.Get(ctx, id); err == nil {
				r = now
			} else if !kanri.IsCode(err, kanri.ENOTFOUND) {
				return nil, err
			} // deleted meanwhile (a restore): shown running, started again by the next visit
		}
	}
	return s.dryRunPage(ctx, tenantID, r, m, offset, limit)
}

// startDryRun records a new computation of a dry run in place of old (nil:
// none) and starts it in the background. When another request started
// one meanwhile, that one is returned.
func (s *Service) startDryRun(ctx context.Context, tenantID, historyID string, parts []string, userID string, m *Manifest, old *DryRunRecord) (*DryRunRecord, error) {
	now := kanri.NewTime(s.Now())
	r := &DryRunRecord{
		Doc:       kanri.Doc{ID: dryRunID(historyID, userID, parts)},
		HistoryID: historyID, Parts: parts, StartedBy: userID,
		Generation: newID("")[:12],
		Status:     DryRunRunning, Phase: DryRunReading,
		StartedAt: now, UpdatedAt: now,
	}
	repo := s.dryRunRecords(tenantID)
	var err error = kanri.E(kanri.ENOTFOUND, "error.not_found")
	if old != nil {
		r.ETag = old.ETag
		err = repo.Replace(ctx, r)
	}
	if kanri.IsCode(err, kanri.ENOTFOUND) { // none, or deleted since it was read
		r.ETag = ""
		err = repo.Create(ctx, r)
	}
	if kanri.IsCode(err, kanri.ESTALE) || kanri.IsCode(err, kanri.ECONFLICT) {
		return repo.Get(ctx, r.ID) // another request's
	}
	if err != nil {
		return nil, err
	}
	if old != nil && old.Status == DryRunDone {
		stale := *old
		s.background(func(bg context.Context) { s.deleteChanges(bg, tenantID, &stale) })
	}
	run := *r
	key := r.ID + r.Generation
	s.dryRunning.start(key)
	s.background(func(bg context.Context) {
		defer s.dryRunning.end(key)
		s.computeDryRun(bg, tenantID, &run, m)
	})
	return r, nil
}

// dryRunProgress is how far a running dry run has come: set by the
// comparison for each document, read by its heartbeat.
type dryRunProgress struct {
	mu    sync.Mutex
	phase string
	count int
}

func (p *dryRunProgress) tick(phase string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if phase != p.phase {
		p.phase, p.count = phase, 0
	}
	p.count++
}

func (p *dryRunProgress) get() (string, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.phase, p.count
}

// computeDryRun compares the archive with the tenant for r, then records
// its result. Its progress is written into r every dryRunBeat by a
// goroutine of its own (heartbeat), never from inside the store's dump
// (on bbolt a write there can wait for the dump's own read transaction).
// It stops when r is replaced or deleted meanwhile.
func (s *Service) computeDryRun(ctx context.Context, tenantID string, r *DryRunRecord, m *Manifest) {
	progress := &dryRunProgress{phase: DryRunReading}
	var superseded atomic.Bool
	stop := s.heartbeat(ctx, tenantID, r, progress, &superseded)
	tick := func(phase string) error {
		progress.tick(phase)
		if superseded.Load() {
			return errSuperseded
		}
		return ctx.Err()
	}
	diffs, changes, err := s.compare(ctx, tenantID, r.HistoryID, m, r.Parts, keeper{userID: r.StartedBy}, tick)
	written := false
	if err == nil {
		progress.tick(DryRunWriting)
		written, err = true, s.writeChanges(ctx, tenantID, r, changes, &superseded)
	}
	stop() // r is this goroutine's again
	repo := s.dryRunRecords(tenantID)
	if superseded.Load() || errors.Is(err, errSuperseded) || ctx.Err() != nil {
		// Compared again, restored, or the instance stops: the record
		// says what it knows; changes written for nothing go.
		if written && superseded.Load() {
			r.Total = len(changes)
			s.deleteChanges(context.WithoutCancel(ctx), tenantID, r)
		}
		return
	}
	r.Phase, r.Count, r.ComputedAt, r.UpdatedAt = "", 0, kanri.NewTime(s.Now()), kanri.NewTime(s.Now())
	if err != nil {
		r.Status = DryRunFailed
		if kanri.IsCode(err, kanri.EINVALID) {
			var ke *kanri.Error
			if errors.As(err, &ke) && ke.Err != nil {
				r.ErrorDetail = ke.Err.Error()
			}
			r.ErrorKey, _ = kanri.ErrorMessage(err)
		} else {
			r.ErrorKey = "backups.error.dry_run_failed"
			s.Logger.Error("restore dry run failed", "tenant", tenantID, "history", r.HistoryID, "err", err)
		}
	} else {
		r.Status, r.Diffs, r.Total = DryRunDone, diffs, len(changes)
	}
	switch err := repo.Replace(ctx, r); {
	case kanri.IsCode(err, kanri.ESTALE) || kanri.IsCode(err, kanri.ENOTFOUND):
		s.deleteChanges(ctx, tenantID, r) // superseded at the last moment
	case err != nil:
		s.Logger.Error("restore dry run not recorded", "tenant", tenantID, "history", r.HistoryID, "err", err)
	}
}

// heartbeat writes a running dry run's progress into r every dryRunBeat
// until stop is called (which waits for it). A write that finds r
// replaced or deleted sets superseded and ends it; another failure (the
// store busy) is tried again at the next beat.
func (s *Service) heartbeat(ctx context.Context, tenantID string, r *DryRunRecord, p *dryRunProgress, superseded *atomic.Bool) (stop func()) {
	repo := s.dryRunRecords(tenantID)
	return every(ctx, s.dryRunBeat, func() bool {
		r.Phase, r.Count = p.get()
		r.UpdatedAt = kanri.NewTime(s.Now())
		err := repo.Replace(ctx, r)
		if kanri.IsCode(err, kanri.ESTALE) || kanri.IsCode(err, kanri.ENOTFOUND) {
			superseded.Store(true)
			return false
		}
		if err != nil && ctx.Err() == nil {
			s.Logger.Warn("restore dry run: progress not written", "tenant", tenantID, "history", r.HistoryID, "err", err)
		}
		return true
	})
}

// writeChanges stores a dry run's changes, changesPerDoc a document, a
// few documents a transaction (at most changesBatch, and about
// changesBatchBytes), until superseded.
func (s *Service) writeChanges(ctx context.Context, tenantID string, r *DryRunRecord, changes []Change, superseded *atomic.Bool) error {
	repo := s.dryRunChanges(tenantID)
	var ops []docstore.Op
	size := 0
	flush := func() error {
		if len(ops) == 0 {
			return nil
		}
		if superseded.Load() {
			return errSuperseded
		}
		if _, err := s.Store.Tenant(tenantID).Batch(ctx, kanri.ContainerBackup, ops); err != nil {
			return err
		}
		ops, size = ops[:0], 0
		return nil
	}
	for i := 0; i*changesPerDoc < len(changes); i++ {
		doc := &DryRunChanges{Doc: kanri.Doc{ID: changesID(r, i)}, Index: i, Changes: changes[i*changesPerDoc : min(len(changes), (i+1)*changesPerDoc)]}
		op, err := repo.Op(docstore.OpUpsert, doc)
		if err != nil {
			return err
		}
		if len(ops) > 0 && size+len(op.Body) > changesBatchBytes {
			if err := flush(); err != nil {
				return err
			}
		}
		ops, size = append(ops, op), size+len(op.Body)
		if len(ops) == changesBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// changesBatch and changesBatchBytes bound the changes documents one
// transaction writes, so that it stays well under the stores' limits
// (Cosmos DB's transactional batch: 100 operations, 2 MB).
const (
	changesBatch      = 10
	changesBatchBytes = 1 << 20
)

// dryRunPage returns the dry run of r with its changes from offset.
func (s *Service) dryRunPage(ctx context.Context, tenantID string, r *DryRunRecord, m *Manifest, offset, limit int) (*DryRun, error) {
	out := &DryRun{
		Manifest: m, Status: r.Status, Phase: r.Phase, Count: r.Count, Of: m.Documents(),
		Parts: r.Diffs, Offset: offset, Total: r.Total, ComputedAt: r.ComputedAt.Time,
	}
	switch r.Status {
	case DryRunFailed:
		out.Err = kanri.Wrap(kanri.EINVALID, r.ErrorKey, errors.New(r.ErrorDetail))
		if r.ErrorDetail == "" {
			out.Err = kanri.E(kanri.EINVALID, r.ErrorKey)
		}
		return out, nil
	case DryRunRunning:
		return out, nil
	}
	repo := s.dryRunChanges(tenantID)
	for at := offset; at < min(r.Total, offset+limit); {
		doc, err := repo.Get(ctx, changesID(r, at/changesPerDoc))
		if kanri.IsCode(err, kanri.ENOTFOUND) {
			break // expired with its record
		}
		if err != nil {
			return nil, err
		}
		from := at - doc.Index*changesPerDoc
		if from < 0 || from >= len(doc.Changes) {
			break
		}
		page := doc.Changes[from:min(len(doc.Changes), from+offset+limit-at)]
		out.Changes = append(out.Changes, page...)
		at += len(page)
	}
	return out, nil
}

// deleteChanges deletes the changes documents of r (those already gone
// aside), a batch at a time.
func (s *Service) deleteChanges(ctx context.Context, tenantID string, r *DryRunRecord) {
	var ids []string
	for i := 0; i*changesPerDoc < r.Total; i++ {
		ids = append(ids, changesID(r, i))
	}
	if err := s.deleteAll(ctx, tenantID, ids); err != nil {
		s.Logger.Warn("a restore dry run's changes not deleted", "tenant", tenantID, "dryRun", r.ID, "err", err)
	}
}

// deleteAll deletes documents of the backup container, a batch at a time
// (the restore's batcher: one already gone is no error).
func (s *Service) deleteAll(ctx context.Context, tenantID string, ids []string) error {
	b := &batcher{s: s, tenantID: tenantID}
	for _, id := range ids {
		if err := b.add(ctx, kanri.ContainerBackup, docstore.Op{Kind: docstore.OpDelete, ID: id}, nil); err != nil {
			return err
		}
	}
	return b.flush(ctx)
}

// ForgetDryRuns deletes the tenant's dry runs and every changes document
// (those of a record gone or a computation abandoned too): after a restore
// they are out of date, and an erasure must not leave a person's name in
// them. A dry run running meanwhile stops at its next write.
func (s *Service) ForgetDryRuns(ctx context.Context, tenantID string) error {
	c := s.Store.Port().Container(kanri.ContainerBackup)
	var ids []string
	for _, typ := range []string{TypeDryRun, TypeDryRunChanges} {
		q := docstore.Query{Type: typ, Limit: docstore.MaxPageSize}
		for {
			page, err := c.Query(ctx, tenantID, q)
			if err != nil {
				return err
			}
			for _, it := range page.Items {
				ids = append(ids, it.ID)
			}
			if q.Continuation = page.Continuation; q.Continuation == "" {
				break
			}
		}
	}
	return s.deleteAll(ctx, tenantID, ids)
}
