package people

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// Session values holding the id of a passkey ceremony between its
// options and its end (its state is the server's, taken once).
const (
	keyPasskeyAdd    = "pk_add"
	keyPasskeySignIn = "pk_signin"
	keyPasskeyStep   = "pk_step"
)

// passkeyPages serve the passkeys: those of one's account, and the
// sign-ins with one.
type passkeyPages struct{ *Pages }

// beginCeremony keeps the ceremony's state in the session under key and
// answers its options (JSON, for navigator.credentials). A refusal (no
// passkeys at this address, too many, a sign-in run out) is JSON too,
// {"message": …} in the reader's language, for the form to show.
func (s passkeyPages) beginCeremony(c echo.Context, key string, cer *auth.Ceremony, err error) error {
	switch kanri.ErrorCode(err) {
	case "":
	case kanri.EINVALID, kanri.EUNAUTHENTICATED, kanri.ECONFLICT:
		return c.JSON(httpkit.Status(err), map[string]string{"message": httpkit.Message(c.Request().Context(), err, "passkeys.failed_browser")})
	default:
		return err
	}
	s.Session(c).Values[key] = cer.ID
	if err := s.SaveSession(c); err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return c.JSONBlob(http.StatusOK, cer.Options)
}

// takeCeremony returns the id of the ceremony under key and forgets it.
func (s passkeyPages) takeCeremony(c echo.Context, key string) (string, error) {
	sess := s.Session(c)
	id, _ := sess.Values[key].(string)
	if id == "" {
		return "", nil
	}
	delete(sess.Values, key)
	return id, s.SaveSession(c)
}

// addOptions begins the registration of a passkey of the signed-in
// user, who confirms it with their current password.
func (s passkeyPages) addOptions(c echo.Context) error {
	u := c.Get(httpkit.KeyUser).(*kanri.User)
	cer, err := s.Auth.BeginPasskey(c.Request().Context(), relyingParty(c), u.TenantID, u.ID, c.FormValue("current"))
	return s.beginCeremony(c, keyPasskeyAdd, cer, err)
}

// add ends the registration: the device's answer and the name.
func (s passkeyPages) add(c echo.Context) error {
	u := c.Get(httpkit.KeyUser).(*kanri.User)
	id, err := s.takeCeremony(c, keyPasskeyAdd)
	if err != nil {
		return err
	}
	name := c.FormValue("name")
	k, err := s.Auth.AddPasskey(c.Request().Context(), relyingParty(c), u.TenantID, u.ID, name, id, []byte(c.FormValue("credential")))
	if kanri.IsCode(err, kanri.EINVALID) {
		errs := views.Errors(kanri.ErrorFields(err))
		if len(errs) == 0 { // a ceremony run out, or none: said on the form
			key, _ := kanri.ErrorMessage(err)
			errs = views.Errors{"credential": key}
		}
		return s.renderAccount(c, http.StatusUnprocessableEntity, views.AccountView{
			Profile: u.Profile, Passkeys: views.PasskeysView{Form: views.PasskeyForm{Name: name, Errors: errs}},
		})
	}
	if err != nil {
		return err
	}
	return s.Report(c, views.AccountPath(), "passkeys.added", k.Name)
}

// remove removes one of the signed-in user's passkeys; not the last
// second factor of a user whose organisation requires two.
func (s passkeyPages) remove(c echo.Context) error {
	ctx := c.Request().Context()
	u, home := c.Get(httpkit.KeyUser).(*kanri.User), c.Get(httpkit.KeyHome).(*kanri.Tenant)
	enforced, err := s.twoFactorEnforced(c, u, home)
	if err != nil {
		return err
	}
	if enforced && !u.Security.TwoFactorEnabled {
		if n, err := auth.CountPasskeys(ctx, s.Store, u.TenantID, u.ID); err != nil {
			return err
		} else if n <= 1 {
			return kanri.E(kanri.ECONFLICT, "passkeys.last_required")
		}
	}
	if err := s.Auth.RemovePasskey(ctx, u.TenantID, u.ID, c.Param("passkey")); err != nil {
		return err
	}
	return s.Report(c, views.AccountPath(), "passkeys.removed")
}

// signInOptions begins a sign-in with a passkey alone.
func (s passkeyPages) signInOptions(c echo.Context) error {
	cer, err := s.Auth.BeginPasskeySignIn(c.Request().Context(), relyingParty(c))
	return s.beginCeremony(c, keyPasskeySignIn, cer, err)
}

// signIn ends a sign-in with a passkey alone: the device checked
// who holds it, so no second step follows.
func (s passkeyPages) signIn(c echo.Context) error {
	ctx := c.Request().Context()
	next := console.NextPath(c.FormValue("next"))
	id, err := s.takeCeremony(c, keyPasskeySignIn)
	if err != nil {
		return err
	}
	u, t, err := s.Auth.PasskeySignIn(ctx, relyingParty(c), id, []byte(c.FormValue("credential")))
	if code := kanri.ErrorCode(err); code == kanri.EUNAUTHENTICATED || code == kanri.EFORBIDDEN || code == kanri.EINVALID {
		p := s.Page(c, "login.title", "")
		return httpkit.Render(c, httpkit.Status(err), views.Login(p, views.LoginView{Next: next, Error: httpkit.Message(ctx, err, "passkeys.failed"), Passkeys: relyingParty(c).Usable()}))
	}
	if err != nil {
		return err
	}
	return s.signedIn(c, u, t, next)
}

// stepOptions begins the second step of a sign-in with a passkey.
func (s passkeyPages) stepOptions(c echo.Context) error {
	uid, tid, _, ok := s.pendingSignIn(c)
	if !ok {
		return s.beginCeremony(c, keyPasskeyStep, nil, kanri.E(kanri.EUNAUTHENTICATED, "twofactor.timed_out"))
	}
	cer, err := s.Auth.BeginPasskeyStep(c.Request().Context(), relyingParty(c), tid, uid)
	return s.beginCeremony(c, keyPasskeyStep, cer, err)
}

// step ends the second step of a sign-in with a passkey.
func (s passkeyPages) step(c echo.Context) error {
	ctx := c.Request().Context()
	uid, tid, next, ok := s.pendingSignIn(c)
	if !ok {
		s.Flash(c, "info", "twofactor.timed_out")
		return c.Redirect(http.StatusSeeOther, "/login")
	}
	id, err := s.takeCeremony(c, keyPasskeyStep)
	if err != nil {
		return err
	}
	u, err := s.Auth.PasskeyStep(ctx, relyingParty(c), tid, uid, id, []byte(c.FormValue("credential")))
	if code := kanri.ErrorCode(err); code == kanri.EUNAUTHENTICATED || code == kanri.EINVALID {
		return s.showSecondFactor(c, httpkit.Status(err), httpkit.Message(ctx, err, "passkeys.failed"))
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
