//go:build e2e

package e2e

import (
	"testing"

	"github.com/playwright-community/playwright-go"
)

// tenantSteps are the steps of the operator creates a tenant and its administrator, long names keep the layout, and a tenant administrator sees only their tenant.
func (s *suite) tenantSteps(t *testing.T) {
	s.step(t, "admin_creates_tenant", []string{"admin_signs_in"}, s.pagesOf(&s.admin), func(t *testing.T) {
		s.open(t, s.admin, "/tenants", 200)
		s.click(t, s.admin, "tenants-new")
		s.atPath(t, s.admin, "/tenants/new")
		fillTenant := func(name, display string) {
			s.fill(t, s.admin, "tenant-name", name)
			s.fill(t, s.admin, "tenant-display-name", display)
			if _, err := s.admin.tid("tenant-plan").SelectOption(playwright.SelectOptionValues{Values: &[]string{"standard"}}); err != nil {
				t.Fatalf("selecting the plan: %v", err)
			}
			s.fill(t, s.admin, "tenant-max-users", "10")
			s.fill(t, s.admin, "tenant-industry", "Manufacturing")
			s.fill(t, s.admin, "tenant-country", "JP")
		}
		fillTenant(tenantName, tenantDisplay)
		s.submitStatus(t, s.admin, s.admin.tid("tenant-submit"), "/tenants", 303)
		s.atPath(t, s.admin, "/tenants")
		s.visible(t, s.admin, "flash")
		s.containsText(t, s.admin, "flash", "first user becomes the organisation's administrator")
		s.containsText(t, s.admin, "flash", "/login, the organisation's sign-in name "+tenantName)
		s.hasAttr(t, s.admin, s.admin.tid("tenant-row-"+tenantName), "tenant-row-"+tenantName, "data-status", "active")
		s.containsText(t, s.admin, "tenant-row-"+tenantName, tenantDisplay)
		// Filtering the list in place clears the creation's message.
		s.fill(t, s.admin, "tenants-search", tenantName)
		s.absent(t, s.admin, "tenant-row-privileged") // filtered
		s.absent(t, s.admin, "flash")

		// The name is taken now: the form comes back with the input.
		s.click(t, s.admin, "tenants-new")
		fillTenant(tenantName, "Acme Again")
		s.submitStatus(t, s.admin, s.admin.tid("tenant-submit"), "/tenants", 422)
		s.visible(t, s.admin, "field-error-name")
		s.hasValue(t, s.admin, "tenant-name", tenantName)
		s.hasValue(t, s.admin, "tenant-display-name", "Acme Again")

		// The search filters the list in place (htmx).
		s.open(t, s.admin, "/tenants", 200)
		s.fill(t, s.admin, "tenants-search", "acm")
		s.absent(t, s.admin, "tenant-row-privileged")
		s.visible(t, s.admin, "tenant-row-"+tenantName)
		s.open(t, s.admin, "/tenants", 200)
		s.screenshot(t, s.admin.page, "desktop-tenants.png") // for humans, also on success
	})

	s.step(t, "long_names_keep_the_layout", []string{"admin_creates_tenant"}, s.pagesOf(&s.admin), func(t *testing.T) {
		long := ""
		for len([]rune(long)) < 200 {
			long += "株式会社ロングネーム International Holdings "
		}
		long = string([]rune(long)[:200])
		s.open(t, s.admin, "/tenants/new", 200)
		s.fill(t, s.admin, "tenant-name", "longco")
		s.fill(t, s.admin, "tenant-display-name", long)
		s.fill(t, s.admin, "tenant-max-users", "10")
		s.submitStatus(t, s.admin, s.admin.tid("tenant-submit"), "/tenants", 303)
		s.open(t, s.admin, "/tenants?q=longco", 200)
		s.open(t, s.admin, "/switch?tenant=tenant_longco", 200) // the tenant's users page
		checkLayout := func(p *session, width int) {
			t.Helper()
			got, err := p.page.Evaluate(`() => {
				const box = (sel) => { const e = document.querySelector(sel); if (!e) return null; const r = e.getBoundingClientRect(); return {w: r.width, h: r.height, right: r.right}; };
				const cur = document.querySelector('[data-testid="current-tenant"]');
				return {
					header: box('header.top').h,
					lang: box('[data-testid="lang-en"]'),
					truncated: cur.scrollWidth > cur.clientWidth,
					title: cur.title,
					overflow: document.documentElement.scrollWidth - window.innerWidth,
					sideUpper: getComputedStyle(document.querySelector('[data-testid="nav-tenant"]')).textTransform,
				};
			}`)
			if err != nil {
				t.Fatal(err)
			}
			m := got.(map[string]any)
			header, _ := number(m["header"])
			lang := m["lang"].(map[string]any)
			langW, _ := number(lang["w"])
			langH, _ := number(lang["h"])
			langRight, _ := number(lang["right"])
			overflow, _ := number(m["overflow"])
			maxHeader := 70.0
			if width < 760 {
				maxHeader = 110 // two rows: controls, then the tenant's name
			}
			if header > maxHeader {
				t.Errorf("%dpx: the header is %.0fpx high, want at most %.0f (a long name must not wrap it)", width, header, maxHeader)
			}
			if langW < 20 || langH > 40 || langRight > float64(width) {
				t.Errorf("%dpx: the language button is %.0fx%.0f at right %.0f: crushed or off screen", width, langW, langH, langRight)
			}
			if m["truncated"] != true || m["title"] != long {
				t.Errorf("%dpx: the tenant's name is not cut with an ellipsis and its title (truncated=%v)", width, m["truncated"])
			}
			if overflow > 1 {
				t.Errorf("%dpx: the page scrolls sideways by %.0fpx", width, overflow)
			}
			if m["sideUpper"] == "uppercase" {
				t.Errorf("%dpx: the side navigation shows the tenant's name in capitals", width)
			}
		}
		checkLayout(s.admin, 1280)
		s.screenshot(t, s.admin.page, "desktop-long-names.png")
		// Identifiers and IPs stay whole in tables.
		s.open(t, s.admin, "/t/tenant_longco/audit", 200)
		ws, err := s.admin.page.Evaluate(`() => [...document.querySelectorAll('[data-testid="audit-row"] .mono')].map(e => getComputedStyle(e).whiteSpace)`)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range ws.([]any) {
			if w != "nowrap" {
				t.Errorf("an identifier cell wraps (white-space %v)", w)
			}
		}
		narrowAdmin := s.newSession(t, "admin-375", &playwright.Size{Width: 375, Height: 812})
		s.signInOK(t, narrowAdmin, "privileged", adminEmail, adminPass, "/tenants")
		s.open(t, narrowAdmin, "/switch?tenant=tenant_longco", 200)
		checkLayout(narrowAdmin, 375)
		s.screenshot(t, narrowAdmin.page, "narrow-long-names.png")
		// The dark theme, chosen and remembered.
		s.submitStatus(t, narrowAdmin, narrowAdmin.tid("theme-dark"), "/theme", 303)
		s.hasAttr(t, narrowAdmin, narrowAdmin.page.Locator("html"), "html", "data-theme", "dark")
		bg, err := narrowAdmin.page.Evaluate(`() => getComputedStyle(document.querySelector('nav.side')).backgroundColor`)
		if err != nil || bg != "rgb(23, 33, 43)" {
			t.Errorf("the dark theme's panels: got %v (%v), want rgb(23, 33, 43)", bg, err)
		}
		s.open(t, narrowAdmin, "/tenants", 200)
		s.hasAttr(t, narrowAdmin, narrowAdmin.page.Locator("html"), "html", "data-theme", "dark")
		s.screenshot(t, narrowAdmin.page, "narrow-tenants-dark.png")
	})

	s.step(t, "admin_creates_tenant_admin", []string{"admin_creates_tenant"}, s.pagesOf(&s.admin), func(t *testing.T) {
		s.open(t, s.admin, "/tenants", 200)
		s.click(t, s.admin, "tenant-users-"+tenantName)
		s.atPath(t, s.admin, usersPath)
		s.hasText(t, s.admin, "current-tenant", tenantDisplay)
		s.visible(t, s.admin, "users-none") // a new tenant: no users yet, and a button to create the first
		s.visible(t, s.admin, "users-create-first")
		s.createUser(t, s.admin, "alice", "Alice Admin", alicePass)
	})

	s.step(t, "tenant_admin_sees_only_own_tenant", []string{"admin_creates_tenant_admin"}, s.pagesOf(&s.alice), func(t *testing.T) {
		s.alice = s.newSession(t, "alice", nil)
		s.signInOK(t, s.alice, tenantName, "alice", alicePass, usersPath)
		s.hasText(t, s.alice, "current-tenant", tenantDisplay)
		s.visible(t, s.alice, "nav-users")
		s.visible(t, s.alice, "nav-audit")
		s.visible(t, s.alice, "user-row-alice")
		s.absent(t, s.alice, "nav-tenants")
		s.absent(t, s.alice, "tenant-switcher")
		for _, path := range []string{"/tenants", "/tenants/new", "/t/tenant_privileged/users", "/t/tenant_privileged/audit", "/t/tenant_privileged/audit.csv"} {
			s.open(t, s.alice, path, 404)
			s.hasAttr(t, s.alice, s.alice.tid("error-page"), "error-page", "data-status", "404")
		}
	})
}
