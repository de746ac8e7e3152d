//go:build e2e

package e2e

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// apiKeySteps are the steps of API keys: created, used against every endpoint, revoked.
func (s *suite) apiKeySteps(t *testing.T) {
	s.step(t, "api_key_created_used_and_revoked", []string{"tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.admin, &s.alice), func(t *testing.T) {
		callAPI := func(secret string) (int, string) {
			req, _ := http.NewRequest(http.MethodGet, s.url("/api/v1/users?limit=5"), nil)
			req.Header.Set("Authorization", "Bearer "+secret)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("calling the API: %v", err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		// The operator makes the API available to the tenant.
		s.open(t, s.admin, servicesPath+"/api-service/edit", 200)
		s.submitStatus(t, s.admin, s.admin.tid("assignment-submit"), servicesPath+"/api-service", 303)

		s.open(t, s.alice, usersPath, 200)
		s.click(t, s.alice, "nav-apikeys")
		s.atPath(t, s.alice, keysPath)
		s.visible(t, s.alice, "apikeys-none")
		s.click(t, s.alice, "apikeys-new")
		s.fill(t, s.alice, "apikey-name", "")
		s.submitStatus(t, s.alice, s.alice.tid("apikey-submit"), keysPath, 422)
		s.visible(t, s.alice, "field-error-name")
		s.fill(t, s.alice, "apikey-name", "nightly")
		if err := s.alice.tid("apikey-scope-write").Check(); err != nil {
			t.Fatalf("checking the write scope: %v", err)
		}
		s.fill(t, s.alice, "apikey-rate-limit", "100")
		s.submitStatus(t, s.alice, s.alice.tid("apikey-submit"), keysPath, 303)
		secretURL := s.alice.page.URL()
		if !strings.HasSuffix(secretURL, "/secret") {
			t.Fatalf("after creating a key the page is %s, want its secret page", secretURL)
		}
		secret, err := s.alice.tid("apikey-secret").TextContent()
		if err != nil || !strings.HasPrefix(secret, "ak_live_") || len(secret) != 57 {
			t.Fatalf("the secret shown: %q, %v", secret, err)
		}
		// Copied with the button, once.
		if err := s.alice.ctx.GrantPermissions([]string{"clipboard-read", "clipboard-write"}, playwright.BrowserContextGrantPermissionsOptions{Origin: playwright.String(s.srv.URL)}); err != nil {
			t.Fatalf("clipboard permissions: %v", err)
		}
		s.click(t, s.alice, "apikey-copy")
		s.hasAttr(t, s.alice, s.alice.tid("apikey-copy"), "copy button", "data-done", "1")
		clip, err := s.alice.page.Evaluate(`() => navigator.clipboard.readText()`)
		if err != nil || clip != secret {
			t.Errorf("the clipboard holds %q (%v), want the secret", clip, err)
		}
		// Switching language on the secret page keeps it shown.
		s.click(t, s.alice, "lang-ja")
		s.hasAttr(t, s.alice, s.alice.page.Locator("html"), "page", "lang", "ja")
		s.hasText(t, s.alice, "apikey-secret", secret)
		s.click(t, s.alice, "lang-en")
		s.hasAttr(t, s.alice, s.alice.page.Locator("html"), "page", "lang", "en")
		s.hasText(t, s.alice, "apikey-secret", secret)
		// A reload makes no second key and shows no secret.
		if _, err := s.alice.page.Reload(); err != nil {
			t.Fatalf("reload: %v", err)
		}
		s.atPath(t, s.alice, keysPath)
		if html, _ := s.alice.page.Content(); strings.Contains(html, secret) {
			t.Error("a reload of the secret page shows the secret")
		}
		if n, _ := s.alice.page.Locator(`[data-testid="apikey-row-nightly"]`).Count(); n != 1 {
			t.Errorf("after a reload there are %d keys named nightly, want 1", n)
		}
		s.visible(t, s.alice, "apikey-created-nightly")
		s.open(t, s.alice, secretURL, 200) // answered after its redirect to the list
		s.atPath(t, s.alice, keysPath)
		if html, _ := s.alice.page.Content(); strings.Contains(html, secret) {
			t.Error("the key list shows the secret again")
		}
		s.hasAttr(t, s.alice, s.alice.tid("apikey-row-nightly"), "key row", "data-status", "active")

		// The test calls the API with the key; the call shows in the
		// usage (written off the request path, within 100 ms).
		if status, body := callAPI(secret); status != 200 || !strings.Contains(body, `"username":"alice"`) {
			t.Fatalf("the API with the new key: %d %s", status, body)
		}
		apiEveryEndpoint(t, s.url(""), secret)
		// All 11 calls are on the page once the usage log has written
		// them (in batches, off the request path): reload until then.
		s.open(t, s.alice, keysPath+"/usage", 200)
		deadline := time.Now().Add(expectTimeout)
		for s.expect.Locator(s.alice.tid("usage-calls")).ToHaveText("11", playwright.LocatorAssertionsToHaveTextOptions{Timeout: playwright.Float(500)}) != nil {
			if time.Now().After(deadline) {
				t.Fatal("the calls never all showed on the usage page")
			}
			if _, err := s.alice.page.Reload(); err != nil {
				t.Fatalf("reload: %v", err)
			}
		}
		s.visible(t, s.alice, "usage-log")
		s.screenshot(t, s.alice.page, "desktop-api-usage.png")
		if n, _ := s.alice.page.Locator(`[data-testid="usage-call"][data-endpoint="/api/v1/users/:id"]`).Count(); n != 3 {
			t.Errorf("the log shows %d calls of /api/v1/users/:id (by route pattern), want 3: GET and two PATCHes", n)
		}

		// Rotated: the new secret shows once; a reload rotates nothing and
		// both secrets keep working.
		s.open(t, s.alice, keysPath, 200)
		href, err := s.alice.tid("apikey-open-nightly").GetAttribute("href")
		if err != nil {
			t.Fatal(err)
		}
		s.submitStatus(t, s.alice, s.alice.tid("apikey-rotate-nightly"), href+"/rotate", 303)
		s.atPath(t, s.alice, href+"/secret")
		s.visible(t, s.alice, "apikey-rotated-grace")
		rotated, err := s.alice.tid("apikey-secret").TextContent()
		if err != nil || !strings.HasPrefix(rotated, "ak_live_") || rotated == secret {
			t.Fatalf("the rotated secret shown: %q, %v", rotated, err)
		}
		if _, err := s.alice.page.Reload(); err != nil {
			t.Fatalf("reload: %v", err)
		}
		s.atPath(t, s.alice, keysPath)
		for _, sec := range []string{secret, rotated} {
			if status, body := callAPI(sec); status != 200 {
				t.Errorf("after a rotation and a reload, a secret is refused: %d %s", status, body)
			}
		}

		// Revoked in the console: the API refuses the key at once.
		mark := s.eventMark()
		s.submitStatus(t, s.alice, s.alice.tid("apikey-revoke-nightly"), href+"/revoke", 303)
		if !slices.ContainsFunc(s.eventsSince(mark), func(e string) bool { return strings.Contains(e, "dialog confirm") }) {
			t.Errorf("revoking asked for no confirmation; events: %q", s.eventsSince(mark))
		}
		s.hasAttr(t, s.alice, s.alice.tid("apikey-row-nightly"), "key row", "data-status", "revoked")
		if status, body := callAPI(secret); status != 401 || !strings.Contains(body, `"type":"`+s.url("/api/v1/docs#problem-unauthenticated")+`"`) {
			t.Errorf("the API with the revoked key: %d %s", status, body)
		}
	})
}
