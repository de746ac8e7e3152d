package web

import (
	"net/http"
	"net/url"
	"strings"
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

// resolveUser reads the audit page's user filter: a user id, or a
// username as recorded (which also finds deleted users and operators).
func (s *Server) resolveUser(c echo.Context, tenantID string, f *audit.Filter) {
	input := f.UserID
	if input == "" {
		return
	}
	f.UserName = input
	f.UserID = ""
	if strings.HasPrefix(input, "user_") {
		f.UserID = input
	} else if id, err := s.Users.IDByUsername(c.Request().Context(), tenantID, input); err == nil {
		f.UserID = id
	}
}

// listAudit shows a tenant's audit log, newest first.
func (s *Server) listAudit(c echo.Context) error {
	t := routeTenant(c)
	q := c.QueryParams()
	f, errs := auditFilter(q)
	shown := f.UserID
	s.resolveUser(c, t.ID, &f)
	base := "/t/" + t.ID + "/audit"
	l := views.AuditList{
		Action: f.Action, UserID: shown, ResourceType: f.ResourceType, From: q.Get("from"), To: q.Get("to"),
		Errors: errs, FirstURL: pageURL(base, q, ""), OnFirst: f.Continuation == "",
		ExportURL: pageURL(base+".csv", q, ""),
	}
	status := http.StatusOK
	if len(errs) > 0 {
		status = http.StatusUnprocessableEntity
	} else {
		ctx := c.Request().Context()
		recs, next, notice, err := firstPageOnBadToken(&f.Continuation, func() ([]*kanri.AuditLog, string, error) {
			return s.Audit.Query(ctx, t.ID, f)
		})
		if err != nil {
			return err
		}
		l.Notice, l.OnFirst = notice, f.Continuation == ""
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
	s.resolveUser(c, t.ID, &f)
	// A large export may take longer than the server's write timeout.
	if err := http.NewResponseController(c.Response().Writer).SetWriteDeadline(time.Now().Add(10 * time.Minute)); err != nil {
		s.Logger.Warn("extend the export's write deadline", "err", err)
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, `attachment; filename="audit-`+t.Name+`-`+s.Now().UTC().Format("20060102-150405")+`.csv"`)
	c.Response().WriteHeader(http.StatusOK)
	c.Response().Write([]byte("\xEF\xBB\xBF")) // BOM, so that spreadsheets read UTF-8
	return s.Audit.WriteCSV(c.Request().Context(), c.Response(), t.ID, f)
}
