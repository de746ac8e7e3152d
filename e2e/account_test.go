//go:build e2e

package e2e

import (
	"testing"
)

// accountSteps are the steps of a user's own account: changing the password.
func (s *suite) accountSteps(t *testing.T) {
	s.step(t, "user_changes_own_password", []string{"lockout_and_unlock"}, s.pagesOf(), func(t *testing.T) {
		bob := s.newSession(t, "bob-account", nil)
		if st := s.signIn(t, bob, tenantName, "bob", bobPass); st != 303 {
			t.Fatalf("bob signs in: %d", st)
		}
		s.open(t, bob, "/account", 200)
		s.hasText(t, bob, "account-signin-name", tenantName)
		s.containsText(t, bob, "account-signin-hint", "Use this to sign in")
		s.fill(t, bob, "account-current-password", bobPass)
		s.fill(t, bob, "account-new-password", bobNewPass)
		s.fill(t, bob, "account-confirm-password", bobNewPass+"x")
		s.submitStatus(t, bob, bob.tid("account-password-submit"), "/account/password", 422)
		s.visible(t, bob, "field-error-confirm")
		s.fill(t, bob, "account-current-password", bobPass)
		s.fill(t, bob, "account-new-password", bobNewPass)
		s.fill(t, bob, "account-confirm-password", bobNewPass)
		s.submitStatus(t, bob, bob.tid("account-password-submit"), "/account/password", 303)
		s.atPath(t, bob, "/account")
		s.visible(t, bob, "flash")
		again := s.newSession(t, "bob-again", nil)
		s.signInFails(t, again, tenantName, "bob", bobPass)
		if st := s.signIn(t, again, tenantName, "bob", bobNewPass); st != 303 {
			t.Fatalf("bob signs in with the new password: %d", st)
		}
	})
}
