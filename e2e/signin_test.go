//go:build e2e

package e2e

import (
	"strings"
	"testing"
)

// signInSteps are the steps of the console's first sign-in: errors that reveal nothing, the operator's home.
func (s *suite) signInSteps(t *testing.T) {
	s.step(t, "admin_signs_in", nil, s.pagesOf(&s.admin), func(t *testing.T) {
		s.admin = s.newSession(t, "admin", nil)
		s.open(t, s.admin, "/login", 200)
		s.visible(t, s.admin, "login-form")
		s.hasAttr(t, s.admin, s.admin.page.Locator("html"), "html", "lang", "en")
		wrongPassword := s.signInFails(t, s.admin, "privileged", adminEmail, "Wrong-pass-999")
		s.hasValue(t, s.admin, "login-username", adminEmail) // kept for a retry
		unknownOrg := s.signInFails(t, s.admin, "no-such-org", adminEmail, adminPass)
		if wrongPassword != unknownOrg {
			t.Fatalf("the sign-in errors differ, revealing which part was wrong: wrong password %q, unknown organisation %q", wrongPassword, unknownOrg)
		}
		if want := "Check the organisation's sign-in name (e.g. acme)"; !strings.Contains(unknownOrg, want) {
			t.Fatalf("the sign-in error %q does not say %q", unknownOrg, want)
		}
		s.containsText(t, s.admin, "login-tenant-hint", "sign-in name, e.g. acme")
		s.signInOK(t, s.admin, "privileged", adminEmail, adminPass, "/tenants")
		s.visible(t, s.admin, "nav-tenants")
		s.visible(t, s.admin, "tenant-switcher")
		s.visible(t, s.admin, "tenant-row-privileged")
	})
}
