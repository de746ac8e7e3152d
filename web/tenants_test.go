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
	t.Parallel()
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
	t.Parallel()
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

// TestSwitcherShowsThisInstancesChangesAtOnce changes tenants while the
// switcher's list is cached (the test's clock stands still, so it never
// expires): the next page shows each change.
func TestSwitcherShowsThisInstancesChangesAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true})
	gone, err := e.tenants.Create(ctx, kanri.TenantInput{Name: "goneco", DisplayName: "Gone Co", Plan: kanri.PlanFree, MaxUsers: 5})
	if err != nil {
		t.Fatal(err)
	}
	staff := e.client(t).signIn("privileged", adminEmail)
	page := "/t/" + e.globex.ID + "/users"
	option := func(id string) string {
		_, body := staff.get(page)
		m := regexp.MustCompile(`(?s)<option value="` + regexp.QuoteMeta(id) + `"[^>]*>(.*?)</option>`).FindStringSubmatch(body)
		if m == nil {
			return ""
		}
		return strings.Join(strings.Fields(m[1]), " ")
	}
	if got, want := option(gone.ID), "Gone Co (goneco)"; got != want {
		t.Fatalf("before any change: got %q, want %q", got, want)
	}
	for _, tc := range []struct {
		name   string
		change func() error
		want   string
	}{
		{"suspended", func() error {
			_, err := e.tenants.SetStatus(ctx, gone.ID, kanri.Seen{}, kanri.TenantSuspended)
			return err
		}, "Gone Co (goneco) · Suspended"},
		{"reactivated", func() error {
			_, err := e.tenants.SetStatus(ctx, gone.ID, kanri.Seen{}, kanri.TenantActive)
			return err
		}, "Gone Co (goneco)"},
		{"deleted", func() error { _, err := e.tenants.Delete(ctx, gone.ID, kanri.Seen{}); return err }, ""},
	} {
		if err := tc.change(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := option(gone.ID); got != tc.want {
			t.Errorf("%s: the switcher shows %q, want %q", tc.name, got, tc.want)
		}
	}
}
