//go:build e2e

package e2e

import (
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// domainSteps are the steps of a domain verified by a DNS TXT record.
func (s *suite) domainSteps(t *testing.T) {
	s.step(t, "domain_verified_by_dns", []string{"tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.alice), func(t *testing.T) {
		row := s.alice.tid("domain-row-acme.example")
		s.open(t, s.alice, domainsPath, 200)
		s.visible(t, s.alice, "domains-none")
		s.fill(t, s.alice, "domain-input", "co.jp")
		s.submitStatus(t, s.alice, s.alice.tid("domain-add"), domainsPath, 422)
		s.visible(t, s.alice, "field-error-domain")
		s.fill(t, s.alice, "domain-input", "https://Acme.Example/")
		s.submitStatus(t, s.alice, s.alice.tid("domain-add"), domainsPath, 303)
		s.containsText(t, s.alice, "flash", "you typed https://Acme.Example/; only the domain is kept")
		s.hasAttr(t, s.alice, row, "domain row", "data-state", "pending")
		s.hasText(t, s.alice, "domain-record-name", "_kanri-challenge.acme.example")
		token, err := s.alice.tid("domain-token").TextContent()
		if err != nil || !strings.HasPrefix(token, "kanri-verify-") {
			t.Fatalf("the verification token: %q, %v", token, err)
		}
		// A wrong record: the page says what it found.
		s.srv.DNS.Set("_kanri-challenge.acme.example", "an-old-token")
		verify := domainsPath + "/domain_acme_example/verify"
		s.submitStatus(t, s.alice, s.alice.tid("domain-verify-acme.example"), verify, 303)
		s.containsText(t, s.alice, "flash", `holds "an-old-token", not the expected value `+token)
		s.hasAttr(t, s.alice, row, "domain row", "data-state", "pending")
		s.hasText(t, s.alice, "domain-check-result", "Record holds another value")
		// The value is copied with its button.
		if err := s.alice.ctx.GrantPermissions([]string{"clipboard-read", "clipboard-write"}, playwright.BrowserContextGrantPermissionsOptions{Origin: playwright.String(s.srv.URL)}); err != nil {
			t.Fatalf("clipboard permissions: %v", err)
		}
		s.click(t, s.alice, "domain-copy-acme.example")
		s.hasAttr(t, s.alice, s.alice.tid("domain-copy-acme.example"), "copy button", "data-done", "1")
		if clip, err := s.alice.page.Evaluate(`() => navigator.clipboard.readText()`); err != nil || clip != token {
			t.Errorf("the clipboard holds %q (%v), want the token %q", clip, err, token)
		}
		// The right record verifies it.
		s.srv.DNS.Set("_kanri-challenge.acme.example", "v=spf1 -all", token)
		s.submitStatus(t, s.alice, s.alice.tid("domain-verify-acme.example"), verify, 303)
		s.containsText(t, s.alice, "flash", "acme.example verified")
		s.hasAttr(t, s.alice, row, "domain row", "data-state", "verified")
		s.absent(t, s.alice, "domain-verify-acme.example")
		s.screenshot(t, s.alice.page, "desktop-domains.png")
	})
}
