package web

import (
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/views"
)

// auditFilter reads the audit page's filters; dates are whole UTC days and
// To is inclusive.
func auditFilter(q url.Values) (audit.Filter, views.Errors) {
	f := audit.Filter{Action: q.Get("action"), UserID: q.Get("user"), ResourceType: q.Get("resource"), Continuation: q.Get("cursor")}
	errs := views.Errors{}
	if v := q.Get("from"); v != "" {
		d, err := time.Parse(time.DateOnly, v)
		if err != nil {
			errs["from"] = "validation.date"
		}
		f.From = d
	}
	if v := q.Get("to"); v != "" {
		d, err := time.Parse(time.DateOnly, v)
		if err != nil {
			errs["to"] = "validation.date"
		}
		f.To = d.AddDate(0, 0, 1)
	}
	return f, errs
}

// listAudit shows a tenant's audit log, newest first.
func (s *Server) listAudit(c echo.Context) error {
	t := routeTenant(c)
	q := c.QueryParams()
	f, errs := auditFilter(q)
	base := "/t/" + t.ID + "/audit"
	l := views.AuditList{
		Action: f.Action, UserID: f.UserID, ResourceType: f.ResourceType, From: q.Get("from"), To: q.Get("to"),
		Errors: errs, FirstURL: pageURL(base, q, ""), OnFirst: f.Continuation == "",
		ExportURL: pageURL(base+".csv", q, ""),
	}
	status := http.StatusOK
	if len(errs) > 0 {
		status = http.StatusUnprocessableEntity
	} else {
		ctx := c.Request().Context()
		recs, next, err := s.audit.Query(ctx, t.ID, f)
		if kanri.IsCode(err, kanri.EINVALID) && f.Continuation != "" {
			f.Continuation, l.Notice, l.OnFirst = "", "validation.continuation", true
			recs, next, err = s.audit.Query(ctx, t.ID, f)
		}
		if err != nil {
			return err
		}
		l.Records = recs
		if next != "" {
			l.NextURL = pageURL(base, q, next)
		}
	}
	return render(c, status, views.AuditPage(s.page(c, "audit.title", "audit"), l))
}

// exportAudit streams the filtered audit log as CSV.
func (s *Server) exportAudit(c echo.Context) error {
	t := routeTenant(c)
	f, errs := auditFilter(c.QueryParams())
	if len(errs) > 0 {
		return kanri.Invalid(kanri.Fields(errs))
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, `attachment; filename="audit-`+t.Name+`-`+s.now().UTC().Format("20060102-150405")+`.csv"`)
	c.Response().WriteHeader(http.StatusOK)
	c.Response().Write([]byte("\xEF\xBB\xBF")) // BOM, so that spreadsheets read UTF-8
	return s.audit.WriteCSV(c.Request().Context(), c.Response(), t.ID, f)
}
