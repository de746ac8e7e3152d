//go:build e2e

package e2e

import (
	"testing"
)

// signOutSteps are the steps of signing out ends the session.
func (s *suite) signOutSteps(t *testing.T) {
	s.step(t, "sign_out", []string{"tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.alice), func(t *testing.T) {
		s.open(t, s.alice, usersPath, 200)
		s.submitStatus(t, s.alice, s.alice.tid("logout-button"), "/logout", 303)
		s.atPath(t, s.alice, "/login")
		s.visible(t, s.alice, "flash")
		s.back(t, s.alice) // the users page is not shown from a cache
		s.visible(t, s.alice, "login-form")
		s.absent(t, s.alice, "users-table")
		s.open(t, s.alice, usersPath, 200) // back at the sign-in page
		s.atPath(t, s.alice, "/login")
		s.visible(t, s.alice, "login-form")
	})
}
