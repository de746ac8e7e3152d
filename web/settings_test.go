package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/tenant"
)

// settingsForm is the settings form as the settings page of t opens it,
// with the changes of set.
func settingsForm(t *kanri.Tenant, set func(*kanri.SettingsInput)) url.Values {
	in := kanri.SettingsInputOf(t)
	base := in
	if set != nil {
		set(&in)
	}
	v := url.Values{"etag": {t.ETag}, "base_present": {"1"}}
	for prefix, s := range map[string]kanri.SettingsInput{"": in, "base_": base} {
		v.Set(prefix+"timezone", s.Timezone)
		v.Set(prefix+"locale", s.Locale)
		v.Set(prefix+"twoFactorEnforcement", s.TwoFactorEnforcement)
		v.Set(prefix+"supportAccess", s.SupportAccess)
		for name, on := range map[string]bool{"twoFactorAuth": s.TwoFactorAuth, "apiAccess": s.APIAccess, "advancedReporting": s.AdvancedReporting, "supportChanges": s.SupportChanges} {
			switch {
			case prefix == "base_":
				v.Set(prefix+name, map[bool]string{true: "true", false: "false"}[on])
			case on:
				v.Set(name, "on") // a ticked checkbox; an unticked one sends nothing
			}
		}
	}
	return v
}

// system is the context of the operator's changes in the tests.
func system() context.Context {
	return audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true})
}

// fresh reads a tenant as stored now.
func (e *env) fresh(t *testing.T, id string) *kanri.Tenant {
	t.Helper()
	ten, err := e.tenants.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return ten
}

// setSettings changes a tenant's settings through the service.
func (e *env) setSettings(t *testing.T, id string, set func(*kanri.SettingsInput)) {
	t.Helper()
	in := kanri.SettingsInputOf(e.fresh(t, id))
	set(&in)
	if _, err := e.tenants.UpdateSettings(system(), id, "", nil, in); err != nil {
		t.Fatal(err)
	}
}

// setTenant changes what the operator edits of a tenant.
func (e *env) setTenant(t *testing.T, id string, set func(*kanri.TenantInput)) *kanri.Tenant {
	t.Helper()
	in := tenant.InputOf(e.fresh(t, id))
	set(&in)
	ten, err := e.tenants.Update(system(), id, "", nil, in)
	if err != nil {
		t.Fatal(err)
	}
	return ten
}

// TestSettingsPageByRole: a tenant's administrator edits its settings, a
// viewer reads them, a user without a role and another tenant's
// administrator get nowhere, and a save is audited.
func TestSettingsPageByRole(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := system()
	vera, _ := e.users.Create(ctx, e.acme.ID, kanri.UserInput{Username: "vera", Email: "vera@acme.test", DisplayName: "Vera", Password: password})
	if _, _, err := e.roles.Assign(ctx, role.Grant{Tenant: e.acme, UserID: vera.ID, ServiceID: kanri.TenantManagementID, RoleName: role.Viewer}); err != nil {
		t.Fatal(err)
	}
	path := "/t/" + e.acme.ID + "/settings"
	admin := e.client(t).signIn("acme", "admin")
	viewer := e.client(t).signIn("acme", "vera")
	bob := e.client(t).signIn("acme", "bob")
	other := e.client(t).signIn("globex", "admin")

	resp, page := admin.get(path)
	wantStatus(t, "the administrator's settings page", resp, http.StatusOK)
	for _, want := range []string{`data-testid="settings-form"`, `data-testid="nav-settings"`, `<option value="Asia/Tokyo" selected>`, `data-testid="subscription"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the administrator's settings page lacks %s", want)
		}
	}
	resp, page = viewer.get(path)
	wantStatus(t, "the viewer's settings page", resp, http.StatusOK)
	if strings.Contains(page, `data-testid="settings-form"`) || !strings.Contains(page, `data-testid="settings-values"`) {
		t.Error("a viewer is offered the form, or not shown the values")
	}
	for _, c := range []struct {
		name   string
		client *client
		want   int
	}{
		{"a viewer", viewer, http.StatusForbidden},
		{"a user without a role", bob, http.StatusForbidden},
		{"another tenant's administrator", other, http.StatusNotFound},
	} {
		form := settingsForm(e.fresh(t, e.acme.ID), func(in *kanri.SettingsInput) { in.Timezone = "UTC" })
		resp, _ := c.client.post(path, form)
		wantStatus(t, c.name+" saving", resp, c.want)
	}
	resp, _ = other.get(path)
	wantStatus(t, "another tenant's administrator reading", resp, http.StatusNotFound)
	if got := e.fresh(t, e.acme.ID).Settings.Timezone; got != "" {
		t.Fatalf("a refused save stored the time zone %q", got)
	}

	resp, _ = admin.post(path, settingsForm(e.fresh(t, e.acme.ID), func(in *kanri.SettingsInput) {
		in.Timezone, in.Locale, in.APIAccess = "Europe/Paris", "en-US", false
	}))
	wantStatus(t, "the administrator's save", resp, http.StatusSeeOther)
	got := e.fresh(t, e.acme.ID)
	if got.Settings.Timezone != "Europe/Paris" || got.Settings.Locale != "en-US" || got.APIAccessOn() || !got.AdvancedReportingOn() || !got.TwoFactorAvailable() {
		t.Errorf("saved settings: %+v, features %v %v %v", got.Settings, got.APIAccessOn(), got.AdvancedReportingOn(), got.TwoFactorAvailable())
	}
	recs, _, err := e.config.Services.Deps.Audit.Query(ctx, e.acme.ID, audit.Filter{Action: "tenant.update", Limit: 5})
	if err != nil || len(recs) == 0 {
		t.Fatalf("no tenant.update record: %v", err)
	}
	ch := recs[0].Details.Changes["settings"]
	before, _ := ch.Before.(map[string]any)
	after, _ := ch.After.(map[string]any)
	if before["timezone"] != "Asia/Tokyo" || after["timezone"] != "Europe/Paris" || after["locale"] != "en-US" || recs[0].UserName != "admin" {
		t.Errorf("the record: %+v by %s", ch, recs[0].UserName)
	}
	_, page = admin.get("/t/" + e.acme.ID + "/audit")
	for _, want := range []string{"Time zone: Asia/Tokyo → Europe/Paris", "API access: Yes → No"} {
		if !strings.Contains(html.UnescapeString(page), want) {
			t.Errorf("the audit page does not say %q", want)
		}
	}
}

// TestSettingsValidationAndStaleEdit: a zone, locale or level that is not
// offered is refused with the input kept; a save from a form opened before
// another change of the settings is stale and shows the stored settings,
// one opened before a change of something else is not.
func TestSettingsValidationAndStaleEdit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	path := "/t/" + e.acme.ID + "/settings"
	admin := e.client(t).signIn("acme", "admin")
	for _, c := range []struct {
		field string
		set   func(*kanri.SettingsInput)
	}{
		{"timezone", func(in *kanri.SettingsInput) { in.Timezone = "Mars/Olympus_Mons" }},
		{"timezone", func(in *kanri.SettingsInput) { in.Timezone = "../../etc/passwd" }},
		{"timezone", func(in *kanri.SettingsInput) { in.Timezone = "Local" }},
		{"timezone", func(in *kanri.SettingsInput) { in.Timezone = "" }},
		{"locale", func(in *kanri.SettingsInput) { in.Locale = "fr-FR" }},
		{"twoFactorEnforcement", func(in *kanri.SettingsInput) { in.TwoFactorEnforcement = "sometimes" }},
		{"supportAccess", func(in *kanri.SettingsInput) { in.SupportAccess = "always" }},
	} {
		resp, page := admin.post(path, settingsForm(e.fresh(t, e.acme.ID), c.set))
		wantStatus(t, "invalid "+c.field, resp, http.StatusUnprocessableEntity)
		if !strings.Contains(page, `data-testid="field-error-`+c.field+`"`) {
			t.Errorf("invalid %s: no error on the field", c.field)
		}
	}
	if got := e.fresh(t, e.acme.ID).Settings; got.Timezone != "" || got.Locale != "" {
		t.Fatalf("refused input was stored: %+v", got)
	}

	opened := e.fresh(t, e.acme.ID)
	e.setTenant(t, e.acme.ID, func(in *kanri.TenantInput) { in.DisplayName = "Acme renamed" })
	resp, _ := admin.post(path, settingsForm(opened, func(in *kanri.SettingsInput) { in.Timezone = "UTC" }))
	wantStatus(t, "a save after another field changed", resp, http.StatusSeeOther)

	opened = e.fresh(t, e.acme.ID)
	e.setSettings(t, e.acme.ID, func(in *kanri.SettingsInput) { in.Timezone = "Asia/Seoul" })
	resp, page := admin.post(path, settingsForm(opened, func(in *kanri.SettingsInput) { in.Timezone = "Europe/London" }))
	wantStatus(t, "a save after the settings changed", resp, http.StatusConflict)
	if !strings.Contains(page, `data-testid="stale-timezone">Asia/Seoul<`) || !strings.Contains(page, `<option value="Europe/London" selected>`) {
		t.Error("the stale form does not show the stored zone beside the input")
	}
	if got := e.fresh(t, e.acme.ID).Settings.Timezone; got != "Asia/Seoul" {
		t.Errorf("a stale save was stored: %s", got)
	}
}

// TestTenantPagesShowTimesInItsZone: the audit log and the other pages of
// a tenant show times in its time zone, with the zone's abbreviation, and
// follow a change of it; the operator's pages across tenants stay in UTC.
func TestTenantPagesShowTimesInItsZone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := system()
	admin := e.client(t).signIn("acme", "admin") // an auth.login record, and a last sign-in
	last := func() *kanri.AuditLog {
		recs, _, err := e.config.Services.Deps.Audit.Query(ctx, e.acme.ID, audit.Filter{Limit: 1})
		if err != nil || len(recs) == 0 {
			t.Fatalf("no audit record: %v", err)
		}
		return recs[0]
	}
	for _, zone := range []string{"Asia/Tokyo", "America/New_York", "UTC"} {
		if zone != "Asia/Tokyo" { // the default
			e.setSettings(t, e.acme.ID, func(in *kanri.SettingsInput) { in.Timezone = zone })
		}
		loc, _ := time.LoadLocation(zone)
		r := last()
		_, page := admin.get("/t/" + e.acme.ID + "/audit")
		if want := `data-testid="audit-time">` + r.Timestamp.In(loc).Format("2006-01-02 15:04:05 MST") + "<"; !strings.Contains(page, want) {
			t.Errorf("%s: the audit page lacks %s", zone, want)
		}
		if !strings.Contains(page, `data-testid="audit-zone">`) || !strings.Contains(page, zone) {
			t.Errorf("%s: the audit page does not name its zone", zone)
		}
		u, _ := e.users.Get(ctx, e.acme.ID, e.acmeAdmin.ID)
		_, page = admin.get("/t/" + e.acme.ID + "/users")
		if want := u.Security.LastLoginAt.In(loc).Format("2006-01-02 15:04 MST"); !strings.Contains(page, want) {
			t.Errorf("%s: the user list does not show the last sign-in as %s", zone, want)
		}
	}
	// The audit page's date filter reads days of the zone: in Tokyo, a
	// record made at 23:30 UTC is of the next day.
	e.setSettings(t, e.acme.ID, func(in *kanri.SettingsInput) { in.Timezone = "Asia/Tokyo" })
	r := last()
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	day := r.Timestamp.In(tokyo).Format(time.DateOnly)
	_, page := admin.get("/t/" + e.acme.ID + "/audit?from=" + day + "&to=" + day)
	if !strings.Contains(page, `data-action="`+r.Action+`"`) {
		t.Errorf("the record of %s (Tokyo) is not found by the filter of that day", day)
	}

	staff := e.client(t).signIn("privileged", adminEmail)
	_, page = staff.get("/tenants")
	opZone := e.fresh(t, kanri.PrivilegedTenantID).Location()
	// The day in the operator's zone, the time named by its zone on hover.
	if want := `title="` + e.acme.CreatedAt.In(opZone).Format("2006-01-02 15:04 MST") + `">` + e.acme.CreatedAt.In(opZone).Format("2006-01-02") + "<"; !strings.Contains(page, want) {
		t.Errorf("the operator's tenant list does not show acme's creation in the operator's zone (%s)", want)
	}
}

// TestTenantLocaleIsItsUsersDefaultLanguage: a user who chose no language
// is spoken to in the tenant's locale, before the browser's; one who chose
// a language keeps it; without a locale the browser decides.
func TestTenantLocaleIsItsUsersDefaultLanguage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	lang := func(c *client, acceptLanguage string) string {
		t.Helper()
		resp, page := c.send(http.MethodGet, "/account", nil, http.Header{"Accept-Language": {acceptLanguage}})
		wantStatus(t, "the account page", resp, http.StatusOK)
		if strings.Contains(page, `<html lang="ja"`) {
			return "ja"
		}
		return "en"
	}
	c := e.client(t).signIn("acme", "admin")
	if got := lang(c, "en-US"); got != "en" {
		t.Errorf("no locale, an English browser: %s", got)
	}
	e.setSettings(t, e.acme.ID, func(in *kanri.SettingsInput) { in.Locale = "ja-JP" })
	if got := lang(c, "en-US"); got != "ja" {
		t.Errorf("locale ja-JP, an English browser, no choice: %s, want ja", got)
	}
	if resp, _ := c.post("/lang", url.Values{"lang": {"en"}, "next": {"/"}}); resp.StatusCode >= 400 {
		t.Fatalf("choosing English: %d", resp.StatusCode)
	}
	if got := lang(c, "ja"); got != "en" {
		t.Errorf("locale ja-JP, English chosen: %s, want en", got)
	}
	g := e.client(t).signIn("globex", "admin")
	if got := lang(g, "en"); got != "en" {
		t.Errorf("another tenant's user follows acme's locale: %s", got)
	}
}

// TestPlanGatesServicesAndPermissions: on the free plan a tenant loses the
// API and backups as the plan table says, in the console (pages,
// navigation), for the operator acting in it, and for its API keys; back
// on standard, they return. What every plan has stays.
func TestPlanGatesServicesAndPermissions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, secret := e.apiKey(t, e.acme.ID, "read")
	e.assign(t, e.acme.ID, kanri.BackupServiceID)
	e.assign(t, e.acme.ID, kanri.FileServiceID)
	admin := e.client(t).signIn("acme", "admin")
	staff := e.client(t).signIn("privileged", adminEmail)
	acme := "/t/" + e.acme.ID
	check := func(plan string, want int) {
		t.Helper()
		e.setTenant(t, e.acme.ID, func(in *kanri.TenantInput) { in.Plan = plan })
		for _, c := range []struct {
			who    string
			client *client
			path   string
		}{
			{"the administrator", admin, acme + "/backups"},
			{"the administrator", admin, acme + "/api-keys"},
			{"the administrator", admin, acme + "/services/" + kanri.FileServiceID},
			{"the operator", staff, acme + "/backups"},
		} {
			resp, _ := c.client.get(c.path)
			wantStatus(t, plan+": "+c.who+" at "+c.path, resp, want)
		}
		resp, _ := admin.get(acme + "/users")
		wantStatus(t, plan+": the user list", resp, http.StatusOK)
		_, page := admin.get(acme + "/files")
		for _, nav := range []string{"nav-backups", "nav-apikeys"} {
			if got := strings.Contains(page, `data-testid="`+nav+`"`); got != (want == http.StatusOK) {
				t.Errorf("%s: %s shown %v", plan, nav, got)
			}
		}
		if got := e.api(t, http.MethodGet, "/api/v1/me", secret, nil); got.status != want {
			t.Errorf("%s: the API answered %d, want %d", plan, got.status, want)
		}
		_, page = admin.get(acme + "/settings")
		if got := strings.Contains(page, `data-testid="settings-plan-lacks-api-service"`); got != (want != http.StatusOK) {
			t.Errorf("%s: the settings page says the plan lacks the API: %v", plan, got)
		}
	}
	check(kanri.PlanStandard, http.StatusOK)
	check(kanri.PlanFree, http.StatusForbidden)
	check(kanri.PlanPremium, http.StatusOK)
}

// TestFeatureFlagsGate: apiAccess off refuses every API call (the keys
// stay and the console says why); advancedReporting off takes the usage
// pages and their links away.
func TestFeatureFlagsGate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	k, secret := e.apiKey(t, e.acme.ID, "read")
	e.assign(t, e.acme.ID, kanri.FileServiceID)
	admin := e.client(t).signIn("acme", "admin")
	acme := "/t/" + e.acme.ID
	for _, on := range []bool{false, true} {
		e.setSettings(t, e.acme.ID, func(in *kanri.SettingsInput) { in.APIAccess, in.AdvancedReporting = on, on })
		want := map[bool]int{false: http.StatusForbidden, true: http.StatusOK}[on]
		if got := e.api(t, http.MethodGet, "/api/v1/users", secret, nil); got.status != want {
			t.Errorf("apiAccess %v: the API answered %d, want %d", on, got.status, want)
		}
		resp, page := admin.get(acme + "/api-keys")
		wantStatus(t, "the key list", resp, http.StatusOK)
		if got := strings.Contains(page, `data-testid="apikeys-usage"`); got != on {
			t.Errorf("advancedReporting %v: the usage link shown %v", on, got)
		}
		if got := strings.Contains(page, `data-testid="apikeys-api-access-off"`); got == on {
			t.Errorf("apiAccess %v: the key list says API access is off: %v", on, got)
		}
		for _, path := range []string{acme + "/api-keys/usage", acme + "/api-keys/" + k.ID, acme + "/services/" + kanri.FileServiceID} {
			resp, _ := admin.get(path)
			wantStatus(t, path, resp, want)
		}
	}
	e.setSettings(t, e.acme.ID, func(in *kanri.SettingsInput) { in.APIAccess = false })
	wantProblem(t, "apiAccess off", e.api(t, http.MethodGet, "/api/v1/me", secret, nil), http.StatusForbidden, "forbidden")
}

// TestSubscriptionEndBanner: from 14 days before the end date, the
// tenant's administrators see a banner on every page; its other users and
// the days before do not. When the end passes, the expiry suspends the
// tenant (its users are signed out), and a renewal reactivates it.
func TestSubscriptionEndBanner(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := system()
	vera, _ := e.users.Create(ctx, e.acme.ID, kanri.UserInput{Username: "vera", Email: "vera@acme.test", DisplayName: "Vera", Password: password})
	for _, s := range features.Roles().Services() {
		e.roles.Assign(ctx, role.Grant{Tenant: e.acme, UserID: vera.ID, ServiceID: s.ID, RoleName: role.Viewer})
	}
	admin := e.client(t).signIn("acme", "admin")
	viewer := e.client(t).signIn("acme", "vera")
	loc := e.fresh(t, e.acme.ID).Location()
	end := e.clock.Now().In(loc).AddDate(0, 0, 20).Format(kanri.DateLayout)
	e.setTenant(t, e.acme.ID, func(in *kanri.TenantInput) { in.EndDate = end })
	banner := func(c *client) bool {
		_, page := c.get("/t/" + e.acme.ID + "/users")
		return strings.Contains(page, `data-testid="subscription-banner"`)
	}
	// The operator's list shows the end as the tenant's day, how near it
	// is, and why a suspended tenant is suspended.
	listed := func(state, reason string) {
		t.Helper()
		_, page := e.client(t).signIn("privileged", adminEmail).get("/tenants?q=acme")
		i := strings.Index(page, `data-testid="tenant-row-acme"`)
		if i < 0 {
			t.Fatal("acme is not on the operator's list")
		}
		row := page[i:]
		row = row[:strings.Index(row, "</tr>")]
		if want := `data-testid="tenant-subscription-end" data-state="` + state + `">`; !strings.Contains(row, want) || !strings.Contains(row, end) {
			t.Errorf("the list's row of acme lacks %s and %s: %s", want, end, row)
		}
		switch {
		case reason == "" && strings.Contains(row, "tenant-suspended-reason"):
			t.Errorf("the list's row of acme gives a reason of suspension: %s", row)
		case reason != "" && !strings.Contains(row, `data-reason="`+reason+`"`):
			t.Errorf("the list's row of acme does not give the reason %s: %s", reason, row)
		}
	}
	listed("running", "")
	if banner(admin) {
		t.Error("a banner 20 days before the end")
	}
	e.clock.Advance(7 * 24 * time.Hour) // 13 days before; the sessions ended
	admin = e.client(t).signIn("acme", "admin")
	viewer = e.client(t).signIn("acme", "vera")
	if !banner(admin) {
		t.Error("no banner for the administrator 13 days before the end")
	}
	if _, page := admin.get("/account"); !strings.Contains(page, `data-testid="subscription-banner"`) {
		t.Error("no banner on the administrator's account page")
	}
	if banner(viewer) {
		t.Error("a banner for a viewer")
	}
	listed("soon", "")
	e.clock.Advance(14 * 24 * time.Hour) // past the end
	if n, err := e.tenants.SuspendExpired(context.Background()); err != nil || n != 1 {
		t.Fatalf("SuspendExpired: %d, %v; want 1", n, err)
	}
	listed("ended", kanri.SuspendedByExpiry)
	if resp, _ := admin.get("/t/" + e.acme.ID + "/users"); resp.StatusCode == http.StatusOK {
		t.Error("the administrator of a suspended tenant still reaches its pages")
	}
	later := e.clock.Now().In(loc).AddDate(1, 0, 0).Format(kanri.DateLayout)
	if got := e.setTenant(t, e.acme.ID, func(in *kanri.TenantInput) { in.EndDate = later }); got.Status != kanri.TenantActive {
		t.Errorf("after the renewal the tenant is %s", got.Status)
	}
	if banner(e.client(t).signIn("acme", "admin")) {
		t.Error("a banner a year before the end")
	}
	end = later
	listed("running", "")
	cur := e.fresh(t, e.acme.ID)
	if _, err := e.tenants.SetStatus(ctx, e.acme.ID, kanri.Seen{ETag: cur.ETag, State: cur.Status}, kanri.TenantSuspended); err != nil {
		t.Fatal(err)
	}
	listed("running", kanri.SuspendedByOperator)
}

// TestOperatorEditsSubscriptionDates: the operator's tenant form keeps the
// subscription's dates (days of the tenant's zone), refuses an end before
// the start with the input kept, and the tenant's settings page shows them.
func TestOperatorEditsSubscriptionDates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	staff := e.client(t).signIn("privileged", adminEmail)
	path := "/tenants/" + e.acme.ID
	_, page := staff.get(path + "/edit")
	form := url.Values{"etag": {formETag(page)}, "displayName": {"Acme"}, "plan": {"standard"}, "maxUsers": {"100"},
		"startDate": {"2027-01-01"}, "endDate": {"2026-12-31"}}
	resp, page := staff.post(path, form)
	wantStatus(t, "an end before the start", resp, http.StatusUnprocessableEntity)
	if !strings.Contains(page, `data-testid="field-error-endDate"`) || !strings.Contains(page, `value="2026-12-31"`) {
		t.Error("the refused dates are not explained with the input kept")
	}
	form.Set("endDate", "2028-01-01")
	resp, _ = staff.post(path, form)
	wantStatus(t, "valid dates", resp, http.StatusSeeOther)
	got := e.fresh(t, e.acme.ID)
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	if want := time.Date(2028, 1, 1, 0, 0, 0, 0, tokyo); !got.Subscription.EndDate.Equal(want) {
		t.Errorf("end date stored as %v, want %v (the start of the day in Tokyo)", got.Subscription.EndDate, want)
	}
	_, page = staff.get(path + "/edit")
	if !strings.Contains(page, `value="2027-01-01"`) || !strings.Contains(page, `value="2028-01-01"`) {
		t.Error("the edit form does not show the stored dates")
	}
	admin := e.client(t).signIn("acme", "admin")
	_, page = admin.get("/t/" + e.acme.ID + "/settings")
	if !strings.Contains(page, `data-testid="subscription-end">`) || !strings.Contains(page, "2028-01-01") {
		t.Error("the settings page does not show the end date")
	}
	recs, _, _ := e.config.Services.Deps.Audit.Query(context.Background(), e.acme.ID, audit.Filter{Action: "tenant.update", Limit: 1})
	if len(recs) == 0 || recs[0].Details.Changes["subscription"].After.(map[string]any)["endDate"] != "2028-01-01" {
		t.Errorf("the record of the dates: %+v", recs)
	}
}

// TestBackupsPageLinksToSettings: the backups page names the zone its
// schedules are read in and links to the settings; its own zone form is
// gone.
func TestBackupsPageLinksToSettings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assign(t, e.acme.ID, kanri.BackupServiceID)
	admin := e.client(t).signIn("acme", "admin")
	_, page := admin.get("/t/" + e.acme.ID + "/backups")
	if !strings.Contains(page, `data-testid="backup-timezone-settings"`) || strings.Contains(page, `data-testid="backup-timezone-form"`) {
		t.Error("the backups page does not link to the settings, or still has its own form")
	}
	resp, _ := admin.post("/t/"+e.acme.ID+"/backups/timezone", url.Values{"timezone": {"UTC"}})
	if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("the old zone form's route answered %d", resp.StatusCode)
	}
}

// TestDatesAreTheTenantsDays: an expiry typed as a date (a service
// assignment's, an API key's) ends with that day in the tenant's time
// zone, and the pages show the dates of that zone: the day typed comes
// back on the list and in the form.
func TestDatesAreTheTenantsDays(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := system()
	// At 05:00 UTC it is 18:00 the day before in Pago Pago (UTC-11), and
	// the end of a day there is 10:59:59 UTC the next day: every date
	// below differs from the UTC one.
	const zone = "Pacific/Pago_Pago"
	e.setSettings(t, e.acme.ID, func(in *kanri.SettingsInput) { in.Timezone = zone })
	loc, _ := time.LoadLocation(zone)
	now := e.clock.Now()
	e.clock.Advance(now.Truncate(24 * time.Hour).Add(29 * time.Hour).Sub(now))
	day := e.clock.Now().In(loc).AddDate(0, 0, 10).Format(kanri.DateLayout)
	end, _ := kanri.DayEndIn(day, loc)

	op := e.client(t).signIn("privileged", adminEmail)
	base := "/t/" + e.acme.ID + "/services"
	_, form := op.get(base + "/messaging-service/edit")
	if !strings.Contains(form, zone) {
		t.Errorf("the assignment form does not say its dates are of %s", zone)
	}
	resp, _ := op.post(base+"/messaging-service", url.Values{"expiresAt": {day}})
	wantStatus(t, "assign", resp, http.StatusSeeOther)
	a, err := e.catalog.Assignment(ctx, e.acme.ID, kanri.MessagingServiceID)
	if err != nil {
		t.Fatal(err)
	}
	if !a.ExpiresAt.Equal(end.Time) {
		t.Errorf("the assignment expires at %v, want %v (the end of %s in %s)", a.ExpiresAt, end, day, zone)
	}
	if _, page := op.get(base); !strings.Contains(page, day) {
		t.Errorf("the services list does not show the expiry as %s", day)
	}
	if _, form = op.get(base + "/messaging-service/edit"); !strings.Contains(form, `value="`+day+`"`) {
		t.Errorf("the assignment form does not show the expiry as %s", day)
	}

	e.apiKey(t, e.acme.ID, "read") // makes the API usable
	admin := e.client(t).signIn("acme", "admin")
	keys := "/t/" + e.acme.ID + "/api-keys"
	resp, _ = admin.post(keys, url.Values{"name": {"Dated"}, "scopes": {"read"}, "expiresAt": {day}})
	wantStatus(t, "create a key", resp, http.StatusSeeOther)
	all, _ := e.keys.List(ctx, e.acme.ID)
	var k *kanri.APIKey
	for _, key := range all {
		if key.Name == "Dated" {
			k = key
		}
	}
	if k == nil || !k.ExpiresAt.Equal(end.Time) {
		t.Fatalf("the key: %+v, want it to expire at %v", k, end)
	}
	_, page := admin.get(keys)
	if want := `data-testid="apikey-created-Dated">` + e.clock.Now().In(loc).Format(kanri.DateLayout) + "<"; !strings.Contains(page, want) {
		t.Errorf("the key list does not show the creation date of %s: no %s", zone, want)
	}
	if !strings.Contains(page, ">"+day+"<") {
		t.Errorf("the key list does not show the expiry as %s", day)
	}
}

// TestZonePreviewFollowsTheChoice: the settings form's zone list asks for
// the time now in the zone chosen, before it is saved; a name that is not
// a zone shows nothing.
func TestZonePreviewFollowsTheChoice(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	path := "/t/" + e.acme.ID + "/settings"
	_, page := admin.get(path)
	if want := `hx-get="` + path + `/time-now"`; !strings.Contains(page, want) {
		t.Errorf("the zone list does not ask for its preview: lacks %s", want)
	}
	tests := []struct {
		zone string
		want string // the time shown; "" for none
	}{
		{"America/New_York", "America/New_York"},
		{"UTC", "UTC"},
		{"Local", ""},
		{"../../etc/passwd", ""},
		{"", ""},
	}
	for _, tt := range tests {
		resp, body := admin.get(path + "/time-now?timezone=" + url.QueryEscape(tt.zone))
		wantStatus(t, tt.zone, resp, http.StatusOK)
		if !strings.Contains(body, `id="timezone-now"`) {
			t.Errorf("%q: the answer is not the preview: %s", tt.zone, body)
		}
		got := strings.Contains(body, "Now: ")
		if want := tt.want != ""; got != want {
			t.Errorf("%q: a time shown %v, want %v: %s", tt.zone, got, want, body)
		}
		if tt.want != "" {
			loc, _ := time.LoadLocation(tt.want)
			if want := "Now: " + e.clock.Now().In(loc).Format("2006-01-02 15:04 MST"); !strings.Contains(body, want) {
				t.Errorf("%q: got %s, want %s", tt.zone, body, want)
			}
		}
	}
	other := e.client(t).signIn("globex", "admin")
	resp, _ := other.get(path + "/time-now?timezone=UTC")
	wantStatus(t, "another tenant's administrator", resp, http.StatusNotFound)
}

// TestOperatorSeesTheTenantsName: the pages of a tenant say "your
// organisation" to its own users, and name the tenant to an operator
// working in it from the operator's tenant ("Acme's settings"), in
// English and Japanese, on pages and on error pages alike.
func TestOperatorSeesTheTenantsName(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setTenant(t, e.acme.ID, func(in *kanri.TenantInput) {
		in.DisplayName = "Acme Corp"
		in.EndDate = e.clock.Now().In(e.acme.Location()).AddDate(0, 0, 10).Format(kanri.DateLayout) // soon: a banner
	})
	e.setSettings(t, e.acme.ID, func(in *kanri.SettingsInput) { in.APIAccess, in.AdvancedReporting = false, false })
	acme := "/t/" + e.acme.ID
	own := e.client(t).signIn("acme", "admin")
	staff := e.client(t).signIn("privileged", adminEmail)
	tests := []struct {
		path, testid string
		own, staff   string // in English
		staffJa      string
	}{
		{acme + "/settings", "", "Organisation settings", "Acme Corp&#39;s settings", "Acme Corp の設定"},
		{acme + "/users", "subscription-banner", "Your organisation&#39;s subscription ends", "Acme Corp&#39;s subscription ends", "Acme Corp の契約は"},
		{acme + "/domains", "domains-none", "Add your organisation&#39;s e-mail domain", "Add Acme Corp&#39;s e-mail domain", "Acme Corp のメールドメイン"},
		{acme + "/api-keys", "apikeys-api-access-off", "turned off in your organisation&#39;s settings", "turned off in Acme Corp&#39;s settings", "Acme Corp の設定でオフ"},
		{acme + "/api-keys/usage", "error-page", "turned off in your organisation&#39;s settings", "turned off in Acme Corp&#39;s settings", "Acme Corp の設定でオフ"},
	}
	for _, tt := range tests {
		_, page := own.get(tt.path)
		if !strings.Contains(page, tt.own) {
			t.Errorf("%s, its own administrator: lacks %q", tt.path, tt.own)
		}
		_, page = staff.get(tt.path)
		if tt.testid != "" && !strings.Contains(page, `data-testid="`+tt.testid+`"`) {
			t.Errorf("%s, the operator: no %s", tt.path, tt.testid)
		}
		if !strings.Contains(page, tt.staff) || strings.Contains(strings.ToLower(page), "your organisation") {
			t.Errorf("%s, the operator: got %s, want %q and no \"your organisation\"", tt.path, excerpt(page, "organisation"), tt.staff)
		}
	}
	staff.post("/lang", url.Values{"lang": {"ja"}, "next": {"/"}})
	for _, tt := range tests {
		if _, page := staff.get(tt.path); !strings.Contains(page, tt.staffJa) {
			t.Errorf("%s, the operator in Japanese: lacks %q", tt.path, tt.staffJa)
		}
	}
}
