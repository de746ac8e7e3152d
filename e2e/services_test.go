//go:build e2e

package e2e

import (
	"slices"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// serviceSteps are the steps of the operator assigns and suspends a service; the tenant sees it read-only.
func (s *suite) serviceSteps(t *testing.T) {
	s.step(t, "service_assigned_and_suspended", []string{"tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.admin, &s.alice), func(t *testing.T) {
		row := func(p *session) playwright.Locator { return p.tid("tenant-service-file-service") }
		s.open(t, s.admin, servicesPath, 200)
		s.click(t, s.admin, "service-assign-file-service")
		s.atPath(t, s.admin, servicesPath+"/file-service/edit")
		s.fill(t, s.admin, "assignment-maxStorage", "100GB")
		s.fill(t, s.admin, "assignment-maxFileSize", "ten megabytes")
		s.submitStatus(t, s.admin, s.admin.tid("assignment-submit"), servicesPath+"/file-service", 422)
		s.visible(t, s.admin, "field-error-config.maxFileSize")
		s.hasValue(t, s.admin, "assignment-maxFileSize", "ten megabytes")
		s.hasValue(t, s.admin, "assignment-maxStorage", "100GB")
		s.fill(t, s.admin, "assignment-maxFileSize", "10mb")
		s.submitStatus(t, s.admin, s.admin.tid("assignment-submit"), servicesPath+"/file-service", 303)
		s.atPath(t, s.admin, servicesPath)
		s.hasAttr(t, s.admin, row(s.admin), "file-service row", "data-status", "active")
		if err := s.expect.Locator(row(s.admin).GetByTestId("assignment-config")).ToContainText("Maximum file size: 10MB"); err != nil {
			t.Errorf("the stored config is not shown normalised: %v", err)
		}
		mark := s.eventMark()
		s.submitStatus(t, s.admin, s.admin.tid("service-suspend-file-service"), servicesPath+"/file-service/suspend", 303)
		if !slices.ContainsFunc(s.eventsSince(mark), func(e string) bool { return strings.Contains(e, "dialog confirm") }) {
			t.Errorf("suspending asked for no confirmation; events: %q", s.eventsSince(mark))
		}
		s.hasAttr(t, s.admin, row(s.admin), "file-service row", "data-status", "suspended")
		s.visible(t, s.admin, "service-reactivate-file-service")
		s.screenshot(t, s.admin.page, "desktop-tenant-services.png") // for humans, also on success

		// The tenant's administrator sees it, read-only.
		s.open(t, s.alice, usersPath, 200)
		s.click(t, s.alice, "nav-services")
		s.atPath(t, s.alice, servicesPath)
		s.hasAttr(t, s.alice, row(s.alice), "file-service row", "data-status", "suspended")
		for _, id := range []string{"service-reactivate-file-service", "service-end-file-service", "service-configure-file-service", "service-assign-messaging-service", "tenant-service-messaging-service"} {
			s.absent(t, s.alice, id)
		}
		// Services every organisation has read "Included", and the page
		// says which service gates what: the file service's features are
		// available while it is assigned, and its page charts its usage.
		for _, id := range []string{"tenant-management", "auth-service"} {
			if err := s.expect.Locator(s.alice.tid("tenant-service-" + id).GetByTestId("assignment-status")).ToHaveText("Included"); err != nil {
				t.Errorf("%s does not read Included: %v", id, err)
			}
		}
		s.containsText(t, s.alice, "services-gates", "the API (with API keys) are each available once their service is assigned")
		s.containsText(t, s.alice, "tenant-service-file-service", "available while assigned")
		s.click(t, s.alice, "service-usage-file-service")
		s.atPath(t, s.alice, servicesPath+"/file-service")
		s.absent(t, s.alice, "service-not-available")
		s.open(t, s.alice, servicesPath+"/file-service/edit", 403)
		s.open(t, s.alice, "/services", 404)
	})
}
