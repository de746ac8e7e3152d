package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/views"
)

// tenantListFilter reads the tenant list's query parameters.
func tenantListFilter(q url.Values, limit int) tenant.ListFilter {
	return tenant.ListFilter{
		Search: q.Get("q"), Status: q.Get("status"), Sort: q.Get("sort"), Desc: q.Get("desc") == "1",
		Limit: limit, Continuation: q.Get("cursor"),
	}
}

// listTenants shows the operator's tenant list.
func (s *Server) listTenants(c echo.Context) error {
	q := c.QueryParams()
	f := tenantListFilter(q, 20)
	ctx := c.Request().Context()
	list, next, notice, err := firstPageOnBadToken(&f.Continuation, func() ([]*kanri.TenantListing, string, error) {
		return s.Tenants.List(ctx, f)
	})
	if err != nil {
		return err
	}
	l := views.TenantList{
		Tenants: list, Search: f.Search, Status: f.Status, Sort: f.Sort, Desc: f.Desc,
		FirstURL: pageURL("/tenants", q, ""), OnFirst: f.Continuation == "", Notice: notice,
	}
	if next != "" {
		l.NextURL = pageURL("/tenants", q, next)
	}
	p := s.page(c, "tenants.title", "tenants")
	if isHTMX(c) {
		return render(c, http.StatusOK, views.TenantResults(p, l))
	}
	return render(c, http.StatusOK, views.TenantsPage(p, l))
}

// pageURL returns path with the list's query and the given cursor.
func pageURL(path string, q url.Values, cursor string) string {
	v := url.Values{}
	for k, vs := range q {
		if k != "cursor" && len(vs) > 0 && vs[0] != "" {
			v.Set(k, vs[0])
		}
	}
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// newTenant shows the empty tenant form.
func (s *Server) newTenant(c echo.Context) error {
	f := views.TenantForm{Input: kanri.TenantInput{Plan: kanri.PlanStandard, MaxUsers: kanri.DefaultMaxUsers}}
	return render(c, http.StatusOK, views.TenantFormPage(s.page(c, "tenants.new", "tenants"), f))
}

// tenantInput reads the tenant form. Ids and tenant names never come from
// it except the new tenant's name.
func tenantInput(c echo.Context) (kanri.TenantInput, views.Errors) {
	in := kanri.TenantInput{
		Name: c.FormValue("name"), DisplayName: c.FormValue("displayName"), Plan: c.FormValue("plan"),
		Industry: c.FormValue("industry"), Country: c.FormValue("country"),
	}
	errs := views.Errors{}
	n, err := strconv.Atoi(strings.TrimSpace(c.FormValue("maxUsers")))
	if err != nil {
		errs["maxUsers"] = "validation.max_users"
	}
	in.MaxUsers = n
	return in, errs
}

// formErrors merges field errors of the form and of the service.
func formErrors(errs views.Errors, err error) views.Errors {
	for k, v := range kanri.ErrorFields(err) {
		if _, ok := errs[k]; !ok {
			errs[k] = v
		}
	}
	return errs
}

// createTenant creates a tenant, or shows the form again with its errors.
func (s *Server) createTenant(c echo.Context) error {
	in, errs := tenantInput(c)
	var t *kanri.Tenant
	err := in.Validate(true)
	if len(errs) == 0 && err == nil {
		t, err = s.Tenants.Create(c.Request().Context(), in)
	}
	if len(errs) > 0 || kanri.IsCode(err, kanri.EINVALID) {
		f := views.TenantForm{Input: in, Errors: formErrors(errs, err)}
		return render(c, http.StatusUnprocessableEntity, views.TenantFormPage(s.page(c, "tenants.new", "tenants"), f))
	}
	if err != nil {
		return err
	}
	s.flash(c, "success", i18n.T(c.Request().Context(), "tenants.created", t.Name))
	return redirect(c, "/tenants")
}

// editTenant shows a tenant's edit form.
func (s *Server) editTenant(c echo.Context) error {
	t, err := s.editableTenant(c)
	if err != nil {
		return err
	}
	f := views.TenantForm{ID: t.ID, ETag: t.ETag, Input: tenant.Editable(t), Base: tenant.Editable(t)}
	return render(c, http.StatusOK, views.TenantFormPage(s.page(c, "tenants.edit", "tenants"), f))
}

func (s *Server) editableTenant(c echo.Context) (*kanri.Tenant, error) {
	t, err := s.Tenants.Get(c.Request().Context(), c.Param("id"))
	if err != nil {
		return nil, err
	}
	if t.Status == kanri.TenantDeleted {
		return nil, echo.ErrNotFound
	}
	if t.IsPrivileged {
		return nil, kanri.E(kanri.EFORBIDDEN, "error.privileged_readonly")
	}
	return t, nil
}

// updateTenant saves a tenant edit. A stale edit shows the form again with
// the user's input, the stored values and the current ETag.
func (s *Server) updateTenant(c echo.Context) error {
	t, err := s.editableTenant(c)
	if err != nil {
		return err
	}
	in, errs := tenantInput(c)
	in.Name = t.Name
	etag := c.FormValue("etag")
	base := tenantBase(c, t.Name)
	if len(errs) == 0 {
		var saved *kanri.Tenant
		saved, err = s.Tenants.Update(c.Request().Context(), t.ID, etag, base, in)
		if err == nil {
			s.flash(c, "success", i18n.T(c.Request().Context(), "tenants.updated", saved.Name))
			return redirect(c, "/tenants")
		}
	}
	f := views.TenantForm{ID: t.ID, ETag: etag, Input: in, Errors: formErrors(errs, err)}
	if base != nil {
		f.Base = *base
	}
	switch {
	case kanri.IsCode(err, kanri.ESTALE):
		cur, gerr := s.Tenants.Get(c.Request().Context(), t.ID)
		if gerr != nil {
			return gerr
		}
		f.ETag, f.Current, f.Base = cur.ETag, cur, tenant.Editable(cur)
		return render(c, http.StatusConflict, views.TenantFormPage(s.page(c, "tenants.edit", "tenants"), f))
	case len(f.Errors) > 0:
		return render(c, http.StatusUnprocessableEntity, views.TenantFormPage(s.page(c, "tenants.edit", "tenants"), f))
	}
	return err
}

// tenantBase reads the values the edit form was opened with, or nil if the
// form did not send them.
func tenantBase(c echo.Context, name string) *kanri.TenantInput {
	if c.FormValue("base_present") == "" {
		return nil
	}
	n, _ := strconv.Atoi(c.FormValue("base_maxUsers"))
	return &kanri.TenantInput{
		Name: name, DisplayName: c.FormValue("base_displayName"), Plan: c.FormValue("base_plan"), MaxUsers: n,
		Industry: c.FormValue("base_industry"), Country: c.FormValue("base_country"),
	}
}

// suspendTenant suspends an active tenant.
func (s *Server) suspendTenant(c echo.Context) error {
	return s.tenantAction(c, "tenants.suspended", func(id string) (*kanri.Tenant, error) {
		return s.Tenants.SetStatus(c.Request().Context(), id, "", kanri.TenantSuspended)
	})
}

// reactivateTenant reactivates a suspended tenant.
func (s *Server) reactivateTenant(c echo.Context) error {
	return s.tenantAction(c, "tenants.reactivated", func(id string) (*kanri.Tenant, error) {
		return s.Tenants.SetStatus(c.Request().Context(), id, "", kanri.TenantActive)
	})
}

// deleteTenant soft-deletes a tenant.
func (s *Server) deleteTenant(c echo.Context) error {
	return s.tenantAction(c, "tenants.deleted", func(id string) (*kanri.Tenant, error) {
		return s.Tenants.Delete(c.Request().Context(), id, "")
	})
}

func (s *Server) tenantAction(c echo.Context, done string, do func(id string) (*kanri.Tenant, error)) error {
	t, err := do(c.Param("id"))
	if err != nil {
		return err
	}
	s.flash(c, "success", i18n.T(c.Request().Context(), done, t.Name))
	return redirect(c, backTo(c, "/tenants"))
}
