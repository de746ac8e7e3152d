//go:build e2e

package e2e

import (
	"testing"

	"github.com/playwright-community/playwright-go"
)

// supportSteps: the operator's staff open acme as alice from her page,
// with a reason; every page says so, a change is refused (acme allows
// none); the end gives the staff member their own session back, and
// acme's audit log says what support did. Then alice turns support
// access off, and the staff's page says so; then she approves each
// session, and approves the staff member's request on her support
// requests page.
func (s *suite) supportSteps(t *testing.T) {
	s.step(t, "support_access_read_only_then_ended", []string{"admin_signs_in", "tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.alice), func(t *testing.T) {
		staff := s.newSession(t, "staff", nil)
		s.signInOK(t, staff, "privileged", adminEmail, adminPass, "/tenants")
		aliceID := s.userID(t, staff, tenantID, "alice")
		alicePage := usersPath + "/" + aliceID + "/edit"
		supportPath := usersPath + "/" + aliceID + "/support"
		s.open(t, staff, alicePage, 200)
		s.click(t, staff, "user-support")
		s.atPath(t, staff, supportPath)
		s.visible(t, staff, "support-read-only")

		// A reason is required; then the session opens on alice's start
		// page, under the banner.
		s.submitStatus(t, staff, staff.tid("support-start"), supportPath, 422)
		s.visible(t, staff, "field-error-reason")
		s.fill(t, staff, "support-reason", "Ticket 4711: alice's list looks empty")
		s.submitStatus(t, staff, staff.tid("support-start"), supportPath, 303)
		s.containsText(t, staff, "support-banner", "alice")
		s.absent(t, staff, "user-menu")

		// Pages open; a change is refused and changes nothing.
		s.open(t, staff, usersPath+"/new", 200)
		s.visible(t, staff, "support-banner")
		s.fill(t, staff, "user-username", "sam")
		s.fill(t, staff, "user-email", "sam@example.com")
		s.fill(t, staff, "user-display-name", "Sam Support")
		s.fill(t, staff, "user-password", "Sam-pass-12345678")
		s.submitStatus(t, staff, staff.tid("user-submit"), usersPath, 403)
		s.containsText(t, staff, "error-page", "only look")
		s.open(t, staff, "/account", 403)

		// The end: back on alice's page as the staff member.
		s.submitStatus(t, staff, staff.tid("support-end"), "/support/end", 303)
		s.atPath(t, staff, alicePage)
		s.containsText(t, staff, "flash", "ended")
		s.absent(t, staff, "support-banner")
		s.visible(t, staff, "user-support")
		s.open(t, staff, usersPath, 200)
		s.absent(t, staff, "user-row-sam") // the refused change created nobody
		s.open(t, staff, "/t/"+tenantID+"/audit", 200)
		s.containsText(t, staff, "audit-support", "Ticket 4711")

		// Alice turns support access off: the staff's page says so.
		s.open(t, s.alice, settingsPath, 200)
		if _, err := s.alice.tid("settings-support-access").SelectOption(playwright.SelectOptionValues{Values: &[]string{"off"}}); err != nil {
			t.Fatal(err)
		}
		s.submitStatus(t, s.alice, s.alice.tid("settings-save"), settingsPath, 303)
		s.hasValue(t, s.alice, "settings-support-access", "off")
		s.open(t, staff, supportPath, 200)
		s.visible(t, staff, "support-off")
		s.absent(t, staff, "support-form")

		// Approval per request: the staff member asks, alice approves on
		// her support requests page, the approved request opens a session.
		s.open(t, s.alice, settingsPath, 200)
		if _, err := s.alice.tid("settings-support-access").SelectOption(playwright.SelectOptionValues{Values: &[]string{"approval"}}); err != nil {
			t.Fatal(err)
		}
		s.submitStatus(t, s.alice, s.alice.tid("settings-save"), settingsPath, 303)
		s.open(t, staff, supportPath, 200)
		s.visible(t, staff, "support-needs-approval")
		s.fill(t, staff, "support-reason", "Ticket 4712: alice's uploads fail")
		s.submitStatus(t, staff, staff.tid("support-ask"), supportPath, 303)
		s.visible(t, staff, "support-pending")
		s.click(t, s.alice, "settings-support-requests")
		s.atPath(t, s.alice, "/t/"+tenantID+"/support-requests")
		s.containsText(t, s.alice, "support-request", "Ticket 4712")
		approve, err := s.alice.tid("support-approve").Locator("xpath=ancestor::form").GetAttribute("action")
		if err != nil {
			t.Fatal(err)
		}
		s.submitStatus(t, s.alice, s.alice.tid("support-approve"), approve, 303)
		s.hasText(t, s.alice, "support-request-status", "Approved · alice")
		s.open(t, staff, supportPath, 200)
		s.visible(t, staff, "support-approved")
		s.submitStatus(t, staff, staff.tid("support-start"), supportPath, 303)
		s.containsText(t, staff, "support-banner", "alice")
		s.submitStatus(t, staff, staff.tid("support-end"), "/support/end", 303)
		s.atPath(t, staff, alicePage)

		s.open(t, s.alice, settingsPath, 200)
		if _, err := s.alice.tid("settings-support-access").SelectOption(playwright.SelectOptionValues{Values: &[]string{"on"}}); err != nil {
			t.Fatal(err)
		}
		s.submitStatus(t, s.alice, s.alice.tid("settings-save"), settingsPath, 303)
	})
}
