//go:build e2e

package e2e

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// roleSteps are the steps of roles granted and revoked in place, and failed requests shown to the user.
func (s *suite) roleSteps(t *testing.T) {
	s.step(t, "roles_granted_and_revoked_in_place", []string{"tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.alice, &s.vera), func(t *testing.T) {
		s.open(t, s.alice, usersPath, 200)
		s.createUser(t, s.alice, "vera", "Vera Viewer", veraPass)
		veraID := s.userID(t, s.alice, tenantID, "vera")
		aliceID := s.userID(t, s.alice, tenantID, "alice")
		roles := usersPath + "/" + veraID + "/roles"

		// Without roles, vera can sign in but not see the users.
		s.vera = s.newSession(t, "vera", nil)
		if st := s.signIn(t, s.vera, tenantName, "vera", veraPass); st != 303 {
			t.Fatalf("vera signs in: %d", st)
		}
		s.open(t, s.vera, usersPath, 403)
		s.hasAttr(t, s.vera, s.vera.tid("error-page"), "error-page", "data-status", "403")

		// alice grants the viewer role of the auth service in place.
		s.open(t, s.alice, usersPath, 200)
		s.click(t, s.alice, "user-roles-vera")
		s.atPath(t, s.alice, roles)
		s.visible(t, s.alice, "effective-permissions-empty")
		s.hasAttr(t, s.alice, s.alice.tid("role-cell-auth-service-viewer"), "role cell", "data-assigned", "false")
		s.click(t, s.alice, "role-assign-auth-service-viewer")
		s.hasAttr(t, s.alice, s.alice.tid("role-cell-auth-service-viewer"), "role cell", "data-assigned", "true")
		s.visible(t, s.alice, "perm-users.read")
		s.atPath(t, s.alice, roles) // swapped in place, no navigation

		// vera's next request sees the lists, without create or edit buttons.
		s.open(t, s.vera, usersPath, 200)
		s.visible(t, s.vera, "user-row-alice")
		s.absent(t, s.vera, "users-new")
		s.absent(t, s.vera, "user-edit-alice")
		s.visible(t, s.vera, "nav-audit")

		// vera sees the roles she holds said in words, not only by colour.
		s.open(t, s.vera, roles, 200)
		s.containsText(t, s.vera, "role-held-auth-service-viewer", "Assigned")
		s.absent(t, s.vera, "role-held-auth-service-admin")
		s.absent(t, s.vera, "role-assign-auth-service-admin") // read-only

		// A forged POST, with vera's own valid CSRF token, is refused.
		status, err := s.vera.page.Evaluate(`async (url) => {
			const token = document.querySelector('meta[name="csrf-token"]').content;
			const r = await fetch(url, {method: "POST", headers: {"X-CSRF-Token": token, "Content-Type": "application/x-www-form-urlencoded"}, body: ""});
			return r.status;
		}`, usersPath+"/"+aliceID+"/deactivate")
		if err != nil {
			t.Fatalf("forged POST: %v", err)
		}
		if n, ok := status.(int); !ok || n != 403 {
			t.Fatalf("a viewer's forged deactivate answered %v, want 403", status)
		}
		s.open(t, s.alice, usersPath, 200)
		s.hasText(t, s.alice, "user-status-alice", "Active")

		s.screenshot(t, s.alice.page, "desktop-users.png") // for humans, also on success

		// alice revokes the role; vera's next request is refused again.
		s.open(t, s.alice, roles, 200)
		s.click(t, s.alice, "role-remove-auth-service-viewer")
		s.hasAttr(t, s.alice, s.alice.tid("role-cell-auth-service-viewer"), "role cell", "data-assigned", "false")
		s.open(t, s.vera, usersPath, 403)

		// alice is the last administrator: removing her own admin role is refused.
		s.open(t, s.alice, usersPath+"/"+aliceID+"/roles", 200)
		s.click(t, s.alice, "role-remove-auth-service-admin")
		s.visible(t, s.alice, "user-roles-error")
		s.hasAttr(t, s.alice, s.alice.tid("role-cell-auth-service-admin"), "role cell", "data-assigned", "true")
	})

	s.step(t, "failed_requests_are_shown", []string{"roles_granted_and_revoked_in_place"}, s.pagesOf(&s.alice), func(t *testing.T) {
		roles := usersPath + "/" + s.userID(t, s.alice, tenantID, "vera") + "/roles"
		cell := s.alice.tid("role-cell-file-service-viewer")
		s.open(t, s.alice, roles, 200)
		// The server refuses the request (here: its CSRF token is no
		// longer the session's, so the server answers 403).
		s.route(t, s.alice, roles, func(r playwright.Route) {
			h := r.Request().Headers()
			h["x-csrf-token"] = "stale"
			r.Continue(playwright.RouteContinueOptions{Headers: h})
		})
		s.click(t, s.alice, "role-assign-file-service-viewer")
		s.containsText(t, s.alice, "request-error", "no longer allowed")
		s.hasAttr(t, s.alice, cell, "role cell", "data-assigned", "false")
		// The server cannot be reached.
		s.unroute(t, s.alice, roles)
		s.route(t, s.alice, roles, func(r playwright.Route) { r.Abort("connectionrefused") })
		s.click(t, s.alice, "role-assign-file-service-viewer")
		s.containsText(t, s.alice, "request-error", "could not be reached")
		s.unroute(t, s.alice, roles)
		// Back to normal: a double click sends one request, and the
		// message goes.
		var posts atomic.Int32
		s.alice.page.OnRequest(func(r playwright.Request) {
			if r.Method() == "POST" && strings.HasSuffix(r.URL(), roles) {
				posts.Add(1)
			}
		})
		if _, err := s.alice.page.Evaluate(`(id) => { const b = document.querySelector('[data-testid="' + id + '"]'); b.click(); b.click(); }`, "role-assign-file-service-viewer"); err != nil {
			t.Fatal(err)
		}
		s.hasAttr(t, s.alice, cell, "role cell", "data-assigned", "true")
		if err := s.expect.Locator(s.alice.tid("request-error")).ToBeHidden(); err != nil {
			t.Errorf("the failure message stays after a request that worked: %v", err)
		}
		if got := posts.Load(); got != 1 {
			t.Errorf("a double click sent %d requests, want 1", got)
		}
	})
}
