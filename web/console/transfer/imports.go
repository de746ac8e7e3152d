package transfer

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/userimport"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/httpkit"
)

// importsShown is how many of the latest imports the imports page lists;
// resultsPage how many rows of results an import's page shows at once.
const (
	importsShown = 20
	resultsPage  = 50
)

// listImports shows the upload form and the latest imports.
func (s *Pages) listImports(c echo.Context) error {
	return s.renderImports(c, http.StatusOK, nil)
}

func (s *Pages) renderImports(c echo.Context, status int, errs views.Errors) error {
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	list, err := s.Imports.List(ctx, t.ID, importsShown)
	if err != nil {
		return err
	}
	v := views.UserImportsView{Errors: errs, MaxBytes: userimport.MaxFileBytes, MaxRows: userimport.MaxRows, CanAssignRoles: httpkit.Can(c, role.RolesUpdate)}
	for _, im := range list {
		v.Imports = append(v.Imports, s.importView(im))
	}
	return httpkit.Render(c, status, views.UserImportsPage(s.Page(c, "imports.title", "users"), v))
}

// importView is an import as its pages show it.
func (s *Pages) importView(im *userimport.Import) views.UserImport {
	now := s.Now()
	v := views.UserImport{
		ID: im.ID, FileName: im.FileName, Status: im.Status, Rows: im.Rows, Processed: im.Processed,
		CreatedAt: im.CreatedAt.Time, Interrupted: im.Interrupted(now), Startable: im.Startable(now),
		Checked: !im.CheckedAt.IsZero(), Imported: im.Status == userimport.Done, ErrorKey: im.ErrorKey, ETag: im.ETag,
	}
	counts := im.DryRun
	if v.Imported {
		counts = im.Result
	}
	v.Created, v.Updated, v.Unchanged, v.Refused = counts.Created, counts.Updated, counts.Unchanged, counts.Refused
	return v
}

// uploadImport keeps the uploaded file and shows its import, whose dry
// run starts; a file that cannot be read is said on the form.
func (s *Pages) uploadImport(c echo.Context) error {
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	fh, err := c.FormFile("file")
	if err != nil {
		return s.renderImports(c, http.StatusUnprocessableEntity, views.Errors{"file": "imports.error.no_file"})
	}
	if fh.Size > userimport.MaxFileBytes {
		return s.renderImports(c, http.StatusUnprocessableEntity, views.Errors{"file": "imports.error.too_large"})
	}
	f, err := fh.Open()
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, userimport.MaxFileBytes+1))
	if err != nil {
		return err
	}
	im, err := s.Imports.Upload(ctx, t.ID, fh.Filename, data, httpkit.Can(c, role.RolesUpdate))
	var fe *userimport.FileError
	if errors.As(err, &fe) {
		return s.renderImports(c, http.StatusUnprocessableEntity, views.Errors{"file": fileErrorText(ctx, fe)})
	}
	if err != nil {
		return err
	}
	return s.Report(c, views.UserImportPath(t.ID, im.ID), "imports.uploaded_message", im.FileName)
}

// fileErrorText says in the person's language why a file cannot be read,
// at which line.
func fileErrorText(ctx context.Context, fe *userimport.FileError) string {
	msg := i18n.T(ctx, fe.Message, fe.Args...)
	if fe.Line > 0 {
		msg = i18n.T(ctx, "imports.error.at_line", fe.Line, msg)
	}
	return msg
}

// routeImport loads the import of an /users/import/:import route.
func (s *Pages) routeImport(c echo.Context) (*userimport.Import, error) {
	return s.Imports.Get(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("import"))
}

// showImport shows an import: its progress while its dry run or import
// runs, then a page of its results.
func (s *Pages) showImport(c echo.Context) error {
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	im, err := s.routeImport(c)
	if err != nil {
		return err
	}
	outcome := c.QueryParam("outcome")
	switch outcome {
	case "", userimport.Created, userimport.Updated, userimport.Unchanged, userimport.Refused:
	default:
		outcome = ""
	}
	offset, _ := strconv.Atoi(c.QueryParam("offset"))
	offset = max(offset, 0)
	self := views.UserImportPath(t.ID, im.ID)
	v := views.UserImportView{Import: s.importView(im), Location: t.Location(), Outcome: outcome, SelfURL: self}
	at := func(off int) string {
		q := url.Values{}
		if outcome != "" {
			q.Set("outcome", outcome)
		}
		if off > 0 {
			q.Set("offset", strconv.Itoa(off))
		}
		if len(q) == 0 {
			return self
		}
		return self + "?" + q.Encode()
	}
	if v.Import.Checked && !v.Import.Running() {
		page, err := s.Imports.Results(ctx, t.ID, im, outcome, offset, resultsPage)
		if err != nil {
			return err
		}
		v.Total = page.Total
		for _, r := range page.Results {
			v.Results = append(v.Results, views.ImportResult{
				Line: r.Line, Username: r.Username, Email: r.Email, Outcome: r.Outcome,
				Changes: joinFields(r.Changes), Reasons: userimport.Reasons(ctx, r),
			})
		}
		if offset+resultsPage < page.Total {
			v.NextURL = at(offset + resultsPage)
		}
		if offset > 0 {
			v.PrevURL = at(max(0, offset-resultsPage))
		}
	}
	return httpkit.Render(c, http.StatusOK, views.UserImportPage(s.Page(c, "imports.title", "users"), v))
}

func joinFields(fields []string) string {
	out := ""
	for i, f := range fields {
		if i > 0 {
			out += " "
		}
		out += f
	}
	return out
}

// startImport starts an import whose dry run is done.
func (s *Pages) startImport(c echo.Context) error {
	t := httpkit.Tenant(c)
	im, err := s.Imports.Start(c.Request().Context(), t.ID, c.Param("import"))
	if err != nil {
		return err
	}
	return s.Report(c, views.UserImportPath(t.ID, im.ID), "imports.started_message", im.FileName)
}

// deleteImport removes an import with its file and results.
func (s *Pages) deleteImport(c echo.Context) error {
	t := httpkit.Tenant(c)
	im, err := s.routeImport(c)
	if err != nil {
		return err
	}
	if err := s.Imports.Delete(c.Request().Context(), t.ID, im.ID); err != nil {
		return err
	}
	return s.Report(c, views.UserImportsPath(t.ID), "imports.deleted_message", im.FileName)
}

// importReport sends an import's results (its dry run's, until it ran)
// as CSV, in the person's language.
func (s *Pages) importReport(c echo.Context) error {
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	im, err := s.routeImport(c)
	if err != nil {
		return err
	}
	if im.CheckedAt.IsZero() {
		return kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	kind := "dry-run"
	if im.Status == userimport.Done {
		kind = "result"
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, `attachment; filename="import-`+kind+`-`+t.Name+`-`+im.CreatedAt.UTC().Format("20060102-150405")+`.csv"`)
	c.Response().WriteHeader(http.StatusOK)
	c.Response().Write([]byte("\xEF\xBB\xBF")) // BOM, so that spreadsheets read UTF-8
	return s.Imports.WriteReport(ctx, c.Response(), t.ID, im)
}
