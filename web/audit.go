package web

import (
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/httpkit"
)

// auditFilter reads the audit filters of the API; dates are whole UTC
// days and To is inclusive.
func auditFilter(q url.Values) (audit.Filter, kanri.Fields) { return auditFilterIn(q, time.UTC) }

// auditFilterIn reads the audit filters with dates as whole days of loc:
// the audit page's are days of the tenant's time zone, the zone its times
// are shown in.
func auditFilterIn(q url.Values, loc *time.Location) (audit.Filter, kanri.Fields) {
	f := audit.Filter{Action: q.Get("action"), User: q.Get("user"), ResourceType: q.Get("resource")}
	errs := kanri.Fields{}
	if v := q.Get("from"); v != "" {
		d, err := time.ParseInLocation(time.DateOnly, v, loc)
		if err != nil {
			errs["from"] = "validation.date"
		}
		f.From = d
	}
	if v := q.Get("to"); v != "" {
		d, err := time.ParseInLocation(time.DateOnly, v, loc)
		if err != nil {
			errs["to"] = "validation.date"
		}
		f.To = d.AddDate(0, 0, 1)
	}
	if len(errs) == 0 && !f.From.IsZero() && !f.To.IsZero() && !f.To.After(f.From) {
		errs["to"] = "validation.date_order"
	}
	return f, errs
}

// listAudit shows a tenant's audit log, newest first.
func (s *Server) listAudit(c echo.Context) error {
	t := httpkit.Tenant(c)
	q := c.QueryParams()
	f, errs := auditFilterIn(q, t.Location())
	path := views.AuditPath(t.ID)
	l := views.AuditList{
		Action: f.Action, User: f.User, ResourceType: f.ResourceType, From: q.Get("from"), To: q.Get("to"),
		Errors: views.Errors(errs), ExportURL: pageURL(path+".csv", q, "", nil),
	}
	if len(errs) > 0 {
		l.Paging = views.Paging{FirstURL: pageURL(path, q, "", nil), OnFirst: true, Total: -1}
		return render(c, http.StatusUnprocessableEntity, views.AuditPage(s.page(c, "audit.title", "audit"), l))
	}
	var err error
	l.Records, l.Paging, err = listPage(c, path, 50, func(token string, limit int) ([]*kanri.AuditLog, string, error) {
		page := f
		page.Continuation, page.Limit = token, limit
		return s.Audit.Query(c.Request().Context(), t.ID, page)
	})
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.AuditPage(s.page(c, "audit.title", "audit"), l))
}

// exportAudit streams the filtered audit log as CSV.
func (s *Server) exportAudit(c echo.Context) error {
	t := httpkit.Tenant(c)
	f, errs := auditFilterIn(c.QueryParams(), t.Location())
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
