package archive

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/backup"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/erasure"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/tenant"
)

// Run archives what is due in every tenant that archives, and returns
// the archives it wrote: the worker's pass, once across instances (a pass
// going on elsewhere is ECONFLICT).
func (s *Service) Run(ctx context.Context) ([]*Archive, error) {
	var done []*Archive
	err := s.holding(ctx, func(ctx context.Context) error {
		token := ""
		for {
			page, next, err := s.tenants.List(ctx, tenant.ListFilter{Status: "all", Limit: 100, Continuation: token})
			if err != nil {
				return err
			}
			for _, t := range page {
				got, err := s.tenant(ctx, t.ID)
				done = append(done, got...)
				if err != nil {
					return fmt.Errorf("archive: tenant %s: %w", t.ID, err)
				}
			}
			if next == "" {
				return nil
			}
			token = next
		}
	})
	return done, err
}

// Pass is Run for the worker: a pass going on elsewhere is left to end.
func (s *Service) Pass(ctx context.Context) error {
	if _, err := s.Run(ctx); !kanri.IsCode(err, kanri.ECONFLICT) {
		return err
	}
	s.Logger.Info("archive: another pass is going on; this one is skipped")
	return nil
}

// Tenant finishes the tenant's archives that a pass cut short, refreshes
// those being rehydrated, and, when the tenant archives, archives its
// records within its days of their expiry; it returns the archives it
// wrote. It holds the pass's lease (ECONFLICT when a pass goes on).
func (s *Service) Tenant(ctx context.Context, tenantID string) ([]*Archive, error) {
	var done []*Archive
	err := s.holding(ctx, func(ctx context.Context) (err error) {
		done, err = s.tenant(ctx, tenantID)
		return err
	})
	return done, err
}

func (s *Service) tenant(ctx context.Context, tenantID string) ([]*Archive, error) {
	if err := s.resume(ctx, tenantID); err != nil {
		return nil, err
	}
	st, err := s.Settings(ctx, tenantID)
	if err != nil || !st.Enabled {
		return nil, err
	}
	var done []*Archive
	for {
		a, err := s.archiveDue(ctx, tenantID, st)
		if err != nil || a == nil {
			return done, err
		}
		done = append(done, a)
		if a.Documents < maxRecords {
			return done, nil
		}
	}
}

// resume finishes what a pass cut short: an archive being written is
// removed (the next pass writes it again), one being deleted from the
// store is finished; and archives being rehydrated are looked at.
func (s *Service) resume(ctx context.Context, tenantID string) error {
	all, err := s.archives(tenantID).All(ctx, docstore.Query{Where: []docstore.Filter{docstore.In("state", StateWriting, StateDeleting, StateRehydrating)}})
	if err != nil {
		return err
	}
	for _, a := range all {
		switch a.State {
		case StateWriting:
			if err := s.remove(ctx, tenantID, a); err != nil {
				return err
			}
		case StateDeleting:
			if err := s.finish(ctx, tenantID, a); err != nil {
				return err
			}
		case StateRehydrating:
			if _, err := s.Refresh(ctx, tenantID, a); err != nil {
				return err
			}
		}
	}
	return nil
}

// remove deletes an unfinished archive's blobs, then its record.
func (s *Service) remove(ctx context.Context, tenantID string, a *Archive) error {
	for info, err := range s.blobs.List(ctx, blobName(tenantID, a.ID, "")) {
		if err != nil {
			return err
		}
		if err := s.blobs.Delete(ctx, info.Name); err != nil {
			return err
		}
	}
	err := s.archives(tenantID).Delete(ctx, a.ID, "")
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil
	}
	return err
}

// chosen are the types the tenant's settings archive.
func (s *Service) chosen(st *Settings) []doctype.Type {
	var out []doctype.Type
	for _, t := range s.Archivable() {
		if t.Retention.Archive == doctype.ArchiveAlways || slices.Contains(st.Optional, t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// archiveDue writes one archive of up to maxRecords of the tenant's
// records within st.Days of their expiry, checks it, deletes them from
// the store and moves it to the archive tier; nil when none is due.
func (s *Service) archiveDue(ctx context.Context, tenantID string, st *Settings) (*Archive, error) {
	now := s.Now()
	var a *Archive
	people := map[string]bool{}
	for _, t := range s.chosen(st) {
		if a != nil && a.Documents >= maxRecords {
			break
		}
		var w *backup.PartWriter
		part := Part{Type: t.Name, Container: t.Container}
		due := docstore.Query{Type: t.Name, Where: []docstore.Filter{docstore.Lte(t.Retention.Since, kanri.FormatTime(cutoff(t, now, st.Days)))}, Limit: docstore.MaxPageSize}
		for {
			page, err := s.Store.Port().Container(t.Container).Query(ctx, tenantID, due)
			if err != nil {
				return nil, abort(w, err)
			}
			for _, it := range page.Items {
				doc, err := decode(it.Body)
				if err != nil {
					return nil, abort(w, err)
				}
				if ttl, _ := doc["ttl"].(float64); ttl == -1 {
					continue // kept for ever: it does not expire
				}
				if a == nil {
					if a, err = s.start(ctx, tenantID, now); err != nil {
						return nil, err
					}
				}
				if w == nil {
					part.Blob = blobName(tenantID, a.ID, t.Name+".ndjson.gz")
					if w, err = backup.NewPartWriter(ctx, s.blobs, s.keys, part.Blob, t.Name); err != nil {
						return nil, err
					}
				}
				if err := w.Write(t.Container, it.Body); err != nil {
					return nil, abort(w, err)
				}
				part.Documents++
				a.Documents++
				a.span(doc, t.Retention.Since)
				for _, id := range erasure.People(t, doc) {
					people[id] = true
				}
				if a.Documents >= maxRecords {
					break
				}
			}
			if page.Continuation == "" || a != nil && a.Documents >= maxRecords {
				break
			}
			due.Continuation = page.Continuation
		}
		if w != nil {
			res, err := w.Close()
			if err != nil {
				return nil, err
			}
			part.Bytes, part.SHA256 = res.Size, res.SHA256
			a.Parts = append(a.Parts, part)
			a.Bytes += res.Size
		}
	}
	if a == nil {
		return nil, nil
	}
	s.step("written")
	a.People = slices.Sorted(maps.Keys(people))
	if err := s.writeManifest(ctx, tenantID, a); err != nil {
		return nil, err
	}
	a.State = StateDeleting
	if err := s.archives(tenantID).Replace(ctx, a); err != nil {
		return nil, err
	}
	s.step("recorded")
	if err := s.finish(ctx, tenantID, a); err != nil {
		return nil, err
	}
	s.Logger.Info("archive: records archived", "tenant", tenantID, "archive", a.ID, "documents", a.Documents, "deleted", a.Deleted, "kept", a.Kept, "bytes", a.Bytes)
	// The records left the database: the tenant's audit trail says where.
	s.Audit.Change(ctx, tenantID, "archive.create", kanri.AuditResource{Type: kanri.AuditArchive, ID: a.ID}, nil,
		map[string]any{"documents": a.Documents, "deleted": a.Deleted, "from": a.From.String(), "to": a.To.String()})
	return a, nil
}

// abort stops a part being written, and returns err.
func abort(w *backup.PartWriter, err error) error {
	if w != nil {
		w.Abort(err)
	}
	return err
}

// start records a new archive, being written.
func (s *Service) start(ctx context.Context, tenantID string, now time.Time) (*Archive, error) {
	a := &Archive{
		Doc:   kanri.Doc{ID: "archive_" + now.UTC().Format("20060102150405") + "_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:12]},
		State: StateWriting, Sealed: s.keys.Recipient(), CreatedAt: kanri.NewTime(now),
	}
	return a, s.archives(tenantID).Create(ctx, a)
}

// span widens the archive's period to the record's time.
func (a *Archive) span(doc map[string]any, since string) {
	v, _ := doc[since].(string)
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return
	}
	if a.From.IsZero() || t.Before(a.From.Time) {
		a.From = kanri.NewTime(t)
	}
	if t.After(a.To.Time) {
		a.To = kanri.NewTime(t)
	}
}

// writeManifest writes the archive's manifest, in the backups' format.
func (s *Service) writeManifest(ctx context.Context, tenantID string, a *Archive) error {
	m := backup.Manifest{
		Format: backup.FormatVersion, TenantID: tenantID, HistoryID: a.ID, JobName: "archive",
		StartedAt: a.CreatedAt, CompletedAt: kanri.NewTime(s.Now()), Consistency: "end", Sealed: a.Sealed,
	}
	for _, p := range a.Parts {
		m.Parts = append(m.Parts, backup.PartInfo{Name: p.Type, Blob: p.Blob[strings.LastIndexByte(p.Blob, '/')+1:], Documents: p.Documents, Bytes: p.Bytes, SHA256: p.SHA256})
	}
	body, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	_, err = s.blobs.Put(ctx, blobName(tenantID, a.ID, "manifest.json"), bytes.NewReader(body))
	return err
}

// finish checks that every part of the archive reads back whole, deletes
// from the store each of its records that has not changed since (one
// that has stays, to be archived again), and moves the parts to the
// archive tier. Done again after a crash, it does the same.
func (s *Service) finish(ctx context.Context, tenantID string, a *Archive) error {
	for _, p := range a.Parts {
		n := 0
		if err := backup.ReadPart(ctx, s.blobs, s.keys, p.Blob, p.SHA256, func(string, json.RawMessage) error { n++; return nil }); err != nil {
			return fmt.Errorf("archive %s does not read back: %w", a.ID, err)
		}
		if n != p.Documents {
			return fmt.Errorf("archive %s: part %s holds %d records, %d were written", a.ID, p.Type, n, p.Documents)
		}
	}
	s.step("verified")
	a.Deleted, a.Kept = 0, 0
	for _, p := range a.Parts {
		c := s.Store.Port().Container(p.Container)
		var batch []docstore.Op
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			defer func() { batch = batch[:0] }()
			if _, err := c.Batch(ctx, tenantID, batch); err == nil {
				a.Deleted += len(batch)
				s.step("deleting")
				return nil
			}
			// One changed or went meanwhile: one at a time.
			for _, op := range batch {
				err := c.Delete(ctx, tenantID, op.ID, op.IfMatch)
				switch {
				case err == nil, kanri.IsCode(err, kanri.ENOTFOUND):
					a.Deleted++
				case kanri.IsCode(err, kanri.ESTALE):
					a.Kept++ // changed just now
				default:
					return err
				}
			}
			return nil
		}
		err := backup.ReadPart(ctx, s.blobs, s.keys, p.Blob, p.SHA256, func(_ string, body json.RawMessage) error {
			var hd struct{ ID string }
			if err := json.Unmarshal(body, &hd); err != nil {
				return err
			}
			cur, err := c.Read(ctx, tenantID, hd.ID)
			if kanri.IsCode(err, kanri.ENOTFOUND) {
				a.Deleted++ // deleted by an earlier attempt, or expired
				return nil
			}
			if err != nil {
				return err
			}
			if !same(cur.Body, body) {
				a.Kept++
				return nil
			}
			batch = append(batch, docstore.Op{Kind: docstore.OpDelete, ID: hd.ID, IfMatch: cur.ETag})
			if len(batch) == docstore.MaxBatchOps {
				return flush()
			}
			return nil
		})
		if err == nil {
			err = flush()
		}
		if err != nil {
			return err
		}
	}
	for _, p := range a.Parts {
		if err := s.blobs.SetTier(ctx, p.Blob, blob.TierArchive); err != nil {
			return err
		}
	}
	a.State, a.ArchivedAt = StateArchived, kanri.NewTime(s.Now())
	return s.archives(tenantID).Replace(ctx, a)
}

// same reports whether two versions of a document are the same, but for
// the store's own fields ("_etag", "_ts", …).
func same(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	da, err1 := decode(a)
	db, err2 := decode(b)
	if err1 != nil || err2 != nil {
		return false
	}
	for _, d := range []map[string]any{da, db} {
		for k := range d {
			if strings.HasPrefix(k, "_") {
				delete(d, k)
			}
		}
	}
	return reflect.DeepEqual(da, db)
}

// actorName is who acts in ctx.
func actorName(ctx context.Context) string { return audit.ActorFrom(ctx).UserName }
