//go:build e2e

package e2e

import (
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

const tomoPass = "Tomo-pass-123456"

// code is the TOTP code of secret at the step ahead steps from now (the
// server accepts one step of drift, and a code only of a step later than
// the last it accepted).
func code(t *testing.T, secret string, ahead int) string {
	c, err := totp.GenerateCodeCustom(secret, time.Now().Add(time.Duration(ahead)*30*time.Second), totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// twoFactorSteps: tomo enrols by computing the code from the secret shown,
// signs out, signs in with a code, uses a recovery code once (a second use
// fails), and ends another session of his from the account page, which
// signs that browser out.
func (s *suite) twoFactorSteps(t *testing.T) {
	s.step(t, "two_factor_sign_in_and_sessions", []string{"tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.alice), func(t *testing.T) {
		s.open(t, s.alice, usersPath, 200)
		s.createUser(t, s.alice, "tomo", "Tomo Two", tomoPass)

		tomo := s.newSession(t, "tomo", nil)
		s.signInOK(t, tomo, tenantName, "tomo", tomoPass, "/account")
		s.click(t, tomo, "account-twofactor-link")
		s.atPath(t, tomo, "/account/2fa")
		s.submitStatus(t, tomo, tomo.tid("twofactor-setup"), "/account/2fa/setup", 303)
		s.visible(t, tomo, "twofactor-qr")
		secret, err := tomo.tid("twofactor-secret").TextContent()
		if err != nil || len(secret) < 16 {
			t.Fatalf("no secret shown: %q, %v", secret, err)
		}
		s.fill(t, tomo, "twofactor-confirm-code", code(t, secret, 0))
		s.submitStatus(t, tomo, tomo.tid("twofactor-confirm"), "/account/2fa/confirm", 200)
		recovery, err := tomo.tid("recovery-code").AllTextContents()
		if err != nil || len(recovery) != 10 {
			t.Fatalf("%d recovery codes shown (%v), want 10", len(recovery), err)
		}
		s.click(t, tomo, "twofactor-done")
		s.atPath(t, tomo, "/account")

		// Sign out, and in with a code (of the next step: the enrolment's
		// code was used).
		s.submitStatus(t, tomo, tomo.tid("logout-button"), "/logout", 303)
		if status := s.signIn(t, tomo, tenantName, "tomo", tomoPass); status != 303 {
			t.Fatalf("the password answered %d", status)
		}
		s.atPath(t, tomo, "/login/2fa")
		s.fill(t, tomo, "second-factor-code", "000000")
		s.submitStatus(t, tomo, tomo.tid("second-factor-submit"), "/login/2fa", 401)
		s.visible(t, tomo, "login-error")
		s.fill(t, tomo, "second-factor-code", code(t, secret, 1))
		s.submitStatus(t, tomo, tomo.tid("second-factor-submit"), "/login/2fa", 303)
		s.atPath(t, tomo, "/account")

		// A recovery code signs in once; its second use fails.
		s.submitStatus(t, tomo, tomo.tid("logout-button"), "/logout", 303)
		s.signIn(t, tomo, tenantName, "tomo", tomoPass)
		s.fill(t, tomo, "second-factor-code", recovery[0])
		s.submitStatus(t, tomo, tomo.tid("second-factor-submit"), "/login/2fa", 303)
		s.atPath(t, tomo, "/account")
		other := s.newSession(t, "tomo elsewhere", nil)
		s.signIn(t, other, tenantName, "tomo", tomoPass)
		s.fill(t, other, "second-factor-code", recovery[0])
		s.submitStatus(t, other, other.tid("second-factor-submit"), "/login/2fa", 401)
		s.fill(t, other, "second-factor-code", recovery[1])
		s.submitStatus(t, other, other.tid("second-factor-submit"), "/login/2fa", 303)
		s.atPath(t, other, "/account")

		// From his first browser, tomo ends the other session: that browser
		// is signed out at its next page.
		s.open(t, tomo, "/account", 200)
		if err := s.expect.Locator(tomo.tid("session-row")).ToHaveCount(2); err != nil {
			t.Fatalf("the account page does not list two sessions: %v", err)
		}
		s.visible(t, tomo, "session-current")
		end, err := tomo.tid("session-end").Locator("xpath=ancestor::form").GetAttribute("action")
		if err != nil {
			t.Fatal(err)
		}
		s.submitStatus(t, tomo, tomo.tid("session-end"), end, 303)
		if err := s.expect.Locator(tomo.tid("session-row")).ToHaveCount(1); err != nil {
			t.Errorf("the ended session is still listed: %v", err)
		}
		s.open(t, other, "/account", 200)
		s.atPath(t, other, "/login")
		s.open(t, tomo, "/account", 200)
		s.atPath(t, tomo, "/account")
	})
}
