package organisation

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// listAudit shows a tenant's audit log, newest first.
func (s *Pages) listAudit(c echo.Context) error {
	t := httpkit.Tenant(c)
	q := c.QueryParams()
	f, errs := audit.ParseFilter(q, t.Location())
	path := views.AuditPath(t.ID)
	l := views.AuditList{
		Action: f.Action, User: f.User, ResourceType: f.ResourceType, From: q.Get("from"), To: q.Get("to"),
		Errors: views.Errors(errs), ExportURL: console.PageURL(path+".csv", q, "", nil),
	}
	if len(errs) > 0 {
		l.Paging = views.Paging{FirstURL: console.PageURL(path, q, "", nil), OnFirst: true, Total: -1}
		return httpkit.Render(c, http.StatusUnprocessableEntity, views.AuditPage(s.Page(c, "audit.title", "audit"), l))
	}
	var err error
	l.Records, l.Paging, err = console.ListPage(c, path, 50, func(token string, limit int) ([]*kanri.AuditLog, string, error) {
		page := f
		page.Continuation, page.Limit = token, limit
		return s.Audit.Query(c.Request().Context(), t.ID, page)
	})
	if err != nil {
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.AuditPage(s.Page(c, "audit.title", "audit"), l))
}

// exportAudit streams the filtered audit log as CSV.
func (s *Pages) exportAudit(c echo.Context) error {
	t := httpkit.Tenant(c)
	f, errs := audit.ParseFilter(c.QueryParams(), t.Location())
	if len(errs) > 0 {
		return kanri.Invalid(errs)
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, `attachment; filename="audit-`+t.Name+`-`+s.Now().UTC().Format("20060102-150405")+`.csv"`)
	c.Response().WriteHeader(http.StatusOK)
	c.Response().Write([]byte("\xEF\xBB\xBF")) // BOM, so that spreadsheets read UTF-8
	return s.Audit.WriteCSV(c.Request().Context(), c.Response(), t.ID, f)
}
