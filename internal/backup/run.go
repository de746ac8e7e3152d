package backup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/events"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/schedule"
)

// progressEvery is how often a running backup writes its progress.
const progressEvery = time.Second

// concurrentRuns is how many due backups one instance runs at once.
const concurrentRuns = 2

// Topic is the events topic of a tenant's backups: runs' progress and
// ends.
const Topic = "backups"

// errUnchanged stops a Modify that has nothing to change.
var errUnchanged = errors.New("unchanged")

// busy is the error of a backup or restore asked for while another runs.
func busy(err error) error {
	var held *schedule.HeldError
	if errors.As(err, &held) {
		return kanri.Wrap(kanri.ECONFLICT, "backups.error.busy", err)
	}
	return err
}

// RunNow starts a backup of the job at once, for the person in ctx. It
// returns the run as started; the backup goes on in the background (see
// Wait) and its progress is published on the tenant's events.
func (s *Service) RunNow(ctx context.Context, tenantID, jobID string) (*kanri.BackupHistory, error) {
	j, err := s.Job(ctx, tenantID, jobID)
	if err != nil {
		return nil, err
	}
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, err
	}
	lease, err := s.sched.Acquire(ctx, tenantID, leaseName, "backup "+j.Name, leaseTerm)
	if err != nil {
		return nil, busy(err)
	}
	h, err := s.start(ctx, tenantID, j, kanri.TriggerManual, audit.ActorFrom(ctx).UserID)
	if err != nil {
		lease.Release(context.WithoutCancel(ctx))
		return nil, err
	}
	s.Audit.Record(ctx, audit.Entry{
		TenantID: tenantID, Action: "backup.run",
		Resource: kanri.AuditResource{Type: kanri.AuditBackup, ID: h.ID, Name: j.Name},
	})
	s.background(func(bg context.Context) {
		_ = lease.Hold(bg, func(ctx context.Context) error { return s.execute(ctx, tenantID, j, h) })
	})
	return h, nil
}

// background runs fn in a goroutine that Wait waits for, in a context
// that Close cancels.
func (s *Service) background(fn func(ctx context.Context)) {
	s.mu.Lock()
	ctx := s.bg
	s.mu.Unlock()
	s.running.Go(func() { fn(ctx) })
}

// Wait waits until the backups and restores started in the background
// have ended.
func (s *Service) Wait() { s.running.Wait() }

// start writes the run's history, as running.
func (s *Service) start(ctx context.Context, tenantID string, j *kanri.BackupJob, trigger, by string) (*kanri.BackupHistory, error) {
	now := s.Now()
	h := &kanri.BackupHistory{
		Doc:   kanri.Doc{ID: "history_" + now.UTC().Format("20060102150405") + "_" + strings.TrimPrefix(newID(""), "")[:12]},
		JobID: j.ID, JobName: j.Name, Status: kanri.BackupRunning, StartedAt: kanri.NewTime(now),
		Parts: j.Parts(), Trigger: trigger, StartedBy: by,
	}
	if err := s.Store.Tenant(tenantID).BackupHistory().Create(ctx, h); err != nil {
		return nil, err
	}
	s.publish(ctx, tenantID, "backup.started", h)
	return h, nil
}

func (s *Service) publish(ctx context.Context, tenantID, kind string, h *kanri.BackupHistory) {
	s.announce(ctx, tenantID, kind, map[string]any{"historyId": h.ID, "jobId": h.JobID, "status": h.Status, "items": h.ItemsBackedUp, "size": h.BackupSize})
}

// announce tells the tenant's open backups pages (events of Topic) that a
// run or a restore changed.
func (s *Service) announce(ctx context.Context, tenantID, kind string, what map[string]any) {
	if s.bus == nil {
		return
	}
	data, _ := json.Marshal(what)
	if _, err := s.bus.Publish(context.WithoutCancel(ctx), events.Event{TenantID: tenantID, Topic: Topic, Kind: kind, Data: data}); err != nil {
		s.Logger.Warn("backup progress not published", "tenant", tenantID, "kind", kind, "err", err)
	}
}

// execute makes the archive of run h and records how it ended.
func (s *Service) execute(ctx context.Context, tenantID string, j *kanri.BackupJob, h *kanri.BackupHistory) error {
	m, err := s.archive(ctx, tenantID, j, h)
	now := s.Now()
	h.CompletedAt = kanri.NewTime(now)
	h.Duration = int(now.Sub(h.StartedAt.Time).Round(time.Second) / time.Second)
	if err != nil {
		msg := err.Error()
		if ctx.Err() != nil {
			msg = "interrupted: the server stopped before the backup ended"
		}
		h.Status, h.ErrorMessage = kanri.BackupFailed, &msg
		s.Logger.Error("backup failed", "tenant", tenantID, "job", j.ID, "history", h.ID, "err", err)
		s.removeArchive(context.WithoutCancel(ctx), tenantID, h.ID)
	} else {
		h.Status = kanri.BackupSuccess
		h.ItemsBackedUp = m.Documents() + m.Files.Count
	}
	wctx := context.WithoutCancel(ctx)
	h.ETag = ""
	if werr := s.Store.Tenant(tenantID).BackupHistory().Replace(wctx, h); werr != nil {
		s.Logger.Error("backup history not written", "tenant", tenantID, "history", h.ID, "err", werr)
	}
	if _, werr := s.Store.Tenant(tenantID).BackupJobs().Modify(wctx, j.ID, nil, func(cur *kanri.BackupJob) error {
		cur.LastRunAt, cur.LastStatus = h.StartedAt, h.Status
		if h.Status == kanri.BackupSuccess {
			cur.LastSuccessAt = h.StartedAt
		}
		return nil
	}); werr != nil && !kanri.IsCode(werr, kanri.ENOTFOUND) {
		s.Logger.Error("backup job not updated", "tenant", tenantID, "job", j.ID, "err", werr)
	}
	s.publish(ctx, tenantID, "backup.finished", h)
	if err == nil && h.Trigger != kanri.TriggerMigration { // a migration's copy belongs to no job's retention
		if perr := s.prune(ctx, tenantID, j); perr != nil {
			s.Logger.Error("backup retention", "tenant", tenantID, "job", j.ID, "err", perr)
		}
	}
	return err
}

// archive writes the archive of run h: the parts streamed from one dump
// of the tenant's partition, then the file contents the files part
// references, then the manifest.
func (s *Service) archive(ctx context.Context, tenantID string, j *kanri.BackupJob, h *kanri.BackupHistory) (*Manifest, error) {
	ten, err := s.Store.Tenant(tenantID).Profile(ctx)
	if err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, err
	}
	m := &Manifest{
		Format: FormatVersion, Kanri: version(), TenantID: tenantID, JobID: j.ID, JobName: j.Name,
		HistoryID: h.ID, StartedAt: h.StartedAt,
	}
	if ten != nil {
		m.TenantName = ten.Name
	}
	prefix := archivePrefix(tenantID, h.ID)
	writers := map[string]*PartWriter{}
	for _, p := range h.Parts {
		w, err := NewPartWriter(ctx, s.blobs, s.keys, prefix+partFile(p), p)
		if err != nil {
			for _, w := range writers {
				w.Abort(err)
			}
			return nil, err
		}
		writers[p] = w
	}
	m.Sealed = s.keys.Recipient()
	abort := func(err error) {
		for _, w := range writers {
			w.Abort(err)
		}
	}
	// The progress is written by a goroutine of its own, never by the
	// dump's: on the embedded store the dump is one read transaction, and
	// a write that must grow the store's memory map waits for every read
	// transaction to end, so the dump's own goroutine would wait for itself.
	var items atomic.Int64
	stopProgress := s.reportProgress(ctx, tenantID, h, &items)
	snapshot, err := s.dump(ctx, tenantID, s.Store.Types().Containers(h.Parts), func(container string, it docstore.Item) error {
		typ, err := DocType(it.Body)
		if err != nil {
			return fmt.Errorf("%s/%s: %w", container, it.ID, err)
		}
		w := writers[s.Store.Types().Part(container, typ)]
		if w == nil {
			return nil
		}
		items.Add(1)
		return w.Write(container, it.Body)
	})
	stopProgress()
	if err != nil {
		abort(err)
		return nil, err
	}
	m.Consistency = "end"
	if snapshot {
		m.Consistency = "snapshot"
	}
	for _, p := range h.Parts {
		w := writers[p]
		res, err := w.Close()
		if err != nil {
			delete(writers, p)
			abort(err)
			return nil, fmt.Errorf("write part %s: %w", p, err)
		}
		delete(writers, p)
		m.Parts = append(m.Parts, PartInfo{Name: p, Blob: partFile(p), Documents: w.docs, Bytes: res.Size, SHA256: res.SHA256})
	}
	if pi, ok := m.Part(kanri.PartFiles); ok {
		if err := s.keepContents(ctx, tenantID, prefix+pi.Blob, pi.SHA256, &m.Files); err != nil {
			return nil, err
		}
	}
	m.CompletedAt = kanri.NewTime(s.Now())
	body, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	res, err := s.blobs.Put(ctx, manifestBlob(tenantID, h.ID), strings.NewReader(string(body)))
	if err != nil {
		return nil, fmt.Errorf("write manifest: %w", err)
	}
	h.StorageLocation = "blob:" + prefix
	h.BackupSize, h.BytesWritten = res.Size+m.Files.Bytes, res.Size+m.Files.NewBytes
	for _, p := range m.Parts {
		h.BackupSize += p.Bytes
		h.BytesWritten += p.Bytes
	}
	return m, nil
}

// reportProgress records every progressEvery how many items the run h has
// backed up, until the returned stop is called; stop returns once no
// progress write is under way, so h is the caller's again.
func (s *Service) reportProgress(ctx context.Context, tenantID string, h *kanri.BackupHistory, items *atomic.Int64) (stop func()) {
	return every(ctx, progressEvery, func() bool {
		s.progress(ctx, tenantID, h, int(items.Load()))
		return true
	})
}

// every calls fn every period on a goroutine of its own, until ctx ends,
// fn returns false, or stop is called (which waits for that goroutine).
func every(ctx context.Context, period time.Duration, fn func() bool) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if !fn() {
					return
				}
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// progress records how far run h got.
func (s *Service) progress(ctx context.Context, tenantID string, h *kanri.BackupHistory, items int) {
	h.ItemsBackedUp = items
	h.ETag = ""
	if err := s.Store.Tenant(tenantID).BackupHistory().Replace(ctx, h); err != nil {
		s.Logger.Warn("backup progress not written", "tenant", tenantID, "history", h.ID, "err", err)
	}
	s.publish(ctx, tenantID, "backup.progress", h)
}

// contentsPerSync is how many file contents a backup writes before it
// makes them durable together (blob.Batch).
const contentsPerSync = 256

// keepContents stores the contents of the files the files part lists under
// their SHA-256, unless an earlier archive of the tenant kept them, in
// batches of contentsPerSync made durable together; all are durable when
// it returns, before the manifest that references them is written.
func (s *Service) keepContents(ctx context.Context, tenantID, partBlob, partSum string, info *FilesInfo) error {
	batch := s.blobs.NewBatch()
	defer batch.Discard()
	pending := map[string]bool{} // put in the batch, not committed yet
	err := s.readPart(ctx, partBlob, partSum, func(container string, body json.RawMessage) error {
		f, ok, err := fileOf(body)
		if err != nil || !ok {
			return err
		}
		info.Count++
		info.Bytes += f.Size
		name := contentBlob(tenantID, f.Checksum) + sealedSuffix
		if pending[name] {
			return nil
		}
		if _, err := s.blobs.Stat(ctx, name); err == nil {
			return nil
		} else if !kanri.IsCode(err, kanri.ENOTFOUND) {
			return err
		}
		size, err := s.keepContent(ctx, batch, name, f)
		if err != nil {
			return fmt.Errorf("file %s (%s): %w", f.ID, f.Name, err)
		}
		info.New++
		info.NewBytes += size
		if pending[name] = true; len(pending) == contentsPerSync {
			clear(pending)
			return batch.Commit(ctx)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return batch.Commit(ctx)
}

// fileOf decodes a line's document if it is a file with content, with the
// Checksum set to the hex SHA-256 of its content (stored as
// "sha256:<hex>").
func fileOf(body json.RawMessage) (*kanri.File, bool, error) {
	var hd header
	if err := json.Unmarshal(body, &hd); err != nil {
		return nil, false, err
	}
	if hd.Type != kanri.TypeFile {
		return nil, false, nil
	}
	var f kanri.File
	if err := json.Unmarshal(body, &f); err != nil {
		return nil, false, err
	}
	sum, ok := strings.CutPrefix(f.Checksum, "sha256:")
	if !ok || len(sum) != 64 || strings.Trim(sum, "0123456789abcdef") != "" || !strings.HasPrefix(f.StorageURL, "blob:") {
		return nil, false, nil
	}
	f.Checksum = sum
	return &f, true, nil
}

// removeArchive deletes what a failed run wrote of its archive.
func (s *Service) removeArchive(ctx context.Context, tenantID, historyID string) {
	for info, err := range s.blobs.List(ctx, archivePrefix(tenantID, historyID)) {
		if err != nil {
			s.Logger.Warn("list a failed archive", "tenant", tenantID, "history", historyID, "err", err)
			return
		}
		if err := s.blobs.Delete(ctx, info.Name); err != nil {
			s.Logger.Warn("delete a failed archive", "blob", info.Name, "err", err)
		}
	}
}

// RunDue runs the backups whose time has come, on every tenant: each due
// job's slot is claimed by one instance, which moves the job's next run on
// and runs it. A job whose runs were missed while no instance was up runs
// once. RunDue returns when the runs it started have ended.
func (s *Service) RunDue(ctx context.Context) error {
	now := kanri.NewTime(s.Now())
	sem := make(chan struct{}, concurrentRuns)
	var wg sync.WaitGroup
	defer wg.Wait()
	next := ""
	for {
		jobs, n, err := s.Store.Privileged().DueBackupJobs(ctx, now, next)
		if err != nil {
			return err
		}
		for _, j := range jobs {
			ok, err := s.sched.Claim(ctx, j.TenantID, "backup-"+j.ID, j.NextRunAt.Time)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			j, err := s.advance(ctx, j)
			if err != nil {
				s.Logger.Error("backup job not advanced", "tenant", j.TenantID, "job", j.ID, "err", err)
				continue
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			wg.Go(func() {
				defer func() { <-sem }()
				s.runScheduled(ctx, j)
			})
		}
		if next = n; next == "" {
			return nil
		}
	}
}

// advance moves a claimed job's next run past now.
func (s *Service) advance(ctx context.Context, j *kanri.BackupJob) (*kanri.BackupJob, error) {
	loc, err := s.Location(ctx, j.TenantID)
	if err != nil {
		return j, err
	}
	return s.Store.Tenant(j.TenantID).BackupJobs().Modify(ctx, j.ID, nil, func(cur *kanri.BackupJob) error {
		cur.NextRunAt = s.nextRun(cur, loc)
		return nil
	})
}

// runScheduled runs a claimed job's backup. When another backup or a
// restore of the tenant holds its lease, the run is recorded as failed.
func (s *Service) runScheduled(ctx context.Context, j *kanri.BackupJob) {
	tenantID := j.TenantID
	lease, err := s.sched.Acquire(ctx, tenantID, leaseName, "backup "+j.Name, leaseTerm)
	h, herr := s.start(ctx, tenantID, j, kanri.TriggerSchedule, "")
	if herr != nil {
		s.Logger.Error("backup not started", "tenant", tenantID, "job", j.ID, "err", herr)
		if lease != nil {
			lease.Release(ctx)
		}
		return
	}
	if err != nil {
		msg := fmt.Sprintf("not run: %v", err)
		h.Status, h.ErrorMessage, h.ETag = kanri.BackupFailed, &msg, ""
		h.CompletedAt = kanri.NewTime(s.Now())
		s.Logger.Error("backup not run", "tenant", tenantID, "job", j.ID, "err", err)
		if werr := s.Store.Tenant(tenantID).BackupHistory().Replace(context.WithoutCancel(ctx), h); werr != nil {
			s.Logger.Error("backup history not written", "tenant", tenantID, "history", h.ID, "err", werr)
		}
		s.Store.Tenant(tenantID).BackupJobs().Modify(context.WithoutCancel(ctx), j.ID, nil, func(cur *kanri.BackupJob) error {
			cur.LastRunAt, cur.LastStatus = h.StartedAt, kanri.BackupFailed
			return nil
		})
		return
	}
	_ = lease.Hold(ctx, func(ctx context.Context) error { return s.execute(ctx, tenantID, j, h) })
}

// FailAbandoned marks failed the runs that are still marked running but
// whose tenant's lease nobody holds any more (the instance running them
// stopped). With all (the embedded store at start, when no run can be
// going), every backup lease is released first — the stopped process held
// them until their term ends, and the next backup or an interrupted
// restore need not wait for that — and every running run is marked. It
// returns how many runs it marked.
func (s *Service) FailAbandoned(ctx context.Context, all bool) (int, error) {
	if all {
		// Whoever holds a tenant's backup lease now is a process that is
		// gone: released first, so that a run or restore it held up (a
		// restore to resume, a run of the next moment) goes on at once.
		// A crash before the runs are marked leaves them to the next start.
		if _, err := s.sched.ForgetLeases(ctx, leaseName); err != nil {
			return 0, fmt.Errorf("release the backup leases: %w", err)
		}
	}
	n, next := 0, ""
	for {
		hs, cont, err := s.Store.Privileged().RunningBackups(ctx, next)
		if err != nil {
			return n, err
		}
		for _, h := range hs {
			if !all {
				held, err := s.sched.Holding(ctx, h.TenantID, leaseName)
				if err != nil {
					return n, err
				}
				if held != nil {
					continue
				}
			}
			_, err := s.Store.Tenant(h.TenantID).BackupHistory().Modify(ctx, h.ID, nil, func(cur *kanri.BackupHistory) error {
				if cur.Status != kanri.BackupRunning {
					return errUnchanged
				}
				msg := "interrupted: the instance running it stopped before it ended"
				cur.Status, cur.ErrorMessage, cur.CompletedAt = kanri.BackupFailed, &msg, kanri.NewTime(s.Now())
				return nil
			})
			if err != nil && !errors.Is(err, errUnchanged) {
				return n, err
			}
			if err == nil {
				n++
				s.Logger.Error("backup interrupted", "tenant", h.TenantID, "job", h.JobID, "history", h.ID)
				s.removeArchive(ctx, h.TenantID, h.ID)
				s.Store.Tenant(h.TenantID).BackupJobs().Modify(ctx, h.JobID, nil, func(j *kanri.BackupJob) error {
					j.LastStatus = kanri.BackupFailed
					return nil
				})
			}
		}
		if next = cont; next == "" {
			return n, nil
		}
	}
}

// keepContent copies a file's bytes from its blob to the archive's kept
// content name, sealed, in batch, checking them against the file's
// SHA-256 on the way; it returns the stored length.
func (s *Service) keepContent(ctx context.Context, batch *blob.Batch, name string, f *kanri.File) (int64, error) {
	r, err := s.blobs.NewRangeReader(ctx, strings.TrimPrefix(f.StorageURL, "blob:"), 0, -1)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	h := sha256.New()
	pr, pw := io.Pipe()
	sealed := make(chan struct{})
	go func() {
		defer close(sealed)
		w, err := s.keys.Seal(pw)
		if err == nil {
			_, err = io.Copy(w, io.TeeReader(r, h))
			err = errors.Join(err, w.Close())
		}
		pw.CloseWithError(err)
	}()
	res, err := batch.Put(ctx, name, pr)
	pr.CloseWithError(errors.Join(err, io.ErrClosedPipe)) // a failed Put stops the sealing
	<-sealed
	if err != nil {
		return 0, err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != f.Checksum {
		// The bytes no longer match their checksum: keep nothing under a
		// name that would lie (a store without batches stored it already;
		// on one with batches it is discarded with the batch).
		s.blobs.Delete(context.WithoutCancel(ctx), name)
		return 0, fmt.Errorf("damaged: its content's SHA-256 is %s, not %s", got, f.Checksum)
	}
	return res.Size, nil
}

// openContent opens a content an archive kept: sealed, or kept before
// archives were sealed.
func (s *Service) openContent(ctx context.Context, tenantID, sha string) (io.ReadCloser, error) {
	r, err := s.blobs.NewRangeReader(ctx, contentBlob(tenantID, sha)+sealedSuffix, 0, -1)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return s.blobs.NewRangeReader(ctx, contentBlob(tenantID, sha), 0, -1)
	}
	if err != nil {
		return nil, err
	}
	plain, err := s.keys.Open(r)
	if err != nil {
		r.Close()
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{plain, r}, nil
}

// contentKept reports whether an archive's content of f is kept: sealed,
// or of f's size as kept before archives were sealed.
func (s *Service) contentKept(ctx context.Context, tenantID string, f *kanri.File) (bool, error) {
	_, err := s.blobs.Stat(ctx, contentBlob(tenantID, f.Checksum)+sealedSuffix)
	if err == nil || !kanri.IsCode(err, kanri.ENOTFOUND) {
		return err == nil, err
	}
	info, err := s.blobs.Stat(ctx, contentBlob(tenantID, f.Checksum))
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return false, nil
	}
	return err == nil && info.Size == f.Size, err
}
