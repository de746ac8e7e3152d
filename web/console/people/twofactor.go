package people

import (
	"encoding/base64"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// secondStepTimeout is how long the password step waits for the code.
const secondStepTimeout = 5 * time.Minute

// Session values of a sign-in between its two steps.
const (
	keyPendingUser   = "pending_uid"
	keyPendingTenant = "pending_tid"
	keyPendingAt     = "pending_at"
	keyPendingNext   = "pending_next"
)

// afterPassword goes on from a right password: to the second step when the
// user has two-factor sign-in, else into a session (one that can only
// enrol, when the tenant requires two factors of the user and they have
// none yet).
func (s *Pages) afterPassword(c echo.Context, u *kanri.User, t *kanri.Tenant, second bool, next string) error {
	ctx := c.Request().Context()
	if second {
		sess := s.Session(c)
		for k := range sess.Values {
			if k != httpkit.KeyCSRF {
				delete(sess.Values, k)
			}
		}
		sess.Values[keyPendingUser], sess.Values[keyPendingTenant] = u.ID, t.ID
		sess.Values[keyPendingAt], sess.Values[keyPendingNext] = s.Now().Unix(), next
		if err := s.SaveSession(c); err != nil {
			return err
		}
		return c.Redirect(http.StatusSeeOther, "/login/2fa")
	}
	access, err := s.Roles.AccessOf(ctx, t.ID, u.ID)
	if err != nil {
		return err
	}
	if err := s.StartSession(c, u, t.ID); err != nil {
		return err
	}
	if t.TwoFactorRequired(access.Admin) {
		return c.Redirect(http.StatusSeeOther, views.TwoFactorPath()) // requireUser keeps them there until they enrol
	}
	if next != "" {
		return c.Redirect(http.StatusSeeOther, next)
	}
	return c.Redirect(http.StatusSeeOther, homePath(t, access))
}

// pendingSignIn returns the user and tenant waiting for their second
// step, if it has not timed out.
func (s *Pages) pendingSignIn(c echo.Context) (userID, tenantID, next string, ok bool) {
	sess := s.Session(c)
	userID, _ = sess.Values[keyPendingUser].(string)
	tenantID, _ = sess.Values[keyPendingTenant].(string)
	next, _ = sess.Values[keyPendingNext].(string)
	at, _ := sess.Values[keyPendingAt].(int64)
	if userID == "" || tenantID == "" || s.Now().Sub(time.Unix(at, 0)) > secondStepTimeout {
		return "", "", "", false
	}
	return userID, tenantID, next, true
}

// secondFactorForm asks for the code of the sign-in's second step.
func (s *Pages) secondFactorForm(c echo.Context) error {
	if _, _, _, ok := s.pendingSignIn(c); !ok {
		return c.Redirect(http.StatusSeeOther, "/login")
	}
	return s.showSecondFactor(c, http.StatusOK, "")
}

// showSecondFactor renders the second step of the sign-in waiting for it,
// with errMsg: the code of the authenticator app, or a passkey, whichever
// the user has.
func (s *Pages) showSecondFactor(c echo.Context, status int, errMsg string) error {
	ctx := c.Request().Context()
	uid, tid, _, _ := s.pendingSignIn(c)
	u, err := s.Users.Get(ctx, tid, uid)
	if err != nil {
		return err
	}
	passkey, err := s.Auth.HasPasskey(ctx, tid, uid)
	if err != nil {
		return err
	}
	v := views.SecondFactorView{Code: u.Security.TwoFactorEnabled, Passkey: passkey, PasskeyUsable: relyingParty(c).Usable(), Error: errMsg}
	return httpkit.Render(c, status, views.SecondFactorPage(s.Page(c, "twofactor.title", ""), v))
}

// secondFactor checks the code and signs the user in.
func (s *Pages) secondFactor(c echo.Context) error {
	ctx := c.Request().Context()
	uid, tid, next, ok := s.pendingSignIn(c)
	if !ok {
		s.Flash(c, "info", "twofactor.timed_out")
		return c.Redirect(http.StatusSeeOther, "/login")
	}
	u, err := s.Auth.SecondFactor(ctx, tid, uid, c.FormValue("code"))
	if kanri.IsCode(err, kanri.EUNAUTHENTICATED) {
		return s.showSecondFactor(c, http.StatusUnauthorized, i18n.T(ctx, "twofactor.failed"))
	}
	if err != nil {
		return err
	}
	t, err := s.Tenants.Get(ctx, tid)
	if err != nil {
		return err
	}
	return s.signedIn(c, u, t, next)
}

// cancelSecondFactor gives up a sign-in waiting for its code.
func (s *Pages) cancelSecondFactor(c echo.Context) error {
	if err := s.EndSession(c); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/login")
}

// twoFactorPage shows the user's two-factor sign-in: how to set it up
// (the QR code and the secret of an enrolment begun), or how to turn it off.
func (s *Pages) twoFactorPage(c echo.Context) error {
	return s.showTwoFactor(c, http.StatusOK, nil, nil)
}

func (s *Pages) showTwoFactor(c echo.Context, status int, recovery []string, errs views.Errors) error {
	ctx := c.Request().Context()
	u, err := s.Users.Get(ctx, c.Get(httpkit.KeyUser).(*kanri.User).TenantID, c.Get(httpkit.KeyUser).(*kanri.User).ID)
	if err != nil {
		return err
	}
	home := c.Get(httpkit.KeyHome).(*kanri.Tenant)
	enforced, err := s.twoFactorEnforced(c, u, home)
	if err != nil {
		return err
	}
	v := views.TwoFactorView{
		Enabled: u.Security.TwoFactorEnabled, Available: home.TwoFactorAvailable(), Required: s.MustEnrol(c), Enforced: enforced,
		Account: account(u, home), Recovery: recovery, Left: len(u.Security.RecoveryCodes), Errors: errs,
	}
	if v.Required {
		v.Passkeys.Usable = relyingParty(c).Usable()
	}
	if !v.Enabled && len(recovery) == 0 {
		e, err := s.Auth.PendingTwoFactor(u, account(u, home))
		if err != nil {
			return err
		}
		if e != nil {
			png, err := e.QRCode(200)
			if err != nil {
				return err
			}
			v.Secret, v.QR = e.Secret, "data:image/png;base64,"+base64.StdEncoding.EncodeToString(png)
		}
	}
	return httpkit.Render(c, status, views.TwoFactorPage(s.Page(c, "twofactor.title", "account"), v))
}

// twoFactorEnforced reports whether the tenant requires two-factor sign-in
// of u (of everyone, or of administrators and u is one), so that u cannot
// turn it off.
func (s *Pages) twoFactorEnforced(c echo.Context, u *kanri.User, home *kanri.Tenant) (bool, error) {
	access, err := s.Roles.AccessOf(c.Request().Context(), home.ID, u.ID)
	if err != nil {
		return false, err
	}
	return home.TwoFactorRequired(access.Admin), nil
}

// account names the user in an authenticator app.
func account(u *kanri.User, t *kanri.Tenant) string { return u.Username + "@" + t.Name }

// setupTwoFactor begins an enrolment.
func (s *Pages) setupTwoFactor(c echo.Context) error {
	u, home := c.Get(httpkit.KeyUser).(*kanri.User), c.Get(httpkit.KeyHome).(*kanri.Tenant)
	if !home.TwoFactorAvailable() {
		return kanri.E(kanri.EFORBIDDEN, "twofactor.unavailable")
	}
	if u.Security.TwoFactorEnabled {
		return kanri.E(kanri.ECONFLICT, "twofactor.already")
	}
	if _, err := s.Auth.BeginTwoFactor(c.Request().Context(), u.TenantID, u.ID, account(u, home)); err != nil {
		return err
	}
	return console.Redirect(c, views.TwoFactorPath())
}

// confirmTwoFactor finishes the enrolment with a first code and shows the
// recovery codes, once.
func (s *Pages) confirmTwoFactor(c echo.Context) error {
	u := c.Get(httpkit.KeyUser).(*kanri.User)
	codes, err := s.Auth.ConfirmTwoFactor(c.Request().Context(), u.TenantID, u.ID, c.FormValue("code"))
	if kanri.IsCode(err, kanri.EINVALID) {
		return s.showTwoFactor(c, http.StatusUnprocessableEntity, nil, views.Errors(kanri.ErrorFields(err)))
	}
	if err != nil {
		return err
	}
	c.Set(httpkit.KeyEnrol, false) // enrolled: the page shows the codes, not the requirement
	return s.showTwoFactor(c, http.StatusOK, codes, nil)
}

// disableTwoFactor turns two-factor sign-in off, with the password and a
// code; a tenant that requires it refuses.
func (s *Pages) disableTwoFactor(c echo.Context) error {
	ctx := c.Request().Context()
	u, home := c.Get(httpkit.KeyUser).(*kanri.User), c.Get(httpkit.KeyHome).(*kanri.Tenant)
	enforced, err := s.twoFactorEnforced(c, u, home)
	if err != nil {
		return err
	}
	if enforced {
		// The page shown says why, in place of the form.
		return s.showTwoFactor(c, http.StatusConflict, nil, nil)
	}
	err = s.Auth.DisableTwoFactor(ctx, u.TenantID, u.ID, c.FormValue("password"), c.FormValue("code"))
	if kanri.IsCode(err, kanri.EINVALID) {
		return s.showTwoFactor(c, http.StatusUnprocessableEntity, nil, views.Errors(kanri.ErrorFields(err)))
	}
	if err != nil {
		return err
	}
	return s.Report(c, views.AccountPath(), "twofactor.disabled_done")
}

// resetTwoFactor turns a user's two-factor sign-in off (a lost phone) and
// ends their sessions: an administrator's action, audited.
func (s *Pages) resetTwoFactor(c echo.Context) error {
	return s.userAction(c, "twofactor.reset_done", false, s.Users.ResetTwoFactor)
}

// signedIn begins the session of u, whose sign-in ended, and sends them
// on: to next, or to their start page.
func (s *Pages) signedIn(c echo.Context, u *kanri.User, t *kanri.Tenant, next string) error {
	access, err := s.Roles.AccessOf(c.Request().Context(), t.ID, u.ID)
	if err != nil {
		return err
	}
	if err := s.StartSession(c, u, t.ID); err != nil {
		return err
	}
	if next != "" {
		return c.Redirect(http.StatusSeeOther, next)
	}
	return c.Redirect(http.StatusSeeOther, homePath(t, access))
}
