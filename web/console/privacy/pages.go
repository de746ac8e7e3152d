// Package privacy serves the console's pages of a person's data: its
// export (by the person, or an administrator for them), a person's
// request to be erased, and its erasure by an administrator
// (docs/security.md, "Erasure and export").
package privacy

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// Pages serve the pages of people's data.
type Pages struct{ *console.Console }

// New returns the pages of the console c.
func New(c *console.Console) *Pages { return &Pages{Console: c} }

// Routes are the export and erasure of a person's data.
func (s *Pages) Routes(g console.Groups) []console.Route {
	return []console.Route{
		console.Get(g.SignedIn, "/account/export", httpkit.RouteSignedIn, s.exportOwn),
		console.Get(g.SignedIn, "/account/export.zip", httpkit.RouteSignedIn, s.Streaming(console.ExportTimeout, s.zipOwn)),
		console.Post(g.SignedIn, "/account/erasure", httpkit.RouteSignedIn, s.requestErasure),
		console.Get(g.Tenant, "/users/:id/export", role.UsersExport, s.export),
		console.Get(g.Tenant, "/users/:id/export.zip", role.UsersExport, s.Streaming(console.ExportTimeout, s.zip)),
		console.Get(g.Tenant, "/users/:id/erase", role.UsersErase, s.eraseForm),
		console.Post(g.Tenant, "/users/:id/erase", role.UsersErase, s.erase),
	}
}

// Nav: the pages are reached from a user's page and the account page.
func (s *Pages) Nav() []views.NavEntry { return nil }

// routeUser loads the user of a /t/:tenant/users/:id route: a deleted
// user too, whose data the tenant still holds until they are erased.
func (s *Pages) routeUser(c echo.Context) (*kanri.User, error) {
	return s.Users.Get(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("id"))
}

// exportOwn sends the signed-in person their own data.
func (s *Pages) exportOwn(c echo.Context) error {
	u := c.Get(httpkit.KeyUser).(*kanri.User)
	return s.sendExport(c, u.TenantID, u.ID)
}

// export sends a person's data to an administrator.
func (s *Pages) export(c echo.Context) error {
	u, err := s.routeUser(c)
	if err != nil {
		return err
	}
	return s.sendExport(c, u.TenantID, u.ID)
}

// sendExport sends a person's data as a JSON download.
func (s *Pages) sendExport(c echo.Context, tenantID, userID string) error {
	x, err := s.Erasure.Export(c.Request().Context(), tenantID, userID)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(x, "", "  ")
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Content-Disposition", `attachment; filename="personal-data-`+userID+`.json"`)
	h.Set("Cache-Control", "no-store")
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSONCharsetUTF8, b)
}

// zipOwn sends the signed-in person their own data with their files.
func (s *Pages) zipOwn(c echo.Context) error {
	u := c.Get(httpkit.KeyUser).(*kanri.User)
	return s.sendZip(c, u.TenantID, u.ID)
}

// zip sends a person's data with their files to an administrator.
func (s *Pages) zip(c echo.Context) error {
	u, err := s.routeUser(c)
	if err != nil {
		return err
	}
	return s.sendZip(c, u.TenantID, u.ID)
}

// sendZip streams a person's data and files as a zip download. A failure
// midway (a damaged file) cuts the download short, which the browser
// reports; it is logged.
func (s *Pages) sendZip(c echo.Context, tenantID, userID string) error {
	h := c.Response().Header()
	h.Set("Content-Type", "application/zip")
	h.Set("Content-Disposition", `attachment; filename="personal-data-`+userID+`.zip"`)
	h.Set("Cache-Control", "no-store")
	c.Response().WriteHeader(http.StatusOK)
	if err := s.Erasure.WriteZip(c.Request().Context(), c.Response(), tenantID, userID); err != nil {
		s.Logger.Error("personal data zip cut short", "tenant", tenantID, "user", userID, "err", err)
		panic(http.ErrAbortHandler) // the client must not take a cut zip for a whole one
	}
	return nil
}

// requestErasure records the signed-in person's request to be erased.
func (s *Pages) requestErasure(c echo.Context) error {
	u := c.Get(httpkit.KeyUser).(*kanri.User)
	if _, err := s.Erasure.Request(c.Request().Context(), u.TenantID, u.ID); err != nil {
		return err
	}
	return s.Report(c, views.AccountPath(), "privacy.request_sent")
}

// eraseForm asks for the confirmation of a person's erasure.
func (s *Pages) eraseForm(c echo.Context) error {
	u, err := s.routeUser(c)
	if err != nil {
		return err
	}
	return s.renderErase(c, http.StatusOK, views.EraseForm{User: u})
}

// erase erases a person, once their username was typed.
func (s *Pages) erase(c echo.Context) error {
	u, err := s.routeUser(c)
	if err != nil {
		return err
	}
	t := httpkit.Tenant(c)
	confirm := c.FormValue("confirm")
	rep, err := s.Erasure.Erase(c.Request().Context(), t.ID, u.ID, confirm)
	if kanri.IsCode(err, kanri.EINVALID) {
		return s.renderErase(c, http.StatusUnprocessableEntity, views.EraseForm{User: u, Confirm: confirm, Errors: views.Errors(kanri.ErrorFields(err))})
	}
	if err != nil {
		return err
	}
	return s.Report(c, views.UsersPath(t.ID), "privacy.erased", rep.Pseudonym)
}

func (s *Pages) renderErase(c echo.Context, status int, f views.EraseForm) error {
	var err error
	if f.Requested, err = s.Erasure.Requested(c.Request().Context(), f.User.TenantID, f.User.ID); err != nil {
		return err
	}
	return httpkit.Render(c, status, views.ErasePage(s.Page(c, "privacy.title", "users"), f))
}
