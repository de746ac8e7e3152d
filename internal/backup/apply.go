package backup

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// maxAttempts is how many times a restore is tried before it is left
// failed for a person to retry.
const maxAttempts = 3

// Restore verifies the archive and restores the chosen parts of it into
// the tenant, in the background: documents of those parts are put back
// as the archive has them and those made since are removed, except the
// audit log (records are only added back) and the restorer's own user,
// membership, roles and sign-in names. It returns the restore as started.
func (s *Service) Restore(ctx context.Context, tenantID, historyID string, parts []string) (*kanri.BackupRestore, error) {
	m, err := s.Verify(ctx, tenantID, historyID)
	if err != nil {
		return nil, err
	}
	if parts, err = s.restorable(m, parts); err != nil {
		return nil, err
	}
	r := &kanri.BackupRestore{
		Doc:       kanri.Doc{ID: newID("restore_")},
		HistoryID: historyID, SourceTenantID: tenantID, Parts: parts, Status: kanri.RestoreRunning,
		StartedBy: audit.ActorFrom(ctx).UserID, StartedAt: kanri.NewTime(s.Now()),
	}
	if err := s.begin(ctx, tenantID, r, m); err != nil {
		return nil, err
	}
	return r, nil
}

// RestoreAsNewTenant restores every part of an archive of sourceID into a
// new tenant made from in, for the operator to inspect the archive without
// touching the original. The copy's API keys authenticate nothing (their
// hashes stay the original's) and its domains are not verified anew.
func (s *Service) RestoreAsNewTenant(ctx context.Context, sourceID, historyID string, in kanri.TenantInput) (*kanri.Tenant, *kanri.BackupRestore, error) {
	m, err := s.Verify(ctx, sourceID, historyID)
	if err != nil {
		return nil, nil, err
	}
	t, err := s.tenants.Create(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	var parts []string
	for _, p := range m.Parts {
		parts = append(parts, p.Name)
	}
	r := &kanri.BackupRestore{
		Doc:       kanri.Doc{ID: newID("restore_")},
		HistoryID: historyID, SourceTenantID: sourceID, Parts: parts, Status: kanri.RestoreRunning,
		StartedBy: audit.ActorFrom(ctx).UserID, StartedAt: kanri.NewTime(s.Now()),
	}
	if err := s.begin(ctx, t.ID, r, m); err != nil {
		return nil, nil, err
	}
	return t, r, nil
}

// begin takes the tenant's lease, records the restore and runs it in the
// background.
func (s *Service) begin(ctx context.Context, tenantID string, r *kanri.BackupRestore, m *Manifest) error {
	lease, err := s.sched.Acquire(ctx, tenantID, leaseName, "restore", leaseTerm)
	if err != nil {
		return busy(err)
	}
	if err := s.Store.Tenant(tenantID).BackupRestores().Create(ctx, r); err != nil {
		lease.Release(context.WithoutCancel(ctx))
		return err
	}
	reason := ""
	if r.SourceTenantID != tenantID {
		reason = "from " + r.SourceTenantID
	}
	s.Audit.Record(ctx, audit.Entry{
		TenantID: tenantID, Action: "backup.restore", Reason: reason,
		Resource: kanri.AuditResource{Type: kanri.AuditBackup, ID: r.HistoryID, Name: m.StartedAt.String()},
		Changes:  audit.Diff(nil, map[string]any{"parts": strings.Join(r.Parts, ",")}),
	})
	s.background(func(bg context.Context) {
		_ = lease.Hold(bg, func(ctx context.Context) error { return s.finish(ctx, tenantID, r) })
	})
	return nil
}

// RetryRestore runs a failed restore again.
func (s *Service) RetryRestore(ctx context.Context, tenantID, id string) (*kanri.BackupRestore, error) {
	if !strings.HasPrefix(id, "restore_") {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	r, err := s.Store.Tenant(tenantID).BackupRestores().Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.Status != kanri.RestoreFailed {
		return nil, kanri.E(kanri.ECONFLICT, "backups.error.not_failed")
	}
	lease, err := s.sched.Acquire(ctx, tenantID, leaseName, "restore", leaseTerm)
	if err != nil {
		return nil, busy(err)
	}
	r.Status, r.Attempts, r.ErrorMessage = kanri.RestoreRunning, 0, ""
	if err := s.Store.Tenant(tenantID).BackupRestores().Replace(ctx, r); err != nil {
		lease.Release(context.WithoutCancel(ctx))
		return nil, err
	}
	s.background(func(bg context.Context) {
		_ = lease.Hold(bg, func(ctx context.Context) error { return s.finish(ctx, tenantID, r) })
	})
	return r, nil
}

// LatestRestore returns the tenant's latest restore, or nil.
func (s *Service) LatestRestore(ctx context.Context, tenantID string) (*kanri.BackupRestore, error) {
	rs, _, err := s.Store.Tenant(tenantID).BackupRestores().Query(ctx, docstore.Query{OrderBy: "startedAt", Desc: true, Limit: 1})
	if err != nil || len(rs) == 0 {
		return nil, err
	}
	return rs[0], nil
}

// ResumeRestores finishes the restores that an instance left unfinished
// (it stopped, or an attempt failed): a restore is idempotent, so running
// it again from the start completes it.
func (s *Service) ResumeRestores(ctx context.Context) error {
	next := ""
	for {
		rs, n, err := s.Store.Privileged().RunningRestores(ctx, next)
		if err != nil {
			return err
		}
		for _, r := range rs {
			lease, err := s.sched.Acquire(ctx, r.TenantID, leaseName, "restore", leaseTerm)
			if err != nil {
				continue // still running somewhere, or another instance resumes it
			}
			tenantID := r.TenantID
			if err := lease.Hold(ctx, func(ctx context.Context) error { return s.finish(ctx, tenantID, r) }); err != nil {
				s.Logger.Error("restore attempt failed", "tenant", tenantID, "restore", r.ID, "err", err)
			}
		}
		if next = n; next == "" {
			return nil
		}
	}
}

// finish makes one attempt at restore r and records how it ended: done,
// still running (to be attempted again by the worker) or failed after
// maxAttempts.
func (s *Service) finish(ctx context.Context, tenantID string, r *kanri.BackupRestore) error {
	defer func() {
		if err := s.ForgetDryRuns(context.WithoutCancel(ctx), tenantID); err != nil {
			s.Logger.Error("restore: the tenant's dry runs not deleted", "tenant", tenantID, "err", err)
		}
	}()
	repo := s.Store.Tenant(tenantID).BackupRestores()
	r.Attempts++
	r.ETag = ""
	if err := repo.Replace(ctx, r); err != nil {
		return err
	}
	written, removed, err := s.apply(ctx, tenantID, r)
	r.Written, r.Removed = written, removed
	wctx := context.WithoutCancel(ctx)
	switch {
	case err == nil:
		r.Status, r.CompletedAt, r.ErrorMessage = kanri.RestoreDone, kanri.NewTime(s.Now()), ""
		s.Logger.Info("restore done", "tenant", tenantID, "restore", r.ID, "written", written, "removed", removed)
	case r.Attempts >= maxAttempts:
		r.Status, r.ErrorMessage = kanri.RestoreFailed, err.Error()
		s.Logger.Error("restore failed", "tenant", tenantID, "restore", r.ID, "attempts", r.Attempts, "err", err)
	default:
		r.ErrorMessage = err.Error()
		s.Logger.Warn("restore attempt failed; it will be attempted again", "tenant", tenantID, "restore", r.ID, "attempt", r.Attempts, "err", err)
	}
	r.ETag = ""
	if werr := repo.Replace(wctx, r); werr != nil {
		s.Logger.Error("restore not recorded", "tenant", tenantID, "restore", r.ID, "err", werr)
	} else if r.Status != kanri.RestoreRunning {
		s.announce(wctx, tenantID, "restore.finished", map[string]any{"restoreId": r.ID, "status": r.Status})
	}
	return err
}

// current is what the tenant holds of a document now. A restore keeps
// one for each document of the parts it restores, so it is small: the
// SHA-256 of its bytes, whether it is an audit record (never removed),
// whether the archive has it, and only for an API key its hash (to remove
// its lookup entry with it).
type current struct {
	raw       [32]byte
	audit     bool
	inArchive bool
	// archived is the SHA-256 of the archive's first copy of it.
	archived [32]byte
	keyHash  string
}

// holds reports whether the tenant's document id of container has the
// content of body (rewritten for the tenant): the same digest, system
// properties and sessions aside. Only a document whose bytes differ from
// the archive's is read again for it.
func (s *Service) holds(ctx context.Context, tenantID, container, id string, body []byte) (bool, error) {
	it, err := s.Store.Port().Container(container).Read(ctx, tenantID, id)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	got, err := digest(it.Body)
	if err != nil {
		return false, err
	}
	want, err := digest(body)
	return got == want, err
}

// apply restores r's parts into tenantID: it writes the archive's
// documents that differ from the tenant's, removes those the archive does
// not have, copies back file contents, and recounts users and storage. It
// can be run again after a failure: each step converges on the archive.
func (s *Service) apply(ctx context.Context, tenantID string, r *kanri.BackupRestore) (written, removed int, err error) {
	src := r.SourceTenantID
	m, err := s.Verify(ctx, src, r.HistoryID)
	if err != nil {
		return 0, 0, err
	}
	k := keeper{}
	if src == tenantID {
		k.userID = r.StartedBy
	}
	now := map[string]current{}
	_, err = s.dump(ctx, tenantID, s.Store.Types().Containers(r.Parts), func(container string, it docstore.Item) error {
		typ, err := DocType(it.Body)
		if err != nil {
			return err
		}
		part := s.Store.Types().Part(container, typ)
		if !slices.Contains(r.Parts, part) || k.keeps(part, typ, it.ID, it.Body) {
			return nil
		}
		cur := current{raw: sha256.Sum256(it.Body), audit: part == kanri.PartAudit}
		if typ == kanri.TypeAPIKey {
			var key struct {
				KeyHash string `json:"keyHash"`
			}
			if err := json.Unmarshal(it.Body, &key); err != nil {
				return err
			}
			cur.keyHash = key.KeyHash
		}
		now[docKey(container, it.ID)] = cur
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	writes := &batcher{s: s, tenantID: tenantID}
	for _, part := range r.Parts {
		if s.beforePart != nil {
			if err := s.beforePart(part); err != nil {
				return written, removed, err
			}
		}
		pi, _ := m.Part(part)
		err := s.readPart(ctx, archivePrefix(src, r.HistoryID)+pi.Blob, pi.SHA256, func(container string, body json.RawMessage) error {
			hd, err := headerOf(body)
			if err != nil {
				return err
			}
			if k.keeps(part, hd.Type, hd.ID, body) {
				return nil
			}
			id := kanri.MovedID(hd.Type, hd.ID, src, tenantID)

			key := docKey(container, id)
			cur, exists := now[key]
			sum := sha256.Sum256(body)
			// An archive may hold a document twice (Cosmos DB's dump passes
			// one written meanwhile again): a later copy with other bytes
			// than the first is written whatever the tenant holds.
			again := exists && cur.inArchive
			if again && sum == cur.archived {
				return nil // the first copy's, done
			}
			if exists && !cur.inArchive {
				cur.inArchive, cur.archived = true, sum
				now[key] = cur
			}
			if exists && part == kanri.PartAudit {
				return nil // an audit record is never changed
			}
			// The tenant has the archive's very bytes: nothing to write.
			same := exists && !again && src == tenantID && sum == cur.raw
			out := body
			if !same {
				if out, err = s.rewrite(body, src, tenantID, hd.Type, id); err != nil {
					return err
				}
				if exists && !again {
					if same, err = s.holds(ctx, tenantID, container, id, out); err != nil {
						return err
					}
				}
			}
			if hd.Type == kanri.TypeFile {
				if err := s.putContent(ctx, src, tenantID, out, same); err != nil {
					return err
				}
			}
			if same {
				return nil
			}
			if hd.Type == kanri.TypeUser {
				// Sessions are never restored: a user the restore writes
				// (back from deletion, or changed) signs in again.
				if out, err = endSessions(out, s.Now()); err != nil {
					return err
				}
			}
			var after func() error
			if hd.Type == kanri.TypeAPIKey && src == tenantID {
				after = func() error { return s.relink(ctx, tenantID, out) }
			}
			return writes.add(ctx, container, docstore.Op{Kind: docstore.OpUpsert, ID: id, Body: out}, after)
		})
		if err == nil {
			err = writes.flush(ctx)
		}
		written = writes.done
		if err != nil {
			return written, removed, err
		}
	}
	// The documents the archive does not have, by container.
	var gone []string
	for key, cur := range now {
		if !cur.inArchive && !cur.audit {
			gone = append(gone, key)
		}
	}
	slices.Sort(gone)
	removals := &batcher{s: s, tenantID: tenantID}
	for _, key := range gone {
		cur := now[key]
		container, id, _ := strings.Cut(key, "\x00")
		var after func() error
		if cur.keyHash != "" {
			after = func() error { s.unlink(ctx, tenantID, cur.keyHash); return nil }
		}
		if err := removals.add(ctx, container, docstore.Op{Kind: docstore.OpDelete, ID: id}, after); err != nil {
			return written, removals.done, err
		}
	}
	err = removals.flush(ctx)
	removed = removals.done
	if err != nil {
		return written, removed, err
	}
	for _, fn := range s.restored {
		if err := fn(ctx, tenantID, src); err != nil {
			return written, removed, err
		}
	}
	if slices.Contains(r.Parts, kanri.PartUsers) {
		if err := s.recountUsers(ctx, tenantID); err != nil {
			return written, removed, err
		}
	}
	if slices.Contains(r.Parts, kanri.PartFiles) {
		if err := s.recountStorage(ctx, tenantID); err != nil {
			return written, removed, err
		}
	}
	return written, removed, nil
}

// A restore writes and removes documents in batches, each one
// transaction: one commit (and sync of its file) of the embedded store
// for up to batchOps documents instead of one for each. Cosmos DB takes
// at most docstore.MaxBatchOps operations and 2 MB in a transactional
// batch.
const (
	batchOps   = docstore.MaxBatchOps
	batchBytes = 1 << 20
)

// batcher gathers a restore's upserts or removals in one container of
// the tenant's partition into batches.
type batcher struct {
	s         *Service
	tenantID  string
	container string
	ops       []docstore.Op
	ids       map[string]bool // of ops
	bytes     int
	// after run once the batch is stored (an API key's lookup entry).
	after []func() error
	// done counts the operations stored.
	done int
}

// add adds op on a document of container, storing the batch so far first
// when it is full, of another container or has the document already (a
// Cosmos DB archive may hold a document twice).
func (b *batcher) add(ctx context.Context, container string, op docstore.Op, after func() error) error {
	if len(b.ops) > 0 && (container != b.container || len(b.ops) == batchOps || b.bytes+len(op.Body) > batchBytes || b.ids[op.ID]) {
		if err := b.flush(ctx); err != nil {
			return err
		}
	}
	if b.ids == nil {
		b.ids = map[string]bool{}
	}
	b.container = container
	b.ops = append(b.ops, op)
	b.ids[op.ID] = true
	b.bytes += len(op.Body)
	if after != nil {
		b.after = append(b.after, after)
	}
	return nil
}

// flush stores the batch. A removal whose document is gone already (its
// batch fails as a whole) is done without it, one document at a time.
func (b *batcher) flush(ctx context.Context) error {
	if len(b.ops) == 0 {
		return nil
	}
	c := b.s.Store.Port().Container(b.container)
	_, err := c.Batch(ctx, b.tenantID, b.ops)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		err = nil
		for _, op := range b.ops {
			if op.Kind != docstore.OpDelete {
				_, err = c.Upsert(ctx, b.tenantID, op.Body, "")
			} else if err = c.Delete(ctx, b.tenantID, op.ID, ""); kanri.IsCode(err, kanri.ENOTFOUND) {
				err = nil
			}
			if err != nil {
				return fmt.Errorf("restore %s/%s: %w", b.container, op.ID, err)
			}
		}
	}
	if err != nil {
		return fmt.Errorf("restore %d documents of %s from %s: %w", len(b.ops), b.container, b.ops[0].ID, err)
	}
	b.done += len(b.ops)
	for _, fn := range b.after {
		if err := fn(); err != nil {
			return err
		}
	}
	b.ops, b.bytes, b.after = b.ops[:0], 0, b.after[:0]
	clear(b.ids)
	return nil
}

// rewrite returns an archived document as it is written into tenantID:
// normalised, and for another tenant moved to it: its partition, its id
// (id, from kanri.MovedID), its file's blob name, and a user's avatar,
// which a copy does not have (avatars are not archived).
func (s *Service) rewrite(body []byte, src, tenantID, typ, id string) ([]byte, error) {
	if src == tenantID {
		return normalise(body, "")
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	m["tenantId"] = tenantID
	m["id"] = id
	switch typ {
	case kanri.TypeFile:
		m["storageUrl"] = "blob:" + kanri.BlobName(tenantID, id)
	case kanri.TypeUser:
		if p, ok := m["profile"].(map[string]any); ok && p["avatarUrl"] != nil {
			p["avatarUrl"] = ""
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return normalise(b, "")
}

// endSessions returns a user's document with every session begun before
// now ended (security.sessionsValidAfter).
func endSessions(body []byte, now time.Time) ([]byte, error) {
	m, err := decodeDoc(body)
	if err != nil {
		return nil, err
	}
	sec, _ := m["security"].(map[string]any)
	if sec == nil {
		sec = map[string]any{}
		m["security"] = sec
	}
	sec["sessionsValidAfter"] = kanri.NewTime(now)
	return json.Marshal(m)
}

// putContent copies a restored file's content from the archive's kept
// contents to the file's blob, unless the file is unchanged and its blob
// is there.
func (s *Service) putContent(ctx context.Context, src, tenantID string, body []byte, unchanged bool) error {
	f, ok, err := fileOf(body)
	if err != nil || !ok {
		return err
	}
	name := strings.TrimPrefix(f.StorageURL, "blob:")
	if unchanged {
		if info, err := s.blobs.Stat(ctx, name); err == nil && info.Size == f.Size {
			return nil
		}
	}
	rd, err := s.openContent(ctx, src, f.Checksum)
	if err != nil {
		return fmt.Errorf("file %s (%s): %w", f.ID, f.Name, err)
	}
	defer rd.Close()
	res, err := s.blobs.Put(ctx, name, rd)
	if err != nil {
		return fmt.Errorf("file %s (%s): %w", f.ID, f.Name, err)
	}
	if res.SHA256 != f.Checksum {
		return damaged(f.Checksum, fmt.Errorf("the kept content of file %s (%s) does not match its SHA-256", f.ID, f.Name))
	}
	return nil
}

// relink makes a restored API key authenticate again: its lookup entry.
func (s *Service) relink(ctx context.Context, tenantID string, body []byte) error {
	var key kanri.APIKey
	if err := json.Unmarshal(body, &key); err != nil {
		return err
	}
	if key.KeyHash == "" {
		return nil
	}
	repo := store.Of[kanri.APIKeyLookup](s.Store.Tenant(kanri.SystemTenantID), kanri.ContainerAPI, kanri.TypeAPIKeyLookup)
	l := &kanri.APIKeyLookup{Doc: kanri.Doc{ID: kanri.APIKeyLookupID(key.KeyHash)}, KeyTenantID: tenantID, APIKeyID: key.ID}
	return repo.Upsert(ctx, l)
}

// unlink removes a removed API key's lookup entry, if it is the key's.
func (s *Service) unlink(ctx context.Context, tenantID, keyHash string) {
	repo := store.Of[kanri.APIKeyLookup](s.Store.Tenant(kanri.SystemTenantID), kanri.ContainerAPI, kanri.TypeAPIKeyLookup)
	l, err := repo.Get(ctx, kanri.APIKeyLookupID(keyHash))
	if err != nil || l.KeyTenantID != tenantID {
		return
	}
	if err := repo.Delete(ctx, l.ID, l.ETag); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
		s.Logger.Warn("api key lookup not removed; it authenticates nothing", "err", err)
	}
}

// recountUsers sets the tenant's userCount to its users not deleted.
func (s *Service) recountUsers(ctx context.Context, tenantID string) error {
	n, next := 0, ""
	for {
		us, cont, err := s.Store.Tenant(tenantID).Users().Query(ctx, docstore.Query{Limit: docstore.MaxPageSize, Continuation: next})
		if err != nil {
			return err
		}
		for _, u := range us {
			if u.DeletedAt.IsZero() {
				n++
			}
		}
		if next = cont; next == "" {
			break
		}
	}
	return s.tenants.SetUserCount(ctx, tenantID, n)
}

// recountStorage sets the tenant's storage account to its files, keeping
// the reservations of uploads in progress.
func (s *Service) recountStorage(ctx context.Context, tenantID string) error {
	var used, trash int64
	files, next := 0, ""
	for {
		fs, cont, err := s.Store.Tenant(tenantID).Files().Query(ctx, docstore.Query{Limit: docstore.MaxPageSize, Continuation: next})
		if err != nil {
			return err
		}
		for _, f := range fs {
			files++
			if f.DeletedAt.IsZero() {
				used += f.Size
			} else {
				trash += f.Size
			}
		}
		if next = cont; next == "" {
			break
		}
	}
	_, err := s.Store.Tenant(tenantID).FileStorage().Modify(ctx, kanri.FileStorageID, func() *kanri.FileStorage { return &kanri.FileStorage{} }, func(st *kanri.FileStorage) error {
		st.Used, st.Trash, st.Files, st.UpdatedAt = used, trash, files, kanri.NewTime(s.Now())
		return nil
	})
	return err
}
