package web_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

func TestServiceCatalogPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	op := e.client(t).signIn("privileged", adminEmail)

	// A bad entry keeps the input and says what is wrong.
	resp, body := op.post("/services", url.Values{"id": {"Bad Id"}, "name": {"CRM"}, "baseUrl": {"ftp://x"}})
	wantStatus(t, "bad service", resp, http.StatusUnprocessableEntity)
	for _, want := range []string{`data-testid="field-error-id"`, `data-testid="field-error-baseUrl"`, `value="Bad Id"`, `value="CRM"`} {
		if !strings.Contains(body, want) {
			t.Errorf("bad service form: no %s", want)
		}
	}

	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer up.Close()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadGateway) }))
	defer down.Close()
	for id, base := range map[string]string{"crm": up.URL, "billing": down.URL} {
		resp, _ = op.post("/services", url.Values{"id": {id}, "name": {strings.ToUpper(id)}, "baseUrl": {base}, "healthEndpoint": {"/health"}})
		wantStatus(t, "create "+id, resp, http.StatusSeeOther)
	}
	if _, err := e.catalog.CheckHealth(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, body = op.get("/services")
	for _, want := range []string{`data-testid="service-row-crm" data-health="up"`, `data-testid="service-row-billing" data-health="down"`, `data-testid="services-down-alert"`, `data-testid="service-row-file-service" data-health="unknown"`} {
		if !strings.Contains(body, want) {
			t.Errorf("catalog: no %s", want)
		}
	}
	if !strings.Contains(body, "HTTP 502") {
		t.Error("the catalog does not say why billing is down")
	}
	// A tenant sees that a service is down, never the operator's hosts.
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system"})
	if _, _, err := e.catalog.Assign(ctx, e.acme.ID, kanri.AssignmentInput{ServiceID: "billing"}); err != nil {
		t.Fatal(err)
	}
	_, tenantPage := e.client(t).signIn("acme", "admin").get("/t/" + e.acme.ID + "/services")
	if !strings.Contains(tenantPage, `class="badge health-down"`) {
		t.Error("the tenant's page does not show billing down")
	}
	if strings.Contains(tenantPage, "HTTP 502") || strings.Contains(tenantPage, down.URL) {
		t.Error("the tenant's page shows the operator's health details")
	}
	// Built-in services cannot be deleted: no button, and a forged POST
	// is refused.
	if strings.Contains(body, `data-testid="service-delete-file-service"`) {
		t.Error("a built-in service has a Delete button")
	}
	resp, _ = op.post("/services/file-service/delete", nil)
	wantStatus(t, "delete a built-in service", resp, http.StatusSeeOther)
	if _, body = op.get("/services"); !strings.Contains(body, "Built-in services cannot be deleted") {
		t.Error("the refusal does not say why")
	}
	if _, err := e.catalog.Get(context.Background(), kanri.FileServiceID); err != nil {
		t.Errorf("the built-in service is gone: %v", err)
	}

	// A stale edit shows the stored version and keeps the input.
	_, form := op.get("/services/crm/edit")
	etag := between(form, `name="etag" value="`, `"`)
	resp, _ = op.post("/services/crm", url.Values{"etag": {etag}, "name": {"CRM 2"}, "version": {"2"}})
	wantStatus(t, "edit", resp, http.StatusSeeOther)
	resp, body = op.post("/services/crm", url.Values{"etag": {etag}, "name": {"CRM 3"}})
	wantStatus(t, "stale edit", resp, http.StatusConflict)
	if !strings.Contains(body, `data-testid="stale-name">CRM 2<`) || !strings.Contains(body, `value="CRM 3"`) {
		t.Error("the stale form does not show the stored name next to the input")
	}

	// Tenants' administrators never reach the catalog.
	admin := e.client(t).signIn("acme", "admin")
	resp, _ = admin.get("/services")
	wantStatus(t, "tenant admin opens the catalog", resp, http.StatusNotFound)
}

func TestTenantServicePages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	op := e.client(t).signIn("privileged", adminEmail)
	base := "/t/" + e.acme.ID + "/services"

	_, body := op.get(base)
	if !strings.Contains(body, `data-testid="service-assign-file-service"`) {
		t.Fatal("the operator sees no Assign for file-service")
	}
	// Bad sizes keep the input.
	resp, body := op.post(base+"/file-service", url.Values{"config.maxFileSize": {"ten"}, "config.maxStorage": {"100GB"}})
	wantStatus(t, "bad size", resp, http.StatusUnprocessableEntity)
	if !strings.Contains(body, `data-testid="field-error-config.maxFileSize"`) || !strings.Contains(body, `value="ten"`) {
		t.Error("the bad size is not reported with the input kept")
	}
	resp, _ = op.post(base+"/file-service", url.Values{"config.maxFileSize": {"10mb"}, "config.maxStorage": {"100GB"}})
	wantStatus(t, "assign", resp, http.StatusSeeOther)
	a, err := e.catalog.Assignment(context.Background(), e.acme.ID, kanri.FileServiceID)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.Config["maxFileSize"], "10MB"; got != want {
		t.Errorf("stored maxFileSize: got %v, want %v", got, want)
	}
	// Assigning again changes nothing.
	resp, _ = op.post(base+"/file-service", url.Values{"config.maxFileSize": {"1MB"}})
	wantStatus(t, "assign twice", resp, http.StatusSeeOther)
	if again, _ := e.catalog.Assignment(context.Background(), e.acme.ID, kanri.FileServiceID); again.ETag != a.ETag {
		t.Error("assigning twice changed the assignment")
	}
	resp, _ = op.post(base+"/file-service/suspend", url.Values{"etag": {a.ETag}, "state": {kanri.AssignmentActive}})
	wantStatus(t, "suspend", resp, http.StatusSeeOther)
	if err := e.catalog.Usable(context.Background(), e.acme.ID, kanri.FileServiceID); !kanri.IsCode(err, kanri.EFORBIDDEN) {
		t.Errorf("Usable after suspend: got %v, want EFORBIDDEN", err)
	}

	// acme's administrator sees the assigned service read-only.
	admin := e.client(t).signIn("acme", "admin")
	resp, body = admin.get(base)
	wantStatus(t, "tenant admin's services", resp, http.StatusOK)
	if !strings.Contains(body, `data-testid="tenant-service-file-service" data-status="suspended"`) {
		t.Error("the tenant admin does not see the suspended file service")
	}
	for _, hidden := range []string{"service-assign-", "service-suspend-", "service-reactivate-", "service-end-", "service-configure-", "tenant-service-messaging-service"} {
		if strings.Contains(body, hidden) {
			t.Errorf("the tenant admin sees %s", hidden)
		}
	}
	resp, _ = admin.post(base+"/file-service/reactivate", nil)
	wantStatus(t, "tenant admin reactivates", resp, http.StatusForbidden)

	// The file service's page charts its usage.
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system"})
	if err := e.catalog.AddUsage(ctx, e.acme.ID, kanri.FileServiceID, map[string]int64{kanri.MetricAPICalls: 42, kanri.MetricBandwidth: 3 << 20}); err != nil {
		t.Fatal(err)
	}
	period := kanri.Period(e.clock.Now())
	_, body = admin.get(base + "/file-service")
	if strings.Contains(body, `data-testid="service-not-available"`) || !strings.Contains(body, `data-testid="chart"`) {
		t.Error("the file service's page says it is not available, or does not chart its usage")
	}

	// globex sees nothing of acme's: not the page, not the usage.
	gl := e.client(t).signIn("globex", "admin")
	resp, _ = gl.get(base)
	wantStatus(t, "globex opens acme's services", resp, http.StatusNotFound)
	resp, _ = gl.get("/t/" + e.globex.ID + "/services/file-service")
	wantStatus(t, "globex's unassigned file service", resp, http.StatusNotFound)
	_, body = gl.get("/t/" + e.globex.ID + "/services")
	if strings.Contains(body, `data-testid="tenant-service-file-service"`) || !strings.Contains(body, `data-testid="tenant-service-auth-service"`) {
		t.Error("globex's services page lists acme's file service, or not the services every organisation has")
	}

	// The operator ends the assignment; the usage stays.
	a, _ = e.catalog.Assignment(context.Background(), e.acme.ID, kanri.FileServiceID)
	resp, _ = op.post(base+"/file-service/end", url.Values{"etag": {a.ETag}, "state": {kanri.AssignmentSuspended}})
	wantStatus(t, "end", resp, http.StatusSeeOther)
	if _, err := e.catalog.Assignment(context.Background(), e.acme.ID, kanri.FileServiceID); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("after end: got %v, want ENOTFOUND", err)
	}
	_, body = op.get("/services/usage?period=" + period)
	if !strings.Contains(body, `data-testid="usage-row-`+e.acme.ID+`-file-service"`) {
		t.Error("the operator's usage page does not show acme's usage")
	}
	if !strings.Contains(body, "<td>"+e.acme.DisplayName+"</td>") {
		t.Error("the operator's usage page does not name the tenant")
	}
	// Every change is in the tenant's audit log.
	recs, _, _ := e.st.Tenant(e.acme.ID).AuditLogs().Query(context.Background(), docstore.Query{Where: []docstore.Filter{docstore.Prefix("action", "service.")}})
	var actions []string
	for _, r := range recs {
		actions = append(actions, r.Action)
	}
	for _, want := range []string{"service.assign", "service.suspend", "service.end"} {
		if !strings.Contains(strings.Join(actions, " "), want) {
			t.Errorf("audit: no %s in %v", want, actions)
		}
	}
}

// between returns the text of s between the first from and the next to.
func between(s, from, to string) string {
	_, after, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(after, to)
	return html.UnescapeString(v)
}

// TestTenantWithActiveServicesIsNotDeleted checks that a tenant with an
// active (and unexpired) service assignment cannot be deleted
// (docs/data-model.md, "Soft deletion").
func TestTenantWithActiveServicesIsNotDeleted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true})
	ten, err := e.tenants.Create(ctx, kanri.TenantInput{Name: "empty", DisplayName: "Empty", Plan: kanri.PlanFree, MaxUsers: 5})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.catalog.Assign(ctx, ten.ID, kanri.AssignmentInput{ServiceID: kanri.MessagingServiceID, ExpiresAt: kanri.Period(e.clock.Now().AddDate(0, 2, 0)) + "-01"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.tenants.Delete(ctx, ten.ID, kanri.Seen{}); !hasKey(err, "error.tenant_has_assignments") {
		t.Errorf("delete with an active service: got %v, want error.tenant_has_assignments", err)
	}
	e.clock.Advance(100 * 24 * time.Hour) // past the expiry
	if _, err := e.tenants.Delete(ctx, ten.ID, kanri.Seen{}); err != nil {
		t.Errorf("delete once the assignment expired: %v", err)
	}
}

func hasKey(err error, key string) bool { k, _ := kanri.ErrorMessage(err); return k == key }

// TestServicesSayWhatIsTrue checks the services pages: the built-in
// services every organisation has read "Included", not "Not assigned", to
// the operator and to the tenant's people; every service says what it
// gives and whether that needs an assignment; a service whose features do
// not exist yet says so.
func TestServicesSayWhatIsTrue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := "/t/" + e.acme.ID + "/services"
	for _, who := range []struct {
		name string
		c    *client
	}{
		{"operator", e.client(t).signIn("privileged", adminEmail)},
		{"tenant admin", e.client(t).signIn("acme", "admin")},
	} {
		_, body := who.c.get(base)
		for _, c := range []struct {
			id, access, status string
		}{
			{kanri.TenantManagementID, kanri.AccessIncluded, "Included"},
			{kanri.AuthServiceID, kanri.AccessIncluded, "Included"},
			{kanri.ServiceSettingID, kanri.AccessIncluded, "Included"},
		} {
			row := rowOf(body, `data-testid="tenant-service-`+c.id+`"`)
			if row == "" {
				t.Errorf("%s: %s is not listed", who.name, c.id)
				continue
			}
			if !strings.Contains(row, `data-access="`+c.access+`"`) || !strings.Contains(row, `data-testid="assignment-status">`+c.status+`<`) || strings.Contains(row, "Not assigned") {
				t.Errorf("%s: the row of %s does not read %s:\n%s", who.name, c.id, c.status, row)
			}
		}
		if !strings.Contains(body, "the API (with API keys) are each available once their service is assigned") {
			t.Errorf("%s: the page does not say which service gates the API", who.name)
		}
	}
	_, body := e.client(t).signIn("privileged", adminEmail).get(base)
	for id, want := range map[string]string{
		kanri.FileServiceID:      "available while assigned",
		kanri.MessagingServiceID: "available while assigned",
		kanri.BackupServiceID:    "available while assigned",
		kanri.APIServiceID:       "available while assigned",
		kanri.AuthServiceID:      "included, no assignment needed",
	} {
		if row := rowOf(body, `data-testid="tenant-service-`+id+`"`); !strings.Contains(row, want) {
			t.Errorf("the row of %s does not say %q:\n%s", id, want, row)
		}
	}
}

// rowOf returns the table row of body that starts with the attribute attr.
func rowOf(body, attr string) string {
	i := strings.Index(body, attr)
	if i < 0 {
		return ""
	}
	j := strings.Index(body[i:], "</tr>")
	if j < 0 {
		return body[i:]
	}
	return body[i : i+j]
}

// TestServiceUsageChart checks a service's usage page: months only from
// the assignment on, an axis with round values, the values over the bars,
// and "no data yet" for a chart with nothing to show.
func TestServiceUsageChart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system"})
	assigned := e.clock.Now()
	if _, _, err := e.catalog.Assign(ctx, e.acme.ID, kanri.AssignmentInput{ServiceID: kanri.APIServiceID}); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(62 * 24 * time.Hour)
	if err := e.catalog.AddUsage(ctx, e.acme.ID, kanri.APIServiceID, map[string]int64{kanri.MetricAPICalls: 42}); err != nil {
		t.Fatal(err)
	}
	_, body := e.client(t).signIn("acme", "admin").get("/t/" + e.acme.ID + "/services/" + kanri.APIServiceID)

	var want []string
	for m := time.Date(assigned.Year(), assigned.Month(), 1, 0, 0, 0, 0, time.UTC); !m.After(e.clock.Now()); m = m.AddDate(0, 1, 0) {
		want = append(want, kanri.Period(m))
	}
	var got []string
	for _, part := range strings.Split(body, `<tr data-testid="usage-`)[1:] {
		got = append(got, part[:strings.IndexByte(part, '"')])
	}
	if strings.Join(got, ",") != strings.Join(reversed(want), ",") {
		t.Errorf("the usage table's months: got %v, want %v (from the assignment's month on, newest first)", got, reversed(want))
	}
	for _, c := range []struct{ what, want string }{
		{"the bar of this month", `data-testid="bar-` + kanri.Period(e.clock.Now()) + `" data-value="42"`},
		{"the axis's top (42 rounds up to 60 in steps of 20)", `data-testid="chart-tick">60<`},
		{"a step of the axis", `data-testid="chart-tick">20<`},
		{"the value over the bar", `data-testid="chart-value">42<`},
		{"the bandwidth chart's empty state", `data-testid="chart-empty">Bandwidth: no data yet.<`},
		{"the chart's accessible name", `role="img" aria-label="API calls:`},
	} {
		if !strings.Contains(body, c.want) {
			t.Errorf("usage page: no %s (%s)", c.what, c.want)
		}
	}
}

func reversed(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}

// TestNestedSettingsReadable checks that a service's nested settings are
// shown as a list of dotted keys with values by type, on the services page
// and the service's page, not as Go map text or JSON.
func TestNestedSettingsReadable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	op := e.client(t).signIn("privileged", adminEmail)
	op.post("/lang", url.Values{"lang": {"en"}, "next": {"/"}})
	base := "/t/" + e.acme.ID + "/services"
	// A service of the operator's catalog: its config is free JSON.
	if _, err := e.catalog.Create(system(), "crm", kanri.ServiceInput{Name: "CRM"}); err != nil {
		t.Fatal(err)
	}
	op.get(base + "/crm/edit")
	resp, _ := op.post(base+"/crm", url.Values{"configJson": {`{"features":{"forecast":false,"pipeline":true},"seats":5}`}})
	wantStatus(t, "assign", resp, http.StatusSeeOther)
	_, list := op.get(base)
	_, page := op.get(base + "/crm")
	tests := []struct {
		name, body string
		want       []string
	}{
		{"services page", list, []string{"features.forecast: No; features.pipeline: Yes; seats: 5"}},
		{"service page", page, []string{`data-path="features.forecast"><span>features.forecast</span>: <span class="mono">No</span>`, `data-path="seats"`}},
	}
	for _, tt := range tests {
		for _, want := range tt.want {
			if !strings.Contains(tt.body, want) {
				t.Errorf("%s lacks %q", tt.name, want)
			}
		}
		for _, unwanted := range []string{"map[", "{&#34;", `{"forecast`} {
			if strings.Contains(tt.body, unwanted) {
				t.Errorf("%s shows %q", tt.name, unwanted)
			}
		}
	}
}

// TestNameMessages checks that an empty required name asks for a name and
// only a long one speaks of the length, in the catalog's and the API
// keys' forms.
func TestNameMessages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	op := e.client(t).signIn("privileged", adminEmail)
	op.post("/lang", url.Values{"lang": {"en"}, "next": {"/"}})
	op.get("/services/new")
	tests := []struct {
		name, value, want, unwanted string
	}{
		{"empty", "", "Enter a name.", "at most 100"},
		{"blank", "   ", "Enter a name.", "at most 100"},
		{"too long", strings.Repeat("n", 101), "Use at most 100 characters for the name.", "Enter a name."},
	}
	for _, tt := range tests {
		resp, body := op.post("/services", url.Values{"id": {"crm"}, "name": {tt.value}})
		wantStatus(t, tt.name, resp, http.StatusUnprocessableEntity)
		if !strings.Contains(body, tt.want) || strings.Contains(body, tt.unwanted) {
			t.Errorf("service, %s name: got no %q or %q too", tt.name, tt.want, tt.unwanted)
		}
		resp, body = op.post("/t/"+e.acme.ID+"/api-keys", url.Values{"name": {tt.value}, "scopes": {"read"}})
		wantStatus(t, tt.name, resp, http.StatusUnprocessableEntity)
		if !strings.Contains(body, tt.want) || strings.Contains(body, tt.unwanted) {
			t.Errorf("API key, %s name: got no %q or %q too", tt.name, tt.want, tt.unwanted)
		}
	}
}

// TestServiceInUseNamesItsTenants checks that a catalog service that
// cannot be deleted because tenants still have it names them, and says
// when there are more than it names.
func TestServiceInUseNamesItsTenants(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true})
	if _, err := e.catalog.Create(ctx, "crm", kanri.ServiceInput{Name: "CRM"}); err != nil {
		t.Fatal(err)
	}
	holders := []*kanri.Tenant{e.acme, e.globex}
	for i := range 5 {
		ten, err := e.tenants.Create(ctx, kanri.TenantInput{Name: fmt.Sprintf("holder%d", i), DisplayName: fmt.Sprintf("Holder %d", i), Plan: kanri.PlanFree, MaxUsers: 5})
		if err != nil {
			t.Fatal(err)
		}
		holders = append(holders, ten)
	}
	for _, tc := range []struct {
		holders  []*kanri.Tenant
		wantKey  string
		wantArgs string
	}{
		{holders[:2], "services.in_use_by", "acme, globex"},
		{holders, "services.in_use_by_more", ""},
	} {
		if _, err := e.catalog.SetActive(ctx, "crm", kanri.Seen{}, true); err != nil && !kanri.IsCode(err, kanri.ECONFLICT) {
			t.Fatal(err)
		}
		for _, ten := range tc.holders {
			if _, _, err := e.catalog.Assign(ctx, ten.ID, kanri.AssignmentInput{ServiceID: "crm"}); err != nil && !kanri.IsCode(err, kanri.ECONFLICT) {
				t.Fatal(err)
			}
		}
		if _, err := e.catalog.SetActive(ctx, "crm", kanri.Seen{}, false); err != nil && !kanri.IsCode(err, kanri.ECONFLICT) {
			t.Fatal(err)
		}
		_, err := e.catalog.Delete(ctx, "crm", kanri.Seen{})
		key, args := kanri.ErrorMessage(err)
		if key != tc.wantKey || len(args) != 1 {
			t.Fatalf("delete with %d holders: got %v (%s %v), want %s naming them", len(tc.holders), err, key, args, tc.wantKey)
		}
		got := args[0].(string)
		if tc.wantArgs != "" && got != tc.wantArgs {
			t.Errorf("delete with %d holders: names %q, want %q", len(tc.holders), got, tc.wantArgs)
		}
		if n := strings.Count(got, ", ") + 1; tc.wantArgs == "" && n != 5 {
			t.Errorf("delete with %d holders: named %d (%q), want the first 5", len(tc.holders), n, got)
		}
	}
}

// TestServiceSettingsAreTypedAndEnforced: Kanri's services take typed
// settings, not free JSON, and enforce them: with at most 2 channels, the
// third is refused with why, in the console and the API; a service
// without settings says so.
func TestServiceSettingsAreTypedAndEnforced(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	op := e.client(t).signIn("privileged", adminEmail)
	base := "/t/" + e.acme.ID + "/services"
	_, page := op.get(base + "/messaging-service/edit")
	if !strings.Contains(page, `data-testid="assignment-maxChannels"`) || strings.Contains(page, "assignment-config-json") {
		t.Fatal("the messaging service's form is not its typed settings")
	}
	resp, page := op.post(base+"/messaging-service", url.Values{"config.maxChannels": {"two"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(page, `data-testid="field-error-config.maxChannels"`) || !strings.Contains(page, `value="two"`) {
		t.Errorf("a bad count: %d, want 422 with the field's error and the input kept", resp.StatusCode)
	}
	resp, _ = op.post(base+"/messaging-service", url.Values{"config.maxChannels": {"2"}})
	wantStatus(t, "assign with at most 2 channels", resp, http.StatusSeeOther)
	if _, page := op.get(base + "/api-service/edit"); !strings.Contains(page, `data-testid="assignment-no-settings"`) {
		t.Error("the API service's form does not say it has no settings")
	}

	admin := e.client(t).signIn("acme", "admin")
	for _, name := range []string{"one", "two"} {
		resp, _ := admin.post("/t/"+e.acme.ID+"/channels", url.Values{"name": {name}})
		wantStatus(t, "channel "+name, resp, http.StatusSeeOther)
	}
	resp, page = admin.post("/t/"+e.acme.ID+"/channels", url.Values{"name": {"three"}})
	if resp.StatusCode == http.StatusSeeOther || !strings.Contains(page, "most channels (2)") {
		t.Errorf("a third channel: %d, want it refused saying the limit", resp.StatusCode)
	}
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")
	if a := e.api(t, http.MethodPost, "/api/v1/channels", rw, map[string]any{"name": "four"}); a.status != http.StatusConflict {
		t.Errorf("a third channel through the API: %d %s, want 409", a.status, a.body)
	}

	// At most one backup job.
	resp, _ = op.post(base+"/backup-service", url.Values{"config.maxJobs": {"1"}})
	wantStatus(t, "assign backups with at most 1 job", resp, http.StatusSeeOther)
	job := url.Values{"name": {"Nightly"}, "schedule": {"0 3 * * *"}, "parts": {kanri.PartUsers}, "retentionDays": {"7"}, "isActive": {"1"}}
	resp, _ = admin.post("/t/"+e.acme.ID+"/backups", job)
	wantStatus(t, "the first job", resp, http.StatusSeeOther)
	job.Set("name", "Hourly")
	resp, page = admin.post("/t/"+e.acme.ID+"/backups", job)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(page, "most backup jobs (1)") || !strings.Contains(page, `value="Hourly"`) {
		t.Errorf("a second job: %d, want 409 saying the limit with the input kept", resp.StatusCode)
	}
}

// TestAServiceThePlanExcludesIsNotAssigned: the operator is not offered,
// and cannot make, an assignment the tenant's plan excludes (it would
// show active and answer 403); an included service offers no Assign.
func TestAServiceThePlanExcludesIsNotAssigned(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	free, err := e.tenants.Create(system(), kanri.TenantInput{Name: "freebie", DisplayName: "Freebie", Plan: kanri.PlanFree, MaxUsers: 5})
	if err != nil {
		t.Fatal(err)
	}
	op := e.client(t).signIn("privileged", adminEmail)
	base := "/t/" + free.ID + "/services"
	_, page := op.get(base)
	for _, absent := range []string{`data-testid="service-assign-backup-service"`, `data-testid="service-assign-auth-service"`} {
		if strings.Contains(page, absent) {
			t.Errorf("the services page offers %s", absent)
		}
	}
	if !strings.Contains(page, `data-testid="service-assign-file-service"`) {
		t.Error("the services page does not offer the file service")
	}
	resp, page := op.post(base+"/backup-service", url.Values{})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(page, "plan does not include") {
		t.Errorf("assigning a service the plan excludes: %d, want 422 saying why", resp.StatusCode)
	}
	if _, err := e.catalog.Assignment(system(), free.ID, kanri.BackupServiceID); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("the excluded service was assigned: %v", err)
	}
}

// TestNavigationListsUsableServices: the navigation links to the pages of
// the services the tenant may use now, for its administrator and for the
// operator inside it: none before they are assigned, and not while one is
// suspended.
func TestNavigationListsUsableServices(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	staff := e.client(t).signIn("privileged", adminEmail)
	links := []string{"nav-files", "nav-channels", "nav-backups"}
	check := func(when string, want map[string]bool) {
		t.Helper()
		for _, c := range []struct {
			who    string
			client *client
		}{{"the administrator", admin}, {"the operator", staff}} {
			_, page := c.client.get("/t/" + e.acme.ID + "/users")
			for _, nav := range links {
				if got := strings.Contains(page, `data-testid="`+nav+`"`); got != want[nav] {
					t.Errorf("%s, %s: %s shown %v, want %v", when, c.who, nav, got, want[nav])
				}
			}
		}
	}
	check("nothing assigned", map[string]bool{})
	e.assignFiles(t, e.acme.ID)
	e.assignBackups(t, e.acme.ID)
	check("files and backups assigned", map[string]bool{"nav-files": true, "nav-backups": true})
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID})
	if _, err := e.catalog.Suspend(ctx, e.acme.ID, kanri.FileServiceID, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	check("files suspended", map[string]bool{"nav-backups": true})
}
