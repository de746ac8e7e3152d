package filepages

import (
	"cmp"
	"context"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/chatview"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
	"github.com/kanri/kanri/web/tus"
)

// maxShownFolders is how many subfolders a folder's page lists.
const maxShownFolders = 200

// maxMoveTargets is how many folders a move form offers.
const maxMoveTargets = 500

// listFiles shows the top level of the tenant's files, or the results of
// a search (?q=).
func (s *Pages) listFiles(c echo.Context) error { return s.showFolder(c, "") }

// showFolderPage shows one folder.
func (s *Pages) showFolderPage(c echo.Context) error { return s.showFolder(c, c.Param("id")) }

// showFolder renders a folder's page: its breadcrumbs, subfolders, one
// page of its files in the chosen order, the storage used and the upload
// zone.
func (s *Pages) showFolder(c echo.Context, folderID string) error {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	v := views.FolderView{TenantID: t.ID, Query: strings.TrimSpace(c.QueryParam("q")), Errors: views.Errors{}}
	if folderID != "" {
		trail, err := s.Files.Ancestors(ctx, t.ID, folderID)
		if err != nil {
			return err
		}
		v.Trail, v.Folder = trail, trail[len(trail)-1]
	}
	path := views.FilesPath(t.ID)
	if v.Folder != nil {
		path = views.FolderPath(t.ID, v.Folder.ID)
	}
	if v.Query == "" {
		v.Sort, v.Desc = cmp.Or(c.QueryParam("sort"), files.SortName), c.QueryParam("desc") == "1"
	}
	var err error
	v.Files, v.Paging, err = console.ListPage(c, path, 50, func(next string, limit int) ([]*kanri.File, string, error) {
		return s.Files.Browse(ctx, t.ID, folderID, v.Query, files.ListQuery{Sort: v.Sort, Desc: v.Desc, Limit: limit, Next: next})
	})
	if err == nil && v.Query == "" && v.Paging.OnFirst {
		err = s.subfolders(c, &v, folderID)
	}
	if err != nil {
		return err
	}
	if err := s.storageView(c, &v); err != nil {
		return err
	}
	if err := s.unfinishedView(c, &v); err != nil {
		return err
	}
	if v.Folder != nil {
		if v.Targets, err = s.moveTargets(c); err != nil {
			return err
		}
	}
	p := s.Page(c, "files.title", "files")
	return console.ShowList(c, views.FolderPage(p, v), views.FolderResults(p, v))
}

// subfolders adds a folder's subfolders to its page: maxShownFolders of
// them, from the continuation ?folders= when the person asked for the next
// ones (a token that is not one shows the first).
func (s *Pages) subfolders(c echo.Context, v *views.FolderView, folderID string) error {
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	after := c.QueryParam("folders")
	var err error
	v.Folders, v.MoreFolders, err = s.Files.Folders(ctx, t.ID, folderID, maxShownFolders, after)
	if after != "" && kanri.IsCode(err, kanri.EINVALID) {
		after = ""
		v.Folders, v.MoreFolders, err = s.Files.Folders(ctx, t.ID, folderID, maxShownFolders, "")
	}
	v.FoldersAfter = after != ""
	return err
}

// storageView adds the tenant's storage and limits to a page.
func (s *Pages) storageView(c echo.Context, v *views.FolderView) error {
	ctx := c.Request().Context()
	st, err := s.Files.Storage(ctx, httpkit.Tenant(c).ID)
	if err != nil {
		return err
	}
	limits, err := s.Files.Limits(ctx, httpkit.Tenant(c).ID)
	if err != nil {
		return err
	}
	v.Storage, v.Limits = st, limits
	return nil
}

// maxUnfinished is how many uploads in progress the files page lists.
const maxUnfinished = 20

// unfinishedView adds the uploads in progress the person may resume or
// cancel to a files page: their own, or everyone's for whoever may delete
// files (an administrator), with who started each.
func (s *Pages) unfinishedView(c echo.Context, v *views.FolderView) error {
	if !httpkit.Can(c, role.FilesCreate) {
		return nil
	}
	ctx, t, me := c.Request().Context(), httpkit.Tenant(c), c.Get(httpkit.KeyUser).(*kanri.User)
	who := me.ID
	if v.Everyone = httpkit.Can(c, role.FilesDelete); v.Everyone {
		who = ""
	}
	ups, err := s.Files.Unfinished(ctx, t.ID, who, maxUnfinished)
	if err != nil {
		return err
	}
	names := map[string]string{} // one read per person, however many uploads
	for _, up := range ups {
		u := views.UnfinishedUpload{Upload: up}
		if by := up.UploadedBy; by != me.ID {
			if _, ok := names[by]; !ok {
				names[by] = s.starter(ctx, t.ID, by)
			}
			u.By = names[by]
		}
		v.Unfinished = append(v.Unfinished, u)
	}
	return nil
}

// starter names who started an upload: a user's display name, or an API
// key's name.
func (s *Pages) starter(ctx context.Context, tenantID, id string) string {
	if strings.HasPrefix(id, "apikey_") {
		if k, err := s.Keys.Get(ctx, tenantID, id); err == nil {
			return i18n.T(ctx, "files.by_api_key", k.Name)
		}
	} else if u, err := s.Users.Get(ctx, tenantID, id); err == nil {
		return u.DisplayName
	}
	return i18n.T(ctx, "files.by_unknown")
}

// cancelUpload gives up an upload in progress from the files page: one's
// own, or anyone's for an administrator. Its space is freed at once.
func (s *Pages) cancelUpload(c echo.Context) error {
	ctx, t, me := c.Request().Context(), httpkit.Tenant(c), c.Get(httpkit.KeyUser).(*kanri.User)
	up, err := s.Files.CancelUpload(ctx, t.ID, c.Param("upload"), me.ID, httpkit.Can(c, role.FilesDelete))
	if err != nil {
		return err
	}
	s.Flash(c, "success", "files.upload_cancelled", up.Name)
	return console.Redirect(c, console.BackTo(c, views.FolderPathOrTop(t.ID, deref(up.FolderID))))
}

// moveTargets returns the folders a move form offers, by path.
func (s *Pages) moveTargets(c echo.Context) ([]*kanri.Folder, error) {
	return s.Files.FoldersByPath(c.Request().Context(), httpkit.Tenant(c).ID, maxMoveTargets)
}

// createFolder makes a folder in the folder the form names (parent).
func (s *Pages) createFolder(c echo.Context) error {
	t := httpkit.Tenant(c)
	parent := c.FormValue("parent")
	f, err := s.Files.CreateFolder(c.Request().Context(), t.ID, parent, c.FormValue("name"))
	if err == nil {
		// The person stays where they were, the new folder in the list:
		// folders made one after another stay side by side.
		return s.Report(c, views.FolderPathOrTop(t.ID, parent), "files.folder_created", f.Name)
	}
	if !kanri.IsCode(err, kanri.EINVALID) {
		return err
	}
	return s.folderFormFailed(c, parent, "new", err)
}

// folderFormFailed shows a folder's page again with a form's input and
// errors.
func (s *Pages) folderFormFailed(c echo.Context, folderID, form string, err error) error {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	v := views.FolderView{TenantID: t.ID, Errors: views.Errors(kanri.ErrorFields(err)), FailedForm: form, Input: c.FormValue("name")}
	if folderID != "" {
		trail, terr := s.Files.Ancestors(ctx, t.ID, folderID)
		if terr != nil {
			return terr
		}
		v.Trail, v.Folder = trail, trail[len(trail)-1]
		if v.Targets, terr = s.moveTargets(c); terr != nil {
			return terr
		}
	}
	v.Sort = files.SortName
	var lerr error
	v.Files, _, lerr = s.Files.Files(ctx, t.ID, folderID, files.ListQuery{Limit: 50})
	if lerr == nil {
		lerr = s.subfolders(c, &v, folderID)
	}
	if lerr != nil {
		return lerr
	}
	if serr := s.storageView(c, &v); serr != nil {
		return serr
	}
	v.Paging = views.Paging{Size: 50, Total: -1, OnFirst: true, Path: views.FolderPathOrTop(t.ID, folderID)}
	return httpkit.Render(c, http.StatusUnprocessableEntity, views.FolderPage(s.Page(c, "files.title", "files"), v))
}

// renameFolder renames a folder as the page showed it.
func (s *Pages) renameFolder(c echo.Context) error {
	t := httpkit.Tenant(c)
	f, err := s.Files.RenameFolder(c.Request().Context(), t.ID, c.Param("id"), c.FormValue("etag"), c.FormValue("name"))
	return s.folderChanged(c, f, err, "rename", "files.folder_renamed")
}

// moveFolder moves a folder into the folder the form names ("" for the
// top level).
func (s *Pages) moveFolder(c echo.Context) error {
	t := httpkit.Tenant(c)
	f, err := s.Files.MoveFolder(c.Request().Context(), t.ID, c.Param("id"), c.FormValue("etag"), c.FormValue("target"))
	return s.folderChanged(c, f, err, "move", "files.folder_moved")
}

// folderChanged answers a rename or move of a folder.
func (s *Pages) folderChanged(c echo.Context, f *kanri.Folder, err error, form, doneKey string) error {
	switch {
	case err == nil:
		return s.Report(c, views.FolderPath(f.TenantID, f.ID), doneKey, f.Path)
	case kanri.IsCode(err, kanri.ESTALE):
		return kanri.Wrap(kanri.ESTALE, "stale.action", err)
	case kanri.IsCode(err, kanri.EINVALID):
		return s.folderFormFailed(c, c.Param("id"), form, err)
	}
	return err
}

// deleteFolder deletes a folder; one with files only once the person
// confirmed the number of files that go to the trash with it.
func (s *Pages) deleteFolder(c echo.Context) error {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	f, err := s.Files.Folder(ctx, t.ID, c.Param("id"))
	if err != nil {
		return err
	}
	confirmed, _ := strconv.Atoi(c.FormValue("files"))
	err = s.Files.DeleteFolder(ctx, t.ID, f.ID, c.FormValue("etag"), confirmed)
	if n, ok := files.FolderNotEmpty(err); ok {
		trail, terr := s.Files.Ancestors(ctx, t.ID, f.ID)
		if terr != nil {
			return terr
		}
		return httpkit.Render(c, http.StatusConflict, views.ConfirmFolderDelete(s.Page(c, "files.delete_folder", "files"), t.ID, trail, n))
	}
	if kanri.IsCode(err, kanri.ESTALE) {
		return kanri.Wrap(kanri.ESTALE, "stale.action", err)
	}
	if err != nil {
		return err
	}
	return s.Report(c, views.FolderPathOrTop(t.ID, deref(f.ParentFolderID)), "files.folder_deleted", f.Path)
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// showFile shows a file's details, preview and forms.
func (s *Pages) showFile(c echo.Context) error {
	return s.showFileWith(c, http.StatusOK, nil, nil)
}

// showFileWith renders a file's page, with the edit form's input and
// errors after a failed save.
func (s *Pages) showFileWith(c echo.Context, status int, in *views.FileForm, errs views.Errors) error {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	f, err := s.Files.File(ctx, t.ID, c.Param("id"))
	if err != nil {
		return err
	}
	me := c.Get(httpkit.KeyUser).(*kanri.User)
	v := views.FileView{File: f, TenantID: t.ID, Errors: errs,
		CanEdit:  httpkit.Can(c, role.FilesCreate) && files.MayChange(f, me.ID, httpkit.Can(c, role.FilesUpdate)) == nil,
		CanTrash: httpkit.Can(c, role.FilesCreate) && files.MayChange(f, me.ID, httpkit.Can(c, role.FilesDelete)) == nil}
	if f.FolderID != nil {
		if v.Trail, err = s.Files.Ancestors(ctx, t.ID, *f.FolderID); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return err
		}
	}
	if v.Uploader, err = s.Users.Get(ctx, t.ID, f.UploadedBy); err != nil {
		v.Uploader = nil
	}
	if in != nil {
		v.Input = *in
	} else {
		v.Input = views.FileForm{Name: f.Name, DisplayName: f.DisplayName, Tags: strings.Join(f.Metadata.Tags, ", "), Description: f.Metadata.Description}
	}
	if v.Targets, err = s.moveTargets(c); err != nil {
		return err
	}
	v.Preview = chatview.PreviewKind(f)
	v.Thumbnail = f.Thumbnailable()
	return httpkit.Render(c, status, views.FilePage(s.Page(c, "files.file", "files"), v))
}

// ownFile lets h change the route's file for whoever holds manage, and
// for a member (files.create) only their own files (files.MayChange).
func (s *Pages) ownFile(manage string, h echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		me := c.Get(httpkit.KeyUser).(*kanri.User)
		if _, err := s.Files.Changeable(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("id"), me.ID, httpkit.Can(c, manage)); err != nil {
			return err
		}
		return h(c)
	}
}

// updateFile saves a file's name, display name, tags and description.
func (s *Pages) updateFile(c echo.Context) error {
	in := files.FileInput{Name: c.FormValue("name"), DisplayName: c.FormValue("displayName"), Tags: c.FormValue("tags"), Description: c.FormValue("description")}
	t := httpkit.Tenant(c)
	var f *kanri.File
	var err error
	if _, sent := c.Request().PostForm["name"]; sent && strings.TrimSpace(in.Name) == "" {
		err = kanri.Invalid(kanri.Fields{"name": "validation.required"}) // the form's name emptied: not "keep it"
	} else {
		f, err = s.Files.UpdateFile(c.Request().Context(), t.ID, c.Param("id"), console.Seen(c), in)
	}
	switch {
	case err == nil:
		return s.Report(c, views.FilePath(t.ID, f.ID), "files.saved", f.Title())
	case kanri.IsCode(err, kanri.EINVALID):
		form := views.FileForm(in)
		return s.showFileWith(c, http.StatusUnprocessableEntity, &form, views.Errors(kanri.ErrorFields(err)))
	case kanri.IsCode(err, kanri.ESTALE):
		return kanri.Wrap(kanri.ESTALE, "stale.action", err)
	}
	return err
}

// moveFile moves a file into the folder the form names.
func (s *Pages) moveFile(c echo.Context) error {
	t := httpkit.Tenant(c)
	f, err := s.Files.MoveFile(c.Request().Context(), t.ID, c.Param("id"), console.Seen(c), c.FormValue("target"))
	switch {
	case err == nil:
		return s.Report(c, views.FilePath(t.ID, f.ID), "files.moved", f.Title())
	case kanri.IsCode(err, kanri.ESTALE):
		return kanri.Wrap(kanri.ESTALE, "stale.action", err)
	}
	return err
}

// trashFile moves a file to the trash and returns to its folder.
func (s *Pages) trashFile(c echo.Context) error {
	t := httpkit.Tenant(c)
	ctx := c.Request().Context()
	f, err := s.Files.TrashFile(ctx, t.ID, c.Param("id"), console.Seen(c))
	if kanri.IsCode(err, kanri.ESTALE) {
		return kanri.Wrap(kanri.ESTALE, "stale.action", err)
	}
	if err != nil {
		return err
	}
	return s.Report(c, views.FolderPathOrTop(t.ID, deref(f.FolderID)), "files.trashed", f.Title())
}

// restoreFile takes a file out of the trash.
func (s *Pages) restoreFile(c echo.Context) error {
	t := httpkit.Tenant(c)
	return s.Action(c, "files.restored", views.TrashPath(t.ID), func(seen kanri.Seen) (string, error) {
		f, err := s.Files.RestoreFile(c.Request().Context(), t.ID, c.Param("id"), seen)
		if err != nil {
			return "", err
		}
		return f.Title(), nil
	})
}

// purgeFile deletes a file of the trash for good.
func (s *Pages) purgeFile(c echo.Context) error {
	t := httpkit.Tenant(c)
	ctx := c.Request().Context()
	f, err := s.Files.File(ctx, t.ID, c.Param("id"))
	if err != nil {
		return err
	}
	if err := s.Files.PurgeFile(ctx, t.ID, f.ID); err != nil {
		return err
	}
	return s.Report(c, views.TrashPath(t.ID), "files.purged", f.Title())
}

// listTrash shows the tenant's trash.
func (s *Pages) listTrash(c echo.Context) error {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	v := views.FolderView{TenantID: t.ID}
	var err error
	v.Files, v.Paging, err = console.ListPage(c, views.TrashPath(t.ID), 50, func(next string, limit int) ([]*kanri.File, string, error) {
		return s.Files.Trash(ctx, t.ID, limit, next)
	})
	if err != nil {
		return err
	}
	if v.Origins, err = s.Files.Origins(ctx, t.ID, v.Files); err != nil {
		return err
	}
	if err := s.storageView(c, &v); err != nil {
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.TrashPage(s.Page(c, "files.trash", "files"), v))
}

// emptyTrash purges the whole trash.
func (s *Pages) emptyTrash(c echo.Context) error {
	t := httpkit.Tenant(c)
	n, err := s.Files.EmptyTrash(c.Request().Context(), t.ID)
	if err != nil {
		return err
	}
	return s.Report(c, views.TrashPath(t.ID), "files.trash_emptied", n)
}

// downloadFile sends a file as an attachment, with ranges and
// validators; a whole download is checked against the file's checksum as
// it streams.
func (s *Pages) downloadFile(c echo.Context) error {
	return s.serveFile(c, false)
}

// previewFile sends an image, PDF or plain text file for the browser to
// show, sandboxed; anything else is not previewed.
func (s *Pages) previewFile(c echo.Context) error {
	return s.serveFile(c, true)
}

// serveFile sends a live file's bytes.
func (s *Pages) serveFile(c echo.Context, inline bool) error {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	f, err := s.Files.LiveFile(ctx, t.ID, c.Param("id"))
	if err != nil {
		return err
	}
	if inline && chatview.PreviewKind(f) == "" {
		return kanri.E(kanri.ENOTFOUND, "files.no_preview")
	}
	return s.sendContent(c, f, inline)
}

// sendContent streams a file with http.ServeContent (Range, If-Range,
// If-None-Match against the file's checksum as its ETag). The answer is
// never sniffed or run: nosniff, and a CSP sandbox without scripts.
func (s *Pages) sendContent(c echo.Context, f *kanri.File, inline bool) error {
	contentType := f.ContentType
	if f.ContentType == "text/plain" {
		contentType = "text/plain; charset=utf-8"
	}
	disposition := "attachment"
	if inline {
		disposition = "inline"
	}
	return httpkit.ServeFile(c, f, s.Files.Open(c.Request().Context(), httpkit.Tenant(c).ID, f), disposition, contentType)
}

// thumbnail sends an image file's thumbnail, made on first request.
func (s *Pages) thumbnail(c echo.Context) error {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	f, err := s.Files.LiveFile(ctx, t.ID, c.Param("id"))
	if err != nil {
		return err
	}
	name, err := s.Files.Thumbnail(ctx, t.ID, f)
	if err != nil {
		return err
	}
	r, err := s.Files.Blobs.NewRangeReader(ctx, name, 0, -1)
	if err != nil {
		return err
	}
	return httpkit.SendImage(c, r, files.ThumbnailType(f))
}

// consoleUploads serves the console's uploads (tus-js-client): those of
// the tenant of the path, under it. One's own upload may be given up, or
// anyone's by who may delete files (as the files page's Cancel); a
// refusal is its message as plain text, which tus-js-client hands to the
// page.
func (s *Pages) consoleUploads() *tus.Handler {
	return tus.New(s.Files, s.Logger, tus.Mount{
		Metrics:    s.Metrics,
		Base:       func(c echo.Context) string { return views.UploadsPath(httpkit.Tenant(c).ID) },
		CancelsAny: func(c echo.Context) bool { return httpkit.Can(c, role.FilesDelete) },
		Refuse: func(c echo.Context, status int, msg string, err error) error {
			if fields := kanri.ErrorFields(err); len(fields) > 0 {
				ctx := c.Request().Context()
				var parts []string
				for _, k := range slices.Sorted(maps.Keys(fields)) {
					parts = append(parts, i18n.T(ctx, fields[k]))
				}
				msg = strings.Join(parts, " ")
			}
			if msg == "" {
				return c.NoContent(status)
			}
			return c.String(status, msg)
		},
	})
}
