package filepages

import (
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// Routes are the pages of a tenant's files and folders, and their uploads.
func (s *Pages) Routes(g console.Groups) []console.Route {
	fs := g.Tenant.Group("/files", httpkit.Usable(s.Catalog, kanri.FileServiceID))
	// Resumable uploads (tus): a session and the CSRF header like the
	// console, but their own body handling (no console body limit: each
	// PATCH is bounded by what is left of its upload) and no read or write
	// deadline but an idle one.
	tu := s.consoleUploads()
	up := g.Echo.Group("/t/:tenant/uploads", s.RequireUser, s.ResolveTenant, s.CSRF, httpkit.Usable(s.Catalog, kanri.FileServiceID))
	up.OPTIONS("", tu.Options, httpkit.Need(role.FilesCreate)).Name = "perm:" + role.FilesCreate
	up.POST("", tu.Create, httpkit.Need(role.FilesCreate)).Name = "perm:" + role.FilesCreate
	up.HEAD("/:upload", tu.Head, httpkit.Need(role.FilesCreate)).Name = "perm:" + role.FilesCreate // not GET: HEAD is its own here
	up.PATCH("/:upload", tu.Patch, httpkit.Need(role.FilesCreate)).Name = "perm:" + role.FilesCreate
	up.DELETE("/:upload", tu.Delete, httpkit.Need(role.FilesCreate)).Name = "perm:" + role.FilesCreate

	return []console.Route{
		console.Get(fs, "", role.FilesRead, s.listFiles),
		console.Get(fs, "/trash", role.FilesRead, s.listTrash),
		console.Post(fs, "/trash/empty", role.FilesDelete, s.emptyTrash),
		console.Post(fs, "/folders", role.FilesCreate, s.createFolder),
		console.Post(fs, "/uploads/:upload/cancel", role.FilesCreate, s.cancelUpload),
		console.Get(fs, "/folders/:id", role.FilesRead, s.showFolderPage),
		console.Post(fs, "/folders/:id/rename", role.FilesUpdate, s.renameFolder),
		console.Post(fs, "/folders/:id/move", role.FilesUpdate, s.moveFolder),
		console.Post(fs, "/folders/:id/delete", role.FilesDelete, s.deleteFolder),
		console.Get(fs, "/:id", role.FilesRead, s.showFile),
		// A member (files.create) changes its own files; anyone else's
		// needs files.update or files.delete (ownFile).
		console.Post(fs, "/:id", role.FilesCreate, s.ownFile(role.FilesUpdate, s.updateFile)),
		console.Post(fs, "/:id/move", role.FilesCreate, s.ownFile(role.FilesUpdate, s.moveFile)),
		console.Post(fs, "/:id/delete", role.FilesCreate, s.ownFile(role.FilesDelete, s.trashFile)),
		console.Post(fs, "/:id/restore", role.FilesCreate, s.ownFile(role.FilesDelete, s.restoreFile)),
		console.Post(fs, "/:id/purge", role.FilesDelete, s.purgeFile),
		console.Get(fs, "/:id/download", role.FilesRead, s.downloadFile),
		console.Get(fs, "/:id/preview", role.FilesRead, s.previewFile),
		console.Get(fs, "/:id/thumbnail", role.FilesRead, s.thumbnail),
	}
}

// Nav are the feature's entries of the side navigation.
func (s *Pages) Nav() []views.NavEntry {
	return []views.NavEntry{
		{Key: "files", LabelKey: "nav.files", Path: views.FilesPath, Perm: role.FilesRead, Service: kanri.FileServiceID, Order: 50},
	}
}
