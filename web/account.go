package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/views"
)

// account shows the signed-in user's own account.
func (s *Server) account(c echo.Context) error {
	return render(c, http.StatusOK, views.AccountPage(s.page(c, "account.title", "account"), nil))
}

// changePassword sets the user's own password, ends their other sessions
// and keeps this one (renewed).
func (s *Server) changePassword(c echo.Context) error {
	ctx := c.Request().Context()
	u := c.Get(ctxUser).(*kanri.User)
	next := c.FormValue("password")
	var err error
	if next != c.FormValue("confirm") {
		err = kanri.Invalid(kanri.Fields{"confirm": "validation.password_mismatch"})
	} else {
		err = s.Auth.ChangePassword(ctx, u.TenantID, u.ID, c.FormValue("current"), next)
	}
	if kanri.IsCode(err, kanri.EINVALID) {
		return render(c, http.StatusUnprocessableEntity, views.AccountPage(s.page(c, "account.title", "account"), views.Errors(kanri.ErrorFields(err))))
	}
	if err != nil {
		return err
	}
	if err := s.startSession(c, u, u.TenantID); err != nil {
		return err
	}
	s.flash(c, "success", i18n.T(ctx, "account.password_changed"))
	return redirect(c, views.AccountPath())
}
