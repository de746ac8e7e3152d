package httpkit

import (
	"context"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
)

// ErrCSRF is the error of a state-changing request without the session's
// CSRF token.
var ErrCSRF = kanri.E(kanri.EFORBIDDEN, "error.csrf")

// The names of the cookies, and of the values a session keeps.
const (
	sessionName = "kanri_session"
	LangCookie  = "kanri_lang"
	themeCookie = "kanri_theme"

	keyUser      = "uid"
	keyTenant    = "tid"
	KeySessionID = "sid"
	keyIssued    = "iat"
	keySeen      = "seen"
	KeyCSRF      = "csrf"
	keyFlash     = "flash"
	keyFlashKind = "flash_kind"
	// KeySecretTicket opens the new API key secret held for the next page
	// (apikey.Service.Hold); the secret itself is never in the cookie.
	KeySecretTicket = "secret_ticket"
	// KeySecretOnSwitch opens the secret just shown again, for a change
	// of language or theme on its page only (see Server.switched).
	KeySecretOnSwitch = "secret_on_switch"
	// staffPrefix keeps, under the support session that a staff member
	// opened, the values of their own session to go back to.
	staffPrefix = "staff_"
)

// staffKeys are the values of a session that a support session sets aside
// for the staff member's own.
var staffKeys = []string{keyUser, keyTenant, KeySessionID, keyIssued, keySeen}

// Records keep the sessions' records, which say on every instance that a
// session still holds: what Sessions asks of the auth service.
type Records interface {
	// StartSession records a session that sign-in began.
	StartSession(ctx context.Context, tenantID, userID, token, userAgent, ip string, ttl time.Duration) (*kanri.Session, error)
	// SeenSession records activity on a session.
	SeenSession(ctx context.Context, tenantID string, r *kanri.Session) error
}

// Sessions are the console's signed-in sessions: an encrypted, signed
// cookie naming the user, their tenant and the session's record, with the
// session's CSRF token and the message for the next page.
type Sessions struct {
	store   *sessions.CookieStore
	records Records
	now     func() time.Time
	logger  *slog.Logger
}

// NewSessions returns the sessions of cookies keyed by secret (at least
// 32 random bytes, from which the cookie's keys are derived).
func NewSessions(secret []byte, records Records, now func() time.Time, logger *slog.Logger) *Sessions {
	store := sessions.NewCookieStore(sessionKeys(secret)...)
	store.Options = &sessions.Options{
		Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode, MaxAge: int(AbsoluteTimeout / time.Second),
	}
	store.MaxAge(int(AbsoluteTimeout / time.Second))
	return &Sessions{store: store, records: records, now: now, logger: logger}
}

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

// Session returns the request's session, starting one (with a CSRF token)
// if the visitor has none or it cannot be read.
func (s *Sessions) Session(c echo.Context) *sessions.Session {
	if sess, ok := c.Get("session").(*sessions.Session); ok {
		return sess
	}
	sess, err := s.store.Get(c.Request(), sessionName)
	if err != nil {
		sess, _ = s.store.New(c.Request(), sessionName)
	}
	if _, ok := sess.Values[KeyCSRF].(string); !ok {
		sess.Values[KeyCSRF] = RandomToken()
	}
	c.Set("session", sess)
	return sess
}

// SaveSession writes the session cookie, Secure when the request came over
// TLS.
func (s *Sessions) SaveSession(c echo.Context) error {
	sess := s.Session(c)
	sess.Options.Secure = c.Scheme() == "https"
	return sess.Save(c.Request(), c.Response())
}

// StartSession replaces the session with a new one for the signed-in user:
// a new session id and CSRF token, so nothing from before sign-in carries
// over (no session fixation).
func (s *Sessions) StartSession(c echo.Context, u *kanri.User, tenantID string) error {
	sess := s.Session(c)
	for k := range sess.Values {
		delete(sess.Values, k)
	}
	now, token := s.now(), RandomToken()
	if _, err := s.records.StartSession(c.Request().Context(), tenantID, u.ID, token, c.Request().UserAgent(), c.RealIP(), AbsoluteTimeout); err != nil {
		return err
	}
	sess.Values[keyUser], sess.Values[keyTenant] = u.ID, tenantID
	sess.Values[KeySessionID], sess.Values[KeyCSRF] = token, RandomToken()
	sess.Values[keyIssued], sess.Values[keySeen] = now.UnixMilli(), now.Unix()
	return s.SaveSession(c)
}

// BeginSupport turns the request's session into the support session of
// token, acting as the user of tenantID, and sets the staff member's own
// session aside in the cookie (EndSupport takes it back). The CSRF token
// changes: forms opened before belong to the staff member.
func (s *Sessions) BeginSupport(c echo.Context, userID, tenantID, token string) error {
	sess := s.Session(c)
	for _, k := range staffKeys {
		sess.Values[staffPrefix+k] = sess.Values[k]
	}
	now := s.now()
	sess.Values[keyUser], sess.Values[keyTenant], sess.Values[KeySessionID] = userID, tenantID, token
	sess.Values[keyIssued], sess.Values[keySeen] = now.UnixMilli(), now.Unix()
	sess.Values[KeyCSRF] = RandomToken()
	delete(sess.Values, KeySecretTicket) // the staff member's, not the session's
	delete(sess.Values, KeySecretOnSwitch)
	return s.SaveSession(c)
}

// InSupport reports whether the request's session is a support session
// that set a staff member's own session aside.
func (s *Sessions) InSupport(c echo.Context) bool {
	uid, _ := s.Session(c).Values[staffPrefix+keyUser].(string)
	return uid != ""
}

// StaffCookie returns what the staff member's own session, set aside by
// BeginSupport, says.
func (s *Sessions) StaffCookie(c echo.Context) SessionCookie {
	sess := s.Session(c)
	k := SessionCookie{}
	k.UserID, _ = sess.Values[staffPrefix+keyUser].(string)
	k.TenantID, _ = sess.Values[staffPrefix+keyTenant].(string)
	k.Token, _ = sess.Values[staffPrefix+KeySessionID].(string)
	if iat, _ := sess.Values[staffPrefix+keyIssued].(int64); iat != 0 {
		k.Issued = time.UnixMilli(iat)
	}
	return k
}

// EndSupport gives the staff member back the session BeginSupport set
// aside, and reports whether there was one (if not, the session is
// signed out).
func (s *Sessions) EndSupport(c echo.Context) (bool, error) {
	sess := s.Session(c)
	uid, _ := sess.Values[staffPrefix+keyUser].(string)
	if uid == "" {
		return false, s.EndSession(c)
	}
	for _, k := range staffKeys {
		sess.Values[k] = sess.Values[staffPrefix+k]
		delete(sess.Values, staffPrefix+k)
	}
	sess.Values[keySeen] = s.now().Unix()
	sess.Values[KeyCSRF] = RandomToken()
	return true, s.SaveSession(c)
}

// SessionToken returns the token of the request's session, which names its
// record.
func (s *Sessions) SessionToken(c echo.Context) string {
	t, _ := s.Session(c).Values[KeySessionID].(string)
	return t
}

// EndSession clears the session cookie.
func (s *Sessions) EndSession(c echo.Context) error {
	sess := s.Session(c)
	for k := range sess.Values {
		delete(sess.Values, k)
	}
	sess.Values[KeyCSRF] = RandomToken()
	return s.SaveSession(c)
}

// SessionCookie is what a request's session cookie says, read once: a
// live stream, which outlives its request, checks it again later.
type SessionCookie struct {
	UserID, TenantID string
	// Token names the session's record.
	Token string
	// Issued is when the session began, Seen when it was last used.
	Issued, Seen time.Time
}

// Cookie returns what the request's session cookie says.
func (s *Sessions) Cookie(c echo.Context) SessionCookie {
	sess := s.Session(c)
	k := SessionCookie{}
	k.UserID, _ = sess.Values[keyUser].(string)
	k.TenantID, _ = sess.Values[keyTenant].(string)
	k.Token, _ = sess.Values[KeySessionID].(string)
	if iat, _ := sess.Values[keyIssued].(int64); iat != 0 {
		k.Issued = time.UnixMilli(iat)
	}
	if seen, _ := sess.Values[keySeen].(int64); seen != 0 {
		k.Seen = time.Unix(seen, 0)
	}
	return k
}

// Live reports whether the session k says is signed in and within its
// idle and absolute timeouts now.
func (s *Sessions) Live(k SessionCookie) bool {
	return k.UserID != "" && k.TenantID != "" && !s.now().After(k.Expiry())
}

// Expiry returns when the session ends unless used again: its absolute or
// its idle timeout, whichever comes first (zero when it is not signed in).
func (k SessionCookie) Expiry() time.Time {
	if k.Issued.IsZero() {
		return time.Time{}
	}
	abs, idle := k.Issued.Add(AbsoluteTimeout), k.Seen.Add(IdleTimeout)
	if idle.Before(abs) {
		return idle
	}
	return abs
}

// SignedIn returns the user and tenant ids of a live session, and when it
// began. A session past its idle or absolute timeout is not live.
func (s *Sessions) SignedIn(c echo.Context) (userID, tenantID string, issued time.Time, ok bool) {
	k := s.Cookie(c)
	if !s.Live(k) {
		return "", "", time.Time{}, false
	}
	return k.UserID, k.TenantID, k.Issued, true
}

// Expiry returns when the request's session ends unless used again (see
// SessionCookie.Expiry). A live stream, one long request, checks again
// then.
func (s *Sessions) Expiry(c echo.Context) time.Time { return s.Cookie(c).Expiry() }

// HadSession reports whether the request carries a session that was
// signed in, live or not: a visitor whose session ended, as opposed to one
// who never signed in.
func (s *Sessions) HadSession(c echo.Context) bool {
	uid, _ := s.Session(c).Values[keyUser].(string)
	return uid != ""
}

// Touch records activity on the session, in its cookie and its record, at
// most once a minute.
func (s *Sessions) Touch(c echo.Context, r *kanri.Session) {
	sess := s.Session(c)
	seen, _ := sess.Values[keySeen].(int64)
	if now := s.now().Unix(); now-seen >= 60 {
		sess.Values[keySeen] = now
		if err := s.SaveSession(c); err != nil {
			s.logger.Warn("save session", "err", err)
		}
		if err := s.records.SeenSession(c.Request().Context(), r.TenantID, r); err != nil {
			s.logger.Warn("record session activity", "err", err)
		}
	}
}

// CSRFToken returns the session's CSRF token.
func (s *Sessions) CSRFToken(c echo.Context) string {
	t, _ := s.Session(c).Values[KeyCSRF].(string)
	return t
}

// CheckCSRF compares the token of a state-changing request, from the form
// field _csrf or the X-CSRF-Token header, with the session's.
func (s *Sessions) CheckCSRF(c echo.Context) error {
	want := s.CSRFToken(c)
	got := c.Request().Header.Get("X-CSRF-Token")
	if got == "" {
		got = c.FormValue("_csrf")
	}
	if want == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		return ErrCSRF
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

// Flash stores the message key, with its arguments, for the next page.
// Integers stay integers (for %d and the singular of a count of one);
// every other argument is kept as the text it formats to.
func (s *Sessions) Flash(c echo.Context, kind, key string, args ...any) {
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
		s.logger.Warn("encode flash", "err", err)
		return
	}
	sess := s.Session(c)
	sess.Values[keyFlash], sess.Values[keyFlashKind] = string(b), kind
	if err := s.SaveSession(c); err != nil {
		s.logger.Warn("save flash", "err", err)
	}
}

// TakeFlash returns and clears the pending message, translated into the
// language of the request.
func (s *Sessions) TakeFlash(c echo.Context) (kind, msg string) {
	sess := s.Session(c)
	stored, _ := sess.Values[keyFlash].(string)
	kind, _ = sess.Values[keyFlashKind].(string)
	if stored == "" {
		return kind, ""
	}
	delete(sess.Values, keyFlash)
	delete(sess.Values, keyFlashKind)
	if err := s.SaveSession(c); err != nil {
		s.logger.Warn("clear flash", "err", err)
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

// RandomToken returns 32 random bytes in base64url.
func RandomToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Theme returns the theme the visitor chose: "light", "dark", or "" to
// follow the system's.
func Theme(c echo.Context) string {
	if ck, err := c.Cookie(themeCookie); err == nil && (ck.Value == "light" || ck.Value == "dark") {
		return ck.Value
	}
	return ""
}

// SetThemeCookie remembers the chosen theme for a year.
func SetThemeCookie(c echo.Context, theme string) {
	c.SetCookie(&http.Cookie{
		Name: themeCookie, Value: theme, Path: "/", MaxAge: 365 * 24 * 3600,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: c.Scheme() == "https",
	})
}

// SetLangCookie remembers the chosen language for a year.
func SetLangCookie(c echo.Context, lang string) {
	c.SetCookie(&http.Cookie{
		Name: LangCookie, Value: lang, Path: "/", MaxAge: 365 * 24 * 3600,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: c.Scheme() == "https",
	})
}

// Session lifetimes.
const (
	IdleTimeout     = 30 * time.Minute
	AbsoluteTimeout = 12 * time.Hour
)
