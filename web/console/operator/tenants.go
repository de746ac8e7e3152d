package operator

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// tenantListFilter reads the tenant list's query parameters.
func tenantListFilter(q url.Values) tenant.ListFilter {
	return tenant.ListFilter{Search: q.Get("q"), Status: q.Get("status"), Sort: q.Get("sort"), Desc: q.Get("desc") == "1"}
}

// listTenants shows the operator's tenant list.
func (s *Pages) listTenants(c echo.Context) error {
	f := tenantListFilter(c.QueryParams())
	tenants, pg, err := console.ListPage(c, views.TenantsPath(), 20, func(token string, limit int) ([]*kanri.TenantListing, string, error) {
		page := f
		page.Continuation, page.Limit = token, limit
		return s.Tenants.List(c.Request().Context(), page)
	})
	if err != nil {
		return err
	}
	p := s.Page(c, "tenants.title", "tenants")
	l := views.TenantList{Tenants: tenants, Search: f.Search, Status: f.Status, Sort: f.Sort, Desc: f.Desc, Paging: pg}
	if httpkit.Can(c, role.TenantsDelete) {
		if l.Undeletable, err = s.Tenants.Undeletable(c.Request().Context(), tenants); err != nil {
			return err
		}
	}
	ids := make([]string, len(tenants))
	for i, t := range tenants {
		ids[i] = t.ID
	}
	if l.Storage, err = s.Files.StorageOf(c.Request().Context(), ids); err != nil {
		return err
	}
	alerts, err := s.Backups.AlertsOf(c.Request().Context(), ids)
	if err != nil {
		return err
	}
	l.BackupAlerts = map[string]string{}
	for id, as := range alerts {
		l.BackupAlerts[id] = as[0].Kind
	}
	return console.ShowList(c, views.TenantsPage(p, l), views.TenantResults(p, l))
}

// newTenant shows the empty tenant form.
func (s *Pages) newTenant(c echo.Context) error {
	f := views.TenantForm{MaxUsers: strconv.Itoa(kanri.DefaultMaxUsers), Zone: (&kanri.Tenant{}).Location().String()}
	f.Input = kanri.TenantInput{Plan: kanri.PlanStandard, MaxUsers: kanri.DefaultMaxUsers}
	return httpkit.Render(c, http.StatusOK, views.TenantFormPage(s.Page(c, "tenants.new", "tenants"), f))
}

// createTenant creates a tenant, or shows the form again with its errors.
func (s *Pages) createTenant(c echo.Context) error {
	in, maxUsers, errs := tenantForm(c)
	err := console.Unreadable(errs, func() error { return in.Validate(true) })
	if err == nil {
		var t *kanri.Tenant
		if t, err = s.Tenants.Create(c.Request().Context(), in); err == nil {
			return s.Report(c, views.TenantsPath(), "tenants.created", t.Name, httpkit.BaseURL(c)+"/login", t.Name)
		}
	}
	if !kanri.IsCode(err, kanri.EINVALID) {
		return err
	}
	f := views.TenantForm{MaxUsers: maxUsers, Zone: (&kanri.Tenant{}).Location().String()}
	f.Input, f.Errors = in, views.Errors(kanri.ErrorFields(err))
	return httpkit.Render(c, http.StatusUnprocessableEntity, views.TenantFormPage(s.Page(c, "tenants.new", "tenants"), f))
}

// editTenant shows a tenant's edit form.
func (s *Pages) editTenant(c echo.Context) error {
	t, err := s.Tenants.Changeable(c.Request().Context(), c.Param("id"), kanri.Seen{})
	if err != nil {
		return err
	}
	f := views.TenantForm{ID: t.ID, MaxUsers: strconv.Itoa(t.MaxUsers), Zone: t.Location().String()}
	f.ETag, f.Input, f.Base = t.ETag, tenant.InputOf(t), tenant.InputOf(t)
	return httpkit.Render(c, http.StatusOK, views.TenantFormPage(s.Page(c, "tenants.edit", "tenants"), f))
}

// updateTenant saves a tenant edit. A stale edit shows the form again with
// the user's input, the stored values and the current ETag.
func (s *Pages) updateTenant(c echo.Context) error {
	ctx := c.Request().Context()
	t, err := s.Tenants.Changeable(ctx, c.Param("id"), kanri.Seen{})
	if err != nil {
		return err
	}
	in, maxUsers, errs := tenantForm(c)
	in.Name = t.Name
	etag, base := c.FormValue("etag"), tenantBase(c, t.Name)
	err = console.Unreadable(errs, func() error { return in.Validate(false) })
	if err == nil {
		var saved *kanri.Tenant
		if saved, err = s.Tenants.Update(ctx, t.ID, etag, base, in); err == nil {
			return s.Report(c, views.TenantsPath(), "tenants.updated", saved.Name)
		}
	}
	f := views.TenantForm{ID: t.ID, MaxUsers: maxUsers, Zone: t.Location().String()}
	f.ETag, f.Input = etag, in
	if base != nil {
		f.Base = *base
	}
	status, err := console.EditFailed(&f.Edit, err, func() (*kanri.Tenant, error) { return s.Tenants.Get(ctx, t.ID) }, tenant.InputOf)
	if err != nil {
		return err
	}
	return httpkit.Render(c, status, views.TenantFormPage(s.Page(c, "tenants.edit", "tenants"), f))
}

// suspendTenant suspends an active tenant.
func (s *Pages) suspendTenant(c echo.Context) error {
	return s.tenantAction(c, "tenants.suspended", func(id string, seen kanri.Seen) (*kanri.Tenant, error) {
		return s.Tenants.SetStatus(c.Request().Context(), id, seen, kanri.TenantSuspended)
	})
}

// reactivateTenant reactivates a suspended tenant.
func (s *Pages) reactivateTenant(c echo.Context) error {
	return s.tenantAction(c, "tenants.reactivated", func(id string, seen kanri.Seen) (*kanri.Tenant, error) {
		return s.Tenants.SetStatus(c.Request().Context(), id, seen, kanri.TenantActive)
	})
}

// deleteTenant soft-deletes a tenant.
func (s *Pages) deleteTenant(c echo.Context) error {
	return s.tenantAction(c, "tenants.deleted", func(id string, seen kanri.Seen) (*kanri.Tenant, error) {
		return s.Tenants.Delete(c.Request().Context(), id, seen)
	})
}

// tenantAction runs one of the actions of the tenant list and returns to
// the list as it was.
func (s *Pages) tenantAction(c echo.Context, doneKey string, do func(id string, seen kanri.Seen) (*kanri.Tenant, error)) error {
	return s.Action(c, doneKey, console.BackTo(c, views.TenantsPath()), func(seen kanri.Seen) (string, error) {
		t, err := do(c.Param("id"), seen)
		if err != nil {
			return "", err
		}
		return t.Name, nil
	})
}
