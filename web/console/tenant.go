package console

import (
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/httpkit"
)

// NextPath returns next if it is a path of the console to return to after
// sign-in, else "".
func NextPath(next string) string {
	if next == "" || SafeNext(next) != next || next == "/" || strings.HasPrefix(next, "/login") {
		return ""
	}
	return next
}

// SendImage sends an image Kanri made (a thumbnail, an avatar) from r,
// which it closes: never sniffed as anything else, kept by the browser
// for a day and by no shared cache.
func SendImage(c echo.Context, r io.ReadCloser, contentType string) error {
	defer r.Close()
	h := c.Response().Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "private, max-age=86400")
	return c.Stream(http.StatusOK, contentType, r)
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
	return path == "/logout" || path == "/lang" || path == "/theme" || strings.HasPrefix(path, views.TwoFactorPath())
}

// enterTenant applies to the request what the tenant it works in decides:
// the permissions its plan allows (role.ForPlan: a permission the plan
// lacks is gone, for the pages and the checks alike) and the time zone
// its pages show times in (views.WithZone). requireUser calls it with the
// user's own tenant, resolveTenant with the tenant of a /t/{tenant} route.
func (s *Console) enterTenant(c echo.Context, t *kanri.Tenant) {
	if perms, ok := c.Get(httpkit.KeyPerms).(role.Set); ok {
		c.Set(httpkit.KeyPerms, role.ForPlan(perms, t.Plan))
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
	if !role.PlanAllows(t.Plan, kanri.FeatureAdvancedReporting) {
		return kanri.E(kanri.EFORBIDDEN, "settings.reporting_plan")
	}
	if !t.AdvancedReportingOn() {
		return kanri.E(kanri.EFORBIDDEN, "settings.reporting_off")
	}
	return nil
}
