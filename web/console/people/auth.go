package people

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/support"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// loginForm shows the sign-in page, or sends a signed-in user home. next,
// a path of the console, is where sign-in leads.
func (s *Pages) loginForm(c echo.Context) error {
	if _, _, _, ok := s.SignedIn(c); ok {
		return c.Redirect(http.StatusSeeOther, "/")
	}
	p := s.Page(c, "login.title", "")
	if err := s.SaveSession(c); err != nil { // the CSRF token of the form
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.Login(p, views.LoginView{Next: console.NextPath(c.QueryParam("next")), Passkeys: relyingParty(c).Usable()}))
}

// login checks the credentials and starts a new session, then goes to the
// page asked for before sign-in, or to the user's start page.
func (s *Pages) login(c echo.Context) error {
	ctx := c.Request().Context()
	tenantName, username, next := c.FormValue("tenant"), c.FormValue("username"), console.NextPath(c.FormValue("next"))
	u, t, second, err := s.Auth.SignIn(ctx, relyingParty(c), tenantName, username, c.FormValue("password"))
	if code := kanri.ErrorCode(err); code == kanri.EUNAUTHENTICATED || code == kanri.EFORBIDDEN {
		// The wrong password (or no such user), a locked account, or the
		// right password of a closed organisation: each says which.
		p := s.Page(c, "login.title", "")
		return httpkit.Render(c, httpkit.Status(err), views.Login(p, views.LoginView{Tenant: tenantName, Username: username, Next: next, Error: httpkit.Message(ctx, err, "login.failed"), Passkeys: relyingParty(c).Usable()}))
	}
	if err != nil {
		return err
	}
	return s.afterPassword(c, u, t, second, next)
}

// logout ends the session (the account page ends the others).
func (s *Pages) logout(c echo.Context) error {
	ctx := c.Request().Context()
	u, rec := c.Get(httpkit.KeyUser).(*kanri.User), c.Get(httpkit.KeySession).(*kanri.Session)
	if rec.Support != nil { // the staff member leaves the support session, not their own
		return s.LeaveSupport(c, rec, support.EndedByStaff)
	}
	if err := s.Auth.SignOut(ctx, u.TenantID, u.ID, rec.ID); err != nil {
		return err
	}
	if err := s.EndSession(c); err != nil {
		return err
	}
	s.Flash(c, "info", "login.signed_out")
	return console.Redirect(c, "/login")
}

// home sends the user to their start page.
func (s *Pages) home(c echo.Context) error {
	access := role.Access{Perms: c.Get(httpkit.KeyPerms).(role.Set), GlobalAdmin: httpkit.IsGlobalAdmin(c)}
	return c.Redirect(http.StatusSeeOther, homePath(c.Get(httpkit.KeyHome).(*kanri.Tenant), access))
}

// setTheme remembers the chosen theme and returns to the page.
func (s *Pages) setTheme(c echo.Context) error {
	switch t := c.FormValue("theme"); t {
	case "light", "dark", "":
		httpkit.SetThemeCookie(c, t)
	default:
		return kanri.Invalid(kanri.Fields{"theme": "validation.theme"})
	}
	return s.switched(c)
}

// setLang remembers the chosen language and returns to the page.
func (s *Pages) setLang(c echo.Context) error {
	httpkit.SetLangCookie(c, i18n.Normalize(c.FormValue("lang")))
	return s.switched(c)
}

// switched returns the visitor, after a change of language or theme, to
// the page they were on (its form field next), as a GET opens it: a URL
// that only a POST answers goes to the nearest page a GET opens instead,
// never to "Page not found". A page showing a new API key secret shows it
// again (the ticket it kept for this); a reload of it does not.
func (s *Pages) switched(c echo.Context) error {
	next := console.SafeNext(c.FormValue("next"))
	u, err := url.Parse(next)
	if err != nil {
		return c.Redirect(http.StatusSeeOther, "/")
	}
	if !httpkit.Gettable(c.Echo(), u.Path) {
		next = console.NearestGettable(c.Echo(), u.Path)
	}
	sess := s.Session(c)
	if t, ok := sess.Values[httpkit.KeySecretOnSwitch].(string); ok && strings.HasSuffix(u.Path, "/secret") {
		sess.Values[httpkit.KeySecretTicket] = t
		delete(sess.Values, httpkit.KeySecretOnSwitch)
		if err := s.SaveSession(c); err != nil {
			return err
		}
	}
	return c.Redirect(http.StatusSeeOther, next)
}

// switchTenant takes the operator's staff to another tenant's users.
func (s *Pages) switchTenant(c echo.Context) error {
	t, err := s.Tenants.Get(c.Request().Context(), c.QueryParam("tenant"))
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, views.UsersPath(t.ID))
}
