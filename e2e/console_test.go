//go:build e2e

package e2e

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// The tenant and users the scenarios create.
const (
	tenantName    = "acme"
	tenantID      = "tenant_acme"
	tenantDisplay = "Acme Corp"
	alicePass     = "Alice-pass-123"
	bobPass       = "Bob-pass-1234"
	carolPass     = "Carol-pass-123"
	davePass      = "Dave-pass-1234"
	veraPass      = "Vera-pass-1234"
	bobNewPass    = "Bob-new-pass-5678"
)

const (
	usersPath    = "/t/" + tenantID + "/users"
	servicesPath = "/t/" + tenantID + "/services"
	domainsPath  = "/t/" + tenantID + "/domains"
	keysPath     = "/t/" + tenantID + "/api-keys"
)

// TestConsole runs the console's scenarios in order, in one browser against
// one server, on the store chosen by KANRI_E2E_STORE (embedded or cosmos).
// Subtests are named TestConsole/<store>/<step>.
func TestConsole(t *testing.T) {
	store := storeUnderTest(t)
	t.Run(store, func(t *testing.T) {
		start := time.Now()
		removeOldScreenshots(t, store)
		browser := startBrowser(t) // first: a missing Chromium or driver fails at once
		s := &suite{
			srv:     startServer(t, store),
			browser: browser,
			expect:  playwright.NewPlaywrightAssertions(float64(expectTimeout.Milliseconds())),
			passed:  map[string]bool{},
			userIDs: map[string]string{},
		}
		var admin, alice *session
		pagesOf := func(ps ...**session) func() []*session {
			return func() []*session {
				var out []*session
				for _, p := range ps {
					if *p != nil {
						out = append(out, *p)
					}
				}
				return out
			}
		}

		s.step(t, "admin_signs_in", nil, pagesOf(&admin), func(t *testing.T) {
			admin = s.newSession(t, "admin", nil)
			s.open(t, admin, "/login", 200)
			s.visible(t, admin, "login-form")
			s.hasAttr(t, admin, admin.page.Locator("html"), "html", "lang", "en")
			wrongPassword := s.signInFails(t, admin, "privileged", adminEmail, "Wrong-pass-999")
			s.hasValue(t, admin, "login-username", adminEmail) // kept for a retry
			unknownOrg := s.signInFails(t, admin, "no-such-org", adminEmail, adminPass)
			if wrongPassword != unknownOrg {
				t.Fatalf("the sign-in errors differ, revealing which part was wrong: wrong password %q, unknown organisation %q", wrongPassword, unknownOrg)
			}
			s.signInOK(t, admin, "privileged", adminEmail, adminPass, "/tenants")
			s.visible(t, admin, "nav-tenants")
			s.visible(t, admin, "tenant-switcher")
			s.visible(t, admin, "tenant-row-privileged")
		})

		s.step(t, "admin_creates_tenant", []string{"admin_signs_in"}, pagesOf(&admin), func(t *testing.T) {
			s.open(t, admin, "/tenants", 200)
			s.click(t, admin, "tenants-new")
			s.atPath(t, admin, "/tenants/new")
			fillTenant := func(name, display string) {
				s.fill(t, admin, "tenant-name", name)
				s.fill(t, admin, "tenant-display-name", display)
				if _, err := admin.tid("tenant-plan").SelectOption(playwright.SelectOptionValues{Values: &[]string{"standard"}}); err != nil {
					t.Fatalf("selecting the plan: %v", err)
				}
				s.fill(t, admin, "tenant-max-users", "10")
				s.fill(t, admin, "tenant-industry", "Manufacturing")
				s.fill(t, admin, "tenant-country", "JP")
			}
			fillTenant(tenantName, tenantDisplay)
			s.submitStatus(t, admin, admin.tid("tenant-submit"), "/tenants", 303)
			s.atPath(t, admin, "/tenants")
			s.visible(t, admin, "flash")
			s.hasAttr(t, admin, admin.tid("tenant-row-"+tenantName), "tenant-row-"+tenantName, "data-status", "active")
			s.containsText(t, admin, "tenant-row-"+tenantName, tenantDisplay)

			// The name is taken now: the form comes back with the input.
			s.click(t, admin, "tenants-new")
			fillTenant(tenantName, "Acme Again")
			s.submitStatus(t, admin, admin.tid("tenant-submit"), "/tenants", 422)
			s.visible(t, admin, "field-error-name")
			s.hasValue(t, admin, "tenant-name", tenantName)
			s.hasValue(t, admin, "tenant-display-name", "Acme Again")

			// The search filters the list in place (htmx).
			s.open(t, admin, "/tenants", 200)
			s.fill(t, admin, "tenants-search", "acm")
			s.absent(t, admin, "tenant-row-privileged")
			s.visible(t, admin, "tenant-row-"+tenantName)
			s.open(t, admin, "/tenants", 200)
			s.screenshot(t, admin.page, "desktop-tenants.png") // for humans, also on success
		})

		s.step(t, "long_names_keep_the_layout", []string{"admin_creates_tenant"}, pagesOf(&admin), func(t *testing.T) {
			long := ""
			for len([]rune(long)) < 200 {
				long += "株式会社ロングネーム International Holdings "
			}
			long = string([]rune(long)[:200])
			s.open(t, admin, "/tenants/new", 200)
			s.fill(t, admin, "tenant-name", "longco")
			s.fill(t, admin, "tenant-display-name", long)
			s.fill(t, admin, "tenant-max-users", "10")
			s.submitStatus(t, admin, admin.tid("tenant-submit"), "/tenants", 303)
			s.open(t, admin, "/tenants?q=longco", 200)
			s.open(t, admin, "/switch?tenant=tenant_longco", 200) // the tenant's users page
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
			checkLayout(admin, 1280)
			s.screenshot(t, admin.page, "desktop-long-names.png")
			// Identifiers and IPs stay whole in tables.
			s.open(t, admin, "/t/tenant_longco/audit", 200)
			ws, err := admin.page.Evaluate(`() => [...document.querySelectorAll('[data-testid="audit-row"] .mono')].map(e => getComputedStyle(e).whiteSpace)`)
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

		s.step(t, "admin_creates_tenant_admin", []string{"admin_creates_tenant"}, pagesOf(&admin), func(t *testing.T) {
			s.open(t, admin, "/tenants", 200)
			s.click(t, admin, "tenant-users-"+tenantName)
			s.atPath(t, admin, usersPath)
			s.hasText(t, admin, "current-tenant", tenantDisplay)
			s.visible(t, admin, "users-none") // a new tenant: no users yet, and a button to create the first
			s.visible(t, admin, "users-create-first")
			s.createUser(t, admin, "alice", "Alice Admin", alicePass)
		})

		s.step(t, "tenant_admin_sees_only_own_tenant", []string{"admin_creates_tenant_admin"}, pagesOf(&alice), func(t *testing.T) {
			alice = s.newSession(t, "alice", nil)
			s.signInOK(t, alice, tenantName, "alice", alicePass, usersPath)
			s.hasText(t, alice, "current-tenant", tenantDisplay)
			s.visible(t, alice, "nav-users")
			s.visible(t, alice, "nav-audit")
			s.visible(t, alice, "user-row-alice")
			s.absent(t, alice, "nav-tenants")
			s.absent(t, alice, "tenant-switcher")
			for _, path := range []string{"/tenants", "/tenants/new", "/t/tenant_privileged/users", "/t/tenant_privileged/audit", "/t/tenant_privileged/audit.csv"} {
				s.open(t, alice, path, 404)
				s.hasAttr(t, alice, alice.tid("error-page"), "error-page", "data-status", "404")
			}
		})

		s.step(t, "create_user_validation_keeps_input", []string{"tenant_admin_sees_only_own_tenant"}, pagesOf(&alice), func(t *testing.T) {
			s.open(t, alice, usersPath, 200)
			s.click(t, alice, "users-new")
			s.atPath(t, alice, usersPath+"/new")
			s.fill(t, alice, "user-username", "carol")
			s.fill(t, alice, "user-email", "carol@example.com")
			s.fill(t, alice, "user-display-name", "Carol Jones")
			s.fill(t, alice, "user-password", "weakpass")
			s.submitStatus(t, alice, alice.tid("user-submit"), usersPath, 422)
			s.visible(t, alice, "field-error-password")
			if err := s.expect.Locator(alice.tid("user-password")).ToBeFocused(); err != nil {
				t.Errorf("after a refused form, focus is not on the field in error: %v", err)
			}
			s.hasValue(t, alice, "user-username", "carol")
			s.hasValue(t, alice, "user-email", "carol@example.com")
			s.hasValue(t, alice, "user-display-name", "Carol Jones")
			s.hasValue(t, alice, "user-password", "") // never echoed back

			s.fill(t, alice, "user-password", carolPass)
			s.submitStatus(t, alice, alice.tid("user-submit"), usersPath, 303)
			s.atPath(t, alice, usersPath)
			s.containsText(t, alice, "flash", "carol")
			s.hasText(t, alice, "user-status-carol", "Active")
		})

		s.step(t, "edit_and_deactivate_user", []string{"create_user_validation_keeps_input"}, pagesOf(&alice), func(t *testing.T) {
			id := s.userID(t, alice, tenantID, "carol")
			edit := usersPath + "/" + id + "/edit"
			s.click(t, alice, "user-edit-carol")
			s.atPath(t, alice, edit)
			s.hasValue(t, alice, "user-username", "carol")
			if err := s.expect.Locator(alice.tid("user-username")).ToBeDisabled(); err != nil {
				t.Fatalf("the username of an existing user should not be editable: %v", err)
			}
			s.fill(t, alice, "user-display-name", "Carol Smith")
			s.submitStatus(t, alice, alice.tid("user-submit"), usersPath+"/"+id, 303)
			s.atPath(t, alice, usersPath)
			s.containsText(t, alice, "user-row-carol", "Carol Smith")

			s.click(t, alice, "user-edit-carol")
			s.hasText(t, alice, "user-status", "Active")
			mark := s.eventMark()
			s.submitStatus(t, alice, alice.tid("user-deactivate"), usersPath+"/"+id+"/deactivate", 303)
			if !slices.ContainsFunc(s.eventsSince(mark), func(e string) bool { return strings.Contains(e, "dialog confirm") }) {
				t.Errorf("deactivating asked for no confirmation (no confirm() dialog); events: %q", s.eventsSince(mark))
			}
			s.atPath(t, alice, edit)
			s.containsText(t, alice, "flash", "carol")
			s.hasText(t, alice, "user-status", "Inactive")
			s.visible(t, alice, "user-reactivate")
			s.open(t, alice, usersPath, 200)
			s.hasText(t, alice, "user-status-carol", "Inactive")

			carol := s.newSession(t, "carol", nil)
			s.signInFails(t, carol, tenantName, "carol", carolPass)
		})

		s.step(t, "lockout_and_unlock", []string{"tenant_admin_sees_only_own_tenant"}, pagesOf(&alice), func(t *testing.T) {
			s.open(t, alice, usersPath, 200)
			s.createUser(t, alice, "bob", "Bob Brown", bobPass)

			bob := s.newSession(t, "bob", nil)
			for i := 1; i <= 5; i++ {
				s.signInFails(t, bob, tenantName, "bob", "Wrong-pass-"+strings.Repeat("9", i+2))
			}
			s.signInFails(t, bob, tenantName, "bob", bobPass) // locked: even the right password fails

			s.open(t, alice, usersPath, 200)
			s.hasText(t, alice, "user-status-bob", "Locked")
			id := s.userID(t, alice, tenantID, "bob")
			s.click(t, alice, "user-edit-bob")
			s.hasText(t, alice, "user-status", "Locked")
			s.submitStatus(t, alice, alice.tid("user-unlock"), usersPath+"/"+id+"/unlock", 303)
			s.containsText(t, alice, "flash", "bob")
			s.hasText(t, alice, "user-status", "Active")
			s.absent(t, alice, "user-unlock")

			s.signInOK(t, bob, tenantName, "bob", bobPass, "/account") // no roles: the account page, not "Not allowed"
		})

		s.step(t, "stale_edit_detected", []string{"tenant_admin_sees_only_own_tenant"}, pagesOf(&alice), func(t *testing.T) {
			s.open(t, alice, usersPath, 200)
			s.createUser(t, alice, "dave", "Dave Davis", davePass)
			id := s.userID(t, alice, tenantID, "dave")
			edit, save := usersPath+"/"+id+"/edit", usersPath+"/"+id

			// A second tab of the same user on the same form.
			other := &session{label: "alice-tab2", ctx: alice.ctx}
			other.page = s.newPage(t, other)
			s.stepSessions = append(s.stepSessions, other)
			s.open(t, alice, edit, 200)
			s.open(t, other, edit, 200)

			s.fill(t, alice, "user-display-name", "Dave First")
			s.submitStatus(t, alice, alice.tid("user-submit"), save, 303)
			s.containsText(t, alice, "user-row-dave", "Dave First")

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

		s.step(t, "audit_entries_visible", []string{"edit_and_deactivate_user", "lockout_and_unlock", "stale_edit_detected"}, pagesOf(&alice), func(t *testing.T) {
			s.open(t, alice, "/t/"+tenantID+"/audit", 200)
			s.visible(t, alice, "audit-table")
			// action -> at least this many records in tenant acme
			want := []struct {
				action, status string
				min            int
			}{
				{"user.create", "success", 4}, // alice, carol, bob, dave
				{"user.update", "success", 3}, // carol, dave twice
				{"user.deactivate", "success", 1},
				{"user.unlock", "success", 1},
				{"auth.login_failed", "failure", 7}, // bob 5+1, carol inactive
				{"auth.lockout", "", 1},
				{"auth.login", "success", 2}, // alice, bob
			}
			for _, w := range want {
				actions := s.filterAudit(t, alice, w.action)
				if len(actions) < w.min {
					t.Errorf("filter action=%s: %d rows, want at least %d", w.action, len(actions), w.min)
				}
				for _, a := range actions {
					if a != w.action {
						t.Errorf("filter action=%s shows a %s row", w.action, a)
					}
				}
				if w.status != "" {
					for _, st := range rowAttrs(t, alice.tid("audit-row"), "data-status") {
						if st != w.status {
							t.Errorf("a %s row has status %q, want %q", w.action, st, w.status)
						}
					}
				}
			}
			if n := len(s.filterAudit(t, alice, "auth.lockout")); n != 1 {
				t.Errorf("auth.lockout: %d rows, want exactly 1 (one lockout of bob)", n)
			}
			// A prefix matches every action of the resource.
			prefixed := s.filterAudit(t, alice, "user.")
			for _, a := range prefixed {
				if !strings.HasPrefix(a, "user.") {
					t.Errorf("filter action=user. shows a %s row", a)
				}
			}
			for _, a := range []string{"user.create", "user.update", "user.deactivate", "user.unlock"} {
				if !slices.Contains(prefixed, a) {
					t.Errorf("filter action=user. shows no %s row (rows: %v)", a, prefixed)
				}
			}
		})

		s.step(t, "audit_export_csv", []string{"audit_entries_visible"}, pagesOf(&alice), func(t *testing.T) {
			s.open(t, alice, "/t/"+tenantID+"/audit", 200)
			header, rows := s.exportAudit(t, alice)
			col := slices.Index(header, "action")
			if col < 0 {
				t.Fatalf("the CSV header %q has no action column", header)
			}
			seen := map[string]int{}
			for _, r := range rows {
				seen[r[col]]++
			}
			for _, a := range []string{"user.create", "user.update", "user.deactivate", "auth.login_failed", "auth.lockout", "auth.login"} {
				if seen[a] == 0 {
					t.Errorf("the CSV has no %s record (actions: %v)", a, seen)
				}
			}

			// The export follows the page's filters.
			s.open(t, alice, "/t/"+tenantID+"/audit?action=auth.lockout", 200)
			_, rows = s.exportAudit(t, alice)
			if len(rows) != 1 || rows[0][col] != "auth.lockout" {
				t.Errorf("the export of action=auth.lockout has %d rows %q, want the one auth.lockout", len(rows), rows)
			}
		})

		s.step(t, "japanese_ui", []string{"tenant_admin_sees_only_own_tenant"}, pagesOf(&alice), func(t *testing.T) {
			html := alice.page.Locator("html")
			h1 := alice.page.Locator("main h1")
			s.open(t, alice, usersPath, 200)
			s.submitStatus(t, alice, alice.tid("lang-ja"), "/lang", 303)
			s.atPath(t, alice, usersPath)
			s.hasAttr(t, alice, html, "html", "lang", "ja")
			if err := s.expect.Locator(h1).ToHaveText("ユーザー一覧"); err != nil {
				t.Fatalf("the Japanese heading of the user list: %v", err)
			}
			s.hasText(t, alice, "user-status-alice", "有効")
			s.screenshot(t, alice.page, "desktop-users-ja.png") // for humans, also on success

			s.submitStatus(t, alice, alice.tid("lang-en"), "/lang", 303)
			s.hasAttr(t, alice, html, "html", "lang", "en")
			if err := s.expect.Locator(h1).ToHaveText("Users"); err != nil {
				t.Fatalf("the English heading after switching back: %v", err)
			}
		})

		var narrow *session
		s.step(t, "narrow_viewport_users", []string{"tenant_admin_sees_only_own_tenant"}, pagesOf(&narrow), func(t *testing.T) {
			narrow = s.newSession(t, "alice-narrow", &playwright.Size{Width: 390, Height: 844})
			s.signInOK(t, narrow, tenantName, "alice", alicePass, usersPath)
			s.visible(t, narrow, "users-table")
			s.visible(t, narrow, "users-new")
			username := narrow.tid("user-row-alice").Locator("td").First()
			if err := s.expect.Locator(username).ToBeInViewport(); err != nil {
				t.Errorf("the username column is not in the 390px viewport: %v", err)
			}
			if err := s.expect.Locator(narrow.tid("user-status-alice")).ToBeInViewport(); err != nil {
				t.Errorf("the status column is not in the 390px viewport: %v", err)
			}
			overflow, err := narrow.page.Evaluate(`() => document.documentElement.scrollWidth - window.innerWidth`)
			if err != nil {
				t.Fatal(err)
			}
			if n, ok := number(overflow); !ok || n > 1 {
				t.Errorf("the page scrolls sideways at 390px: scrollWidth exceeds the viewport by %v px", overflow)
			}
			s.screenshot(t, narrow.page, "narrow-users.png") // for humans, also on success
			// The side navigation hides behind the menu button.
			if err := s.expect.Locator(narrow.tid("nav-audit")).ToBeHidden(); err != nil {
				t.Errorf("the side navigation should be folded away at 390px: %v", err)
			}
			if err := narrow.page.Locator("[data-toggle-nav]").Click(); err != nil {
				t.Fatalf("opening the menu: %v", err)
			}
			s.visible(t, narrow, "nav-audit")
		})

		s.step(t, "user_changes_own_password", []string{"lockout_and_unlock"}, pagesOf(), func(t *testing.T) {
			bob := s.newSession(t, "bob-account", nil)
			if st := s.signIn(t, bob, tenantName, "bob", bobPass); st != 303 {
				t.Fatalf("bob signs in: %d", st)
			}
			s.open(t, bob, "/account", 200)
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

		var vera *session
		s.step(t, "roles_granted_and_revoked_in_place", []string{"tenant_admin_sees_only_own_tenant"}, pagesOf(&alice, &vera), func(t *testing.T) {
			s.open(t, alice, usersPath, 200)
			s.createUser(t, alice, "vera", "Vera Viewer", veraPass)
			veraID := s.userID(t, alice, tenantID, "vera")
			aliceID := s.userID(t, alice, tenantID, "alice")
			roles := usersPath + "/" + veraID + "/roles"

			// Without roles, vera can sign in but not see the users.
			vera = s.newSession(t, "vera", nil)
			if st := s.signIn(t, vera, tenantName, "vera", veraPass); st != 303 {
				t.Fatalf("vera signs in: %d", st)
			}
			s.open(t, vera, usersPath, 403)
			s.hasAttr(t, vera, vera.tid("error-page"), "error-page", "data-status", "403")

			// alice grants the viewer role of the auth service in place.
			s.open(t, alice, usersPath, 200)
			s.click(t, alice, "user-roles-vera")
			s.atPath(t, alice, roles)
			s.visible(t, alice, "effective-permissions-empty")
			s.hasAttr(t, alice, alice.tid("role-cell-auth-service-viewer"), "role cell", "data-assigned", "false")
			s.click(t, alice, "role-assign-auth-service-viewer")
			s.hasAttr(t, alice, alice.tid("role-cell-auth-service-viewer"), "role cell", "data-assigned", "true")
			s.visible(t, alice, "perm-users.read")
			s.atPath(t, alice, roles) // swapped in place, no navigation

			// vera's next request sees the lists, without create or edit buttons.
			s.open(t, vera, usersPath, 200)
			s.visible(t, vera, "user-row-alice")
			s.absent(t, vera, "users-new")
			s.absent(t, vera, "user-edit-alice")
			s.visible(t, vera, "nav-audit")

			// A forged POST, with vera's own valid CSRF token, is refused.
			status, err := vera.page.Evaluate(`async (url) => {
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
			s.open(t, alice, usersPath, 200)
			s.hasText(t, alice, "user-status-alice", "Active")

			s.screenshot(t, alice.page, "desktop-users.png") // for humans, also on success

			// alice revokes the role; vera's next request is refused again.
			s.open(t, alice, roles, 200)
			s.click(t, alice, "role-remove-auth-service-viewer")
			s.hasAttr(t, alice, alice.tid("role-cell-auth-service-viewer"), "role cell", "data-assigned", "false")
			s.open(t, vera, usersPath, 403)

			// alice is the last administrator: removing her own admin role is refused.
			s.open(t, alice, usersPath+"/"+aliceID+"/roles", 200)
			s.click(t, alice, "role-remove-auth-service-admin")
			s.visible(t, alice, "user-roles-error")
			s.hasAttr(t, alice, alice.tid("role-cell-auth-service-admin"), "role cell", "data-assigned", "true")
		})

		s.step(t, "failed_requests_are_shown", []string{"roles_granted_and_revoked_in_place"}, pagesOf(&alice), func(t *testing.T) {
			roles := usersPath + "/" + s.userID(t, alice, tenantID, "vera") + "/roles"
			cell := alice.tid("role-cell-file-service-viewer")
			s.open(t, alice, roles, 200)
			// The server refuses the request (here: its CSRF token is no
			// longer the session's, so the server answers 403).
			s.route(t, alice, roles, func(r playwright.Route) {
				h := r.Request().Headers()
				h["x-csrf-token"] = "stale"
				r.Continue(playwright.RouteContinueOptions{Headers: h})
			})
			s.click(t, alice, "role-assign-file-service-viewer")
			s.containsText(t, alice, "request-error", "no longer allowed")
			s.hasAttr(t, alice, cell, "role cell", "data-assigned", "false")
			// The server cannot be reached.
			s.unroute(t, alice, roles)
			s.route(t, alice, roles, func(r playwright.Route) { r.Abort("connectionrefused") })
			s.click(t, alice, "role-assign-file-service-viewer")
			s.containsText(t, alice, "request-error", "could not be reached")
			s.unroute(t, alice, roles)
			// Back to normal: a double click sends one request, and the
			// message goes.
			var posts atomic.Int32
			alice.page.OnRequest(func(r playwright.Request) {
				if r.Method() == "POST" && strings.HasSuffix(r.URL(), roles) {
					posts.Add(1)
				}
			})
			if _, err := alice.page.Evaluate(`(id) => { const b = document.querySelector('[data-testid="' + id + '"]'); b.click(); b.click(); }`, "role-assign-file-service-viewer"); err != nil {
				t.Fatal(err)
			}
			s.hasAttr(t, alice, cell, "role cell", "data-assigned", "true")
			if err := s.expect.Locator(alice.tid("request-error")).ToBeHidden(); err != nil {
				t.Errorf("the failure message stays after a request that worked: %v", err)
			}
			if got := posts.Load(); got != 1 {
				t.Errorf("a double click sent %d requests, want 1", got)
			}
		})

		s.step(t, "back_after_live_search", []string{"lockout_and_unlock"}, pagesOf(&alice), func(t *testing.T) {
			s.open(t, alice, usersPath, 200)
			s.fill(t, alice, "users-search", "bob")
			s.atURL(t, alice, usersPath, "q=bob") // the live search pushed its URL
			s.absent(t, alice, "user-row-carol")
			s.back(t, alice)
			s.atURL(t, alice, usersPath)
			for _, id := range []string{"nav-users", "users-search", "users-table", "user-row-carol"} {
				s.visible(t, alice, id) // the whole page, not the results alone
			}
			s.forward(t, alice)
			s.atURL(t, alice, usersPath, "q=bob")
			s.visible(t, alice, "nav-users")
			s.hasValue(t, alice, "users-search", "bob")
			s.absent(t, alice, "user-row-carol")
		})

		s.step(t, "service_assigned_and_suspended", []string{"tenant_admin_sees_only_own_tenant"}, pagesOf(&admin, &alice), func(t *testing.T) {
			row := func(p *session) playwright.Locator { return p.tid("tenant-service-file-service") }
			s.open(t, admin, servicesPath, 200)
			s.click(t, admin, "service-assign-file-service")
			s.atPath(t, admin, servicesPath+"/file-service/edit")
			s.fill(t, admin, "assignment-maxStorage", "100GB")
			s.fill(t, admin, "assignment-maxFileSize", "ten megabytes")
			s.submitStatus(t, admin, admin.tid("assignment-submit"), servicesPath+"/file-service", 422)
			s.visible(t, admin, "field-error-config.maxFileSize")
			s.hasValue(t, admin, "assignment-maxFileSize", "ten megabytes")
			s.hasValue(t, admin, "assignment-maxStorage", "100GB")
			s.fill(t, admin, "assignment-maxFileSize", "10mb")
			s.submitStatus(t, admin, admin.tid("assignment-submit"), servicesPath+"/file-service", 303)
			s.atPath(t, admin, servicesPath)
			s.hasAttr(t, admin, row(admin), "file-service row", "data-status", "active")
			if err := s.expect.Locator(row(admin).GetByTestId("assignment-config")).ToContainText("maxFileSize=10MB"); err != nil {
				t.Errorf("the stored config is not shown normalised: %v", err)
			}
			mark := s.eventMark()
			s.submitStatus(t, admin, admin.tid("service-suspend-file-service"), servicesPath+"/file-service/suspend", 303)
			if !slices.ContainsFunc(s.eventsSince(mark), func(e string) bool { return strings.Contains(e, "dialog confirm") }) {
				t.Errorf("suspending asked for no confirmation; events: %q", s.eventsSince(mark))
			}
			s.hasAttr(t, admin, row(admin), "file-service row", "data-status", "suspended")
			s.visible(t, admin, "service-reactivate-file-service")
			s.screenshot(t, admin.page, "desktop-tenant-services.png") // for humans, also on success

			// The tenant's administrator sees it, read-only.
			s.open(t, alice, usersPath, 200)
			s.click(t, alice, "nav-services")
			s.atPath(t, alice, servicesPath)
			s.hasAttr(t, alice, row(alice), "file-service row", "data-status", "suspended")
			for _, id := range []string{"service-reactivate-file-service", "service-end-file-service", "service-configure-file-service", "service-assign-messaging-service", "tenant-service-messaging-service"} {
				s.absent(t, alice, id)
			}
			s.open(t, alice, servicesPath+"/file-service/edit", 403)
			s.open(t, alice, "/services", 404)
		})

		s.step(t, "domain_verified_by_dns", []string{"tenant_admin_sees_only_own_tenant"}, pagesOf(&alice), func(t *testing.T) {
			row := alice.tid("domain-row-acme.example")
			s.open(t, alice, domainsPath, 200)
			s.visible(t, alice, "domains-none")
			s.fill(t, alice, "domain-input", "co.jp")
			s.submitStatus(t, alice, alice.tid("domain-add"), domainsPath, 422)
			s.visible(t, alice, "field-error-domain")
			s.fill(t, alice, "domain-input", "https://Acme.Example/")
			s.submitStatus(t, alice, alice.tid("domain-add"), domainsPath, 303)
			s.hasAttr(t, alice, row, "domain row", "data-state", "pending")
			s.hasText(t, alice, "domain-record-name", "_kanri-challenge.acme.example")
			token, err := alice.tid("domain-token").TextContent()
			if err != nil || !strings.HasPrefix(token, "kanri-verify-") {
				t.Fatalf("the verification token: %q, %v", token, err)
			}
			// A wrong record: the page says what it found.
			s.srv.DNS.Set("_kanri-challenge.acme.example", "an-old-token")
			verify := domainsPath + "/domain_acme_example/verify"
			s.submitStatus(t, alice, alice.tid("domain-verify-acme.example"), verify, 303)
			s.containsText(t, alice, "flash", `holds "an-old-token", not the expected value `+token)
			s.hasAttr(t, alice, row, "domain row", "data-state", "pending")
			// The right record verifies it.
			s.srv.DNS.Set("_kanri-challenge.acme.example", "v=spf1 -all", token)
			s.submitStatus(t, alice, alice.tid("domain-verify-acme.example"), verify, 303)
			s.containsText(t, alice, "flash", "acme.example verified")
			s.hasAttr(t, alice, row, "domain row", "data-state", "verified")
			s.absent(t, alice, "domain-verify-acme.example")
			s.screenshot(t, alice.page, "desktop-domains.png")
		})

		s.step(t, "api_key_created_used_and_revoked", []string{"tenant_admin_sees_only_own_tenant"}, pagesOf(&admin, &alice), func(t *testing.T) {
			callAPI := func(secret string) (int, string) {
				req, _ := http.NewRequest(http.MethodGet, s.url("/api/v1/users?limit=5"), nil)
				req.Header.Set("Authorization", "Bearer "+secret)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatalf("calling the API: %v", err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, string(b)
			}
			// The operator makes the API available to the tenant.
			s.open(t, admin, servicesPath+"/api-service/edit", 200)
			s.submitStatus(t, admin, admin.tid("assignment-submit"), servicesPath+"/api-service", 303)

			s.open(t, alice, usersPath, 200)
			s.click(t, alice, "nav-apikeys")
			s.atPath(t, alice, keysPath)
			s.visible(t, alice, "apikeys-none")
			s.click(t, alice, "apikeys-new")
			s.fill(t, alice, "apikey-name", "")
			s.submitStatus(t, alice, alice.tid("apikey-submit"), keysPath, 422)
			s.visible(t, alice, "field-error-name")
			s.fill(t, alice, "apikey-name", "nightly")
			if err := alice.tid("apikey-scope-write").Check(); err != nil {
				t.Fatalf("checking the write scope: %v", err)
			}
			s.fill(t, alice, "apikey-rate-limit", "100")
			s.submitStatus(t, alice, alice.tid("apikey-submit"), keysPath, 200)
			secret, err := alice.tid("apikey-secret").TextContent()
			if err != nil || !strings.HasPrefix(secret, "ak_live_") || len(secret) != 57 {
				t.Fatalf("the secret shown: %q, %v", secret, err)
			}
			// Copied with the button, once.
			if err := alice.ctx.GrantPermissions([]string{"clipboard-read", "clipboard-write"}, playwright.BrowserContextGrantPermissionsOptions{Origin: playwright.String(s.srv.URL)}); err != nil {
				t.Fatalf("clipboard permissions: %v", err)
			}
			s.click(t, alice, "apikey-copy")
			s.hasAttr(t, alice, alice.tid("apikey-copy"), "copy button", "data-done", "1")
			clip, err := alice.page.Evaluate(`() => navigator.clipboard.readText()`)
			if err != nil || clip != secret {
				t.Errorf("the clipboard holds %q (%v), want the secret", clip, err)
			}
			s.click(t, alice, "apikey-done")
			s.atPath(t, alice, keysPath)
			if html, _ := alice.page.Content(); strings.Contains(html, secret) {
				t.Error("the key list shows the secret again")
			}
			s.hasAttr(t, alice, alice.tid("apikey-row-nightly"), "key row", "data-status", "active")

			// The test calls the API with the key; the call shows in the
			// usage (written off the request path, within 100 ms).
			if status, body := callAPI(secret); status != 200 || !strings.Contains(body, `"username":"alice"`) {
				t.Fatalf("the API with the new key: %d %s", status, body)
			}
			apiEveryEndpoint(t, s.url(""), secret)
			// All 11 calls are on the page once the usage log has written
			// them (in batches, off the request path): reload until then.
			s.open(t, alice, keysPath+"/usage", 200)
			deadline := time.Now().Add(15 * time.Second)
			for s.expect.Locator(alice.tid("usage-calls")).ToHaveText("11", playwright.LocatorAssertionsToHaveTextOptions{Timeout: playwright.Float(500)}) != nil {
				if time.Now().After(deadline) {
					t.Fatal("the calls never all showed on the usage page")
				}
				if _, err := alice.page.Reload(); err != nil {
					t.Fatalf("reload: %v", err)
				}
			}
			s.visible(t, alice, "usage-log")
			s.screenshot(t, alice.page, "desktop-api-usage.png")
			if n, _ := alice.page.Locator(`[data-testid="usage-call"][data-endpoint="/api/v1/users/:id"]`).Count(); n != 3 {
				t.Errorf("the log shows %d calls of /api/v1/users/:id (by route pattern), want 3: GET and two PATCHes", n)
			}

			// Revoked in the console: the API refuses the key at once.
			s.open(t, alice, keysPath, 200)
			href, err := alice.tid("apikey-open-nightly").GetAttribute("href")
			if err != nil {
				t.Fatal(err)
			}
			mark := s.eventMark()
			s.submitStatus(t, alice, alice.tid("apikey-revoke-nightly"), href+"/revoke", 303)
			if !slices.ContainsFunc(s.eventsSince(mark), func(e string) bool { return strings.Contains(e, "dialog confirm") }) {
				t.Errorf("revoking asked for no confirmation; events: %q", s.eventsSince(mark))
			}
			s.hasAttr(t, alice, alice.tid("apikey-row-nightly"), "key row", "data-status", "revoked")
			if status, body := callAPI(secret); status != 401 || !strings.Contains(body, "urn:kanri:problem:unauthenticated") {
				t.Errorf("the API with the revoked key: %d %s", status, body)
			}
		})

		s.step(t, "sign_out", []string{"tenant_admin_sees_only_own_tenant"}, pagesOf(&alice), func(t *testing.T) {
			s.open(t, alice, usersPath, 200)
			s.submitStatus(t, alice, alice.tid("logout-button"), "/logout", 303)
			s.atPath(t, alice, "/login")
			s.visible(t, alice, "flash")
			s.back(t, alice) // the users page is not shown from a cache
			s.visible(t, alice, "login-form")
			s.absent(t, alice, "users-table")
			s.open(t, alice, usersPath, 200) // back at the sign-in page
			s.atPath(t, alice, "/login")
			s.visible(t, alice, "login-form")
		})

		t.Logf("%s store: scenarios took %s", store, time.Since(start).Round(time.Millisecond))
	})
}

// createUser fills the new user form from the user list of the current
// tenant and checks the user is listed as active.
func (s *suite) createUser(t *testing.T, p *session, username, display, password string) {
	t.Helper()
	s.click(t, p, "users-new")
	s.atPath(t, p, usersPath+"/new")
	s.fill(t, p, "user-username", username)
	s.fill(t, p, "user-email", username+"@example.com")
	s.fill(t, p, "user-display-name", display)
	s.fill(t, p, "user-password", password)
	s.submitStatus(t, p, p.tid("user-submit"), usersPath, 303)
	s.atPath(t, p, usersPath)
	s.containsText(t, p, "flash", username)
	s.containsText(t, p, "user-row-"+username, display)
	s.hasText(t, p, "user-status-"+username, "Active")
}

// filterAudit filters the audit page by action and returns the actions of
// the rows shown.
func (s *suite) filterAudit(t *testing.T, p *session, action string) []string {
	t.Helper()
	s.fill(t, p, "audit-filter-action", action)
	if err := p.tid("audit-filter-submit").Click(); err != nil {
		t.Fatal(err)
	}
	filtered := func(raw string) bool {
		u, err := url.Parse(raw)
		return err == nil && strings.HasSuffix(u.Path, "/audit") && u.Query().Get("action") == action
	}
	if err := p.page.WaitForURL(filtered); err != nil {
		t.Fatalf("filtering the audit log by %s: %v", action, err)
	}
	if err := s.expect.Locator(p.page.Locator(`[data-testid="audit-table"], [data-testid="audit-empty"]`).First()).ToBeVisible(); err != nil {
		t.Fatalf("the filtered audit page shows neither rows nor the empty notice: %v", err)
	}
	return rowAttrs(t, p.tid("audit-row"), "data-action")
}

// exportAudit downloads the CSV of the audit page and returns its header and
// records, after checking the BOM and the header.
func (s *suite) exportAudit(t *testing.T, p *session) ([]string, [][]string) {
	t.Helper()
	dl, err := p.page.ExpectDownload(func() error { return p.tid("audit-export").Click() })
	if err != nil {
		t.Fatalf("downloading the audit CSV: %v", err)
	}
	if name := dl.SuggestedFilename(); !strings.HasPrefix(name, "audit-"+tenantName+"-") || !strings.HasSuffix(name, ".csv") {
		t.Errorf("the CSV download is named %q, want audit-%s-….csv", name, tenantName)
	}
	path, err := dl.Path()
	if err != nil {
		t.Fatalf("the downloaded CSV: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	body, ok := bytes.CutPrefix(data, []byte("\xEF\xBB\xBF"))
	if !ok {
		t.Errorf("the CSV does not start with a UTF-8 BOM: %q", data[:min(len(data), 20)])
	}
	if !bytes.HasPrefix(body, []byte("timestamp,action,status,")) {
		t.Fatalf("the CSV header is not timestamp,action,status,…: %q", body[:min(len(body), 80)])
	}
	recs, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatalf("the CSV does not parse: %v", err)
	}
	return recs[0], recs[1:]
}

// number converts a number from page.Evaluate (an int or a float64).
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// removeOldScreenshots deletes the failure screenshots of an earlier run on
// the store, so that e2e/screenshots shows only this run's failures.
func removeOldScreenshots(t *testing.T, store string) {
	t.Helper()
	old, _ := filepath.Glob(filepath.Join(repoRoot, "e2e", "screenshots", "TestConsole-"+store+"-*.png"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			t.Logf("removing an old screenshot: %v", err)
		}
	}
}

// apiEveryEndpoint calls every endpoint of the API with a read and write
// key, as a client program would, and checks each answer.
func apiEveryEndpoint(t *testing.T, base, secret string) {
	t.Helper()
	call := func(method, path, ifMatch string, body any, want int) (map[string]any, http.Header) {
		t.Helper()
		var r io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			r = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, base+path, r)
		req.Header.Set("Authorization", "Bearer "+secret)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if ifMatch != "" {
			req.Header.Set("If-Match", ifMatch)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, out)
		}
		var m map[string]any
		json.Unmarshal(out, &m)
		return m, resp.Header
	}
	// The GET /users of the step before is the first call.
	u, _ := call(http.MethodPost, "/api/v1/users", "", map[string]string{"username": "robot", "email": "robot@acme.test", "displayName": "Robot", "password": "Robot-pass-1234"}, 201)
	id, _ := u["id"].(string)
	_, h := call(http.MethodGet, "/api/v1/users/"+id, "", nil, 200)
	call(http.MethodPatch, "/api/v1/users/"+id, `"stale"`, map[string]string{"displayName": "R2"}, 412)
	u, _ = call(http.MethodPatch, "/api/v1/users/"+id, h.Get("ETag"), map[string]string{"displayName": "Robot Two"}, 200)
	if u["displayName"] != "Robot Two" {
		t.Errorf("after PATCH: %v", u)
	}
	call(http.MethodPost, "/api/v1/users/"+id+"/roles", "", map[string]string{"serviceId": "auth-service", "role": "viewer"}, 201)
	roles, _ := call(http.MethodGet, "/api/v1/users/"+id+"/roles", "", nil, 200)
	if items, _ := roles["items"].([]any); len(items) != 1 {
		t.Errorf("roles: %v", roles)
	}
	call(http.MethodDelete, "/api/v1/users/"+id+"/roles/auth-service/viewer", "", nil, 204)
	call(http.MethodPost, "/api/v1/users/"+id+"/deactivate", "", nil, 200)
	call(http.MethodPost, "/api/v1/users/"+id+"/reactivate", "", nil, 200)
	audit, _ := call(http.MethodGet, "/api/v1/audit?action=user.&limit=5", "", nil, 200)
	if items, _ := audit["items"].([]any); len(items) == 0 {
		t.Errorf("audit: %v", audit)
	}
}
