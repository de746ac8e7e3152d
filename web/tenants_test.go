package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
)

// TestTenantEditShowsEveryError checks that an edit with a maxUsers that is
// not a number shows that error with the others, and keeps what was typed.
func TestTenantEditShowsEveryError(t *testing.T) {
	e := newEnv(t)
	staff := e.client(t).signIn("privileged", adminEmail)
	for _, path := range []string{"/tenants", "/tenants/" + e.acme.ID} {
		resp, body := staff.post(path, url.Values{"name": {"newco"}, "displayName": {""}, "plan": {"standard"}, "maxUsers": {"lots"}})
		wantStatus(t, path, resp, http.StatusUnprocessableEntity)
		for _, want := range []string{`data-testid="field-error-maxUsers"`, `data-testid="field-error-displayName"`, `value="lots"`} {
			if !strings.Contains(body, want) {
				t.Errorf("POST %s: the form lacks %s", path, want)
			}
		}
	}
}

// TestSuspendedTenantIsMarked checks that on a suspended tenant's pages the
// switcher shows that tenant (marked) and a banner says it is suspended.
func TestSuspendedTenantIsMarked(t *testing.T) {
	e := newEnv(t)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", GlobalAdmin: true})
	if _, err := e.tenants.SetStatus(ctx, e.acme.ID, kanri.Seen{}, kanri.TenantSuspended); err != nil {
		t.Fatal(err)
	}
	staff := e.client(t).signIn("privileged", adminEmail)
	_, body := staff.get("/t/" + e.acme.ID + "/users")
	option := regexp.MustCompile(`<option value="` + e.acme.ID + `" selected>\s*acme \(acme\)\s*· Suspended\s*</option>`)
	if !option.MatchString(body) {
		t.Errorf("the switcher does not show acme, selected and marked suspended")
	}
	if !strings.Contains(body, `data-testid="tenant-status-banner"`) {
		t.Errorf("no banner on a suspended tenant's page")
	}
	_, body = staff.get("/t/" + e.globex.ID + "/users")
	if strings.Contains(body, `data-testid="tenant-status-banner"`) {
		t.Errorf("a banner on an active tenant's page")
	}
	if strings.Contains(body, `data-autosubmit`) {
		t.Errorf("the switcher navigates on change (arrow keys): it must wait for Go")
	}
}
