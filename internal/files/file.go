package files

import (
	"context"
	"slices"
	"strings"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/search"
	"github.com/kanri/kanri/internal/store"
)

// File returns one of the tenant's files, in the trash or not.
func (s *Service) File(ctx context.Context, tenantID, id string) (*kanri.File, error) {
	if err := checkID(tenantID, id, "file_"); err != nil {
		return nil, err
	}
	return s.Store.Tenant(tenantID).Files().Get(ctx, id)
}

// LiveFile returns one of the tenant's files that is not in the trash.
func (s *Service) LiveFile(ctx context.Context, tenantID, id string) (*kanri.File, error) {
	f, err := s.File(ctx, tenantID, id)
	if err == nil && f.InTrash() {
		return nil, kanri.E(kanri.ENOTFOUND, "files.in_trash")
	}
	return f, err
}

// Sort orders of a folder's files.
const (
	SortName = "name"
	SortSize = "size"
	SortDate = "date"
)

// sortFields are the stored fields of the sort orders, each served by an
// index of the folder's files (folderId, deletedAt, field).
var sortFields = map[string]string{SortName: "nameKey", SortSize: "size", SortDate: "uploadedAt"}

// ListQuery is what a folder's page asks for.
type ListQuery struct {
	Sort  string // SortName (default), SortSize or SortDate
	Desc  bool
	Limit int
	Next  string
}

// Files returns one page of the files in a folder ("" for the top level)
// that are not in the trash, in the query's order: one index range, so a
// page costs the same in a folder of a hundred files as of a million.
func (s *Service) Files(ctx context.Context, tenantID, folderID string, q ListQuery) ([]*kanri.File, string, error) {
	field, ok := sortFields[q.Sort]
	if !ok {
		field = sortFields[SortName]
	}
	return s.Store.Tenant(tenantID).Files().Query(ctx, docstore.Query{
		Where:   []docstore.Filter{docstore.Eq("folderId", nilIfEmpty(folderID)), docstore.Eq("deletedAt", nil)},
		OrderBy: field, Desc: q.Desc, Limit: q.Limit, Continuation: q.Next,
	})
}

// Recent returns the tenant's latest uploaded files that are not in the
// trash, the newest first: one index range (a message's attachments are
// picked from them).
func (s *Service) Recent(ctx context.Context, tenantID string, limit int) ([]*kanri.File, error) {
	fs, _, err := s.Store.Tenant(tenantID).Files().Query(ctx, docstore.Query{
		Where: []docstore.Filter{docstore.Eq("deletedAt", nil)}, OrderBy: "uploadedAt", Desc: true, Limit: limit,
	})
	return fs, err
}

// Browse returns one page of the files of a folder ("" for the top
// level) in the query's order, or, when q is not empty, of the tenant's
// files whose names or tags have words beginning with its words, by name:
// the console's folder page and the API list files this one way.
func (s *Service) Browse(ctx context.Context, tenantID, folderID, q string, lq ListQuery) ([]*kanri.File, string, error) {
	if q != "" {
		return s.Search(ctx, tenantID, q, lq.Limit, lq.Next)
	}
	return s.Files(ctx, tenantID, folderID, lq)
}

// Search returns one page of the tenant's files (not in the trash) whose
// names or tags have words starting with each word of q, by name.
func (s *Service) Search(ctx context.Context, tenantID, q string, limit int, next string) ([]*kanri.File, string, error) {
	where := append(search.Filters(q), docstore.Eq("deletedAt", nil))
	return s.Store.Tenant(tenantID).Files().Query(ctx, docstore.Query{Where: where, OrderBy: "nameKey", Limit: limit, Continuation: next})
}

// Trash returns one page of the tenant's trash, the latest deleted first.
func (s *Service) Trash(ctx context.Context, tenantID string, limit int, next string) ([]*kanri.File, string, error) {
	return s.Store.Tenant(tenantID).Files().Query(ctx, docstore.Query{
		Where: []docstore.Filter{docstore.Gt("deletedAt", "")}, OrderBy: "deletedAt", Desc: true, Limit: limit, Continuation: next,
	})
}

// FileInput is what a file's form edits.
type FileInput struct {
	// Name renames the file (the name it downloads with); "" keeps it.
	Name        string
	DisplayName string
	Tags        string // comma- or space-separated
	Description string
}

// FilePatch changes some of a file's fields: Input gives its metadata
// from the file as read (nil: unchanged), and Folder the folder to move
// it to (nil: it stays; "" is the top level).
type FilePatch struct {
	Input  func(*kanri.File) (FileInput, error)
	Folder *string
}

// PatchFile makes a patch of a live file, as pre decides on the file as
// read (store.Patch): pre may also refuse it (a right the caller lacks).
// The metadata and the folder change in turn; a change made between them
// is read again unless the patch is conditional.
func (s *Service) PatchFile(ctx context.Context, tenantID, id string, pre kanri.Precondition[*kanri.File], p FilePatch) (*kanri.File, error) {
	return store.Patch(ctx, func() (*kanri.File, bool, error) {
		f, err := s.LiveFile(ctx, tenantID, id)
		if err != nil {
			return nil, false, err
		}
		conditional, err := pre(f)
		if err != nil {
			return nil, true, err // refused: the answer, never read again
		}
		seen := kanri.Seen{ETag: f.ETag, State: f.State()}
		if p.Input != nil {
			in, err := p.Input(f)
			if err != nil {
				return nil, conditional, err
			}
			if f, err = s.UpdateFile(ctx, tenantID, f.ID, seen, in); err != nil {
				return nil, conditional, err
			}
			seen = kanri.Seen{ETag: f.ETag, State: f.State()}
		}
		if p.Folder != nil && *p.Folder != deref(f.FolderID) {
			f, err = s.MoveFile(ctx, tenantID, f.ID, seen, *p.Folder)
		}
		return f, conditional, err
	})
}

// maxTags and the lengths of a file's metadata.
const (
	maxTags        = 20
	maxTagLength   = 50
	maxDescription = 1000
)

// parseTags splits tags typed as "a, b c" into unique tags.
func parseTags(s string) []string {
	var out []string
	for _, t := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '、' || r == ' ' || r == '\u3000' || r == '\n' }) {
		if t = strings.TrimSpace(t); t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func (in *FileInput) parse() (kanri.FileMetadata, error) {
	in.Name, in.DisplayName, in.Description = strings.TrimSpace(in.Name), strings.TrimSpace(in.DisplayName), strings.TrimSpace(in.Description)
	f := kanri.Fields{}
	if in.Name != "" {
		if msg := kanri.CheckFileName(in.Name); msg != "" {
			f["name"] = msg
		}
	}
	if in.DisplayName != "" {
		if msg := kanri.CheckFileName(in.DisplayName); msg != "" {
			f["displayName"] = msg
		}
	}
	tags := parseTags(in.Tags)
	if len(tags) > maxTags {
		f["tags"] = "files.too_many_tags"
	}
	for _, t := range tags {
		if len([]rune(t)) > maxTagLength || kanri.CheckFileName(t) != "" {
			f["tags"] = "files.bad_tag"
		}
	}
	if len([]rune(in.Description)) > maxDescription {
		f["description"] = "validation.too_long"
	}
	if len(f) > 0 {
		return kanri.FileMetadata{}, kanri.Invalid(f)
	}
	return kanri.FileMetadata{Tags: tags, Description: in.Description}, nil
}

func fileFields(f *kanri.File) map[string]any {
	return map[string]any{"name": f.Name, "displayName": f.DisplayName, "tags": f.Metadata.Tags, "description": f.Metadata.Description, "folderId": deref(f.FolderID)}
}

// UpdateFile renames a file and changes its display name and metadata as
// seen (its ETag). A change that changes nothing writes nothing.
func (s *Service) UpdateFile(ctx context.Context, tenantID, id string, seen kanri.Seen, in FileInput) (*kanri.File, error) {
	meta, err := in.parse()
	if err != nil {
		return nil, err
	}
	return s.changeFile(ctx, tenantID, id, seen, "file.update", func(f *kanri.File) error {
		if in.Name != "" {
			f.Name, f.NameKey = in.Name, kanri.FoldName(in.Name)
		}
		f.DisplayName, f.Metadata = in.DisplayName, meta
		return nil
	})
}

// MayChange says whether userID may change (edit, move, trash, restore)
// the file f: an administrator of the files (manage: files.update or
// files.delete, as the change needs) may change anyone's; a member
// (files.create) only the files they uploaded. Another person's file is
// EFORBIDDEN, "files.not_yours".
func MayChange(f *kanri.File, userID string, manage bool) error {
	if manage || f.UploadedBy == userID {
		return nil
	}
	return kanri.E(kanri.EFORBIDDEN, "files.not_yours")
}

// Changeable returns the file id when userID may change it (MayChange).
func (s *Service) Changeable(ctx context.Context, tenantID, id, userID string, manage bool) (*kanri.File, error) {
	f, err := s.File(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	return f, MayChange(f, userID, manage)
}

// MoveFile moves a file as seen into a folder ("" for the top level).
func (s *Service) MoveFile(ctx context.Context, tenantID, id string, seen kanri.Seen, folderID string) (*kanri.File, error) {
	if folderID != "" {
		if _, err := s.Folder(ctx, tenantID, folderID); err != nil {
			if kanri.IsCode(err, kanri.ENOTFOUND) {
				return nil, kanri.Invalid(kanri.Fields{"folderId": "files.no_such_folder"})
			}
			return nil, err
		}
	}
	f, err := s.changeFile(ctx, tenantID, id, seen, "file.move", func(f *kanri.File) error {
		f.FolderID = ptr(folderID)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.landed(ctx, tenantID, f)
}

// landed checks, after a file was written into a folder, that the folder
// still exists. A folder deleted meanwhile did not see the file (its
// deletion scanned the folder before), so the file moves to the top level.
// DeleteFolder looks again after its deletes: whichever of the two writes
// comes second, its check sees the other, and no file is left in a folder
// that is gone.
func (s *Service) landed(ctx context.Context, tenantID string, f *kanri.File) (*kanri.File, error) {
	folderID := deref(f.FolderID)
	if folderID == "" {
		return f, nil
	}
	if _, err := s.Folder(ctx, tenantID, folderID); !kanri.IsCode(err, kanri.ENOTFOUND) {
		return f, err
	}
	s.Logger.Info("file moved to the top level: its folder was deleted as it arrived", "tenant", tenantID, "file", f.ID, "folder", folderID)
	return s.MoveFile(ctx, tenantID, f.ID, kanri.Seen{}, "")
}

// changeFile applies change to a live file as seen and writes it, unless
// it changed nothing.
func (s *Service) changeFile(ctx context.Context, tenantID, id string, seen kanri.Seen, action string, change func(*kanri.File) error) (*kanri.File, error) {
	return store.Retry(ctx, func() (*kanri.File, error) { return s.changeFileOnce(ctx, tenantID, id, seen, action, change) })
}

// changeFileOnce is one attempt of changeFile: a write that another beat
// is a lost race (store.Retry reads the file again), and stale only if the
// file as seen changed.
func (s *Service) changeFileOnce(ctx context.Context, tenantID, id string, seen kanri.Seen, action string, change func(*kanri.File) error) (*kanri.File, error) {
	f, err := s.LiveFile(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if seen.Stale(f.ETag, f.State()) {
		return nil, kanri.Stale()
	}
	if seen.ETag != f.ETag {
		seen.ETag = "" // only bookkeeping changed: write at the read's ETag
	}
	before := fileFields(f)
	if err := change(f); err != nil {
		return nil, err
	}
	after := fileFields(f)
	if len(audit.Diff(before, after)) == 0 {
		return f, nil
	}
	f.UpdatedAt = kanri.NewTime(s.Now())
	if err := s.Store.Tenant(tenantID).Files().Replace(ctx, f); err != nil {
		return nil, store.Raced(err)
	}
	s.nameFolders(ctx, tenantID, before, after)
	s.Audit.Change(ctx, tenantID, action, kanri.AuditResource{Type: kanri.AuditFile, ID: f.ID, Name: f.Title()}, before, after)
	return f, nil
}

// nameFolders replaces the folder ids of a file's fields before and after
// a change by the folders' paths ("folder": "/" for the top level), for
// the audit record: a record names a folder as people know it. A folder
// that is gone is named by its id.
func (s *Service) nameFolders(ctx context.Context, tenantID string, before, after map[string]any) {
	b, _ := before["folderId"].(string)
	a, _ := after["folderId"].(string)
	delete(before, "folderId")
	delete(after, "folderId")
	if a != b {
		before["folder"], after["folder"] = s.folderPath(ctx, tenantID, b), s.folderPath(ctx, tenantID, a)
	}
}

// folderPath returns the path of a folder ("/" for the top level, ""),
// or its id when it cannot be read.
func (s *Service) folderPath(ctx context.Context, tenantID, id string) string {
	if id == "" {
		return "/"
	}
	f, err := s.Folder(ctx, tenantID, id)
	if err != nil {
		return id
	}
	return f.Path
}

// TrashFile moves a file as seen to the trash, where it stays restorable
// for kanri.TrashRetention and still counts in the quota.
func (s *Service) TrashFile(ctx context.Context, tenantID, id string, seen kanri.Seen) (*kanri.File, error) {
	return s.trash(ctx, tenantID, id, seen, true)
}

// RestoreFile takes a file out of the trash, back into its folder: one
// deleted since is made again at the path it had (the folders of a
// deleted folder's files come back as their files are restored).
func (s *Service) RestoreFile(ctx context.Context, tenantID, id string, seen kanri.Seen) (*kanri.File, error) {
	return s.trash(ctx, tenantID, id, seen, false)
}

// trash moves a file into the trash (in) or out of it, with the storage
// account in one transaction.
func (s *Service) trash(ctx context.Context, tenantID, id string, seen kanri.Seen, in bool) (*kanri.File, error) {
	var f *kanri.File
	repo := s.Store.Tenant(tenantID).Files()
	_, err := s.account(ctx, tenantID, func(st *kanri.FileStorage) error {
		var err error
		if f, err = s.File(ctx, tenantID, id); err != nil {
			return err
		}
		if seen.Stale(f.ETag, f.State()) {
			return kanri.Stale()
		}
		if f.InTrash() == in {
			if in {
				return kanri.E(kanri.ENOTFOUND, "files.in_trash")
			}
			return kanri.E(kanri.ECONFLICT, "files.not_in_trash")
		}
		if in {
			f.DeletedAt, f.DeletedBy, f.TrashedFrom = kanri.NewTime(s.Now()), audit.ActorFrom(ctx).UserID, ""
			st.Used, st.Trash = max(0, st.Used-f.Size), st.Trash+f.Size
			if f.FolderID != nil {
				d, err := s.Folder(ctx, tenantID, *f.FolderID)
				if err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
					return err
				}
				if d != nil {
					f.TrashedFrom = d.Path
				}
			}
		} else {
			f.DeletedAt, f.DeletedBy = kanri.Time{}, ""
			st.Used, st.Trash = st.Used+f.Size, max(0, st.Trash-f.Size)
			if f.FolderID != nil {
				if _, err := s.Folder(ctx, tenantID, *f.FolderID); kanri.IsCode(err, kanri.ENOTFOUND) {
					// Its folder was deleted: made again where it was,
					// else (no path kept) the top level.
					f.FolderID = nil
					if f.TrashedFrom != "" {
						id, err := s.makePath(ctx, tenantID, f.TrashedFrom)
						if err != nil {
							return err
						}
						f.FolderID = ptr(id)
					}
				} else if err != nil {
					return err
				}
			}
			f.TrashedFrom = ""
		}
		return nil
	}, func() ([]docstore.Op, error) {
		op, err := repo.Op(docstore.OpReplace, f)
		return []docstore.Op{op}, err
	})
	if err != nil {
		return nil, err
	}
	if f2, err := repo.Get(ctx, id); err == nil {
		f = f2
	}
	if in {
		s.Audit.Change(ctx, tenantID, "file.delete", kanri.AuditResource{Type: kanri.AuditFile, ID: f.ID, Name: f.Title()}, map[string]any{"inTrash": false}, map[string]any{"inTrash": true})
	} else {
		s.Audit.Change(ctx, tenantID, "file.restore", kanri.AuditResource{Type: kanri.AuditFile, ID: f.ID, Name: f.Title()}, map[string]any{"inTrash": true}, map[string]any{"inTrash": false})
	}
	s.meter.storage(tenantID)
	return f, nil
}

// PurgeFile deletes a file of the trash for good: its document and its
// count in one transaction, then its blobs. A blob left by a failure is
// removed by the orphan cleanup.
func (s *Service) PurgeFile(ctx context.Context, tenantID, id string) error {
	f, err := s.purge(ctx, tenantID, id)
	if err != nil {
		return err
	}
	s.Audit.Change(ctx, tenantID, "file.purge", kanri.AuditResource{Type: kanri.AuditFile, ID: f.ID, Name: f.Title()}, map[string]any{"size": f.Size}, nil)
	return nil
}

func (s *Service) purge(ctx context.Context, tenantID, id string) (*kanri.File, error) {
	var f *kanri.File
	_, err := s.account(ctx, tenantID, func(st *kanri.FileStorage) error {
		var err error
		if f, err = s.File(ctx, tenantID, id); err != nil {
			return err
		}
		if !f.InTrash() {
			return kanri.E(kanri.ECONFLICT, "files.not_in_trash")
		}
		st.Trash, st.Files = max(0, st.Trash-f.Size), max(0, st.Files-1)
		return nil
	}, func() ([]docstore.Op, error) {
		return []docstore.Op{{Kind: docstore.OpDelete, ID: f.ID, IfMatch: f.ETag}}, nil
	})
	if err != nil {
		return nil, err
	}
	s.removeBlobs(ctx, tenantID, f.ID)
	s.meter.storage(tenantID)
	return f, nil
}

// removeBlobs deletes a file's content and thumbnails; what fails is left
// to the orphan cleanup.
func (s *Service) removeBlobs(ctx context.Context, tenantID, fileID string) {
	names := append([]string{kanri.BlobName(tenantID, fileID)}, thumbnailNames(tenantID, fileID)...)
	for _, name := range names {
		if err := s.Blobs.Delete(ctx, name); err != nil {
			s.Logger.Warn("blob not deleted; the orphan cleanup will", "blob", name, "err", err)
		}
	}
}

// EmptyTrash purges every file of the tenant's trash and returns how many.
func (s *Service) EmptyTrash(ctx context.Context, tenantID string) (int, error) {
	n := 0
	for {
		page, _, err := s.Trash(ctx, tenantID, docstore.MaxPageSize, "")
		if err != nil {
			return n, err
		}
		if len(page) == 0 {
			break
		}
		for _, f := range page {
			if _, err := s.purge(ctx, tenantID, f.ID); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
				return n, err
			}
			n++
		}
	}
	if n > 0 {
		s.Audit.Change(ctx, tenantID, "file.empty_trash", kanri.AuditResource{Type: kanri.AuditFile, ID: "trash", Name: "trash"}, map[string]any{"files": n}, nil)
	}
	return n, nil
}
