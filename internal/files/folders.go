package files

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// maxSubtree is the most folders a rename, move or delete rewrites; a
// larger tree is refused rather than half changed.
const maxSubtree = 2000

// Folder returns one of the tenant's folders.
func (s *Service) Folder(ctx context.Context, tenantID, id string) (*kanri.Folder, error) {
	if err := checkID(tenantID, id, "folder_"); err != nil {
		return nil, err
	}
	return s.Store.Tenant(tenantID).Folders().Get(ctx, id)
}

// Ancestors returns the folders from the top level down to the folder id,
// itself included (the breadcrumbs); none for "" (the top level).
func (s *Service) Ancestors(ctx context.Context, tenantID, id string) ([]*kanri.Folder, error) {
	var out []*kanri.Folder
	for id != "" && len(out) <= kanri.MaxFolderDepth {
		f, err := s.Folder(ctx, tenantID, id)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
		id = deref(f.ParentFolderID)
	}
	slices.Reverse(out)
	return out, nil
}

// CreateFolder makes a folder named name in the folder parentID ("" for
// the top level). Names are unique among siblings, compared folded
// (kanri.FoldName): the name's reservation is written in one transaction
// with the folder.
func (s *Service) CreateFolder(ctx context.Context, tenantID, parentID, name string) (*kanri.Folder, error) {
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, err
	}
	name = strings.TrimSpace(name)
	if msg := kanri.CheckFileName(name); msg != "" {
		return nil, kanri.Invalid(kanri.Fields{"name": msg})
	}
	path := ""
	if parentID != "" {
		parent, err := s.Folder(ctx, tenantID, parentID)
		if err != nil {
			return nil, err
		}
		if parent.Depth() >= kanri.MaxFolderDepth {
			return nil, kanri.Invalid(kanri.Fields{"name": "files.too_deep"})
		}
		path = parent.Path
	}
	now := kanri.NewTime(s.Now())
	f := &kanri.Folder{
		Doc: kanri.Doc{ID: newID("folder_")}, Name: name, NameKey: kanri.FoldName(name), ParentFolderID: ptr(parentID),
		Path: path + "/" + name, CreatedBy: audit.ActorFrom(ctx).UserID, CreatedAt: now, UpdatedAt: now,
	}
	ten := s.Store.Tenant(tenantID)
	folderOp, err := ten.Folders().Op(docstore.OpCreate, f)
	if err != nil {
		return nil, err
	}
	nameOp, err := ten.FolderNames().Op(docstore.OpCreate, &kanri.FolderName{Doc: kanri.Doc{ID: kanri.FolderNameID(parentID, f.NameKey)}, FolderID: f.ID})
	if err != nil {
		return nil, err
	}
	res, err := ten.Batch(ctx, kanri.ContainerFiles, []docstore.Op{nameOp, folderOp})
	if kanri.IsCode(err, kanri.ECONFLICT) {
		return nil, kanri.Invalid(kanri.Fields{"name": "files.folder_exists"})
	}
	if err != nil {
		return nil, err
	}
	f.ETag = res[1].ETag
	s.Audit.Change(ctx, tenantID, "folder.create", kanri.AuditResource{Type: kanri.AuditFolder, ID: f.ID, Name: f.Path}, nil, map[string]any{"name": f.Name, "path": f.Path})
	return f, nil
}

// RenameFolder renames a folder as seen (its ETag); the paths of the
// folders inside it follow.
func (s *Service) RenameFolder(ctx context.Context, tenantID, id, etag, name string) (*kanri.Folder, error) {
	name = strings.TrimSpace(name)
	if msg := kanri.CheckFileName(name); msg != "" {
		return nil, kanri.Invalid(kanri.Fields{"name": msg})
	}
	return s.relocate(ctx, tenantID, id, etag, func(f *kanri.Folder) (string, string, error) {
		return deref(f.ParentFolderID), name, nil
	})
}

// MoveFolder moves a folder as seen into the folder parentID ("" for the
// top level): never into itself or a folder inside it.
func (s *Service) MoveFolder(ctx context.Context, tenantID, id, etag, parentID string) (*kanri.Folder, error) {
	return s.relocate(ctx, tenantID, id, etag, func(f *kanri.Folder) (string, string, error) {
		return parentID, f.Name, nil
	})
}

// PatchFolder renames a folder (name; nil keeps it) or moves it into the
// folder parent (nil: it stays; "" is the top level), or both in one
// change, as pre decides on the folder as read (store.Patch).
func (s *Service) PatchFolder(ctx context.Context, tenantID, id string, pre kanri.Precondition[*kanri.Folder], name, parent *string) (*kanri.Folder, error) {
	return store.Patch(ctx, func() (*kanri.Folder, bool, error) {
		f, err := s.Folder(ctx, tenantID, id)
		if err != nil {
			return nil, false, err
		}
		conditional, err := pre(f)
		if err != nil {
			return nil, true, err // refused: the answer, never read again
		}
		to, as := deref(f.ParentFolderID), f.Name // the fields not sent are these
		if name != nil {
			as = *name
		}
		if parent != nil {
			to = *parent
		}
		if as == f.Name && to == deref(f.ParentFolderID) {
			return f, conditional, nil
		}
		f, err = s.RelocateFolder(ctx, tenantID, f.ID, f.ETag, to, as)
		return f, conditional, err
	})
}

// RelocateFolder moves a folder as seen into the folder parentID ("" for
// the top level) under the name name, as one change: both are made, or
// neither (RenameFolder and MoveFolder each change one).
func (s *Service) RelocateFolder(ctx context.Context, tenantID, id, etag, parentID, name string) (*kanri.Folder, error) {
	name = strings.TrimSpace(name)
	if msg := kanri.CheckFileName(name); msg != "" {
		return nil, kanri.Invalid(kanri.Fields{"name": msg})
	}
	return s.relocate(ctx, tenantID, id, etag, func(*kanri.Folder) (string, string, error) {
		return parentID, name, nil
	})
}

// relocate gives a folder the parent and name where returns, as one
// transaction of the folder and its name's reservations, then rewrites
// the paths of the folders inside it.
func (s *Service) relocate(ctx context.Context, tenantID, id, etag string, where func(*kanri.Folder) (string, string, error)) (*kanri.Folder, error) {
	return store.Retry(ctx, func() (*kanri.Folder, error) { return s.relocateOnce(ctx, tenantID, id, etag, where) })
}

// relocateOnce is one attempt of relocate: without an ETag, a write that
// another beat reads the folder again (store.Retry); with one, it is stale.
func (s *Service) relocateOnce(ctx context.Context, tenantID, id, etag string, where func(*kanri.Folder) (string, string, error)) (*kanri.Folder, error) {
	f, err := s.Folder(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if etag != "" && f.ETag != etag {
		return nil, kanri.Stale()
	}
	parentID, name, err := where(f)
	if err != nil {
		return nil, err
	}
	oldParent := deref(f.ParentFolderID)
	if parentID == oldParent && name == f.Name {
		return f, nil // nothing changes: nothing is written
	}
	path := ""
	if parentID != "" {
		ancestors, err := s.Ancestors(ctx, tenantID, parentID)
		if err != nil {
			if kanri.IsCode(err, kanri.ENOTFOUND) {
				return nil, kanri.Invalid(kanri.Fields{"folderId": "files.no_such_folder"})
			}
			return nil, err
		}
		for _, a := range ancestors {
			if a.ID == f.ID {
				return nil, kanri.Invalid(kanri.Fields{"folderId": "files.move_into_itself"})
			}
		}
		path = ancestors[len(ancestors)-1].Path
	}
	inside, err := s.subtree(ctx, tenantID, f)
	if err != nil {
		return nil, err
	}
	height := 0
	for _, d := range inside {
		height = max(height, d.Depth()-f.Depth())
	}
	newPath := path + "/" + name
	if strings.Count(newPath, "/")+height > kanri.MaxFolderDepth {
		return nil, kanri.Invalid(kanri.Fields{"folderId": "files.too_deep"})
	}
	before := map[string]any{"name": f.Name, "path": f.Path}
	oldPath, oldKey := f.Path, f.NameKey
	f.Name, f.NameKey, f.ParentFolderID, f.Path = name, kanri.FoldName(name), ptr(parentID), newPath
	f.UpdatedAt = kanri.NewTime(s.Now())
	ten := s.Store.Tenant(tenantID)
	folderOp, err := ten.Folders().Op(docstore.OpReplace, f)
	if err != nil {
		return nil, err
	}
	ops := []docstore.Op{folderOp}
	oldName, newName := kanri.FolderNameID(oldParent, oldKey), kanri.FolderNameID(parentID, f.NameKey)
	if oldName != newName {
		nameOp, err := ten.FolderNames().Op(docstore.OpCreate, &kanri.FolderName{Doc: kanri.Doc{ID: newName}, FolderID: f.ID})
		if err != nil {
			return nil, err
		}
		ops = append(ops, nameOp, docstore.Op{Kind: docstore.OpDelete, ID: oldName})
	}
	res, err := ten.Batch(ctx, kanri.ContainerFiles, ops)
	switch {
	case kanri.IsCode(err, kanri.ECONFLICT):
		return nil, kanri.Invalid(kanri.Fields{"name": "files.folder_exists"})
	case kanri.IsCode(err, kanri.ESTALE) && etag == "":
		return nil, store.LostRace(err)
	case kanri.IsCode(err, kanri.ESTALE):
		return nil, kanri.Stale()
	case err != nil:
		return nil, err
	}
	f.ETag = res[0].ETag
	s.repath(ctx, tenantID, inside, oldPath, newPath)
	action := "folder.rename"
	if parentID != oldParent {
		action = "folder.move"
	}
	s.Audit.Change(ctx, tenantID, action, kanri.AuditResource{Type: kanri.AuditFolder, ID: f.ID, Name: f.Path}, before, map[string]any{"name": f.Name, "path": f.Path})
	return f, nil
}

// subtree returns the folders inside f, at any depth, by the path index.
func (s *Service) subtree(ctx context.Context, tenantID string, f *kanri.Folder) ([]*kanri.Folder, error) {
	repo := s.Store.Tenant(tenantID).Folders()
	q := docstore.Query{Where: []docstore.Filter{docstore.Prefix("path", f.Path+"/")}, OrderBy: "path", Limit: docstore.MaxPageSize}
	var out []*kanri.Folder
	for {
		page, next, err := repo.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(out) > maxSubtree {
			return nil, kanri.E(kanri.ECONFLICT, "files.tree_too_large", maxSubtree)
		}
		if next == "" {
			return out, nil
		}
		q.Continuation = next
	}
}

// repath rewrites the paths of the folders inside a folder whose path
// changed from oldPath to newPath. Each is its own write: a crash midway
// leaves some paths stale, which the breadcrumbs (read from the parents)
// never show; the next rename or move of the folder writes them again.
func (s *Service) repath(ctx context.Context, tenantID string, inside []*kanri.Folder, oldPath, newPath string) {
	repo := s.Store.Tenant(tenantID).Folders()
	for _, d := range inside {
		_, err := repo.Modify(ctx, d.ID, nil, func(d *kanri.Folder) error {
			if rest, ok := strings.CutPrefix(d.Path, oldPath+"/"); ok {
				d.Path = newPath + "/" + rest
			}
			return nil
		})
		if err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			s.Logger.Warn("folder path not rewritten", "tenant", tenantID, "folder", d.ID, "err", err)
		}
	}
}

// folderNotEmpty is the message of DeleteFolder's refusal to delete a
// folder with files unconfirmed; its arguments are the number of files
// and the folder's path.
const folderNotEmpty = "files.folder_not_empty"

// FolderNotEmpty reports whether err is DeleteFolder's refusal to delete
// a folder with files unconfirmed, and how many files go with it.
func FolderNotEmpty(err error) (int, bool) {
	if kanri.IsCode(err, kanri.ECONFLICT) {
		if key, args := kanri.ErrorMessage(err); key == folderNotEmpty && len(args) == 2 {
			n, ok := args[0].(int)
			return n, ok
		}
	}
	return 0, false
}

// DeleteFolder deletes a folder as seen and the folders inside it. The
// files inside go to the trash (restorable to the top level); a folder
// with files is deleted only when confirmed is the number of those files
// (the person was told how many), else FolderNotEmpty says how many.
func (s *Service) DeleteFolder(ctx context.Context, tenantID, id, etag string, confirmed int) error {
	f, err := s.Folder(ctx, tenantID, id)
	if err != nil {
		return err
	}
	if etag != "" && f.ETag != etag {
		return kanri.Stale()
	}
	inside, err := s.subtree(ctx, tenantID, f)
	if err != nil {
		return err
	}
	all := append([]*kanri.Folder{f}, inside...)
	var files []*kanri.File
	for _, d := range all {
		fs, err := s.Store.Tenant(tenantID).Files().All(ctx, docstore.Query{Where: []docstore.Filter{
			docstore.Eq("folderId", d.ID), docstore.Eq("deletedAt", nil),
		}, OrderBy: "nameKey", Limit: docstore.MaxPageSize})
		if err != nil {
			return err
		}
		files = append(files, fs...)
	}
	if len(files) > 0 && confirmed != len(files) {
		return kanri.E(kanri.ECONFLICT, folderNotEmpty, len(files), f.Path)
	}
	if s.hooks.afterFolderScan != nil {
		s.hooks.afterFolderScan()
	}
	for _, file := range files {
		if _, err := s.trash(ctx, tenantID, file.ID, kanri.Seen{}, true); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return err
		}
	}
	ten := s.Store.Tenant(tenantID)
	// The deepest first, so that a crash midway leaves a tree.
	slices.SortFunc(all, func(a, b *kanri.Folder) int { return b.Depth() - a.Depth() })
	for _, d := range all {
		ops := []docstore.Op{
			{Kind: docstore.OpDelete, ID: d.ID, IfMatch: d.ETag},
			{Kind: docstore.OpDelete, ID: kanri.FolderNameID(deref(d.ParentFolderID), d.NameKey)},
		}
		if _, err := ten.Batch(ctx, kanri.ContainerFiles, ops); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			if kanri.IsCode(err, kanri.ESTALE) {
				return kanri.Stale()
			}
			return err
		}
	}
	// A file that arrived after the scan (an upload completing, a move)
	// was not confirmed for deletion: it goes to the top level.
	for _, d := range all {
		late, err := ten.Files().All(ctx, docstore.Query{Where: []docstore.Filter{
			docstore.Eq("folderId", d.ID), docstore.Eq("deletedAt", nil),
		}, Limit: docstore.MaxPageSize})
		if err != nil {
			return err
		}
		for _, file := range late {
			if _, err := s.MoveFile(ctx, tenantID, file.ID, kanri.Seen{}, ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
				return err
			}
		}
	}
	s.Audit.Change(ctx, tenantID, "folder.delete", kanri.AuditResource{Type: kanri.AuditFolder, ID: f.ID, Name: f.Path}, map[string]any{"path": f.Path, "folders": len(inside), "files": len(files)}, nil)
	return nil
}

// Folders returns one page of the folders in parentID ("" for the top
// level), by name.
func (s *Service) Folders(ctx context.Context, tenantID, parentID string, limit int, next string) ([]*kanri.Folder, string, error) {
	return s.Store.Tenant(tenantID).Folders().Query(ctx, docstore.Query{
		Where: []docstore.Filter{docstore.Eq("parentFolderId", nilIfEmpty(parentID))}, OrderBy: "nameKey", Limit: limit, Continuation: next,
	})
}

// FoldersByPath returns the first limit of the tenant's folders by path,
// for the choice of where to move something.
func (s *Service) FoldersByPath(ctx context.Context, tenantID string, limit int) ([]*kanri.Folder, error) {
	all, _, err := s.Store.Tenant(tenantID).Folders().Query(ctx, docstore.Query{OrderBy: "path", Limit: limit})
	return all, err
}

// nilIfEmpty returns nil for "" (the top level, stored as null), else id.
func nilIfEmpty(id string) any {
	if id == "" {
		return nil
	}
	return id
}

// Origins returns the folders that hold the given files (trashed ones
// keep theirs), by id, read in one query; a folder deleted since maps to
// nil.
func (s *Service) Origins(ctx context.Context, tenantID string, fs []*kanri.File) (map[string]*kanri.Folder, error) {
	out := map[string]*kanri.Folder{}
	for _, f := range fs {
		if f.FolderID != nil {
			out[*f.FolderID] = nil
		}
	}
	if len(out) == 0 {
		return out, nil
	}
	found, err := s.Store.Tenant(tenantID).Folders().ByIDs(ctx, slices.Sorted(maps.Keys(out)), "")
	if err != nil {
		return nil, err
	}
	for _, d := range found {
		out[d.ID] = d
	}
	return out, nil
}

// makePath returns the folder at path ("/A/B"), making the folders along
// it that do not exist; two restores making the same folder at once meet
// in one (its name's reservation).
func (s *Service) makePath(ctx context.Context, tenantID, path string) (string, error) {
	parentID := ""
	for _, name := range strings.Split(strings.Trim(path, "/"), "/") {
		if name == "" {
			continue
		}
		id, err := s.childNamed(ctx, tenantID, parentID, name)
		if kanri.IsCode(err, kanri.ENOTFOUND) {
			var d *kanri.Folder
			d, err = s.CreateFolder(ctx, tenantID, parentID, name)
			if err == nil {
				id = d.ID
			} else if kanri.ErrorFields(err)["name"] == "files.folder_exists" {
				id, err = s.childNamed(ctx, tenantID, parentID, name) // made meanwhile
			}
		}
		if err != nil {
			return "", err
		}
		parentID = id
	}
	return parentID, nil
}

// childNamed returns the id of the folder named name in parentID ("" for
// the top level), by its name's reservation.
func (s *Service) childNamed(ctx context.Context, tenantID, parentID, name string) (string, error) {
	r, err := s.Store.Tenant(tenantID).FolderNames().Get(ctx, kanri.FolderNameID(parentID, kanri.FoldName(name)))
	if err != nil {
		return "", err
	}
	return r.FolderID, nil
}
