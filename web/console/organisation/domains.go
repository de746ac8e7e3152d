package organisation

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/emaildomain"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/httpkit"
)

// listDomains shows a tenant's domains.
func (s *Pages) listDomains(c echo.Context) error {
	return s.showDomains(c, http.StatusOK, "", nil)
}

// showDomains renders the domains page, with the add form's input and
// errors after a failed add.
func (s *Pages) showDomains(c echo.Context, status int, input string, errs views.Errors) error {
	t := httpkit.Tenant(c)
	all, err := s.Domains.List(c.Request().Context(), t.ID)
	if err != nil {
		return err
	}
	rows := make([]views.DomainRow, len(all))
	for i, d := range all {
		rows[i] = views.DomainRow{Domain: d, Display: emaildomain.Display(d.Domain), State: emaildomain.State(d), Record: emaildomain.RecordName(d.Domain)}
	}
	return httpkit.Render(c, status, views.DomainsPage(s.Page(c, "domains.title", "domains"), rows, input, errs))
}

// addDomain adds a domain to the tenant, or shows the page again with the
// input and its error.
func (s *Pages) addDomain(c echo.Context) error {
	input := c.FormValue("domain")
	d, err := s.Domains.Add(c.Request().Context(), httpkit.Tenant(c).ID, input)
	if err == nil {
		dest := views.DomainsPath(httpkit.Tenant(c).ID)
		if typed := strings.TrimSpace(input); !strings.EqualFold(typed, d.Domain) && !strings.EqualFold(typed, emaildomain.Display(d.Domain)) {
			// Accepted, but not as typed (a URL, an address): say so.
			return s.Report(c, dest, "domains.added_normalized", d.Domain, typed, emaildomain.RecordName(d.Domain))
		}
		return s.Report(c, dest, "domains.added", d.Domain, emaildomain.RecordName(d.Domain))
	}
	if !kanri.IsCode(err, kanri.EINVALID) {
		return err
	}
	return s.showDomains(c, http.StatusUnprocessableEntity, input, views.Errors(kanri.ErrorFields(err)))
}

// verifyDomain looks the domain's TXT record up; what was found instead is
// shown on the page when it does not hold the token.
func (s *Pages) verifyDomain(c echo.Context) error {
	t := httpkit.Tenant(c)
	return s.Action(c, "domains.verified", views.DomainsPath(t.ID), func(seen kanri.Seen) (string, error) {
		d, err := s.Domains.Verify(c.Request().Context(), t.ID, c.Param("id"), seen)
		if err != nil {
			return "", err
		}
		return d.Domain, nil
	})
}

// deleteDomain removes a domain from the tenant.
func (s *Pages) deleteDomain(c echo.Context) error {
	t := httpkit.Tenant(c)
	return s.Action(c, "domains.deleted", views.DomainsPath(t.ID), func(seen kanri.Seen) (string, error) {
		d, err := s.Domains.Delete(c.Request().Context(), t.ID, c.Param("id"), seen)
		if err != nil {
			return "", err
		}
		return d.Domain, nil
	})
}
