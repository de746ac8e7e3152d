package web

import (
	"context"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
)

const (
	sessionName = "kanri_session"
	langCookie  = "kanri_lang"
	themeCookie = "kanri_theme"

	keyUser      = "uid"
	keyTenant    = "tid"
	keySession   = "sid"
	keyIssued    = "iat"
	keySeen      = "seen"
	keyCSRF      = "csrf"
	keyFlash     = "flash"
	keyFlashKind = "flash_kind"
	// keySecretTicket opens the new API key secret held for the next page
	// (apikey.Service.Hold); the secret itself is never in the cookie.
	keySecretTicket = "secret_ticket"
	// keySecretOnSwitch opens the secret just shown again, for a change
	// of language or theme on its page only (see Server.switched).
	keySecretOnSwitch = "secret_on_switch"
)

// sessionKeys derives the session cookie's keys from the secret with HKDF
// (RFC 5869): a 64-byte authentication key and a 32-byte AES encryption
// key, so that a cookie is always encrypted as well as signed, whatever the
// length of the secret.
func sessionKeys(secret []byte) [][]byte {
	derive := func(purpose string, n int) []byte {
		k, err := hkdf.Key(sha256.New, secret, nil, "kanri session cookie "+purpose, n)
		if err != nil {
			panic(err) // only for lengths over 255 hash sizes
		}
		return k
	}
	return [][]byte{derive("authentication", 64), derive("encryption", 32)}
}

// session returns the request's session, starting one (with a CSRF token)
// if the visitor has none or it cannot be read.
func (s *Server) session(c echo.Context) *sessions.Session {
	if sess, ok := c.Get("session").(*sessions.Session); ok {
		return sess
	}
	sess, err := s.sessions.Get(c.Request(), sessionName)
	if err != nil {
		sess, _ = s.sessions.New(c.Request(), sessionName)
	}
	if _, ok := sess.Values[keyCSRF].(string); !ok {
		sess.Values[keyCSRF] = randomToken()
	}
	c.Set("session", sess)
	return sess
}

// saveSession writes the session cookie, Secure when the request came over
// TLS.
func (s *Server) saveSession(c echo.Context) error {
	sess := s.session(c)
	sess.Options.Secure = c.Scheme() == "https"
	return sess.Save(c.Request(), c.Response())
}

// startSession replaces the session with a new one for the signed-in user:
// a new session id and CSRF token, so nothing from before sign-in carries
// over (no session fixation).
func (s *Server) startSession(c echo.Context, u *kanri.User, tenantID string) error {
	sess := s.session(c)
	for k := range sess.Values {
		delete(sess.Values, k)
	}
	now, token := s.Now(), randomToken()
	if _, err := s.Auth.StartSession(c.Request().Context(), tenantID, u.ID, token, c.Request().UserAgent(), c.RealIP(), AbsoluteTimeout); err != nil {
		return err
	}
	sess.Values[keyUser], sess.Values[keyTenant] = u.ID, tenantID
	sess.Values[keySession], sess.Values[keyCSRF] = token, randomToken()
	sess.Values[keyIssued], sess.Values[keySeen] = now.UnixMilli(), now.Unix()
	return s.saveSession(c)
}

// sessionToken returns the token of the request's session, which names its
// record.
func (s *Server) sessionToken(c echo.Context) string {
	t, _ := s.session(c).Values[keySession].(string)
	return t
}

// endSession clears the session cookie.
func (s *Server) endSession(c echo.Context) error {
	sess := s.session(c)
	for k := range sess.Values {
		delete(sess.Values, k)
	}
	sess.Values[keyCSRF] = randomToken()
	return s.saveSession(c)
}

// signedIn returns the user and tenant ids of a live session, and when it
// began. A session past its idle or absolute timeout is not live.
func (s *Server) signedIn(c echo.Context) (userID, tenantID string, issued time.Time, ok bool) {
	sess := s.session(c)
	uid, _ := sess.Values[keyUser].(string)
	tid, _ := sess.Values[keyTenant].(string)
	iat, _ := sess.Values[keyIssued].(int64)
	seen, _ := sess.Values[keySeen].(int64)
	now, issued := s.Now(), time.UnixMilli(iat)
	if uid == "" || tid == "" {
		return "", "", time.Time{}, false
	}
	if now.Sub(issued) > AbsoluteTimeout || now.Sub(time.Unix(seen, 0)) > IdleTimeout {
		return "", "", time.Time{}, false
	}
	return uid, tid, issued, true
}

// hadSession reports whether the request carries a session that was
// signed in, live or not: a visitor whose session ended, as opposed to one
// who never signed in.
func (s *Server) hadSession(c echo.Context) bool {
	uid, _ := s.session(c).Values[keyUser].(string)
	return uid != ""
}

// touch records activity on the session, in its cookie and its record, at
// most once a minute.
func (s *Server) touch(c echo.Context, r *kanri.Session) {
	sess := s.session(c)
	seen, _ := sess.Values[keySeen].(int64)
	if now := s.Now().Unix(); now-seen >= 60 {
		sess.Values[keySeen] = now
		if err := s.saveSession(c); err != nil {
			s.Logger.Warn("save session", "err", err)
		}
		if err := s.Auth.SeenSession(c.Request().Context(), r.TenantID, r); err != nil {
			s.Logger.Warn("record session activity", "err", err)
		}
	}
}

// csrfToken returns the session's CSRF token.
func (s *Server) csrfToken(c echo.Context) string {
	t, _ := s.session(c).Values[keyCSRF].(string)
	return t
}

// checkCSRF compares the token of a state-changing request, from the form
// field _csrf or the X-CSRF-Token header, with the session's.
func (s *Server) checkCSRF(c echo.Context) error {
	want := s.csrfToken(c)
	got := c.Request().Header.Get("X-CSRF-Token")
	if got == "" {
		got = c.FormValue("_csrf")
	}
	if want == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		return errCSRF
	}
	return nil
}

// A flashMessage is a message for the next page, kept as its catalog key
// and arguments so that it is translated into the language of the page
// that shows it, not of the request that stored it: a save of the tenant's
// default language, or a switch of language, comes between the two.
type flashMessage struct {
	Message string `json:"message"`
	Args    []any  `json:"args,omitempty"`
}

// flash stores the message key, with its arguments, for the next page.
// Integers stay integers (for %d and the singular of a count of one);
// every other argument is kept as the text it formats to.
func (s *Server) flash(c echo.Context, kind, key string, args ...any) {
	m := flashMessage{Message: key, Args: make([]any, len(args))}
	for i, a := range args {
		switch n := a.(type) {
		case int:
			m.Args[i] = n
		case int64:
			m.Args[i] = n
		default:
			m.Args[i] = fmt.Sprint(a)
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		s.Logger.Warn("encode flash", "err", err)
		return
	}
	sess := s.session(c)
	sess.Values[keyFlash], sess.Values[keyFlashKind] = string(b), kind
	if err := s.saveSession(c); err != nil {
		s.Logger.Warn("save flash", "err", err)
	}
}

// takeFlash returns and clears the pending message, translated into the
// language of the request.
func (s *Server) takeFlash(c echo.Context) (kind, msg string) {
	sess := s.session(c)
	stored, _ := sess.Values[keyFlash].(string)
	kind, _ = sess.Values[keyFlashKind].(string)
	if stored == "" {
		return kind, ""
	}
	delete(sess.Values, keyFlash)
	delete(sess.Values, keyFlashKind)
	if err := s.saveSession(c); err != nil {
		s.Logger.Warn("clear flash", "err", err)
	}
	return kind, flashText(c.Request().Context(), stored)
}

// flashText translates a message stored by flash. A session from before
// messages were stored by key holds the text itself, which is shown as is.
func flashText(ctx context.Context, stored string) string {
	var m flashMessage
	d := json.NewDecoder(strings.NewReader(stored))
	d.UseNumber()
	if err := d.Decode(&m); err != nil || m.Message == "" {
		return stored
	}
	for i, a := range m.Args {
		if n, ok := a.(json.Number); ok {
			if v, err := n.Int64(); err == nil {
				m.Args[i] = int(v)
			} else {
				m.Args[i] = n.String()
			}
		}
	}
	return i18n.T(ctx, m.Message, m.Args...)
}

func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// theme returns the theme the visitor chose: "light", "dark", or "" to
// follow the system's.
func theme(c echo.Context) string {
	if ck, err := c.Cookie(themeCookie); err == nil && (ck.Value == "light" || ck.Value == "dark") {
		return ck.Value
	}
	return ""
}

// setThemeCookie remembers the chosen theme for a year.
func setThemeCookie(c echo.Context, theme string) {
	c.SetCookie(&http.Cookie{
		Name: themeCookie, Value: theme, Path: "/", MaxAge: 365 * 24 * 3600,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: c.Scheme() == "https",
	})
}

// setLangCookie remembers the chosen language for a year.
func setLangCookie(c echo.Context, lang string) {
	c.SetCookie(&http.Cookie{
		Name: langCookie, Value: lang, Path: "/", MaxAge: 365 * 24 * 3600,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: c.Scheme() == "https",
	})
}
