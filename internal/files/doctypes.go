package files

import (
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// DocTypes are the document types of files (docs/architecture.md,
// "Document types").
var DocTypes = []doctype.Type{
	{
		Name: kanri.TypeFile, Container: kanri.ContainerFiles, Of: &kanri.File{},
		Indexes: []doctype.Index{
			{Name: "file_folder_name", Fields: []string{"folderId", "deletedAt", "nameKey"}},
			{Name: "file_folder_size", Fields: []string{"folderId", "deletedAt", "size"}},
			{Name: "file_folder_uploaded", Fields: []string{"folderId", "deletedAt", "uploadedAt"}},
			{Name: "file_uploaded", Fields: []string{"uploadedAt"}},
			{Name: "file_trash", Fields: []string{"deletedAt"}},
			{Name: "file_search", Fields: []string{"searchTerms[]", "nameKey"}},
		},
		Backup:   doctype.InPart(kanri.PartFiles),
		Personal: doctype.Personal{Owner: "uploadedBy", Data: []string{"uploadedBy", "deletedBy"}},
		Erasure:  doctype.KeepFor("the organisation's file, which it keeps; the uploader is named by id only, and the user is pseudonymised"),
		Export:   []string{"name", "size", "contentType", "uploadedAt", "folderId"},
	},
	{
		Name: kanri.TypeFolder, Container: kanri.ContainerFiles, Of: &kanri.Folder{},
		Indexes: []doctype.Index{
			{Name: "folder_parent_name", Fields: []string{"parentFolderId", "nameKey"}},
			{Name: "folder_path", Fields: []string{"path"}},
		},
		Backup:   doctype.InPart(kanri.PartFiles),
		Personal: doctype.Personal{Owner: "createdBy", Data: []string{"createdBy"}},
		Erasure:  doctype.KeepFor("the organisation's folder; its creator is named by id only, and the user is pseudonymised"),
	},
	{
		Name: kanri.TypeFolderName, Container: kanri.ContainerFiles, Of: &kanri.FolderName{},
		Backup: doctype.InPart(kanri.PartFiles),
	},
	{
		Name: kanri.TypeUpload, Container: kanri.ContainerFiles, Of: &kanri.Upload{},
		Indexes: []doctype.Index{
			{Name: "upload_expires", Fields: []string{"expiresAt"}},
			{Name: "upload_open", Fields: []string{"completedAt", "expiresAt"}}, // uploads in progress (Unfinished)
		},
		Backup:    doctype.NotBackedUp("an upload in progress, whose bytes backups do not hold: its client resumes or starts again"),
		Personal:  doctype.Personal{Owner: "uploadedBy", Data: []string{"uploadedBy", "name", "metadata"}},
		Erasure:   doctype.Erase(),
		Retention: doctype.Retention{PerDocument: "expiresAt: the files' worker removes an upload that expired"},
	},
	{
		Name: kanri.TypeFileStorage, Container: kanri.ContainerFiles, Of: &kanri.FileStorage{},
		Backup: doctype.InPart(kanri.PartFiles),
	},
}

// Container is the files container: files, folders and uploads.
var Container = doctype.Container{Name: kanri.ContainerFiles, Indexing: doctype.DefaultIndexing()}
