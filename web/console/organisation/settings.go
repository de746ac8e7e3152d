package organisation

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// showSettings shows the tenant's settings page: its time zone, default
// language and feature flags (a form for those who may change them), and
// its subscription.
func (s *Pages) showSettings(c echo.Context) error {
	t := httpkit.Tenant(c)
	f := s.settingsForm(c, t)
	f.ETag, f.Input, f.Base = t.ETag, kanri.SettingsInputOf(t), kanri.SettingsInputOf(t)
	return httpkit.Render(c, http.StatusOK, views.SettingsPage(s.Page(c, "settings.title", "settings"), f))
}

// saveSettings saves the settings form, or shows it again with its errors,
// or after a stale save with the stored settings beside the input.
func (s *Pages) saveSettings(c echo.Context) error {
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	in, base, etag := settingsInput(c, ""), settingsBase(c), c.FormValue("etag")
	if !tenant.OwnDecision(ctx, t.ID) { // its fields are shown disabled: they send nothing
		cur := kanri.SettingsInputOf(t)
		in.SupportAccess, in.SupportChanges = cur.SupportAccess, cur.SupportChanges
	}
	saved, err := s.Tenants.UpdateSettings(ctx, t.ID, etag, base, in)
	if err == nil {
		return s.Report(c, views.SettingsPath(t.ID), "settings.saved", saved.Location().String())
	}
	f := s.settingsForm(c, t)
	f.ETag, f.Input = etag, in
	if base != nil {
		f.Base = *base
	}
	status, err := console.EditFailed(&f.Edit, err, func() (*kanri.Tenant, error) { return s.Tenants.Get(ctx, t.ID) }, kanri.SettingsInputOf)
	if err != nil {
		return err
	}
	return httpkit.Render(c, status, views.SettingsPage(s.Page(c, "settings.title", "settings"), f))
}

// zoneNowPreview answers the settings form's zone list with the time now
// in the zone chosen, before it is saved.
func (s *Pages) zoneNowPreview(c echo.Context) error {
	return httpkit.Render(c, http.StatusOK, views.ZoneNowPreview(c.QueryParam("timezone"), s.Now()))
}

// settingsForm returns the settings page's data of t but its edit.
func (s *Pages) settingsForm(c echo.Context, t *kanri.Tenant) views.SettingsForm {
	return views.SettingsForm{Tenant: t, Now: s.Now(), Plans: role.Plans, PlanTable: s.Roles.Catalog.PlanTable(),
		SupportOwn: tenant.OwnDecision(c.Request().Context(), t.ID)}
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
	in := kanri.SettingsInput{
		Timezone: c.FormValue(prefix + "timezone"), Locale: c.FormValue(prefix + "locale"),
		TwoFactorAuth: flag("twoFactorAuth"), TwoFactorEnforcement: strings.TrimSpace(c.FormValue(prefix + "twoFactorEnforcement")),
		APIAccess: flag("apiAccess"), AdvancedReporting: flag("advancedReporting"),
		SupportAccess: strings.TrimSpace(c.FormValue(prefix + "supportAccess")), SupportChanges: flag("supportChanges"),
	}
	if in.SupportAccess == "" { // a form from before the setting
		in.SupportAccess = kanri.SupportOn
	}
	return in
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
