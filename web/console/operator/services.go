package operator

import (
	"cmp"
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/catalog"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// usageMonths is how many months a service's usage page charts.
const usageMonths = 12

// listServices shows the operator's service catalog with each service's
// health.
func (s *Pages) listServices(c echo.Context) error {
	ctx := c.Request().Context()
	svcs, err := s.Catalog.List(ctx)
	if err != nil {
		return err
	}
	checks, err := s.Catalog.Health(ctx)
	if err != nil {
		return err
	}
	rows := make([]views.CatalogRow, len(svcs))
	for i, svc := range svcs {
		rows[i] = views.CatalogRow{Service: svc, Health: catalog.HealthOf(svc, checks), BuiltIn: s.Catalog.BuiltIn(svc.ID)}
	}
	return httpkit.Render(c, http.StatusOK, views.ServicesPage(s.Page(c, "services.catalog", "catalog"), rows))
}

// serviceForm reads the service form.
func serviceForm(c echo.Context) kanri.ServiceInput {
	return kanri.ServiceInput{
		Name: c.FormValue("name"), Description: c.FormValue("description"), Version: c.FormValue("version"),
		BaseURL: c.FormValue("baseUrl"), RoleEndpoint: c.FormValue("roleEndpoint"), HealthEndpoint: c.FormValue("healthEndpoint"),
		Category: c.FormValue("category"), Icon: c.FormValue("icon"),
	}
}

// newService shows the empty service form.
func (s *Pages) newService(c echo.Context) error {
	f := views.ServiceForm{}
	f.Input = kanri.ServiceInput{Version: "1.0.0", HealthEndpoint: "/health"}
	return httpkit.Render(c, http.StatusOK, views.ServiceFormPage(s.Page(c, "services.new", "catalog"), f))
}

// createService adds an external service to the catalog.
func (s *Pages) createService(c echo.Context) error {
	in, id := serviceForm(c), strings.TrimSpace(c.FormValue("id"))
	svc, err := s.Catalog.Create(c.Request().Context(), id, in)
	if err == nil {
		return s.Report(c, views.ServicesPath(), "services.created", svc.Name)
	}
	if !kanri.IsCode(err, kanri.EINVALID) {
		return err
	}
	f := views.ServiceForm{NewID: id}
	f.Input, f.Errors = in, views.Errors(kanri.ErrorFields(err))
	return httpkit.Render(c, http.StatusUnprocessableEntity, views.ServiceFormPage(s.Page(c, "services.new", "catalog"), f))
}

// editService shows a service's edit form.
func (s *Pages) editService(c echo.Context) error {
	svc, err := s.Catalog.Get(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	f := views.ServiceForm{ID: svc.ID}
	f.ETag, f.Input, f.Base = svc.ETag, catalog.InputOf(svc), catalog.InputOf(svc)
	return httpkit.Render(c, http.StatusOK, views.ServiceFormPage(s.Page(c, "services.edit", "catalog"), f))
}

// updateService saves a service edit; a stale one shows the stored version
// next to the user's input.
func (s *Pages) updateService(c echo.Context) error {
	ctx := c.Request().Context()
	cur, err := s.Catalog.Get(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	in, etag := serviceForm(c), c.FormValue("etag")
	saved, err := s.Catalog.Update(ctx, cur.ID, etag, in)
	if err == nil {
		return s.Report(c, views.ServicesPath(), "services.updated", saved.Name)
	}
	f := views.ServiceForm{ID: cur.ID}
	f.ETag, f.Input = etag, in
	status, err := console.EditFailed(&f.Edit, err, func() (*kanri.Service, error) { return s.Catalog.Get(ctx, cur.ID) }, catalog.InputOf)
	if err != nil {
		return err
	}
	return httpkit.Render(c, status, views.ServiceFormPage(s.Page(c, "services.edit", "catalog"), f))
}

// deactivateService takes a service out of use.
func (s *Pages) deactivateService(c echo.Context) error {
	return s.serviceAction(c, "services.deactivated", func(id string, seen kanri.Seen) (*kanri.Service, error) {
		return s.Catalog.SetActive(c.Request().Context(), id, seen, false)
	})
}

// reactivateService puts a service back in use.
func (s *Pages) reactivateService(c echo.Context) error {
	return s.serviceAction(c, "services.reactivated", func(id string, seen kanri.Seen) (*kanri.Service, error) {
		return s.Catalog.SetActive(c.Request().Context(), id, seen, true)
	})
}

// deleteService removes an external service no tenant uses.
func (s *Pages) deleteService(c echo.Context) error {
	return s.serviceAction(c, "services.deleted", func(id string, seen kanri.Seen) (*kanri.Service, error) {
		return s.Catalog.Delete(c.Request().Context(), id, seen)
	})
}

func (s *Pages) serviceAction(c echo.Context, doneKey string, do func(id string, seen kanri.Seen) (*kanri.Service, error)) error {
	return s.Action(c, doneKey, views.ServicesPath(), func(seen kanri.Seen) (string, error) {
		svc, err := do(c.Param("id"), seen)
		if err != nil {
			return "", err
		}
		return views.ServiceName(c.Request().Context(), svc.ID, svc.Name), nil
	})
}

// servicesUsage shows every tenant's usage in one month.
func (s *Pages) servicesUsage(c echo.Context) error {
	ctx := c.Request().Context()
	period := c.QueryParam("period")
	if _, err := time.Parse("2006-01", period); err != nil {
		period = kanri.Period(s.Now())
	}
	usage, pg, err := console.ListPage(c, views.ServicesUsagePath(), 50, func(token string, limit int) ([]*kanri.ServiceUsage, string, error) {
		return s.Catalog.UsageAcrossTenants(ctx, period, limit, token)
	})
	if err != nil {
		return err
	}
	ids := make([]string, len(usage))
	for i, u := range usage {
		ids[i] = u.TenantID
	}
	names, err := s.Tenants.DisplayNames(ctx, ids)
	if err != nil {
		return err
	}
	rows := make([]views.UsageRow, len(usage))
	for i, u := range usage {
		rows[i] = views.UsageRow{TenantName: cmp.Or(names[u.TenantID], u.TenantID), Usage: u}
	}
	return httpkit.Render(c, http.StatusOK, views.ServicesUsagePage(s.Page(c, "services.usage_all", "catalog"), period, rows, pg))
}

// listTenantServices shows a tenant's services: every service of the
// catalog to the operator, who manages the assignments; the assigned ones
// to the tenant's own people, read-only.
func (s *Pages) listTenantServices(c echo.Context) error {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	svcs, err := s.Catalog.List(ctx)
	if err != nil {
		return err
	}
	checks, err := s.Catalog.Health(ctx)
	if err != nil {
		return err
	}
	assigned, err := s.Catalog.Assignments(ctx, t.ID)
	if err != nil {
		return err
	}
	usage, err := s.Catalog.UsageThisMonth(ctx, t.ID)
	if err != nil {
		return err
	}
	byService := map[string]*kanri.ServiceAssignment{}
	for _, a := range assigned {
		byService[a.ServiceID] = a
	}
	operator := httpkit.Can(c, role.ServicesUpdate)
	var rows []views.TenantServiceRow
	for _, svc := range svcs {
		a := byService[svc.ID]
		// The tenant's own people see what they have: the services
		// assigned to them and those every organisation has.
		if a == nil && !operator && kanri.ServiceAccess(svc.ID) != kanri.AccessIncluded {
			continue
		}
		r := views.TenantServiceRow{Service: svc, Health: catalog.HealthOf(svc, checks), Assignment: a, Usage: usage[svc.ID], InPlan: s.Roles.Catalog.PlanAllows(t.Plan, svc.ID)}
		if a != nil {
			r.Status = a.StatusAt(s.Now())
		}
		rows = append(rows, r)
	}
	return httpkit.Render(c, http.StatusOK, views.TenantServicesPage(s.Page(c, "services.title", "services"), rows))
}

// usageFrom returns the first month a service's usage page shows: the
// month of the assignment, or usageMonths back from now if that is later.
func usageFrom(now, assigned time.Time) time.Time {
	now = now.UTC()
	first := time.Date(now.Year(), now.Month()-(usageMonths-1), 1, 0, 0, 0, 0, time.UTC)
	if assigned.After(first) && !assigned.After(now) {
		return assigned.UTC()
	}
	return first
}

// tenantServiceUsage shows a tenant's use of one assigned service over the
// last months.
func (s *Pages) tenantServiceUsage(c echo.Context) error {
	if err := console.NeedReporting(c); err != nil {
		return err
	}
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	a, err := s.Catalog.Assignment(ctx, t.ID, c.Param("service"))
	if err != nil {
		return err
	}
	svc, err := s.Catalog.Get(ctx, a.ServiceID)
	if err != nil {
		return err
	}
	months, err := s.Catalog.Usage(ctx, t.ID, svc.ID, usageFrom(s.Now(), a.AssignedAt.Time), s.Now())
	if err != nil {
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.ServiceUsagePage(s.Page(c, "services.title", "services"), svc, a, a.StatusAt(s.Now()), months))
}

// assignmentForm reads the assignment form for a service.
func (s *Pages) assignmentForm(c echo.Context, serviceID string) kanri.AssignmentInput {
	in := kanri.AssignmentInput{ServiceID: serviceID, ExpiresAt: c.FormValue("expiresAt"), ConfigJSON: c.FormValue("configJson")}
	if fs, own := s.Roles.Catalog.ConfigFields(serviceID); own {
		in.Config = map[string]string{}
		for _, f := range fs {
			in.Config[f.Key] = c.FormValue("config." + f.Key)
		}
	}
	return in
}

// editAssignment shows the form that assigns a service to the tenant, or
// edits its assignment.
func (s *Pages) editAssignment(c echo.Context) error {
	ctx := c.Request().Context()
	svc, err := s.Catalog.Get(ctx, c.Param("service"))
	if err != nil {
		return err
	}
	fields, own := s.Roles.Catalog.ConfigFields(svc.ID)
	f := views.AssignmentForm{Service: svc, Fields: fields, Own: own}
	f.Input = kanri.AssignmentInput{ServiceID: svc.ID}
	a, err := s.Catalog.Assignment(ctx, httpkit.Tenant(c).ID, svc.ID)
	switch {
	case err == nil:
		loc := httpkit.Tenant(c).Location()
		f.Assigned, f.ETag, f.Input, f.Base = true, a.ETag, s.Catalog.AssignmentInputOf(a, loc), s.Catalog.AssignmentInputOf(a, loc)
	case !kanri.IsCode(err, kanri.ENOTFOUND):
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.AssignmentFormPage(s.Page(c, "services.title", "services"), f))
}

// saveAssignment assigns the service (the form had no ETag) or saves an
// edit of its assignment.
func (s *Pages) saveAssignment(c echo.Context) error {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	svc, err := s.Catalog.Get(ctx, c.Param("service"))
	if err != nil {
		return err
	}
	name := views.ServiceName(ctx, svc.ID, svc.Name)
	in, etag := s.assignmentForm(c, svc.ID), c.FormValue("etag")
	if etag == "" {
		var created bool
		if _, created, err = s.Catalog.Assign(ctx, t.ID, in); err == nil {
			key := "services.assigned"
			if !created {
				key = "services.already_assigned"
			}
			return s.Report(c, views.TenantServicesPath(t.ID), key, name)
		}
	} else if _, err = s.Catalog.UpdateAssignment(ctx, t.ID, svc.ID, etag, in); err == nil {
		return s.Report(c, views.TenantServicesPath(t.ID), "services.assignment_saved", name)
	}
	fields, own := s.Roles.Catalog.ConfigFields(svc.ID)
	f := views.AssignmentForm{Service: svc, Fields: fields, Own: own, Assigned: etag != ""}
	f.ETag, f.Input = etag, in
	status, err := console.EditFailed(&f.Edit, err, func() (*kanri.ServiceAssignment, error) { return s.Catalog.Assignment(ctx, t.ID, svc.ID) }, func(a *kanri.ServiceAssignment) kanri.AssignmentInput {
		return s.Catalog.AssignmentInputOf(a, t.Location())
	})
	if err != nil {
		return err
	}
	return httpkit.Render(c, status, views.AssignmentFormPage(s.Page(c, "services.title", "services"), f))
}

// suspendAssignment suspends the tenant's use of a service.
func (s *Pages) suspendAssignment(c echo.Context) error {
	return s.assignmentAction(c, "services.suspended", s.Catalog.Suspend)
}

// reactivateAssignment lets the tenant use a suspended service again.
func (s *Pages) reactivateAssignment(c echo.Context) error {
	return s.assignmentAction(c, "services.reactivated_assignment", s.Catalog.Reactivate)
}

// endAssignment removes the service from the tenant.
func (s *Pages) endAssignment(c echo.Context) error {
	return s.assignmentAction(c, "services.ended", s.Catalog.End)
}

func (s *Pages) assignmentAction(c echo.Context, doneKey string, do func(ctx context.Context, tenantID, serviceID string, seen kanri.Seen) (*kanri.ServiceAssignment, error)) error {
	t := httpkit.Tenant(c)
	return s.Action(c, doneKey, views.TenantServicesPath(t.ID), func(seen kanri.Seen) (string, error) {
		ctx := c.Request().Context()
		a, err := do(ctx, t.ID, c.Param("service"), seen)
		if err != nil {
			return "", err
		}
		return views.ServiceName(ctx, a.ServiceID, a.ServiceID), nil
	})
}
