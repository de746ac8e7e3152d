package backup

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// prune deletes the job's archives older than its retention, never its
// latest successful one, and then the file contents no kept archive of
// the tenant references. It runs under the tenant's lease (after a
// backup), so no backup adds references meanwhile.
func (s *Service) prune(ctx context.Context, tenantID string, j *kanri.BackupJob) error {
	cutoff := s.Now().Add(-time.Duration(j.RetentionDays) * 24 * time.Hour)
	repo := s.Store.Tenant(tenantID).BackupHistory()
	keptLatest, deleted, next := false, 0, ""
	for {
		hs, n, err := repo.Query(ctx, docstore.Query{
			Where: []docstore.Filter{docstore.Eq("jobId", j.ID)}, OrderBy: "startedAt", Desc: true, Limit: 100, Continuation: next,
		})
		if err != nil {
			return err
		}
		for _, h := range hs {
			if !h.Restorable() {
				continue
			}
			if !keptLatest {
				keptLatest = true
				continue
			}
			if !h.StartedAt.Before(cutoff) {
				continue
			}
			s.removeArchive(ctx, tenantID, h.ID)
			h.ArchiveDeletedAt = kanri.NewTime(s.Now())
			if _, err := repo.Modify(ctx, h.ID, nil, func(cur *kanri.BackupHistory) error {
				cur.ArchiveDeletedAt = h.ArchiveDeletedAt
				return nil
			}); err != nil {
				return err
			}
			deleted++
		}
		if next = n; next == "" {
			break
		}
	}
	if deleted == 0 {
		return nil
	}
	s.Logger.Info("backup archives past their retention deleted", "tenant", tenantID, "job", j.ID, "count", deleted)
	_, err := s.collectContents(ctx, tenantID)
	return err
}

// collectContents deletes the file contents that no kept archive of the
// tenant references, and returns how many it deleted.
func (s *Service) collectContents(ctx context.Context, tenantID string) (int, error) {
	referenced := map[string]bool{}
	next := ""
	for {
		hs, n, err := s.Store.Tenant(tenantID).BackupHistory().Query(ctx, docstore.Query{
			Where: []docstore.Filter{docstore.Eq("status", kanri.BackupSuccess)}, OrderBy: "startedAt", Limit: 100, Continuation: next,
		})
		if err != nil {
			return 0, err
		}
		for _, h := range hs {
			if !h.Restorable() {
				continue
			}
			m, err := s.manifest(ctx, tenantID, h.ID)
			if err != nil {
				return 0, err
			}
			pi, ok := m.Part(kanri.PartFiles)
			if !ok {
				continue
			}
			err = s.readPart(ctx, archivePrefix(tenantID, h.ID)+pi.Blob, pi.SHA256, func(_ string, body json.RawMessage) error {
				if f, ok, err := fileOf(body); err != nil || !ok {
					return err
				} else {
					referenced[f.Checksum] = true
				}
				return nil
			})
			if err != nil {
				return 0, err
			}
		}
		if next = n; next == "" {
			break
		}
	}
	deleted := 0
	prefix := contentPrefix(tenantID)
	for info, err := range s.blobs.List(ctx, prefix) {
		if err != nil {
			return deleted, err
		}
		sha, sealed := strings.CutSuffix(info.Name[len(prefix):], sealedSuffix)
		if referenced[sha] && (sealed || !s.hasSealed(ctx, tenantID, sha)) {
			continue // a plain content kept before archives were sealed goes once a sealed one is kept
		}
		if err := s.blobs.Delete(ctx, info.Name); err != nil {
			return deleted, err
		}
		deleted++
	}
	return deleted, nil
}

// manifest reads an archive's manifest; ENOTFOUND when the archive is
// incomplete or gone.
func (s *Service) manifest(ctx context.Context, tenantID, historyID string) (*Manifest, error) {
	r, err := s.blobs.NewRangeReader(ctx, manifestBlob(tenantID, historyID), 0, -1)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var m Manifest
	if err := json.NewDecoder(r).Decode(&m); err != nil {
		return nil, damaged("manifest.json", err)
	}
	if m.Format != FormatVersion {
		return nil, kanri.E(kanri.EINVALID, "backups.error.format", m.Format)
	}
	if m.TenantID != tenantID || m.HistoryID != historyID {
		return nil, damaged("manifest.json", errOtherArchive)
	}
	return &m, nil
}

// hasSealed reports whether a content is kept sealed.
func (s *Service) hasSealed(ctx context.Context, tenantID, sha string) bool {
	_, err := s.blobs.Stat(ctx, contentBlob(tenantID, sha)+sealedSuffix)
	return err == nil
}
