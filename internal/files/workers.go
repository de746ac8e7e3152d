package files

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// EmptyOldTrash purges the files of every tenant that have been in the
// trash for longer than kanri.TrashRetention, and returns how many.
func (s *Service) EmptyOldTrash(ctx context.Context) (int, error) {
	n := 0
	for {
		page, _, err := s.Store.Privileged().TrashedFiles(ctx, kanri.NewTime(s.Now().Add(-kanri.TrashRetention)), "")
		if err != nil {
			return n, err
		}
		purged := 0
		for _, f := range page {
			if _, err := s.purge(ctx, f.TenantID, f.ID); err != nil {
				if !kanri.IsCode(err, kanri.ENOTFOUND) && !kanri.IsCode(err, kanri.ECONFLICT) {
					s.Logger.Warn("old trash not purged", "tenant", f.TenantID, "file", f.ID, "err", err)
				}
				continue
			}
			s.Audit.Change(ctx, f.TenantID, "file.purge", kanri.AuditResource{Type: kanri.AuditFile, ID: f.ID, Name: f.Title()}, map[string]any{"size": f.Size, "reason": "retention"}, nil)
			purged++
		}
		n += purged
		if purged == 0 {
			return n, nil // what is left could not be purged now
		}
	}
}

// orphanAge is how old a blob without a document must be before it is
// removed: younger ones may belong to an upload completing right now.
const orphanAge = time.Hour

// Orphans are what CleanOrphans found and removed.
type Orphans struct {
	// Blobs are blobs no document names (a crash between writing the bytes
	// and recording the file, or a blob a purge failed to delete).
	Blobs int
	// Documents are files whose blob is gone; they are deleted with their
	// count, and logged: their contents are lost.
	Documents int
}

// CleanOrphans removes the blobs without a file and the files without a
// blob, in every tenant, and logs how many.
func (s *Service) CleanOrphans(ctx context.Context) (Orphans, error) {
	var o Orphans
	before := s.Now().Add(-orphanAge)
	for _, prefix := range []string{"files/", "thumbs/"} {
		for info, err := range s.Blobs.List(ctx, prefix) {
			if err != nil {
				return o, err
			}
			if info.ModTime.After(before) {
				continue
			}
			tenantID, fileID, ok := blobOwner(prefix, info.Name)
			if ok {
				_, err := s.Store.Tenant(tenantID).Files().Get(ctx, fileID)
				if err == nil || !kanri.IsCode(err, kanri.ENOTFOUND) {
					continue
				}
			}
			if err := s.Blobs.Delete(ctx, info.Name); err != nil {
				return o, err
			}
			o.Blobs++
		}
	}
	next := ""
	for {
		page, token, err := s.allFiles(ctx, next)
		if err != nil {
			return o, err
		}
		for _, f := range page {
			if f.UploadedAt.After(before) {
				continue
			}
			if _, err := s.Blobs.Stat(ctx, kanri.BlobName(f.TenantID, f.ID)); !kanri.IsCode(err, kanri.ENOTFOUND) {
				continue
			}
			s.Logger.Error("file without its blob removed: its contents are lost", "tenant", f.TenantID, "file", f.ID, "name", f.Name)
			if err := s.dropFile(ctx, f); err != nil {
				s.Logger.Warn("file without its blob not removed", "tenant", f.TenantID, "file", f.ID, "err", err)
				continue
			}
			o.Documents++
		}
		if token == "" {
			break
		}
		next = token
	}
	if o.Blobs > 0 || o.Documents > 0 {
		s.Logger.Warn("orphans cleaned", "blobs", o.Blobs, "documents", o.Documents)
	} else {
		s.Logger.Info("orphans cleaned", "blobs", 0, "documents", 0)
	}
	return o, nil
}

// blobOwner reads the tenant and file of a blob name made by
// kanri.BlobName or kanri.ThumbnailBlobName.
func blobOwner(prefix, name string) (tenantID, fileID string, ok bool) {
	tenantID, fileID, ok = strings.Cut(strings.TrimPrefix(name, prefix), "/")
	if prefix == "thumbs/" {
		if i := strings.LastIndexByte(fileID, '-'); i > 0 {
			fileID = fileID[:i]
		}
	}
	return tenantID, fileID, ok && strings.HasPrefix(fileID, "file_")
}

// allFiles returns one page of the files of every tenant.
func (s *Service) allFiles(ctx context.Context, next string) ([]*kanri.File, string, error) {
	return s.Store.Privileged().Files(ctx, docstore.MaxPageSize, next)
}

// dropFile deletes a file's document and its count, whatever its state.
func (s *Service) dropFile(ctx context.Context, f *kanri.File) error {
	_, err := s.account(ctx, f.TenantID, func(st *kanri.FileStorage) error {
		cur, err := s.File(ctx, f.TenantID, f.ID)
		if err != nil {
			return err
		}
		if cur.InTrash() {
			st.Trash = max(0, st.Trash-cur.Size)
		} else {
			st.Used = max(0, st.Used-cur.Size)
		}
		st.Files = max(0, st.Files-1)
		f = cur
		return nil
	}, func() ([]docstore.Op, error) {
		return []docstore.Op{{Kind: docstore.OpDelete, ID: f.ID, IfMatch: f.ETag}}, nil
	})
	if err == nil {
		s.meter.storage(f.TenantID)
		s.Audit.Change(ctx, f.TenantID, "file.lost", kanri.AuditResource{Type: kanri.AuditFile, ID: f.ID, Name: f.Title()}, map[string]any{"size": f.Size}, nil)
	}
	return err
}

// Cleanups runs the file service's cleanups once: expired uploads, the
// trash past its retention, orphans. The scheduler runs them once across
// instances; each is also safe to run twice at once (every change is
// conditional on what it read). A failing cleanup does not stop the others.
func (s *Service) Cleanups(ctx context.Context) error {
	var errs []error
	if n, err := s.ExpireUploads(ctx); err != nil {
		errs = append(errs, fmt.Errorf("expire uploads: %w", err))
	} else if n > 0 {
		s.Logger.Info("expired uploads released", "count", n)
	}
	if n, err := s.EmptyOldTrash(ctx); err != nil {
		errs = append(errs, fmt.Errorf("empty old trash: %w", err))
	} else if n > 0 {
		s.Logger.Info("old trash purged", "count", n)
	}
	if _, err := s.CleanOrphans(ctx); err != nil {
		errs = append(errs, fmt.Errorf("clean orphans: %w", err))
	}
	return errors.Join(errs...)
}
