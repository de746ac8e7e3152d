// Package support serves the console's pages of support access
// (docs/security.md, "Support access"): the operator's staff open a
// tenant as one of its users, and end that session.
package support

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/support"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// Pages serve the pages of support access.
type Pages struct{ *console.Console }

// New returns the pages of the console c.
func New(c *console.Console) *Pages { return &Pages{Console: c} }

// Routes are the opening of a support session, from a user's page, and
// its end.
func (s *Pages) Routes(g console.Groups) []console.Route {
	return []console.Route{
		console.Get(g.Tenant, "/users/:id/support", role.SupportAccess, s.form),
		console.Post(g.Tenant, "/users/:id/support", role.SupportAccess, s.start),
		console.Post(g.SignedIn, "/support/end", httpkit.RouteSignedIn, s.end),
	}
}

// Nav: a support session is opened from a user's page.
func (s *Pages) Nav() []views.NavEntry { return nil }

// form asks why the staff member opens the tenant as the user.
func (s *Pages) form(c echo.Context) error {
	u, err := s.Users.Get(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("id"))
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, views.SupportForm{User: u})
}

// start opens the support session and turns the staff member's session
// into it.
func (s *Pages) start(c echo.Context) error {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	me := c.Get(httpkit.KeyUser).(*kanri.User)
	name := me.DisplayName
	if name == "" {
		name = me.Username
	}
	token := httpkit.RandomToken()
	r := support.Request{
		TenantID: t.ID, UserID: c.Param("id"), Reason: c.FormValue("reason"),
		Token: token, IP: c.RealIP(), UserAgent: c.Request().UserAgent(),
	}
	home := c.Get(httpkit.KeyHome).(*kanri.Tenant)
	rec, err := s.Support.Start(ctx, support.Staff{TenantID: home.ID, UserID: me.ID, Name: name}, r)
	if kanri.IsCode(err, kanri.EINVALID) {
		u, uerr := s.Users.Get(ctx, t.ID, r.UserID)
		if uerr != nil {
			return uerr
		}
		return s.render(c, http.StatusUnprocessableEntity, views.SupportForm{User: u, Reason: r.Reason, Errors: views.Errors(kanri.ErrorFields(err))})
	}
	if err != nil {
		return err
	}
	if err := s.BeginSupport(c, rec.UserID, t.ID, token); err != nil {
		return err
	}
	return console.Redirect(c, "/")
}

// end ends the request's support session and gives the staff member their
// own session back. A session that is not one (ended already, in another
// tab) goes to its start page.
func (s *Pages) end(c echo.Context) error {
	rec := c.Get(httpkit.KeySession).(*kanri.Session)
	if rec.Support == nil { // ended already, in another tab
		return console.Redirect(c, "/")
	}
	return s.LeaveSupport(c, rec, support.EndedByStaff)
}

func (s *Pages) render(c echo.Context, status int, f views.SupportForm) error {
	f.Tenant, f.Minutes = httpkit.Tenant(c), int(support.Duration.Minutes())
	return httpkit.Render(c, status, views.SupportPage(s.Page(c, "support.page_title", "users"), f))
}
