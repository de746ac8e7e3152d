//go:build e2e

package e2e

import (
	"encoding/json"
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
		toggle := s.narrow.tid("menu-toggle")
		s.hasAttr(t, s.narrow, toggle, "the menu button", "aria-expanded", "false")
		s.click(t, s.narrow, "menu-toggle")
		s.visible(t, s.narrow, "nav-audit")
		s.hasAttr(t, s.narrow, toggle, "the open menu's button", "aria-expanded", "true")
		s.click(t, s.narrow, "menu-toggle")
		if err := s.expect.Locator(s.narrow.tid("nav-audit")).ToBeHidden(); err != nil {
			t.Errorf("the menu button does not fold the navigation away again: %v", err)
		}
		s.hasAttr(t, s.narrow, toggle, "the closed menu's button", "aria-expanded", "false")
	})
}

// listFit measures every list (table) of the page: the table's scrollWidth
// against its container's clientWidth, the page's own scrollWidth against
// the viewport, and each row's actions, scrolled into view: inside the
// viewport from left to right, at least 2 px apart from each other, and the element
// under their centre is themselves (nothing covers them). It answers the
// problems found and how many tables and actions it checked.
const listFit = `() => {
  const problems = [];
  const vw = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > vw + 1)
    problems.push("the page scrolls sideways: scrollWidth " + document.documentElement.scrollWidth + " > " + vw);
  const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const tables = Array.from(document.querySelectorAll("main table")).filter(shown);
  let actions = 0;
  for (const table of tables) {
    const name = table.dataset.testid || "table";
    const box = table.parentElement;
    if (table.scrollWidth > box.clientWidth + 1) {
      // Which columns take the room, and the widest thing in each.
      const cols = Array.from(table.querySelectorAll("thead th")).map((th, i) => {
        let widest = "";
        for (const td of table.querySelectorAll("tbody tr td:nth-child(" + (i + 1) + ")"))
          for (const el of td.querySelectorAll("*")) if (el.getBoundingClientRect().width > widest.w || !widest) widest = { w: el.getBoundingClientRect().width, t: el.textContent.trim().slice(0, 30) };
        return (th.textContent.trim() || "?") + " " + Math.round(th.getBoundingClientRect().width) + "px" + (widest ? " (" + JSON.stringify(widest.t) + " " + Math.round(widest.w) + "px)" : "");
      });
      problems.push(name + ": scrollWidth " + table.scrollWidth + " > its container's clientWidth " + box.clientWidth + "; columns: " + cols.join(", "));
    }
    for (const tr of table.querySelectorAll("tbody tr")) {
      const row = tr.dataset.testid || name + " row";
      const els = Array.from(tr.querySelectorAll("td.actions a, td.actions button, td .role-cell button")).filter(shown);
      const boxes = [];
      for (const el of els) {
        actions++;
        el.scrollIntoView({ block: "center", inline: "nearest" });
        const r = el.getBoundingClientRect();
        const what = row + " " + (el.dataset.testid || el.textContent.trim());
        if (r.left < 0 || r.right > vw + 0.5 || r.top < 0 || r.bottom > window.innerHeight)
          problems.push(what + " is outside the viewport: " + [r.left, r.top, r.right, r.bottom].map(Math.round).join(","));
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        if (!hit || !(hit === el || el.contains(hit)))
          problems.push(what + " is covered by " + (hit ? hit.outerHTML.slice(0, 80) : "nothing"));
        // Compared in the page's coordinates: each control was scrolled
        // into view on its own, so their viewport positions differ.
        const d = { left: r.left + window.scrollX, right: r.right + window.scrollX, top: r.top + window.scrollY, bottom: r.bottom + window.scrollY };
        for (const [other, o] of boxes) {
          if (d.left < o.right + 2 && o.left < d.right + 2 && d.top < o.bottom + 2 && o.top < d.bottom + 2)
            problems.push(what + " touches or overlaps " + other + " (less than 2 px apart)");
        }
        boxes.push([what, d]);
      }
    }
  }
  // Charts: every text shown is at least 11 px on the screen.
  let texts = 0;
  for (const text of document.querySelectorAll(".chart svg text")) {
    if (!shown(text)) continue;
    texts++;
    const px = parseFloat(getComputedStyle(text).fontSize) * text.getScreenCTM().a;
    if (px < 11) problems.push("chart text " + JSON.stringify(text.textContent) + " is " + px.toFixed(1) + " px");
  }
  // Search fields show their whole placeholder.
  for (const input of document.querySelectorAll("main input[placeholder]")) {
    if (!shown(input)) continue;
    const cs = getComputedStyle(input);
    const ctx = document.createElement("canvas").getContext("2d");
    ctx.font = cs.fontStyle + " " + cs.fontWeight + " " + cs.fontSize + " " + cs.fontFamily;
    const room = input.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const need = ctx.measureText(input.placeholder).width;
    if (need > room) problems.push((input.dataset.testid || input.name) + ": the placeholder needs " + Math.ceil(need) + " px, the field has " + Math.floor(room));
  }
  window.scrollTo(0, 0);
  return JSON.stringify({ problems, tables: tables.length, actions, texts });
}`

// listsFit checks that every list on the page fits its container and that
// every row's actions can be clicked (see listFit).
func (s *suite) listsFit(t *testing.T, p *session, path string, charts bool) {
	t.Helper()
	s.open(t, p, path, 200)
	res, err := p.page.Evaluate(listFit)
	if err != nil {
		t.Fatalf("%s: measuring the lists of %s: %v", p.label, path, err)
	}
	var got struct {
		Problems               []string
		Tables, Actions, Texts int
	}
	if err := json.Unmarshal([]byte(res.(string)), &got); err != nil {
		t.Fatal(err)
	}
	if got.Tables == 0 {
		t.Errorf("%s: %s shows no list to measure", p.label, path)
	}
	if charts && got.Texts == 0 {
		t.Errorf("%s: %s shows no chart text to measure", p.label, path)
	}
	for _, pr := range got.Problems {
		t.Errorf("%s: %s: %s", p.label, path, pr)
	}
	t.Logf("%s: %s: %d lists, %d actions, %d chart texts measured", p.label, path, got.Tables, got.Actions, got.Texts)
}

// listPagesSteps open every list page of the console as the operator's
// administrator on a laptop (1280 px) and on a phone (390 px).
func (s *suite) listPagesSteps(t *testing.T) {
	var wide, phone *session
	for _, c := range []struct {
		name string
		sess **session
		size playwright.Size
	}{
		{"lists_fit_1280", &wide, playwright.Size{Width: 1280, Height: 900}},
		{"lists_fit_390", &phone, playwright.Size{Width: 390, Height: 844}},
	} {
		s.step(t, c.name, []string{"admin_signs_in", "tenant_admin_sees_only_own_tenant", "files_trashed_and_restored", "channels_two_people_chat_live", "backups_run_download_and_restore"}, s.pagesOf(c.sess), func(t *testing.T) {
			p := s.newSession(t, "admin-"+c.name, &c.size)
			*c.sess = p
			s.signInOK(t, p, "privileged", adminEmail, adminPass, "/tenants")
			href := func(path, selector string) string {
				s.open(t, p, path, 200)
				h, err := p.page.Locator(selector).First().GetAttribute("href")
				if err != nil {
					t.Fatalf("%s: the link %s on %s: %v", p.label, selector, path, err)
				}
				return h
			}
			paths := []string{
				"/tenants", "/services", "/services/usage",
				usersPath, "/t/" + tenantID + "/roles", servicesPath, servicesPath + "/api-service",
				domainsPath, keysPath, keysPath + "/usage", "/t/" + tenantID + "/audit",
				filesPath, filesPath + "/trash", channelsPath, backupsPath, backupsPath + "/history",
				href("/t/"+tenantID+"/roles", `[data-testid^="role-holders-"]`),
				href(usersPath, `[data-testid="user-roles-alice"]`),
				href(keysPath, `[data-testid^="apikey-open-"]`),
			}
			for _, path := range paths {
				charts := path == servicesPath+"/api-service" || path == keysPath+"/usage"
				s.listsFit(t, p, path, charts)
			}
			s.screenshot(t, p.page, c.name+"-last.png") // for humans, also on success
		})
	}
}
