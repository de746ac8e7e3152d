//go:build e2e

package e2e

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// The tenant and users the scenarios create.
const (
	tenantName    = "acme"
	tenantID      = "tenant_acme"
	tenantDisplay = "Acme Corp"
	alicePass     = "Alice-pass-123"
	bobPass       = "Bob-pass-1234"
	carolPass     = "Carol-pass-123"
	davePass      = "Dave-pass-1234"
	veraPass      = "Vera-pass-1234"
	fumiPass      = "Fumi-pass-1234"
	bobNewPass    = "Bob-new-pass-5678"
)

const (
	usersPath    = "/t/" + tenantID + "/users"
	servicesPath = "/t/" + tenantID + "/services"
	domainsPath  = "/t/" + tenantID + "/domains"
	keysPath     = "/t/" + tenantID + "/api-keys"
)

// TestConsole runs the console's scenarios in order, in one browser against
// one server, on the store chosen by KANRI_E2E_STORE (embedded or cosmos).
// Subtests are named TestConsole/<store>/<step>.
func TestConsole(t *testing.T) {
	store := storeUnderTest(t)
	t.Run(store, func(t *testing.T) {
		start := time.Now()
		removeOldScreenshots(t, store)
		browser := startBrowser(t) // first: a missing Chromium or driver fails at once
		s := &suite{
			srv:     startServer(t, store),
			browser: browser,
			expect:  playwright.NewPlaywrightAssertions(float64(expectTimeout.Milliseconds())),
			passed:  map[string]bool{},
			userIDs: map[string]string{},
		}
		for _, steps := range []func(*testing.T){
			s.signInSteps,
			s.tenantSteps,
			s.userSteps,
			s.auditSteps,
			s.importSteps,
			s.settingsSteps,
			s.layoutSteps,
			s.accountSteps,
			s.roleSteps,
			s.serviceSteps,
			s.fileSteps,
			s.channelSteps,
			s.backupSteps,
			s.privacySteps,
			s.migrationSteps,
			s.archiveSteps,
			s.twoFactorSteps,
			s.passkeySteps,
			s.supportSteps,
			s.domainSteps,
			s.webhookSteps,
			s.ssoSteps,
			s.scimSteps,
			s.apiKeySteps,
			s.corsSteps,
			s.listPagesSteps,
			s.apiDocsSteps,
			s.permissionSteps,
			s.signOutSteps,
		} {
			steps(t)
		}

		t.Logf("%s store: scenarios took %s", store, time.Since(start).Round(time.Millisecond))
		t.Log(s.axe.String())
	})
}

// createUser fills the new user form from the user list of the current
// tenant and checks the user is listed as active.
func (s *suite) createUser(t *testing.T, p *session, username, display, password string) {
	t.Helper()
	s.click(t, p, "users-new")
	s.atPath(t, p, usersPath+"/new")
	s.fill(t, p, "user-username", username)
	s.fill(t, p, "user-email", username+"@example.com")
	s.fill(t, p, "user-display-name", display)
	s.fill(t, p, "user-password", password)
	s.submitStatus(t, p, p.tid("user-submit"), usersPath, 303)
	s.atPath(t, p, usersPath)
	s.containsText(t, p, "flash", username)
	s.containsText(t, p, "user-row-"+username, display)
	s.hasText(t, p, "user-status-"+username, "Active")
}

// filterAudit filters the audit page by action and returns the actions of
// the rows shown.
func (s *suite) filterAudit(t *testing.T, p *session, action string) []string {
	t.Helper()
	s.filterAuditBy(t, p, "action", action)
	return rowAttrs(t, p.tid("audit-row"), "data-action")
}

// filterAuditBy sets the audit page's filter param (its field is
// audit-filter-<param>) to value, submits the filters and waits for the
// rows or the empty notice.
func (s *suite) filterAuditBy(t *testing.T, p *session, param, value string) {
	t.Helper()
	s.fill(t, p, "audit-filter-"+param, value)
	if err := p.tid("audit-filter-submit").Click(); err != nil {
		t.Fatal(err)
	}
	filtered := func(raw string) bool {
		u, err := url.Parse(raw)
		return err == nil && strings.HasSuffix(u.Path, "/audit") && u.Query().Get(param) == value
	}
	if err := waitURL(p, filtered); err != nil {
		t.Fatalf("filtering the audit log by %s=%s: %v", param, value, err)
	}
	if err := s.expect.Locator(p.page.Locator(`[data-testid="audit-table"], [data-testid="audit-empty"]`).First()).ToBeVisible(); err != nil {
		t.Fatalf("the filtered audit page shows neither rows nor the empty notice: %v", err)
	}
}

// exportAudit downloads the CSV of the audit page and returns its header and
// records, after checking the BOM and the header.
func (s *suite) exportAudit(t *testing.T, p *session) ([]string, [][]string) {
	t.Helper()
	dl, err := p.page.ExpectDownload(func() error { return p.tid("audit-export").Click() })
	if err != nil {
		t.Fatalf("downloading the audit CSV: %v", err)
	}
	if name := dl.SuggestedFilename(); !strings.HasPrefix(name, "audit-"+tenantName+"-") || !strings.HasSuffix(name, ".csv") {
		t.Errorf("the CSV download is named %q, want audit-%s-….csv", name, tenantName)
	}
	path, err := dl.Path()
	if err != nil {
		t.Fatalf("the downloaded CSV: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	body, ok := bytes.CutPrefix(data, []byte("\xEF\xBB\xBF"))
	if !ok {
		t.Errorf("the CSV does not start with a UTF-8 BOM: %q", data[:min(len(data), 20)])
	}
	if !bytes.HasPrefix(body, []byte("timestamp,action,status,")) {
		t.Fatalf("the CSV header is not timestamp,action,status,…: %q", body[:min(len(body), 80)])
	}
	recs, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatalf("the CSV does not parse: %v", err)
	}
	return recs[0], recs[1:]
}

// number converts a number from page.Evaluate (an int or a float64).
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// removeOldScreenshots deletes the failure screenshots of an earlier run on
// the store, so that e2e/screenshots shows only this run's failures.
func removeOldScreenshots(t *testing.T, store string) {
	t.Helper()
	old, _ := filepath.Glob(filepath.Join(repoRoot, "e2e", "screenshots", "TestConsole-"+store+"-*.png"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			t.Logf("removing an old screenshot: %v", err)
		}
	}
}

// apiEveryEndpoint calls every endpoint of the API with a read and write
// key, as a client program would, and checks each answer.
func apiEveryEndpoint(t *testing.T, base, secret string) {
	t.Helper()
	call := func(method, path, ifMatch string, body any, want int) (map[string]any, http.Header) {
		t.Helper()
		var r io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			r = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, base+path, r)
		req.Header.Set("Authorization", "Bearer "+secret)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if ifMatch != "" {
			req.Header.Set("If-Match", ifMatch)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, out)
		}
		var m map[string]any
		json.Unmarshal(out, &m)
		return m, resp.Header
	}
	// The GET /users of the step before is the first call.
	u, _ := call(http.MethodPost, "/api/v1/users", "", map[string]string{"username": "robot", "email": "robot@acme.test", "displayName": "Robot", "password": "Robot-pass-1234"}, 201)
	id, _ := u["id"].(string)
	_, h := call(http.MethodGet, "/api/v1/users/"+id, "", nil, 200)
	call(http.MethodPatch, "/api/v1/users/"+id, `"stale"`, map[string]string{"displayName": "R2"}, 412)
	u, _ = call(http.MethodPatch, "/api/v1/users/"+id, h.Get("ETag"), map[string]string{"displayName": "Robot Two"}, 200)
	if u["displayName"] != "Robot Two" {
		t.Errorf("after PATCH: %v", u)
	}
	call(http.MethodPost, "/api/v1/users/"+id+"/roles", "", map[string]string{"serviceId": "auth-service", "role": "viewer"}, 201)
	roles, _ := call(http.MethodGet, "/api/v1/users/"+id+"/roles", "", nil, 200)
	if items, _ := roles["items"].([]any); len(items) != 1 {
		t.Errorf("roles: %v", roles)
	}
	call(http.MethodDelete, "/api/v1/users/"+id+"/roles/auth-service/viewer", "", nil, 204)
	call(http.MethodPost, "/api/v1/users/"+id+"/deactivate", "", nil, 200)
	call(http.MethodPost, "/api/v1/users/"+id+"/reactivate", "", nil, 200)
	audit, _ := call(http.MethodGet, "/api/v1/audit?action=user.&limit=5", "", nil, 200)
	if items, _ := audit["items"].([]any); len(items) == 0 {
		t.Errorf("audit: %v", audit)
	}
}
