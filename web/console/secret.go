package console

import (
	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/web/httpkit"
)

// A new secret (an API key's, a webhook endpoint's) is shown once, on a
// page reached by a redirect after the POST that made it, so that
// reloading that page repeats nothing. Between the two it waits in the
// store, sealed with a key that only the ticket in the visitor's session
// holds (apikey.Service.Hold).

// HoldSecret keeps the new secret of subject (the id of what it opens)
// for this session's next page, and sends the browser to dest, the page
// that shows it (ClaimSecret).
func (s *Console) HoldSecret(c echo.Context, tenantID, subject, secret string, rotated bool, dest string) error {
	ticket, err := s.Keys.Hold(c.Request().Context(), tenantID, subject, secret, rotated)
	if err != nil {
		return err
	}
	sess := s.Session(c)
	sess.Values[httpkit.KeySecretTicket] = ticket
	delete(sess.Values, httpkit.KeySecretOnSwitch)
	if err := s.SaveSession(c); err != nil {
		return err
	}
	return Redirect(c, dest)
}

// ClaimSecret returns the secret HoldSecret held for this session and
// subject, once: the ticket leaves the session and the secret the store.
// ok is false when there is none (shown already, by a reload, or held for
// another subject): the caller sends the browser elsewhere. The secret is
// held again for a change of language or theme on the page that shows it,
// which shows it again; a reload finds no ticket. The page must not be
// cached.
func (s *Console) ClaimSecret(c echo.Context, subject string) (secret string, rotated, ok bool, err error) {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	sess := s.Session(c)
	ticket, _ := sess.Values[httpkit.KeySecretTicket].(string)
	if ticket == "" {
		return "", false, false, nil
	}
	delete(sess.Values, httpkit.KeySecretTicket)
	delete(sess.Values, httpkit.KeySecretOnSwitch)
	if err := s.SaveSession(c); err != nil {
		return "", false, false, err
	}
	held, secret, rotated, err := s.Keys.Claim(ctx, t.ID, ticket)
	if kanri.IsCode(err, kanri.ENOTFOUND) || (err == nil && held != subject) {
		return "", false, false, nil
	}
	if err != nil {
		return "", false, false, err
	}
	if again, err := s.Keys.Hold(ctx, t.ID, subject, secret, rotated); err == nil {
		sess.Values[httpkit.KeySecretOnSwitch] = again
		if err := s.SaveSession(c); err != nil {
			return "", false, false, err
		}
	} else {
		s.Logger.Warn("hold the secret for a language or theme change", "err", err)
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return secret, rotated, true, nil
}
