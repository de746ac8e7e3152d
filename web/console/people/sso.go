package people

import (
	"crypto/subtle"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/sso"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// ssoPages are the pages of a sign-in with a tenant's identity provider
// (docs/sso.md).
type ssoPages struct{ *Pages }

// keySSOState is the session's value of the sign-in with a provider under
// way in this browser: the state the provider must give back.
const keySSOState = "sso_state"

// ssoCallback is where providers send the browser back.
func ssoCallback(c echo.Context) string { return httpkit.BaseURL(c) + "/login/sso/callback" }

// form asks for the organisation, then offers its providers.
func (s ssoPages) form(c echo.Context) error {
	if _, _, _, ok := s.SignedIn(c); ok {
		return c.Redirect(http.StatusSeeOther, "/")
	}
	v := views.SSOLoginView{Org: c.QueryParam("org"), Next: console.NextPath(c.QueryParam("next"))}
	if v.Org != "" {
		choices, err := s.SSO.Choices(c.Request().Context(), v.Org)
		if err != nil {
			return err
		}
		v.Asked = true
		for _, ch := range choices {
			v.Choices = append(v.Choices, views.SSOChoice{TenantID: ch.TenantID, ID: ch.ID, Name: ch.Name})
		}
	}
	return s.show(c, http.StatusOK, v)
}

func (s ssoPages) show(c echo.Context, status int, v views.SSOLoginView) error {
	if err := s.SaveSession(c); err != nil { // the CSRF token of the forms
		return err
	}
	return httpkit.Render(c, status, views.SSOLogin(s.Page(c, "sso.sign_in_title", ""), v))
}

// start sends the browser to the provider, keeping the state it must
// give back in this browser's session.
func (s ssoPages) start(c echo.Context) error {
	next := console.NextPath(c.QueryParam("next"))
	// The link carries the page's CSRF token: another site cannot start
	// a sign-in that would replace this browser's session with one of
	// its own choosing (login CSRF).
	want, _ := s.Session(c).Values[httpkit.KeyCSRF].(string)
	if got := c.QueryParam("_csrf"); want == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		s.Flash(c, "error", "sso.expired")
		return c.Redirect(http.StatusSeeOther, views.SSOLoginPath("", next))
	}
	to, state, err := s.SSO.Begin(c.Request().Context(), c.QueryParam("tenant"), c.QueryParam("provider"), ssoCallback(c), next)
	if err != nil {
		return s.refused(c, err, next)
	}
	s.Session(c).Values[keySSOState] = state
	if err := s.SaveSession(c); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, to)
}

// refused shows the single sign-on page with what went wrong; what is
// not the user's to fix (a store that failed) is the usual error page.
func (s ssoPages) refused(c echo.Context, err error, next string) error {
	switch kanri.ErrorCode(err) {
	case kanri.ENOTFOUND: // no such organisation or provider (any more): choose again
		s.Flash(c, "error", "sso.unknown")
		return c.Redirect(http.StatusSeeOther, views.SSOLoginPath("", next))
	case kanri.EUNAUTHENTICATED, kanri.EFORBIDDEN, kanri.EBUSY:
		v := views.SSOLoginView{Next: next, Error: httpkit.Message(c.Request().Context(), err, "sso.refused")}
		return s.show(c, httpkit.Status(err), v)
	}
	return err
}

// callback finishes the sign-in with the provider's answer, in the
// browser that began it, then signs in as a password does: Kanri's
// second step, when it follows, or the session.
func (s ssoPages) callback(c echo.Context) error {
	sess := s.Session(c)
	want, _ := sess.Values[keySSOState].(string)
	state := c.QueryParam("state")
	delete(sess.Values, keySSOState)
	if want == "" || state != want {
		// Another browser's answer (a forged sign-in), one seen twice, or
		// a bookmark: the sign-in starts again.
		s.Flash(c, "error", "sso.expired")
		return c.Redirect(http.StatusSeeOther, views.SSOLoginPath("", ""))
	}
	r, err := s.SSO.Finish(c.Request().Context(), sso.Answer{
		State: state, Code: c.QueryParam("code"), Error: c.QueryParam("error"), Description: c.QueryParam("error_description"),
	})
	if err != nil {
		if serr := s.SaveSession(c); serr != nil {
			return serr
		}
		return s.refused(c, err, "")
	}
	return s.afterPassword(c, r.User, r.Tenant, r.Second, r.Next)
}
