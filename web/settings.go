package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/httpkit"
)

// enterTenant applies to the request what the tenant it works in decides:
// the permissions its plan allows (role.ForPlan: a permission the plan
// lacks is gone, for the pages and the checks alike) and the time zone
// its pages show times in (views.WithZone). requireUser calls it with the
// user's own tenant, resolveTenant with the tenant of a /t/{tenant} route.
func (s *Server) enterTenant(c echo.Context, t *kanri.Tenant) {
	if perms, ok := c.Get(httpkit.KeyPerms).(role.Set); ok {
		c.Set(httpkit.KeyPerms, role.ForPlan(perms, t.Plan))
	}
	c.SetRequest(c.Request().WithContext(views.WithZone(c.Request().Context(), t.Location())))
}

// tenantLanguage speaks the default language of the user's own tenant (its
// locale setting) to a user who has not chosen one (no language cookie):
// it comes before the browser's Accept-Language.
func (s *Server) tenantLanguage(c echo.Context, home *kanri.Tenant) {
	lang := home.Settings.Language()
	if lang == "" {
		return
	}
	if _, err := c.Cookie(httpkit.LangCookie); err == nil {
		return
	}
	c.SetRequest(c.Request().WithContext(i18n.WithLang(c.Request().Context(), lang)))
}

// needReporting refuses (403) a usage analytics page of a tenant whose
// advancedReporting feature is off, by its setting or by its plan.
func needReporting(c echo.Context) error {
	t := httpkit.Tenant(c)
	if !role.PlanAllows(t.Plan, kanri.FeatureAdvancedReporting) {
		return kanri.E(kanri.EFORBIDDEN, "settings.reporting_plan")
	}
	if !t.AdvancedReportingOn() {
		return kanri.E(kanri.EFORBIDDEN, "settings.reporting_off")
	}
	return nil
}

// showSettings shows the tenant's settings page: its time zone, default
// language and feature flags (a form for those who may change them), and
// its subscription.
func (s *Server) showSettings(c echo.Context) error {
	t := httpkit.Tenant(c)
	f := s.settingsForm(t)
	f.ETag, f.Input, f.Base = t.ETag, kanri.SettingsInputOf(t), kanri.SettingsInputOf(t)
	return httpkit.Render(c, http.StatusOK, views.SettingsPage(s.page(c, "settings.title", "settings"), f))
}

// saveSettings saves the settings form, or shows it again with its errors,
// or after a stale save with the stored settings beside the input.
func (s *Server) saveSettings(c echo.Context) error {
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	in, base, etag := settingsInput(c, ""), settingsBase(c), c.FormValue("etag")
	saved, err := s.Tenants.UpdateSettings(ctx, t.ID, etag, base, in)
	if err == nil {
		return s.done(c, views.SettingsPath(t.ID), "settings.saved", saved.Location().String())
	}
	f := s.settingsForm(t)
	f.ETag, f.Input = etag, in
	if base != nil {
		f.Base = *base
	}
	status, err := editFailed(&f.Edit, err, func() (*kanri.Tenant, error) { return s.Tenants.Get(ctx, t.ID) }, kanri.SettingsInputOf)
	if err != nil {
		return err
	}
	return httpkit.Render(c, status, views.SettingsPage(s.page(c, "settings.title", "settings"), f))
}

// zoneNowPreview answers the settings form's zone list with the time now
// in the zone chosen, before it is saved.
func (s *Server) zoneNowPreview(c echo.Context) error {
	return httpkit.Render(c, http.StatusOK, views.ZoneNowPreview(c.QueryParam("timezone"), s.Now()))
}

// settingsForm returns the settings page's data of t but its edit.
func (s *Server) settingsForm(t *kanri.Tenant) views.SettingsForm {
	return views.SettingsForm{Tenant: t, Now: s.Now(), Plans: role.Plans, PlanTable: role.PlanTable()}
}

// settingsInput reads the settings form's fields, each name with prefix
// (the form's "", or "base_" for the values the form was opened with).
// A flag's checkbox sends "on" when ticked and nothing when not; the base
// flags are sent as "true" or "false".
func settingsInput(c echo.Context, prefix string) kanri.SettingsInput {
	flag := func(name string) bool {
		v := c.FormValue(prefix + name)
		return v == "on" || v == "true"
	}
	return kanri.SettingsInput{
		Timezone: c.FormValue(prefix + "timezone"), Locale: c.FormValue(prefix + "locale"),
		TwoFactorAuth: flag("twoFactorAuth"), TwoFactorEnforcement: strings.TrimSpace(c.FormValue(prefix + "twoFactorEnforcement")),
		APIAccess: flag("apiAccess"), AdvancedReporting: flag("advancedReporting"),
	}
}

// settingsBase reads the settings as the form was opened, or nil if the
// form did not send them.
func settingsBase(c echo.Context) *kanri.SettingsInput {
	if c.FormValue("base_present") == "" {
		return nil
	}
	in := settingsInput(c, "base_")
	return &in
}
