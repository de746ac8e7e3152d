//go:build e2e

package e2e

import (
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

const piaPass = "Pia-pass-1234567"

// authenticator is Chromium's virtual authenticator of one page (the
// DevTools protocol's WebAuthn domain): a platform authenticator that
// keeps passkeys and checks its user, as a laptop's fingerprint reader.
// It lives as long as its DevTools session, and serves that page only.
type authenticator struct {
	cdp playwright.CDPSession
	id  string
}

// virtualAuthenticator gives p's page an authenticator until the step
// ends.
func (s *suite) virtualAuthenticator(t *testing.T, p *session) *authenticator {
	t.Helper()
	cdp, err := p.ctx.NewCDPSession(p.page)
	if err != nil {
		t.Fatalf("DevTools session: %v", err)
	}
	t.Cleanup(func() { _ = cdp.Detach() })
	if _, err := cdp.Send("WebAuthn.enable", map[string]any{"enableUI": false}); err != nil {
		t.Fatalf("WebAuthn.enable: %v", err)
	}
	res, err := cdp.Send("WebAuthn.addVirtualAuthenticator", map[string]any{"options": map[string]any{
		"protocol": "ctap2", "ctap2Version": "ctap2_1", "transport": "internal",
		"hasResidentKey": true, "hasUserVerification": true, "isUserVerified": true, "automaticPresenceSimulation": true,
	}})
	if err != nil {
		t.Fatalf("WebAuthn.addVirtualAuthenticator: %v", err)
	}
	id, _ := res.(map[string]any)["authenticatorId"].(string)
	if id == "" {
		t.Fatalf("no authenticator id in %v", res)
	}
	return &authenticator{cdp: cdp, id: id}
}

// credentials returns the passkeys the authenticator holds.
func (a *authenticator) credentials(t *testing.T) []map[string]any {
	t.Helper()
	res, err := a.cdp.Send("WebAuthn.getCredentials", map[string]any{"authenticatorId": a.id})
	if err != nil {
		t.Fatalf("WebAuthn.getCredentials: %v", err)
	}
	var out []map[string]any
	list, _ := res.(map[string]any)["credentials"].([]any)
	for _, c := range list {
		if m, ok := c.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// passkeySteps: pia adds a passkey on her account page with her laptop's
// authenticator, signs out and in again with the passkey alone, then
// with her password, which the passkey completes as the second step;
// she removes it, and the device's copy signs her in no more. Then alice
// deletes her.
func (s *suite) passkeySteps(t *testing.T) {
	s.step(t, "passkey_added_signs_in_and_is_removed", []string{"tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.alice), func(t *testing.T) {
		s.open(t, s.alice, usersPath, 200)
		s.createUser(t, s.alice, "pia", "Pia Passkey", piaPass)

		// A passkey belongs to a domain name: pia's browser reaches Kanri
		// as localhost.
		pia := s.newSessionAt(t, "pia", nil, strings.Replace(s.srv.URL, "127.0.0.1", "localhost", 1))
		laptop := s.virtualAuthenticator(t, pia)
		s.signInOK(t, pia, tenantName, "pia", piaPass, "/account")
		s.visible(t, pia, "passkeys-none")
		s.fill(t, pia, "passkey-name-input", "Pia's laptop")
		s.fill(t, pia, "passkey-password-input", piaPass)
		s.submitStatus(t, pia, pia.tid("passkey-add"), "/account/passkeys", 303)
		s.atPath(t, pia, "/account")
		s.containsText(t, pia, "flash", "Pia's laptop")
		s.hasText(t, pia, "passkey-name", "Pia's laptop")
		s.hasText(t, pia, "passkey-last-used", "Never")
		creds := laptop.credentials(t)
		if len(creds) != 1 || creds[0]["isResidentCredential"] != true || creds[0]["rpId"] != "localhost" {
			t.Fatalf("the laptop holds %v, want one discoverable passkey of localhost", creds)
		}

		// The passkey alone: no organisation, name or password.
		s.submitStatus(t, pia, pia.tid("logout-button"), "/logout", 303)
		s.atPath(t, pia, "/login")
		s.submitStatus(t, pia, pia.tid("passkey-signin"), "/login/passkey", 303)
		s.atPath(t, pia, "/account")
		s.visible(t, pia, "user-menu")
		if err := s.expect.Locator(pia.tid("passkey-last-used")).Not().ToHaveText("Never"); err != nil {
			t.Errorf("the passkey's use is not shown: %v", err)
		}

		// The password, then the passkey as the second step (pia has no
		// authenticator app: no code is asked).
		s.submitStatus(t, pia, pia.tid("logout-button"), "/logout", 303)
		if status := s.signIn(t, pia, tenantName, "pia", piaPass); status != 303 {
			t.Fatalf("the password answered %d", status)
		}
		s.atPath(t, pia, "/login/2fa")
		s.absent(t, pia, "second-factor-code")
		s.submitStatus(t, pia, pia.tid("passkey-step"), "/login/2fa/passkey", 303)
		s.atPath(t, pia, "/account")

		// Removed (after a confirmation), the device's copy is refused.
		remove, err := pia.tid("passkey-remove").Locator("xpath=ancestor::form").GetAttribute("action")
		if err != nil {
			t.Fatal(err)
		}
		s.submitStatus(t, pia, pia.tid("passkey-remove"), remove, 303)
		s.atPath(t, pia, "/account")
		s.visible(t, pia, "passkeys-none")
		s.submitStatus(t, pia, pia.tid("logout-button"), "/logout", 303)
		s.submitStatus(t, pia, pia.tid("passkey-signin"), "/login/passkey", 401)
		s.containsText(t, pia, "login-error", "did not sign you in")

		// Pia goes, and her place with her (the tenant's users are few).
		piaID := s.userID(t, s.alice, tenantID, "pia")
		s.open(t, s.alice, usersPath+"/"+piaID+"/edit", 200)
		s.submitStatus(t, s.alice, s.alice.tid("user-delete"), usersPath+"/"+piaID+"/delete", 303)
	})
}
