package organisation

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/export"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// listAudit shows a tenant's audit log, newest first. The operator's log
// shows its global administrators what its staff did in every tenant too,
// filtered by tenant.
func (s *Pages) listAudit(c echo.Context) error {
	t := httpkit.Tenant(c)
	q := c.QueryParams()
	f, errs, err := s.auditFilter(c, t)
	if err != nil {
		return err
	}
	path := views.AuditPath(t.ID)
	l := views.AuditList{
		Action: f.Action, User: f.User, ResourceType: f.ResourceType, From: q.Get("from"), To: q.Get("to"),
		Tenant: q.Get("tenant"), ByTenant: audit.MayFilterByTenant(c.Request().Context(), t.ID),
		Errors: views.Errors(errs), ExportURL: console.PageURL(path+".csv", q, "", nil), ExportJSONURL: console.PageURL(path+".json", q, "", nil),
	}
	if len(errs) > 0 {
		l.Paging = views.Paging{FirstURL: console.PageURL(path, q, "", nil), OnFirst: true, Total: -1}
		return httpkit.Render(c, http.StatusUnprocessableEntity, views.AuditPage(s.Page(c, "audit.title", "audit"), l))
	}
	l.Records, l.Paging, err = console.ListPage(c, path, 50, func(token string, limit int) ([]*kanri.AuditLog, string, error) {
		page := f
		page.Continuation, page.Limit = token, limit
		return s.Audit.Query(c.Request().Context(), t.ID, page)
	})
	if err != nil {
		return err
	}
	if l.TenantNames, err = s.targetNames(c, l.Records); err != nil {
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.AuditPage(s.Page(c, "audit.title", "audit"), l))
}

// auditFilter reads the audit page's filters (audit.ParseFilter) and its
// tenant filter, which names a tenant by its sign-in name or its id: a
// name is taken for the id of the tenant that holds it now, anything else
// as an id, so that the records about a tenant since deleted are found
// too. The tenant filter is EFORBIDDEN to whoever may not use it
// (audit.MayFilterByTenant): a tenant's own users, and the operator's
// staff who are no global administrators.
func (s *Pages) auditFilter(c echo.Context, t *kanri.Tenant) (audit.Filter, kanri.Fields, error) {
	q := c.QueryParams()
	f, errs := audit.ParseFilter(q, t.Location())
	name := strings.TrimSpace(q.Get("tenant"))
	if name == "" {
		return f, errs, nil
	}
	ctx := c.Request().Context()
	f.Tenant = name
	if err := audit.CheckFilter(ctx, t.ID, f); err != nil {
		return f, errs, err
	}
	if named, err := s.Auth.TenantByName(ctx, name); err == nil {
		f.Tenant = named.ID
	} else if !kanri.IsCode(err, kanri.ENOTFOUND) {
		return f, errs, err
	}
	return f, errs, nil
}

// targetNames returns the display names of the other tenants the records
// are about (metadata.targetTenantId), by id; nil when none is.
func (s *Pages) targetNames(c echo.Context, recs []*kanri.AuditLog) (map[string]string, error) {
	var ids []string
	for _, r := range recs {
		if id := r.Metadata.TargetTenantID; id != "" {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	return s.Tenants.DisplayNames(c.Request().Context(), ids)
}

// exportAudit streams the filtered audit log in format f, the file
// audit-<tenant>-<time>.<format>. Filters that do not parse, and a tenant
// filter the user may not use, are refused before anything is sent.
func (s *Pages) exportAudit(f export.Format) echo.HandlerFunc {
	return func(c echo.Context) error {
		t := httpkit.Tenant(c)
		filter, errs, err := s.auditFilter(c, t)
		if err != nil {
			return err
		}
		if len(errs) > 0 {
			return kanri.Invalid(errs)
		}
		console.StartExport(c, f, "audit-"+t.Name+"-"+s.Now().UTC().Format("20060102-150405"))
		return s.Exports.Audit(c.Request().Context(), c.Response(), f, t.ID, filter)
	}
}
