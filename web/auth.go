package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/views"
)

// loginForm shows the sign-in page, or sends a signed-in user home.
func (s *Server) loginForm(c echo.Context) error {
	if _, _, _, ok := s.signedIn(c); ok {
		return c.Redirect(http.StatusSeeOther, "/")
	}
	p := s.page(c, "login.title", "")
	if err := s.saveSession(c); err != nil { // the CSRF token of the form
		return err
	}
	return render(c, http.StatusOK, views.Login(p, "", "", ""))
}

// login checks the credentials and starts a new session.
func (s *Server) login(c echo.Context) error {
	tenantName, username := c.FormValue("tenant"), c.FormValue("username")
	u, t, err := s.Auth.SignIn(c.Request().Context(), tenantName, username, c.FormValue("password"))
	if kanri.IsCode(err, kanri.EUNAUTHENTICATED) {
		p := s.page(c, "login.title", "")
		return render(c, http.StatusUnauthorized, views.Login(p, tenantName, username, i18n.T(c.Request().Context(), "login.failed")))
	}
	if err != nil {
		return err
	}
	if err := s.startSession(c, u, t.ID); err != nil {
		return err
	}
	global, err := s.Roles.IsGlobalAdmin(c.Request().Context(), t, u.ID)
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, homePath(t, global))
}

// logout ends the session, and every other session of the user.
func (s *Server) logout(c echo.Context) error {
	ctx := c.Request().Context()
	u := c.Get(ctxUser).(*kanri.User)
	if err := s.Auth.SignOut(ctx, u.TenantID, u.ID); err != nil {
		return err
	}
	if err := s.endSession(c); err != nil {
		return err
	}
	s.flash(c, "info", i18n.T(ctx, "login.signed_out"))
	return redirect(c, "/login")
}

// home sends the user to their start page.
func (s *Server) home(c echo.Context) error {
	return c.Redirect(http.StatusSeeOther, homePath(c.Get(ctxHome).(*kanri.Tenant), isGlobalAdmin(c)))
}

// homePath is a user's start page: the tenant list for global
// administrators, their own tenant's users for everyone else.
func homePath(t *kanri.Tenant, global bool) string {
	if global {
		return views.TenantsPath()
	}
	return views.UsersPath(t.ID)
}

// setLang remembers the chosen language and returns to the page.
func (s *Server) setLang(c echo.Context) error {
	setLangCookie(c, i18n.Normalize(c.FormValue("lang")))
	return c.Redirect(http.StatusSeeOther, safeNext(c.FormValue("next")))
}

// switchTenant takes the operator's staff to another tenant's users.
func (s *Server) switchTenant(c echo.Context) error {
	t, err := s.Tenants.Get(c.Request().Context(), c.QueryParam("tenant"))
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, views.UsersPath(t.ID))
}
