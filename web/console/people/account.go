package people

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// account shows the signed-in user's own account.
func (s *Pages) account(c echo.Context) error {
	return s.showAccount(c, http.StatusOK, nil)
}

// showAccount renders the account page with the password form's errors.
func (s *Pages) showAccount(c echo.Context, status int, errs views.Errors) error {
	u := c.Get(httpkit.KeyUser).(*kanri.User)
	return s.renderAccount(c, status, views.AccountView{Errors: errs, Profile: u.Profile})
}

// renderAccount renders the account page with v's forms.
func (s *Pages) renderAccount(c echo.Context, status int, v views.AccountView) error {
	u := c.Get(httpkit.KeyUser).(*kanri.User)
	sessions, err := s.Auth.Sessions(c.Request().Context(), u.TenantID, u.ID)
	if err != nil {
		return err
	}
	v.Sessions, v.Current = sessions, c.Get(httpkit.KeySession).(*kanri.Session).ID
	v.TwoFactor, v.RecoveryLeft = u.Security.TwoFactorEnabled, len(u.Security.RecoveryCodes)
	if v.ErasureRequested, err = s.Erasure.Requested(c.Request().Context(), u.TenantID, u.ID); err != nil {
		return err
	}
	if v.Passkeys.Keys, err = s.Auth.Passkeys(c.Request().Context(), u.TenantID, u.ID); err != nil {
		return err
	}
	v.Passkeys.Usable = relyingParty(c).Usable()
	return httpkit.Render(c, status, views.AccountPage(s.Page(c, "account.title", "account"), v))
}

// endOwnSession ends one of the user's other sessions.
func (s *Pages) endOwnSession(c echo.Context) error {
	u := c.Get(httpkit.KeyUser).(*kanri.User)
	if c.Param("session") == c.Get(httpkit.KeySession).(*kanri.Session).ID {
		return kanri.E(kanri.ECONFLICT, "account.end_current")
	}
	if err := s.Auth.EndSession(c.Request().Context(), u.TenantID, u.ID, c.Param("session")); err != nil {
		return err
	}
	return s.Report(c, views.AccountPath(), "account.session_ended")
}

// endOtherSessions ends every session of the user but this one.
func (s *Pages) endOtherSessions(c echo.Context) error {
	u := c.Get(httpkit.KeyUser).(*kanri.User)
	n, err := s.Auth.EndOtherSessions(c.Request().Context(), u.TenantID, u.ID, c.Get(httpkit.KeySession).(*kanri.Session).ID)
	if err != nil {
		return err
	}
	return s.Report(c, views.AccountPath(), "account.sessions_ended", n)
}

// changePassword sets the user's own password, ends their other sessions
// and keeps this one (renewed).
func (s *Pages) changePassword(c echo.Context) error {
	ctx := c.Request().Context()
	u := c.Get(httpkit.KeyUser).(*kanri.User)
	next := c.FormValue("password")
	var err error
	if next != c.FormValue("confirm") {
		err = kanri.Invalid(kanri.Fields{"confirm": "validation.password_mismatch"})
	} else {
		err = s.Auth.ChangePassword(ctx, u.TenantID, u.ID, c.FormValue("current"), next)
	}
	if kanri.IsCode(err, kanri.EINVALID) {
		return s.showAccount(c, http.StatusUnprocessableEntity, views.Errors(kanri.ErrorFields(err)))
	}
	if err != nil {
		return err
	}
	// Every session ends, this one too; it goes on as a new one.
	if _, err := s.Auth.EndOtherSessions(ctx, u.TenantID, u.ID, ""); err != nil {
		return err
	}
	if err := s.StartSession(c, u, u.TenantID); err != nil {
		return err
	}
	s.Flash(c, "success", "account.password_changed")
	return console.Redirect(c, views.AccountPath())
}

// updateOwnProfile saves the user's own profile.
func (s *Pages) updateOwnProfile(c echo.Context) error {
	u, in := c.Get(httpkit.KeyUser).(*kanri.User), profileForm(c)
	_, err := s.Users.UpdateProfile(c.Request().Context(), u.TenantID, u.ID, console.Seen(c), in)
	if err == nil {
		return s.Report(c, views.AccountPath(), "profile.saved_own")
	}
	status, errs, err := profileErrors(err)
	if err != nil {
		return err
	}
	cur, gerr := s.Users.Get(c.Request().Context(), u.TenantID, u.ID)
	if gerr != nil {
		return gerr
	}
	c.Set(httpkit.KeyUser, cur) // the form's version is the stored one now
	return s.renderAccount(c, status, views.AccountView{Profile: in, ProfileErrors: errs})
}

// uploadOwnAvatar sets the user's own avatar.
func (s *Pages) uploadOwnAvatar(c echo.Context) error {
	if err := s.storeAvatar(c, c.Get(httpkit.KeyUser).(*kanri.User)); err != nil {
		return err
	}
	return s.Report(c, views.AccountPath(), "profile.avatar_saved")
}

// ownAvatar sends the user's own avatar.
func (s *Pages) ownAvatar(c echo.Context) error {
	return s.sendAvatar(c, c.Get(httpkit.KeyUser).(*kanri.User))
}
