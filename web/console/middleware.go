package console

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/support"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/httpkit"
)

// contentSecurityPolicy allows only the console's own scripts, styles and
// images, and no framing.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'self'; object-src 'none'"

// SecureHeaders sets the security headers of every response.
func SecureHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		if c.Scheme() == "https" {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		return next(c)
	}
}

// RequestContext gives the request an id, a language and an audit actor,
// and logs it when it is done.
func (s *Console) RequestContext(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		req := c.Request()
		id := httpkit.RandomToken()[:20] // never the client's: it goes into audit records
		c.Set(httpkit.KeyRequestID, id)
		c.Set(httpkit.KeyBase, s.origin.Base(req))
		c.Response().Header().Set(echo.HeaderXRequestID, id)
		lang := i18n.Negotiate(req.Header.Get("Accept-Language"))
		if ck, err := c.Cookie(httpkit.LangCookie); err == nil {
			lang = i18n.Normalize(ck.Value)
		}
		ctx := i18n.WithLang(req.Context(), lang)
		ctx = audit.WithActor(ctx, audit.Actor{IPAddress: c.RealIP(), UserAgent: req.UserAgent(), RequestID: id})
		c.SetRequest(req.WithContext(ctx))
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		status := httpkit.LoggedStatus(c) // 499 for a client that gave up: no server error
		level := slog.LevelInfo
		switch {
		case status >= 500 && req.Context().Err() == nil:
			level = slog.LevelError
		case status >= 500:
			level = slog.LevelWarn // cut short by the server stopping
		}
		if !strings.HasPrefix(req.URL.Path, "/static/") {
			// With the request's context: its trace id, if it is traced.
			s.Logger.Log(ctx, level, "request", "method", req.Method, "path", req.URL.Path, "status", status,
				"duration", time.Since(start).Round(time.Microsecond), "request_id", id)
		}
		return nil
	}
}

// CSRF rejects state-changing requests without the session's token.
func (s *Console) CSRF(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		switch c.Request().Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return next(c)
		}
		if err := s.CheckCSRF(c); err != nil {
			return err
		}
		return next(c)
	}
}

// visitor is what every signed-in request loads: nil for what is not
// found.
type visitor struct {
	user    *kanri.User
	home    *kanri.Tenant
	session *kanri.Session
	access  role.Access
}

// visit loads the user, their tenant, the session's record and the user's
// roles at once: the four reads are independent, so a request waits for
// the slowest of them rather than their sum (one round trip to Cosmos DB
// instead of four in a row). An error other than not found is returned.
func (s *Console) visit(ctx context.Context, tenantID, userID, token string) (visitor, error) {
	var (
		v    visitor
		errs [4]error
		wg   sync.WaitGroup
	)
	wg.Go(func() { v.user, errs[0] = s.Users.Get(ctx, tenantID, userID) })
	wg.Go(func() { v.home, errs[1] = s.Tenants.Get(ctx, tenantID) })
	wg.Go(func() { v.session, errs[2] = s.Auth.Session(ctx, tenantID, userID, token) })
	wg.Go(func() { v.access, errs[3] = s.Roles.AccessOf(ctx, tenantID, userID) })
	wg.Wait()
	for _, err := range errs {
		if err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return visitor{}, err
		}
	}
	if errs[0] != nil {
		v.user = nil
	}
	if errs[1] != nil {
		v.home = nil
	}
	if errs[2] != nil {
		v.session = nil
	}
	return v, nil
}

// RequireUser lets only signed-in, active users of active tenants through;
// others go to the sign-in page. It loads the user, their tenant, the
// session's record and the user's roles once per request (visit).
func (s *Console) RequireUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		uid, tid, issued, ok := s.SignedIn(c)
		if !ok {
			if s.HadSession(c) {
				s.abandonSupport(c, support.EndedExpired) // the cookie outlived it: its end is recorded
				s.EndSession(c)
				return kanri.E(kanri.EUNAUTHENTICATED, "login.expired")
			}
			return kanri.E(kanri.EUNAUTHENTICATED, "login.required")
		}
		ctx := c.Request().Context()
		v, err := s.visit(ctx, tid, uid, s.SessionToken(c))
		if err != nil {
			return err
		}
		u, home, rec, access := v.user, v.home, v.session, v.access
		if u == nil || home == nil || rec == nil || !u.IsActive || !u.DeletedAt.IsZero() || !home.OpenAt(s.Now()) ||
			issued.Before(u.Security.SessionsValidAfter.Truncate(time.Millisecond)) {
			// Gone, deactivated, suspended, signed out everywhere, or this
			// session ended (from the account page, by an administrator)
			// on any instance. A closed organisation says why. A support
			// session ends, and gives the staff member their own back.
			if s.InSupport(c) {
				s.abandonSupport(c, support.EndedRevoked)
				if back, err := s.EndSupport(c); err != nil || back {
					s.Flash(c, "info", "support.ended_"+support.EndedRevoked)
					return Redirect(c, "/")
				}
			}
			s.EndSession(c)
			if u != nil && home != nil && !home.OpenAt(s.Now()) {
				return kanri.E(kanri.EUNAUTHENTICATED, home.ClosedMessage(s.Now()))
			}
			return kanri.E(kanri.EUNAUTHENTICATED, "login.expired")
		}
		c.Set(httpkit.KeyUser, u)
		c.Set(httpkit.KeySession, rec)
		c.Set(httpkit.KeyHome, home)
		c.Set(httpkit.KeyPerms, access.Perms)
		c.Set(httpkit.KeyGlobal, access.GlobalAdmin)
		a := audit.ActorFrom(ctx)
		a.UserID, a.UserName, a.TenantID, a.GlobalAdmin = u.ID, u.Username, home.ID, access.GlobalAdmin
		a.SessionID, _ = s.Session(c).Values[httpkit.KeySessionID].(string)
		if rec.Support != nil {
			a = support.Actor(a, rec)
		}
		ctx = audit.WithActor(ctx, a)
		c.SetRequest(c.Request().WithContext(ctx))
		if sup := rec.Support; sup != nil {
			switch {
			case !s.Now().Before(sup.ExpiresAt.Time):
				return s.LeaveSupport(c, rec, support.EndedExpired)
			case !home.SupportAllowed(), home.SupportNeedsApproval() && sup.RequestID == "":
				return s.LeaveSupport(c, rec, support.EndedTurnedOff)
			}
			k := s.StaffCookie(c)
			if may, err := s.Support.StaffMay(ctx, sup, k.Token, k.Issued); err != nil {
				return err
			} else if !may { // the staff member lost the right: nothing to go back to
				s.abandonSupport(c, support.EndedRevoked)
				s.EndSession(c)
				return kanri.E(kanri.EUNAUTHENTICATED, "login.expired")
			}
			c.Set(httpkit.KeySupport, sup)
			// Read on every request too: a tenant that takes the right
			// to change back reaches the sessions already open.
			if err := supportMay(c, sup.Writable && home.SupportWritable()); err != nil {
				return err
			}
		}
		// Read on every request, so that a rule switched on reaches
		// sessions already open, on every instance. A support session
		// never enrols: the user's second factors are not its business.
		enrol := !u.Security.TwoFactorEnabled && home.TwoFactorRequired(access.Admin) && rec.Support == nil
		if enrol { // a passkey is a second factor too
			has, err := s.Auth.HasPasskey(ctx, home.ID, u.ID)
			if err != nil {
				return err
			}
			enrol = !has
		}
		c.Set(httpkit.KeyEnrol, enrol)
		s.enterTenant(c, home) // its plan's permissions, its time zone
		s.tenantLanguage(c, home)
		// Signed-in pages are never stored: after sign-out, Back must not
		// show them from a cache.
		c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
		s.Touch(c, rec)
		if s.MustEnrol(c) && !enrolmentOnly(c.Request().URL.Path) {
			s.Flash(c, "info", "twofactor.required")
			return Redirect(c, views.TwoFactorPath())
		}
		return next(c)
	}
}

// supportMay refuses what a support session may not do (docs/security.md,
// "Support access"): reach the user's own account (their password,
// two-factor sign-in, passkeys, sessions and data export), and, unless the
// tenant allowed changes when the session began, change anything. Routes
// that reach secrets in a tenant (an API key's, a password's reset) refuse
// it themselves (Route.NoSupport).
func supportMay(c echo.Context, writable bool) error {
	path := c.Request().URL.Path
	switch {
	case path == "/support/end" || path == "/logout" || path == "/lang" || path == "/theme":
		return nil
	case path == "/account" || strings.HasPrefix(path, "/account/"):
		return kanri.E(kanri.EFORBIDDEN, "support.not_account")
	}
	switch c.Request().Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return nil
	}
	if !writable {
		return kanri.E(kanri.EFORBIDDEN, "support.read_only")
	}
	return nil
}

// abandonSupport records the end of the request's support session, why,
// when its cookie or its user no longer holds it (a failure is logged:
// the session ends whatever the record).
func (s *Console) abandonSupport(c echo.Context, why string) {
	if !s.InSupport(c) {
		return
	}
	ctx, k := c.Request().Context(), s.Cookie(c)
	rec, err := s.Auth.Session(ctx, k.TenantID, k.UserID, k.Token)
	if err != nil || rec.Support == nil {
		return // ended already: its end was recorded, or the end of all the user's sessions was
	}
	a := audit.ActorFrom(ctx)
	a.UserID, a.TenantID = k.UserID, k.TenantID
	if err := s.Support.End(audit.WithActor(ctx, support.Actor(a, rec)), k.TenantID, rec, why); err != nil {
		s.Logger.WarnContext(c.Request().Context(), "ending an abandoned support session", "tenant", k.TenantID, "err", err, "request_id", httpkit.RequestID(c))
	}
}

// LeaveSupport ends the request's support session, why, and gives the
// staff member their own session back, on the page of the user they acted
// as.
func (s *Console) LeaveSupport(c echo.Context, rec *kanri.Session, why string) error {
	tenantID := s.Cookie(c).TenantID
	if err := s.Support.End(c.Request().Context(), tenantID, rec, why); err != nil {
		return err
	}
	back, err := s.EndSupport(c)
	if err != nil {
		return err
	}
	if !back {
		return Redirect(c, "/login")
	}
	s.Flash(c, "info", "support.ended_"+why)
	return Redirect(c, views.UserPath(tenantID, rec.UserID)+"/edit")
}

// RequireGlobalAdmin hides the operator's pages from everyone but global
// administrators, who act across tenants: to others they do not exist.
// Other roles, also in the operator's tenant, hold in their own tenant only.
func (s *Console) RequireGlobalAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !httpkit.IsGlobalAdmin(c) {
			return echo.ErrNotFound
		}
		return next(c)
	}
}

// ResolveTenant loads the tenant of a /t/:tenant route. A user may act in
// their own tenant; the operator's staff in any. Any other tenant id answers
// 404, exactly like one that does not exist.
func (s *Console) ResolveTenant(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id := c.Param("tenant")
		home := c.Get(httpkit.KeyHome).(*kanri.Tenant)
		if id != home.ID && !httpkit.IsGlobalAdmin(c) {
			return echo.ErrNotFound
		}
		t := home // read by requireUser in this request
		if id != home.ID {
			var err error
			if t, err = s.Tenants.Get(c.Request().Context(), id); err != nil {
				return err
			}
		}
		if t.Status == kanri.TenantDeleted && !httpkit.IsGlobalAdmin(c) {
			return echo.ErrNotFound
		}
		c.Set(httpkit.KeyTenant, t)
		if t != home {
			s.enterTenant(c, t) // its plan's permissions, its time zone (requireUser applied the home's)
		}
		return next(c)
	}
}

// Streaming lifts the server's write timeout for a handler that streams
// its response (an export; later downloads and live updates) to d from the
// start of the request.
func (s *Console) Streaming(d time.Duration, h echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := http.NewResponseController(c.Response().Writer).SetWriteDeadline(time.Now().Add(d)); err != nil {
			s.Logger.WarnContext(c.Request().Context(), "the write deadline of a streamed response stays", "err", err, "request_id", httpkit.RequestID(c))
		}
		httpkit.Release(c)
		return h(c)
	}
}

// MustEnrol reports whether the signed-in user may do nothing but turn on
// two-factor sign-in: their tenant requires it of them (requireUser reads
// it on every request).
func (s *Console) MustEnrol(c echo.Context) bool {
	must, _ := c.Get(httpkit.KeyEnrol).(bool)
	return must
}

// enrolmentOnly are the paths a session that must enrol may reach.
func enrolmentOnly(path string) bool {
	return path == "/logout" || path == "/lang" || path == "/theme" || strings.HasPrefix(path, views.TwoFactorPath()) ||
		strings.HasPrefix(path, "/account/passkeys")
}

// enterTenant applies to the request what the tenant it works in decides:
// the permissions its plan allows (Catalog.ForPlan: a permission the plan
// lacks is gone, for the pages and the checks alike) and the time zone
// its pages show times in (views.WithZone). requireUser calls it with the
// user's own tenant, resolveTenant with the tenant of a /t/{tenant} route.
func (s *Console) enterTenant(c echo.Context, t *kanri.Tenant) {
	if perms, ok := c.Get(httpkit.KeyPerms).(role.Set); ok {
		c.Set(httpkit.KeyPerms, s.Roles.Catalog.ForPlan(perms, t.Plan))
	}
	c.SetRequest(c.Request().WithContext(views.WithZone(c.Request().Context(), t.Location())))
}

// tenantLanguage speaks the default language of the user's own tenant (its
// locale setting) to a user who has not chosen one (no language cookie):
// it comes before the browser's Accept-Language.
func (s *Console) tenantLanguage(c echo.Context, home *kanri.Tenant) {
	lang := home.Settings.Language()
	if lang == "" {
		return
	}
	if _, err := c.Cookie(httpkit.LangCookie); err == nil {
		return
	}
	c.SetRequest(c.Request().WithContext(i18n.WithLang(c.Request().Context(), lang)))
}

// NeedReporting refuses (403) a usage analytics page of a tenant whose
// advancedReporting feature is off, by its setting or by its plan.
func NeedReporting(c echo.Context) error {
	t := httpkit.Tenant(c)
	if !role.FeatureInPlan(t.Plan, kanri.FeatureAdvancedReporting) {
		return kanri.E(kanri.EFORBIDDEN, "settings.reporting_plan")
	}
	if !t.AdvancedReportingOn() {
		return kanri.E(kanri.EFORBIDDEN, "settings.reporting_off")
	}
	return nil
}
