//go:build e2e

package e2e

import (
	"testing"

	"github.com/playwright-community/playwright-go"
)

// layoutSteps are the steps of the console in Japanese and on a narrow screen.
func (s *suite) layoutSteps(t *testing.T) {
	s.step(t, "japanese_ui", []string{"tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.alice), func(t *testing.T) {
		html := s.alice.page.Locator("html")
		h1 := s.alice.page.Locator("main h1")
		s.open(t, s.alice, usersPath, 200)
		s.submitStatus(t, s.alice, s.alice.tid("lang-ja"), "/lang", 303)
		s.atPath(t, s.alice, usersPath)
		s.hasAttr(t, s.alice, html, "html", "lang", "ja")
		if err := s.expect.Locator(h1).ToHaveText("ユーザー一覧"); err != nil {
			t.Fatalf("the Japanese heading of the user list: %v", err)
		}
		s.hasText(t, s.alice, "user-status-alice", "有効")
		s.screenshot(t, s.alice.page, "desktop-users-ja.png") // for humans, also on success

		s.submitStatus(t, s.alice, s.alice.tid("lang-en"), "/lang", 303)
		s.hasAttr(t, s.alice, html, "html", "lang", "en")
		if err := s.expect.Locator(h1).ToHaveText("Users"); err != nil {
			t.Fatalf("the English heading after switching back: %v", err)
		}
	})

	s.step(t, "narrow_viewport_users", []string{"tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.narrow), func(t *testing.T) {
		s.narrow = s.newSession(t, "alice-narrow", &playwright.Size{Width: 390, Height: 844})
		s.signInOK(t, s.narrow, tenantName, "alice", alicePass, usersPath)
		s.visible(t, s.narrow, "users-table")
		s.visible(t, s.narrow, "users-new")
		username := s.narrow.tid("user-row-alice").Locator("td").First()
		if err := s.expect.Locator(username).ToBeInViewport(); err != nil {
			t.Errorf("the username column is not in the 390px viewport: %v", err)
		}
		if err := s.expect.Locator(s.narrow.tid("user-status-alice")).ToBeInViewport(); err != nil {
			t.Errorf("the status column is not in the 390px viewport: %v", err)
		}
		overflow, err := s.narrow.page.Evaluate(`() => document.documentElement.scrollWidth - window.innerWidth`)
		if err != nil {
			t.Fatal(err)
		}
		if n, ok := number(overflow); !ok || n > 1 {
			t.Errorf("the page scrolls sideways at 390px: scrollWidth exceeds the viewport by %v px", overflow)
		}
		s.screenshot(t, s.narrow.page, "narrow-users.png") // for humans, also on success
		// The side navigation hides behind the menu button.
		if err := s.expect.Locator(s.narrow.tid("nav-audit")).ToBeHidden(); err != nil {
			t.Errorf("the side navigation should be folded away at 390px: %v", err)
		}
		if err := s.narrow.page.Locator("[data-toggle-nav]").Click(); err != nil {
			t.Fatalf("opening the menu: %v", err)
		}
		s.visible(t, s.narrow, "nav-audit")
	})
}
