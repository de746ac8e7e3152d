//go:build e2e

package e2e

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

const (
	channelsPath = "/t/" + tenantID + "/channels"
	chiyoPass    = "Chiyo-pass-1234"
)

// channelSteps are the steps of messaging: two people in two browser
// contexts chat live (on Cosmos DB, each served by its own Kanri process
// sharing the database and the session secret); unread counts drop as one
// reads; a reaction arrives live; messages posted while one's network was
// cut appear once each; a private channel stays invisible to a
// non-member, by URL too.
func (s *suite) channelSteps(t *testing.T) {
	s.step(t, "channels_two_people_chat_live", []string{"tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.admin, &s.alice), func(t *testing.T) {
		// The operator assigns the messaging service.
		s.open(t, s.admin, servicesPath, 200)
		s.click(t, s.admin, "service-assign-messaging-service")
		s.atPath(t, s.admin, servicesPath+"/messaging-service/edit")
		s.submitStatus(t, s.admin, s.admin.tid("assignment-submit"), servicesPath+"/messaging-service", 303)

		// Alice makes Chiyo, a member of the messaging service.
		s.open(t, s.alice, usersPath, 200)
		s.createUser(t, s.alice, "chiyo", "Chiyo Chat", chiyoPass)
		chiyoID := s.userID(t, s.alice, tenantID, "chiyo")
		s.open(t, s.alice, usersPath+"/"+chiyoID+"/roles", 200)
		s.submit(t, s.alice, s.alice.tid("role-assign-messaging-service-member"), usersPath+"/"+chiyoID+"/roles")
		s.visible(t, s.alice, "role-held-messaging-service-member")

		// Alice creates a public channel; a taken name is refused with the
		// input kept.
		s.open(t, s.alice, channelsPath, 200)
		s.visible(t, s.alice, "channels-mine-none")
		s.click(t, s.alice, "channel-new")
		s.fill(t, s.alice, "channel-name", "general")
		s.fill(t, s.alice, "channel-display-name", "General")
		s.submitStatus(t, s.alice, s.alice.tid("channel-save"), channelsPath, 303)
		s.hasText(t, s.alice, "channel-title", "# General")
		generalPath := strings.TrimPrefix(s.alice.page.URL(), s.srv.URL)
		s.open(t, s.alice, channelsPath+"/new", 200)
		s.fill(t, s.alice, "channel-name", "general")
		s.submitStatus(t, s.alice, s.alice.tid("channel-save"), channelsPath, 422)
		s.containsText(t, s.alice, "field-error-name", "already exists")
		s.hasValue(t, s.alice, "channel-name", "general")

		// Chiyo signs in on the other instance (on Cosmos DB) and joins.
		other := s.srv.another(t)
		chiyo := s.newSessionAt(t, "chiyo", nil, other.URL)
		s.signInOK(t, chiyo, tenantName, "chiyo", chiyoPass, channelsPath) // a member of messaging starts at Channels
		s.open(t, chiyo, channelsPath, 200)
		s.submitStatus(t, chiyo, chiyo.tid("channel-join-general"), generalPath+"/join", 303)
		s.visible(t, chiyo, "message-form")

		// Alice posts: Chiyo sees it without reloading, escaped, its link
		// linked.
		s.open(t, s.alice, generalPath, 200)
		s.waitLive(t, s.alice)
		s.waitLive(t, chiyo)
		// Chiyo's page marks the message read once it is in view: the
		// answer to that is awaited before Chiyo leaves the page, or the
		// list after it may rightly count the message unread.
		if _, err := chiyo.page.ExpectResponse(func(u string) bool { return strings.HasSuffix(u, "/read") }, func() error {
			s.post(t, s.alice, "Hello <b>Chiyo</b>, see https://example.com/x.")
			return nil
		}); err != nil {
			t.Fatalf("chiyo: the channel's page never marked alice's message read: %v", err)
		}
		msg := chiyo.page.Locator(`[data-testid="message"][data-sender="Alice Admin"]`).Last()
		if err := s.expect.Locator(msg.GetByTestId("message-content")).ToHaveText("Hello <b>Chiyo</b>, see https://example.com/x."); err != nil {
			t.Fatalf("chiyo does not see alice's message live: %v", err)
		}
		if err := s.expect.Locator(msg.Locator(`a[href="https://example.com/x"]`)).ToHaveCount(1); err != nil {
			t.Errorf("the link is not linked: %v", err)
		}

		// Chiyo's list shows it unread; reading the channel clears it.
		s.open(t, chiyo, channelsPath, 200)
		s.waitLive(t, chiyo)
		if err := s.expect.Locator(chiyo.tid("unread-general")).ToBeHidden(); err != nil {
			t.Errorf("a channel read to its end shows an unread count: %v", err)
		}
		s.post(t, s.alice, "one more")
		s.hasText(t, chiyo, "unread-general", "1")
		s.post(t, s.alice, "and another")
		s.hasText(t, chiyo, "unread-general", "2")
		// A mention of Chiyo counts live, in the list and in the
		// navigation, and the tab's title leads with her unread count.
		s.post(t, s.alice, "@chiyo have a look")
		s.hasText(t, chiyo, "unread-general", "3")
		s.hasText(t, chiyo, "mentions-general", "@1")
		s.hasText(t, chiyo, "nav-mentions", "@1")
		if err := s.expect.Locator(chiyo.tid("nav-unread")).ToHaveAttribute("data-count", "3"); err != nil {
			t.Errorf("the navigation does not count chiyo's unread messages: %v", err)
		}
		if err := s.expect.Page(chiyo.page).ToHaveTitle(regexp.MustCompile(`^\(3\) `)); err != nil {
			t.Errorf("chiyo's tab title does not lead with her unread count: %v", err)
		}
		// Reading: the newest message comes into view and the page says
		// so; the list then shows the channel read.
		if _, err := chiyo.page.ExpectResponse(func(u string) bool { return strings.HasSuffix(u, "/read") }, func() error {
			return chiyo.tid("channel-link-general").Click()
		}); err != nil {
			t.Fatalf("chiyo: the channel's page never marked it read: %v", err)
		}
		s.visible(t, chiyo, "first-unread")
		s.open(t, chiyo, channelsPath, 200)
		for _, id := range []string{"unread-general", "mentions-general", "nav-unread"} {
			if err := s.expect.Locator(chiyo.tid(id)).ToBeHidden(); err != nil {
				t.Errorf("%s of a read channel is still shown: %v", id, err)
			}
		}

		// Chiyo reacts; Alice sees the reaction live.
		s.open(t, chiyo, generalPath, 200)
		s.waitLive(t, chiyo)
		last := chiyo.tid("message").Last()
		if err := last.GetByTestId("react-add").Click(); err != nil {
			t.Fatal(err)
		}
		if err := last.Locator(`[data-testid="react-with"][data-emoji="🎉"]`).Click(); err != nil {
			t.Fatal(err)
		}
		reaction := s.alice.tid("message").Last().Locator(`[data-testid="reaction"][data-emoji="🎉"]`)
		if err := s.expect.Locator(reaction.GetByTestId("reaction-count")).ToHaveText("1"); err != nil {
			t.Errorf("alice does not see chiyo's reaction live: %v", err)
		}

		// The page says when its live stream is down, and no longer once
		// it is back. (Chromium's offline mode keeps open streams open, so
		// the stream's events are sent as the sse extension sends them.)
		for _, c := range []struct {
			event string
			shown bool
		}{{"htmx:sseError", true}, {"htmx:sseOpen", false}} {
			if _, err := s.alice.page.Evaluate(`(name) => document.body.dispatchEvent(new CustomEvent(name, {bubbles: true}))`, c.event); err != nil {
				t.Fatal(err)
			}
			banner := s.expect.Locator(s.alice.tid("live-lost"))
			var err error
			if c.shown {
				err = banner.ToBeVisible()
			} else {
				err = banner.ToBeHidden()
			}
			if err != nil {
				t.Errorf("after %s, the lost-connection banner shown %v: %v", c.event, !c.shown, err)
			}
		}
		// Alice's network is cut; Chiyo posts twice; when it is back, each
		// message appears once.
		if err := s.alice.ctx.SetOffline(true); err != nil {
			t.Fatal(err)
		}
		// Whatever fails below, the later steps have a network.
		t.Cleanup(func() { _ = s.alice.ctx.SetOffline(false) })
		s.post(t, chiyo, "while you were away 1")
		s.post(t, chiyo, "while you were away 2")
		// chiyo also edits her earlier message: the edit must reach alice
		// too, though it changes no message number.
		edited := chiyo.page.Locator(`[data-testid="message"]`).Filter(playwright.LocatorFilterOptions{HasText: "while you were away 1"})
		if err := edited.GetByTestId("message-edit").Click(); err != nil {
			t.Fatal(err)
		}
		if err := edited.GetByTestId("message-edit-input").Fill("while you were away, edited"); err != nil {
			t.Fatal(err)
		}
		if err := edited.GetByTestId("message-edit-save").Click(); err != nil {
			t.Fatal(err)
		}
		if err := s.expect.Locator(chiyo.page.Locator(`[data-testid="message-edited"]`)).ToHaveCount(1); err != nil {
			t.Fatalf("chiyo's edit is not shown as edited: %v", err)
		}
		if err := s.alice.ctx.SetOffline(false); err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{"while you were away, edited", "while you were away 2"} {
			loc := s.alice.page.Locator(`[data-testid="message-content"]`).Filter(playwright.LocatorFilterOptions{HasText: text})
			if err := s.expect.Locator(loc).ToHaveCount(1); err != nil {
				t.Errorf("after the network came back, %q is shown %v times: %v", text, count(loc), err)
			}
		}

		// Chiyo starts editing; Alice's reaction to that message arrives
		// live without closing the edit or losing its text; Alice's picker
		// closes once she has chosen.
		mine := chiyo.page.Locator(`[data-testid="message"]`).Filter(playwright.LocatorFilterOptions{HasText: "while you were away 2"})
		if err := mine.GetByTestId("message-edit").Click(); err != nil {
			t.Fatal(err)
		}
		if err := mine.GetByTestId("message-edit-input").Fill("typed, not saved"); err != nil {
			t.Fatal(err)
		}
		theirs := s.alice.page.Locator(`[data-testid="message"]`).Filter(playwright.LocatorFilterOptions{HasText: "while you were away 2"})
		if err := theirs.GetByTestId("react-add").Click(); err != nil {
			t.Fatal(err)
		}
		if err := theirs.Locator(`[data-testid="react-with"][data-emoji="👍"]`).Click(); err != nil {
			t.Fatal(err)
		}
		if err := s.expect.Locator(mine.Locator(`[data-testid="reaction"][data-emoji="👍"]`).GetByTestId("reaction-count")).ToHaveText("1"); err != nil {
			t.Fatalf("chiyo does not see alice's reaction live: %v", err)
		}
		if err := s.expect.Locator(mine.GetByTestId("message-edit-input")).ToBeVisible(); err != nil {
			t.Errorf("a live reaction closed chiyo's edit: %v", err)
		}
		if err := s.expect.Locator(mine.GetByTestId("message-edit-input")).ToHaveValue("typed, not saved"); err != nil {
			t.Errorf("a live reaction closed chiyo's edit or lost its text: %v", err)
		}
		if err := s.expect.Locator(theirs.Locator("details.react-picker[open]")).ToHaveCount(0); err != nil {
			t.Errorf("alice's reaction picker stays open after she chose: %v", err)
		}
		if err := chiyo.ctx.Close(); err != nil {
			t.Errorf("closing chiyo's session: %v", err)
		}
	})

	s.step(t, "channels_history_reached_by_scrolling_and_link", []string{"channels_two_people_chat_live", "narrow_viewport_users"}, s.pagesOf(&s.alice, &s.narrow), func(t *testing.T) {
		// A channel of 120 messages (posted with the page's session, as
		// its form does) shows its latest 50.
		s.open(t, s.alice, channelsPath+"/new", 200)
		s.fill(t, s.alice, "channel-name", "history")
		s.submitStatus(t, s.alice, s.alice.tid("channel-save"), channelsPath, 303)
		historyPath := strings.TrimPrefix(s.alice.page.URL(), s.srv.URL)
		csrf, err := s.alice.page.Locator(`input[name="_csrf"]`).First().InputValue()
		if err != nil {
			t.Fatal(err)
		}
		for i := range 120 {
			resp, err := s.alice.ctx.Request().Post(s.url(historyPath+"/messages"), playwright.APIRequestContextPostOptions{
				Form:         map[string]any{"content": fmt.Sprintf("history-%03d", i), "_csrf": csrf},
				MaxRedirects: playwright.Int(0),
			})
			if err != nil || resp.Status() != http.StatusSeeOther {
				t.Fatalf("posting message %d: %v %v", i, resp, err)
			}
		}
		texts := func() []string {
			got, err := s.alice.page.Evaluate(`() => Array.from(document.querySelectorAll('#messages [data-testid="message-content"]')).map(e => e.textContent.trim())`)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, v := range got.([]any) {
				out = append(out, v.(string))
			}
			return out
		}
		s.open(t, s.alice, historyPath, 200)
		if err := s.expect.Locator(s.alice.tid("message-content").Last()).ToHaveText("history-119"); err != nil {
			t.Fatal(err)
		}
		// Scrolling the pane up loads the older pages in place, each once,
		// up to the first message.
		all := s.alice.page.Locator(`#messages [data-testid="message"]`)
		for len(texts()) < 120 {
			shown := count(all)
			if _, err := s.alice.tid("message-scroll").Evaluate(`el => { el.scrollTop = 0 }`, nil); err != nil {
				t.Fatal(err)
			}
			if err := all.Nth(shown).WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateAttached}); err != nil {
				t.Fatalf("scrolling up past %d messages loads no older ones: %v", shown, err)
			}
		}
		got := texts()
		for i, text := range got {
			if want := fmt.Sprintf("history-%03d", i); text != want {
				t.Fatalf("message %d of the scrolled channel is %q, want %q (of %d shown)", i, text, want, len(got))
			}
		}
		s.absent(t, s.alice, "messages-older")

		// Without scripts, the link is a page of its own, with a way back.
		s.open(t, s.alice, historyPath, 200)
		href, err := s.alice.tid("messages-older").Locator("a").GetAttribute("href")
		if err != nil {
			t.Fatal(err)
		}
		s.open(t, s.alice, href, 200)
		// It ends with the message before the latest 50 (older ones may
		// load above as it scrolls).
		if got := texts(); len(got) < 50 || got[len(got)-1] != "history-069" {
			t.Errorf("the older page shows %d messages ending %v, want them to end with history-069", len(got), got[max(0, len(got)-3):])
		}
		s.visible(t, s.alice, "messages-older-page")
		s.click(t, s.alice, "messages-latest")
		s.atPath(t, s.alice, historyPath)

		// On a phone the composer is in view with the latest message,
		// without scrolling the page.
		s.open(t, s.narrow, historyPath, 200)
		for _, loc := range []playwright.Locator{s.narrow.tid("message-input"), s.narrow.tid("message-send"), s.narrow.tid("message-content").Last()} {
			if err := s.expect.Locator(loc).ToBeInViewport(); err != nil {
				t.Errorf("on a 390x844 screen: %v", err)
			}
		}
	})

	s.step(t, "channels_limit_said_on_the_form", []string{"channels_history_reached_by_scrolling_and_link"}, s.pagesOf(&s.admin, &s.alice), func(t *testing.T) {
		// The operator allows one channel; the tenant has more, so a new
		// one is refused on its form, the input kept. Then no limit again.
		limit := func(n string) {
			t.Helper()
			s.open(t, s.admin, servicesPath+"/messaging-service/edit", 200)
			s.fill(t, s.admin, "assignment-maxChannels", n)
			s.submitStatus(t, s.admin, s.admin.tid("assignment-submit"), servicesPath+"/messaging-service", 303)
		}
		limit("1")
		s.open(t, s.alice, channelsPath+"/new", 200)
		s.fill(t, s.alice, "channel-name", "one-too-many")
		s.submitStatus(t, s.alice, s.alice.tid("channel-save"), channelsPath, 409)
		s.containsText(t, s.alice, "form-error", "most channels (1)")
		s.hasValue(t, s.alice, "channel-name", "one-too-many")
		limit("")
		s.submitStatus(t, s.alice, s.alice.tid("channel-save"), channelsPath, 303)
		s.hasText(t, s.alice, "channel-title", "# one-too-many")
	})

	s.step(t, "channels_private_invisible_to_non_members", []string{"channels_two_people_chat_live"}, s.pagesOf(&s.alice, &s.vera), func(t *testing.T) {
		s.open(t, s.alice, channelsPath+"/new", 200)
		s.fill(t, s.alice, "channel-name", "secret")
		if err := s.alice.tid("channel-private").Check(); err != nil {
			t.Fatal(err)
		}
		s.submitStatus(t, s.alice, s.alice.tid("channel-save"), channelsPath, 303)
		secretPath := strings.TrimPrefix(s.alice.page.URL(), s.srv.URL)
		s.post(t, s.alice, "top secret")
		// A message typed and not sent is still there after a reload; a
		// sent one is not.
		s.fill(t, s.alice, "message-input", "not sent yet")
		s.open(t, s.alice, secretPath, 200)
		s.hasValue(t, s.alice, "message-input", "not sent yet")
		s.post(t, s.alice, "not sent yet")
		s.open(t, s.alice, secretPath, 200)
		s.hasValue(t, s.alice, "message-input", "")

		chiyo := s.newSession(t, "chiyo", nil)
		s.signInOK(t, chiyo, tenantName, "chiyo", chiyoPass, channelsPath) // a member of messaging starts at Channels
		s.open(t, chiyo, channelsPath, 200)
		s.absent(t, chiyo, "channel-browse-secret")
		s.absent(t, chiyo, "channel-row-secret")
		s.open(t, chiyo, secretPath, 404)
		s.open(t, chiyo, "/t/"+tenantID+"/events?channel="+strings.TrimPrefix(secretPath, channelsPath+"/"), 404)
		if err := chiyo.ctx.Close(); err != nil {
			t.Errorf("closing chiyo's session: %v", err)
		}
	})
}

// post sends a message from the composer of the open channel and waits
// until the page shows it.
func (s *suite) post(t *testing.T, p *session, text string) {
	t.Helper()
	before := count(p.tid("message"))
	s.fill(t, p, "message-input", text)
	s.click(t, p, "message-send")
	if err := s.expect.Locator(p.tid("message")).ToHaveCount(before + 1); err != nil {
		t.Fatalf("%s: the message %q is not shown after sending: %v", p.label, text, err)
	}
	s.hasValue(t, p, "message-input", "")
}

// waitLive waits until the page's live stream is open.
func (s *suite) waitLive(t *testing.T, p *session) {
	t.Helper()
	if _, err := p.page.WaitForFunction(`() => document.body.dataset.live === "open"`, nil); err != nil {
		t.Fatalf("%s: the live stream never opened: %v", p.label, err)
	}
}

func count(l playwright.Locator) int {
	n, _ := l.Count()
	return n
}
