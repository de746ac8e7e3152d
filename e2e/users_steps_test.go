//go:build e2e

package e2e

import (
	"slices"
	"strings"
	"testing"
)

// userSteps are the steps of user administration: forms that keep their input, deactivation, lockout, stale edits, the live search and Back.
func (s *suite) userSteps(t *testing.T) {
	s.step(t, "create_user_validation_keeps_input", []string{"tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.alice), func(t *testing.T) {
		s.open(t, s.alice, usersPath, 200)
		s.click(t, s.alice, "users-new")
		s.atPath(t, s.alice, usersPath+"/new")
		s.fill(t, s.alice, "user-username", "carol")
		s.fill(t, s.alice, "user-email", "carol@example.com")
		s.fill(t, s.alice, "user-display-name", "Carol Jones")
		s.fill(t, s.alice, "user-password", "weakpass")
		s.submitStatus(t, s.alice, s.alice.tid("user-submit"), usersPath, 422)
		s.visible(t, s.alice, "field-error-password")
		if err := s.expect.Locator(s.alice.tid("user-password")).ToBeFocused(); err != nil {
			t.Errorf("after a refused form, focus is not on the field in error: %v", err)
		}
		s.hasValue(t, s.alice, "user-username", "carol")
		s.hasValue(t, s.alice, "user-email", "carol@example.com")
		s.hasValue(t, s.alice, "user-display-name", "Carol Jones")
		s.hasValue(t, s.alice, "user-password", "") // never echoed back

		// Switching language on the refused form leads to the form's own
		// page, with what was typed (but the password) still in it.
		s.click(t, s.alice, "lang-ja")
		s.hasAttr(t, s.alice, s.alice.page.Locator("html"), "page", "lang", "ja")
		s.atPath(t, s.alice, usersPath+"/new")
		s.hasValue(t, s.alice, "user-username", "carol")
		s.hasValue(t, s.alice, "user-email", "carol@example.com")
		s.hasValue(t, s.alice, "user-display-name", "Carol Jones")
		s.click(t, s.alice, "lang-en")
		s.hasAttr(t, s.alice, s.alice.page.Locator("html"), "page", "lang", "en")
		s.hasValue(t, s.alice, "user-username", "carol")

		s.fill(t, s.alice, "user-password", carolPass)
		s.submitStatus(t, s.alice, s.alice.tid("user-submit"), usersPath, 303)
		s.atPath(t, s.alice, usersPath)
		s.containsText(t, s.alice, "flash", "carol")
		s.hasText(t, s.alice, "user-status-carol", "Active")
	})

	s.step(t, "edit_and_deactivate_user", []string{"create_user_validation_keeps_input"}, s.pagesOf(&s.alice), func(t *testing.T) {
		id := s.userID(t, s.alice, tenantID, "carol")
		edit := usersPath + "/" + id + "/edit"
		s.click(t, s.alice, "user-edit-carol")
		s.atPath(t, s.alice, edit)
		s.hasValue(t, s.alice, "user-username", "carol")
		if err := s.expect.Locator(s.alice.tid("user-username")).ToBeDisabled(); err != nil {
			t.Fatalf("the username of an existing user should not be editable: %v", err)
		}
		s.fill(t, s.alice, "user-display-name", "Carol Smith")
		s.submitStatus(t, s.alice, s.alice.tid("user-submit"), usersPath+"/"+id, 303)
		s.atPath(t, s.alice, usersPath)
		s.containsText(t, s.alice, "user-row-carol", "Carol Smith")

		s.click(t, s.alice, "user-edit-carol")
		s.hasText(t, s.alice, "user-status", "Active")
		mark := s.eventMark()
		s.submitStatus(t, s.alice, s.alice.tid("user-deactivate"), usersPath+"/"+id+"/deactivate", 303)
		if !slices.ContainsFunc(s.eventsSince(mark), func(e string) bool { return strings.Contains(e, "dialog confirm") }) {
			t.Errorf("deactivating asked for no confirmation (no confirm() dialog); events: %q", s.eventsSince(mark))
		}
		s.atPath(t, s.alice, edit)
		s.containsText(t, s.alice, "flash", "carol")
		s.hasText(t, s.alice, "user-status", "Inactive")
		s.visible(t, s.alice, "user-reactivate")
		s.open(t, s.alice, usersPath, 200)
		s.hasText(t, s.alice, "user-status-carol", "Inactive")

		carol := s.newSession(t, "carol", nil)
		s.signInFails(t, carol, tenantName, "carol", carolPass)
	})

	s.step(t, "lockout_and_unlock", []string{"tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.alice), func(t *testing.T) {
		s.open(t, s.alice, usersPath, 200)
		s.createUser(t, s.alice, "bob", "Bob Brown", bobPass)

		bob := s.newSession(t, "bob", nil)
		for i := 1; i <= 5; i++ {
			s.signInFails(t, bob, tenantName, "bob", "Wrong-pass-"+strings.Repeat("9", i+2))
		}
		// Locked: even the right password fails, saying so and until when.
		if msg := s.signInFails(t, bob, tenantName, "bob", bobPass); !strings.Contains(msg, "locked") || !strings.Contains(msg, "JST") {
			t.Errorf("a locked account says %q, want that it is locked until a time (JST)", msg)
		}

		s.open(t, s.alice, usersPath, 200)
		s.hasText(t, s.alice, "user-status-bob", "Locked")
		id := s.userID(t, s.alice, tenantID, "bob")
		s.click(t, s.alice, "user-edit-bob")
		s.hasText(t, s.alice, "user-status", "Locked")
		s.submitStatus(t, s.alice, s.alice.tid("user-unlock"), usersPath+"/"+id+"/unlock", 303)
		s.containsText(t, s.alice, "flash", "bob")
		s.hasText(t, s.alice, "user-status", "Active")
		s.absent(t, s.alice, "user-unlock")

		s.signInOK(t, bob, tenantName, "bob", bobPass, "/account") // no roles: the account page, not "Not allowed"
	})

	s.step(t, "stale_edit_detected", []string{"tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.alice), func(t *testing.T) {
		s.open(t, s.alice, usersPath, 200)
		s.createUser(t, s.alice, "dave", "Dave Davis", davePass)
		id := s.userID(t, s.alice, tenantID, "dave")
		edit, save := usersPath+"/"+id+"/edit", usersPath+"/"+id

		// A second tab of the same user on the same form.
		other := &session{label: "alice-tab2", ctx: s.alice.ctx}
		other.page = s.newPage(t, other)
		s.stepSessions = append(s.stepSessions, other)
		s.open(t, s.alice, edit, 200)
		s.open(t, other, edit, 200)

		s.fill(t, s.alice, "user-display-name", "Dave First")
		s.submitStatus(t, s.alice, s.alice.tid("user-submit"), save, 303)
		s.containsText(t, s.alice, "user-row-dave", "Dave First")

		s.fill(t, other, "user-display-name", "Dave Second")
		s.fill(t, other, "user-email", "dave.second@example.com")
		resp := s.submit(t, other, other.tid("user-submit"), save)
		if resp.Status() != 409 {
			t.Fatalf("saving a stale edit answered %d, want 409", resp.Status())
		}
		s.visible(t, other, "stale-notice")
		s.hasText(t, other, "stale-displayName", "Dave First")
		s.hasValue(t, other, "user-display-name", "Dave Second")
		s.hasValue(t, other, "user-email", "dave.second@example.com")

		// The form now holds the current ETag: saving again succeeds.
		if st := s.submit(t, other, other.tid("user-submit"), save).Status(); st != 303 {
			t.Fatalf("saving again after the stale notice answered %d, want 303", st)
		}
		s.atPath(t, other, usersPath)
		s.containsText(t, other, "user-row-dave", "Dave Second")
		s.containsText(t, other, "user-row-dave", "dave.second@example.com")
	})

	s.step(t, "back_after_live_search", []string{"lockout_and_unlock"}, s.pagesOf(&s.alice), func(t *testing.T) {
		s.open(t, s.alice, usersPath, 200)
		s.fill(t, s.alice, "users-search", "bob")
		s.atURL(t, s.alice, usersPath, "q=bob") // the live search pushed its URL
		s.absent(t, s.alice, "user-row-carol")
		s.back(t, s.alice)
		s.atURL(t, s.alice, usersPath)
		for _, id := range []string{"nav-users", "users-search", "users-table", "user-row-carol"} {
			s.visible(t, s.alice, id) // the whole page, not the results alone
		}
		s.forward(t, s.alice)
		s.atURL(t, s.alice, usersPath, "q=bob")
		s.visible(t, s.alice, "nav-users")
		s.hasValue(t, s.alice, "users-search", "bob")
		s.absent(t, s.alice, "user-row-carol")
	})
}
