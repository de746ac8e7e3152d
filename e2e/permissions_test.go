//go:build e2e

package e2e

import (
	"strings"
	"testing"
)

const noraPass = "Nora-pass-1234"

// permissionSteps are the steps of the edges of permissions: a person with
// no role is told so instead of landing on an empty page, and the
// operator removing a tenant's last administrator confirms it with one
// checkbox that serves both Deactivate and Delete.
func (s *suite) permissionSteps(t *testing.T) {
	s.step(t, "someone_without_permissions_is_told_so", []string{"tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.alice), func(t *testing.T) {
		s.open(t, s.alice, usersPath, 200)
		s.createUser(t, s.alice, "nora", "Nora No-Role", noraPass)
		nora := s.newSession(t, "nora", nil)
		s.signInOK(t, nora, tenantName, "nora", noraPass, "/account")
		s.containsText(t, nora, "no-permissions", "You have no permissions in this organisation yet")
		s.visible(t, nora, "nav-no-permissions")
		for _, id := range []string{"nav-users", "nav-audit", "nav-files"} {
			s.absent(t, nora, id)
		}
		s.open(t, nora, usersPath, 403)
		if err := nora.ctx.Close(); err != nil {
			t.Errorf("closing nora's session: %v", err)
		}
	})

	s.step(t, "last_admin_confirmed_by_its_checkbox", []string{"tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.admin, &s.alice), func(t *testing.T) {
		aliceID := s.userID(t, s.admin, tenantID, "alice")
		edit := usersPath + "/" + aliceID + "/edit"
		s.open(t, s.admin, edit, 200)
		s.visible(t, s.admin, "last-admin-warning")
		if n, err := s.admin.page.Locator(`input[name="last_admin"]`).Count(); err != nil || n != 1 {
			t.Errorf("last-administrator checkboxes on the page: %d (%v), want 1", n, err)
		}
		// Unchecked, the browser does not send the deactivation: the form
		// validates (no novalidate) and the required checkbox fails it.
		mark := s.eventMark()
		if blocked, err := s.admin.tid("last-admin-confirm").Evaluate(`(el) => !el.form.noValidate && !el.form.checkValidity()`, nil); err != nil || blocked != true {
			t.Errorf("the form would be sent without the confirmation: %v (%v)", blocked, err)
		}
		s.click(t, s.admin, "user-deactivate")
		if evs := strings.Join(s.eventsSince(mark), "\n"); strings.Contains(evs, "dialog") {
			t.Errorf("a confirmation was asked before the checkbox was checked:\n%s", evs)
		}
		s.atPath(t, s.admin, edit)
		s.containsText(t, s.admin, "user-status", "Active")

		// Checked, Deactivate deactivates (after its own confirmation).
		if err := s.admin.tid("last-admin-confirm").Check(); err != nil {
			t.Fatalf("checking the confirmation: %v", err)
		}
		s.submitStatus(t, s.admin, s.admin.tid("user-deactivate"), usersPath+"/"+aliceID+"/deactivate", 303)
		s.containsText(t, s.admin, "flash", "alice")
		s.open(t, s.admin, usersPath, 200)
		s.hasText(t, s.admin, "user-status-alice", "Inactive")

		// Put alice back for the steps that follow: reactivated, signed in.
		s.open(t, s.admin, edit, 200)
		s.submitStatus(t, s.admin, s.admin.tid("user-reactivate"), usersPath+"/"+aliceID+"/reactivate", 303)
		s.open(t, s.admin, usersPath, 200)
		s.hasText(t, s.admin, "user-status-alice", "Active")
		s.signInOK(t, s.alice, tenantName, "alice", alicePass, usersPath)
	})
}
