package web_test

import (
	"context"
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

	// Usage shows on the service's page, month by month.
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system"})
	if err := e.catalog.AddUsage(ctx, e.acme.ID, kanri.FileServiceID, map[string]int64{kanri.MetricAPICalls: 42, kanri.MetricBandwidth: 3 << 20}); err != nil {
		t.Fatal(err)
	}
	_, body = admin.get(base + "/file-service")
	period := kanri.Period(e.clock.Now())
	for _, want := range []string{`data-testid="bar-` + period + `" data-value="42"`, `<td>42</td>`, `3 MB`} {
		if !strings.Contains(body, want) {
			t.Errorf("usage page: no %s", want)
		}
	}

	// globex sees nothing of acme's: not the page, not the usage.
	gl := e.client(t).signIn("globex", "admin")
	resp, _ = gl.get(base)
	wantStatus(t, "globex opens acme's services", resp, http.StatusNotFound)
	resp, _ = gl.get("/t/" + e.globex.ID + "/services/file-service")
	wantStatus(t, "globex's unassigned file service", resp, http.StatusNotFound)
	_, body = gl.get("/t/" + e.globex.ID + "/services")
	if !strings.Contains(body, `data-testid="tenant-services-none"`) {
		t.Error("globex's services page does not say that nothing is assigned")
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

// TestTenantWithActiveServicesIsNotDeleted checks spec §9.2: a tenant
// with an active (and unexpired) service assignment cannot be deleted.
func TestTenantWithActiveServicesIsNotDeleted(t *testing.T) {
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
