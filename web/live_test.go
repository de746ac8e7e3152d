package web_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/messaging"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/support"
	"github.com/kanri/kanri/web"
)

// sseEvent is one server-sent event as a browser would see it.
type sseEvent struct {
	id, name, data string
}

// liveReader reads a live stream's events in the background.
type liveReader struct {
	resp   *http.Response
	events chan sseEvent
	cancel context.CancelFunc
}

// openLive opens the live stream at path as the client, sending lastID
// as Last-Event-ID when it is not empty.
func (c *client) openLive(path, lastID string) (*liveReader, *http.Response) {
	c.t.Helper()
	return c.openLiveAt(c.e.srv.URL, path, lastID)
}

// serverWith serves the env's services with the config changed by edit:
// another server, on which the env's sessions hold.
func (e *env) serverWith(t *testing.T, edit func(*web.Config)) string {
	t.Helper()
	cfg := e.config
	edit(&cfg)
	srv := httptest.NewServer(web.New(cfg))
	t.Cleanup(srv.Close)
	return srv.URL
}

// watch opens the stream of an acme channel's page at base and reads its
// snapshot.
func (c *client) watch(t *testing.T, base string, channel *kanri.Channel) *liveReader {
	t.Helper()
	live, resp := c.openLiveAt(base, livePath(c.e.acme.ID, channel.ID, 0), "")
	if live == nil {
		t.Fatalf("the stream: status %d", resp.StatusCode)
	}
	live.next(t, `id="messages"`)
	return live
}

// openLiveAt is openLive on the server at base (another server over the
// same services: the session's cookie holds on it).
func (c *client) openLiveAt(base, path, lastID string) (*liveReader, *http.Response) {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		cancel()
		c.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		return nil, resp
	}
	l := &liveReader{resp: resp, events: make(chan sseEvent, 100), cancel: cancel}
	go func() {
		defer close(l.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		var ev sseEvent
		var data []string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.name != "" || len(data) > 0 {
					ev.data = strings.Join(data, "\n")
					l.events <- ev
				}
				ev, data = sseEvent{}, nil
			case strings.HasPrefix(line, "id: "):
				ev.id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data = append(data, strings.TrimPrefix(line, "data: "))
			}
		}
	}()
	c.t.Cleanup(l.close)
	return l, resp
}

func (l *liveReader) close() { l.cancel(); l.resp.Body.Close() }

// next returns the next event whose data contains want, failing after a
// generous wait; the events before it are returned too.
func (l *liveReader) next(t *testing.T, want string) (sseEvent, []sseEvent) {
	t.Helper()
	var skipped []sseEvent
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-l.events:
			if !ok {
				t.Fatalf("the stream ended before an event with %q (skipped %d)", want, len(skipped))
			}
			if strings.Contains(ev.data, want) {
				return ev, skipped
			}
			skipped = append(skipped, ev)
		case <-deadline:
			t.Fatalf("no event with %q within 30s (skipped %d)", want, len(skipped))
		}
	}
}

// ended waits for the stream to end, failing if it does not.
func (l *liveReader) ended(t *testing.T, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case _, ok := <-l.events:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatalf("the stream did not end within %s", within)
		}
	}
}

// chat is a public and a private channel of acme, with Bob (a member of
// the messaging service) in the public one only.
type chat struct {
	public, private *kanri.Channel
	admin, bob      messaging.Person
}

func (e *env) chat(t *testing.T) chat {
	t.Helper()
	e.assignMessaging(t, e.acme.ID)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID})
	if _, _, err := e.roles.Assign(ctx, role.Grant{Tenant: e.acme, UserID: e.acmeBob.ID, ServiceID: kanri.MessagingServiceID, RoleName: role.Member}); err != nil {
		t.Fatal(err)
	}
	c := chat{admin: messaging.Person{UserID: e.acmeAdmin.ID, Name: "acme admin"}, bob: messaging.Person{UserID: e.acmeBob.ID, Name: "Bob"}}
	var err error
	if c.public, err = e.config.Messaging.CreateChannel(ctx, e.acme.ID, c.admin, messaging.ChannelInput{Name: "general"}); err != nil {
		t.Fatal(err)
	}
	if c.private, err = e.config.Messaging.CreateChannel(ctx, e.acme.ID, c.admin, messaging.ChannelInput{Name: "secret", IsPrivate: true}); err != nil {
		t.Fatal(err)
	}
	if err := e.config.Messaging.Join(ctx, e.acme.ID, c.bob, c.public.ID); err != nil {
		t.Fatal(err)
	}
	return c
}

func (e *env) say(t *testing.T, p messaging.Person, ch *kanri.Channel, text string) *kanri.Message {
	t.Helper()
	m, err := e.config.Messaging.Post(context.Background(), e.acme.ID, p, ch.ID, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func livePath(tenantID, channelID string, seq int64) string {
	q := url.Values{"seq": {strconv.FormatInt(seq, 10)}}
	if channelID != "" {
		q.Set("channel", channelID)
	} else {
		q.Set("list", "1")
	}
	return "/t/" + tenantID + "/events?" + q.Encode()
}

func TestLiveStreamSendsASnapshotThenTheChannelsEvents(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.chat(t)
	bob := e.client(t).signIn("acme", "bob")
	before := e.say(t, c.admin, c.public, "before the tab opened")

	// The page showed nothing yet (seq 0): the snapshot brings the latest
	// messages whole.
	live, resp := bob.openLive(livePath(e.acme.ID, c.public.ID, 0), "")
	if live == nil {
		t.Fatalf("open the stream: status %d", resp.StatusCode)
	}
	for h, want := range map[string]string{"Content-Type": "text/event-stream", "X-Accel-Buffering": "no", "Cache-Control": "no-store"} {
		if got := resp.Header.Get(h); got != want {
			t.Errorf("%s: got %q, want %q", h, got, want)
		}
	}
	snap, _ := live.next(t, "msg-"+before.ID)
	if !strings.Contains(snap.data, `id="messages" hx-swap-oob="true"`) {
		t.Errorf("the snapshot does not replace the message list: %.300s", snap.data)
	}

	// A message posted now arrives, escaped.
	m := e.say(t, c.admin, c.public, "<script>alert(1)</script>")
	ev, _ := live.next(t, "msg-"+m.ID)
	if ev.id == "" || ev.name != "update" {
		t.Errorf("the event: id %q name %q, want an id and update", ev.id, ev.name)
	}
	if strings.Contains(ev.data, "<script>") || !strings.Contains(ev.data, "&lt;script&gt;") {
		t.Errorf("the message is not escaped: %.300s", ev.data)
	}

	// A message's attachments arrive by name.
	plan := e.uploadFile(t, e.acme.ID, "", "plan.txt", []byte("the plan"))
	att, err := e.config.Messaging.Post(context.Background(), e.acme.ID, c.admin, c.public.ID, "see the plan", []string{plan.ID})
	if err != nil {
		t.Fatal(err)
	}
	if ev, _ := live.next(t, "msg-"+att.ID); !strings.Contains(ev.data, "plan.txt") || !strings.Contains(ev.data, "/files/"+plan.ID) {
		t.Errorf("the live message does not link its attachment: %.400s", ev.data)
	}

	// Another's leaving changes the member count the admin's page shows;
	// Bob's own leaving says the channel changed for him.
	admin := e.client(t).signIn("acme", "admin")
	adminLive, resp := admin.openLive(livePath(e.acme.ID, c.public.ID, att.Seq), "")
	if adminLive == nil {
		t.Fatalf("open the admin's stream: status %d", resp.StatusCode)
	}
	if err := e.config.Messaging.Leave(context.Background(), e.acme.ID, c.bob, c.public.ID); err != nil {
		t.Fatal(err)
	}
	if ev, _ := adminLive.next(t, `id="channel-members-count"`); !strings.Contains(ev.data, `hx-swap-oob="true"`) || !strings.Contains(ev.data, ">1 member<") {
		t.Errorf("the member count is not updated live: %.300s", ev.data)
	}
	live.next(t, `data-testid="channel-changed"`)
	if err := e.config.Messaging.Join(context.Background(), e.acme.ID, c.bob, c.public.ID); err != nil {
		t.Fatal(err)
	}
	if ev, _ := adminLive.next(t, `id="channel-members-count"`); !strings.Contains(ev.data, ">2 members<") {
		t.Errorf("the member count is not updated live after a join: %.300s", ev.data)
	}

	// Nothing of the private channel Bob is not in ever arrives, though
	// its messages are published on the same tenant's bus.
	secret := e.say(t, c.admin, c.private, "top secret")
	marker := e.say(t, c.admin, c.public, "after the secret")
	_, skipped := live.next(t, "msg-"+marker.ID)
	for _, s := range skipped {
		if strings.Contains(s.data, secret.ID) || strings.Contains(s.data, "top secret") {
			t.Errorf("an event of a private channel reached a non-member: %.200s", s.data)
		}
	}
}

func TestLiveStreamIsClosedToWhoCannotReadTheChannel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.chat(t)
	bob := e.client(t).signIn("acme", "bob")
	glob := e.client(t).signIn("globex", "admin")
	e.assignMessaging(t, e.globex.ID)
	for _, tc := range []struct {
		who  *client
		path string
		want int
	}{
		{bob, livePath(e.acme.ID, c.private.ID, 0), http.StatusNotFound},        // private, not a member
		{bob, livePath(e.acme.ID, "channel_nope", 0), http.StatusNotFound},      // no such channel
		{glob, livePath(e.acme.ID, c.public.ID, 0), http.StatusNotFound},        // another tenant's
		{glob, livePath(e.globex.ID, c.public.ID, 0), http.StatusNotFound},      // another tenant's channel id in its own tenant
		{e.client(t), livePath(e.acme.ID, c.public.ID, 0), http.StatusSeeOther}, // signed out
	} {
		live, resp := tc.who.openLive(tc.path, "")
		if live != nil {
			t.Errorf("GET %s: the stream opened, want %d", tc.path, tc.want)
			continue
		}
		if resp.StatusCode != tc.want {
			t.Errorf("GET %s: got %d, want %d", tc.path, resp.StatusCode, tc.want)
		}
	}
}

func TestLiveStreamResumesAfterLastEventIDWithoutLossOrRepeat(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.chat(t)
	bob := e.client(t).signIn("acme", "bob")
	live, _ := bob.openLive(livePath(e.acme.ID, c.public.ID, 0), "")
	// The snapshot first: a message posted while the stream reads it
	// could come in it, without an event id, as well as in its event.
	live.next(t, `id="messages"`)
	first := e.say(t, c.admin, c.public, "first")
	ev, _ := live.next(t, "msg-"+first.ID)
	if ev.id == "" {
		t.Fatalf("the message's event has no id: %.200s", ev.data)
	}
	live.close()

	missed := []*kanri.Message{e.say(t, c.admin, c.public, "missed 1"), e.say(t, c.admin, c.public, "missed 2")}
	again, _ := bob.openLive(livePath(e.acme.ID, c.public.ID, first.Seq), ev.id)
	marker := e.say(t, c.admin, c.public, "marker")
	_, before := again.next(t, "msg-"+marker.ID)
	seen := map[string]int{}
	for _, s := range before {
		for _, m := range append(missed, first) {
			if strings.Contains(s.data, `id="msg-`+m.ID+`"`) {
				seen[m.ID]++
			}
			if strings.Contains(s.data, `id="messages"`) {
				t.Errorf("a resumed stream replaced the whole list: %.200s", s.data)
			}
		}
	}
	for _, m := range missed {
		if seen[m.ID] != 1 {
			t.Errorf("%s after the resume: shown %d times, want once", m.Content, seen[m.ID])
		}
	}
	if seen[first.ID] != 0 {
		t.Errorf("the event before Last-Event-ID came again %d times", seen[first.ID])
	}

	// A position that is not one starts from a snapshot instead.
	fresh, resp := bob.openLive(livePath(e.acme.ID, c.public.ID, 0), "nonsense")
	if fresh == nil {
		t.Fatalf("a bad Last-Event-ID: status %d, want the stream", resp.StatusCode)
	}
	fresh.next(t, `id="messages" hx-swap-oob="true"`)
}

func TestLiveStreamEndsWhenTheSessionEnds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.chat(t)
	bob := e.client(t).signIn("acme", "bob")
	live, _ := bob.openLive(livePath(e.acme.ID, c.public.ID, 0), "")
	live.next(t, `id="messages"`)
	// Bob signs out in another tab (the same cookie): every session of
	// his ends, this stream too, within the recheck.
	other := &client{t: t, e: e, http: &http.Client{Jar: bob.http.Jar, CheckRedirect: bob.http.CheckRedirect}, csrf: bob.csrf, base: bob.base}
	e.clock.Advance(time.Second) // the test's clock stands still otherwise: a sign-out must come after the sign-in
	if resp, _ := other.post("/logout", nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign out: status %d", resp.StatusCode)
	}
	live.ended(t, 20*time.Second)
}

func TestLiveStreamEndsWhenTheRoleIsLost(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.chat(t)
	bob := e.client(t).signIn("acme", "bob")
	live, _ := bob.openLive(livePath(e.acme.ID, c.public.ID, 0), "")
	live.next(t, `id="messages"`)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID})
	if err := e.roles.Remove(ctx, role.Grant{Tenant: e.acme, UserID: e.acmeBob.ID, ServiceID: kanri.MessagingServiceID, RoleName: role.Member}); err != nil {
		t.Fatal(err)
	}
	live.ended(t, 20*time.Second)
}

// TestLiveStreamEndsAtOnceWhenAccessIsTakenAway: whatever takes away
// what a stream serves ends it at once, told by the audit of the change
// (an access event): a stream checks again untold only every minute,
// first at a random point between 30 and 90 s, so these end well before
// it would.
func TestLiveStreamEndsAtOnceWhenAccessIsTakenAway(t *testing.T) {
	t.Parallel()
	system := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true})
	for _, tc := range []struct {
		name     string
		operator bool // the stream is the operator's global administrator's, on acme
		change   func(e *env) error
	}{
		{"deactivated", false, func(e *env) error {
			_, err := e.users.SetActive(system, e.acme.ID, e.acmeBob.ID, kanri.Seen{}, false)
			return err
		}},
		{"sessions ended by an administrator", false, func(e *env) error {
			_, err := e.users.EndSessions(system, e.acme.ID, e.acmeBob.ID, kanri.Seen{})
			return err
		}},
		{"tenant suspended", false, func(e *env) error {
			_, err := e.tenants.SetStatus(system, e.acme.ID, kanri.Seen{}, kanri.TenantSuspended)
			return err
		}},
		{"operator's sessions ended in the operator's tenant", true, func(e *env) error {
			id, err := e.st.Tenant(kanri.PrivilegedTenantID).UserIDByUsername(system, adminEmail)
			if err == nil {
				_, err = e.users.EndSessions(system, kanri.PrivilegedTenantID, id, kanri.Seen{})
			}
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			c := e.chat(t)
			who := e.client(t).signIn("acme", "bob")
			if tc.operator {
				who = e.client(t).signIn("privileged", adminEmail)
			}
			live := who.watch(t, e.srv.URL, c.public)
			e.clock.Advance(time.Second) // a change must come after the sign-in
			if err := tc.change(e); err != nil {
				t.Fatal(err)
			}
			live.ended(t, 20*time.Second)
		})
	}
}

// TestLiveStreamChecksAgainUntold: a change that tells no stream (made
// behind the services' back, here straight in the store) still ends a
// stream, at its next check untold.
func TestLiveStreamChecksAgainUntold(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.chat(t)
	eager := e.serverWith(t, func(cfg *web.Config) { cfg.LiveRecheck = 50 * time.Millisecond })
	live := e.client(t).signIn("acme", "bob").watch(t, eager, c.public)
	ctx := context.Background()
	u, err := e.st.Tenant(e.acme.ID).Users().Get(ctx, e.acmeBob.ID)
	if err != nil {
		t.Fatal(err)
	}
	u.IsActive = false
	if err := e.st.Tenant(e.acme.ID).Users().Replace(ctx, u); err != nil {
		t.Fatal(err)
	}
	live.ended(t, 20*time.Second)
}

// TestALiveStreamTakesNoPlaceFromPages: on a server that runs one request
// at a time, a tab's open stream gives its place up, and the tab's pages
// are still served.
func TestALiveStreamTakesNoPlaceFromPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.chat(t)
	one := e.serverWith(t, func(cfg *web.Config) { cfg.MaxActive = 1 })
	bob := e.client(t).signIn("acme", "bob")
	bob.watch(t, one, c.public)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, one+"/t/"+e.acme.ID+"/channels/"+c.public.ID, nil)
	page, err := bob.http.Do(req)
	if err != nil {
		t.Fatalf("the channel's page beside its stream: %v (the stream keeps the only place?)", err)
	}
	page.Body.Close()
	if got, want := page.StatusCode, http.StatusOK; got != want {
		t.Errorf("the channel's page beside its stream: status %d, want %d", got, want)
	}
}

// TestAFailedResumeSendsTheSnapshot: a stream that reconnects with a
// Last-Event-ID the server cannot resume from (another instance's, or
// older than the kept events) gets the channel's messages whole, even
// when no message was added: edits and deletions made meanwhile arrive.
func TestAFailedResumeSendsTheSnapshot(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.chat(t)
	bob := e.client(t).signIn("acme", "bob")
	live, _ := bob.openLive(livePath(e.acme.ID, c.public.ID, 0), "")
	live.next(t, `id="messages"`) // the snapshot, so that the message comes as an event, with its id
	first := e.say(t, c.admin, c.public, "first")
	ev, _ := live.next(t, "msg-"+first.ID)
	live.close()
	// Another instance's position: the same shape, another epoch.
	epoch, n, _ := strings.Cut(ev.id, ".")
	foreign := strings.Map(func(r rune) rune {
		if r == '0' {
			return '1'
		}
		return '0'
	}, epoch) + "." + n
	kept := e.say(t, c.admin, c.public, "before the edit")
	gone := e.say(t, c.admin, c.public, "to be deleted")
	ch, _, err := e.config.Messaging.Channel(context.Background(), e.acme.ID, e.acmeBob.ID, c.public.ID)
	if err != nil {
		t.Fatal(err)
	}
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: c.admin.UserID, TenantID: e.acme.ID})
	if _, err := e.config.Messaging.EditMessage(ctx, e.acme.ID, c.admin, c.public.ID, kept.ID, kanri.Seen{}, "after the edit"); err != nil {
		t.Fatal(err)
	}
	if err := e.config.Messaging.DeleteMessage(ctx, e.acme.ID, c.admin, c.public.ID, gone.ID); err != nil {
		t.Fatal(err)
	}
	for _, last := range []string{"nonsense", foreign} {
		live, resp := bob.openLive(livePath(e.acme.ID, c.public.ID, ch.LastSeq), last)
		if live == nil {
			t.Fatalf("Last-Event-ID %q: status %d, want the stream", last, resp.StatusCode)
		}
		ev, _ := live.next(t, `id="messages" hx-swap-oob="true"`)
		if !strings.Contains(ev.data, "after the edit") || strings.Contains(ev.data, "msg-"+gone.ID) {
			t.Errorf("Last-Event-ID %q: the snapshot does not have the edit and the deletion: %.300s", last, ev.data)
		}
		live.close()
	}
}

// TestAMentionStandsOutForWhoIsMentioned: "@bob" is marked on bob's page
// (and in his live stream) as mentioning him; on the admin's, as a
// mention of someone else; the text stays escaped.
func TestAMentionStandsOutForWhoIsMentioned(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.chat(t)
	bob := e.client(t).signIn("acme", "bob")
	live, resp := bob.openLive(livePath(e.acme.ID, c.public.ID, 0), "")
	if live == nil {
		t.Fatalf("open the stream: status %d", resp.StatusCode)
	}
	m := e.say(t, c.admin, c.public, "@BOB see <this>")
	if ev, _ := live.next(t, "msg-"+m.ID); !strings.Contains(ev.data, `<mark class="mention me" data-testid="mention-me">@BOB</mark>`) || !strings.Contains(ev.data, "&lt;this&gt;") {
		t.Errorf("bob's stream does not mark the mention of him: %.400s", ev.data)
	}
	path := "/t/" + e.acme.ID + "/channels/" + c.public.ID
	for _, tc := range []struct {
		who    string
		client *client
		want   string
	}{
		{"bob", bob, `data-testid="mention-me">@BOB<`},
		{"the admin", e.client(t).signIn("acme", "admin"), `<span class="mention" data-testid="mention">@BOB</span>`},
	} {
		if _, page := tc.client.get(path); !strings.Contains(page, tc.want) {
			t.Errorf("%s's page lacks %s: %s", tc.who, tc.want, excerpt(page, "msg-"+m.ID))
		}
	}
}

// TestTheChannelListCountsMentions: the channel list shows how many unread
// messages mention the person, beside the unread count.
// TestTheChannelListCountsMentions: the list and the navigation count the
// unread messages that mention the person, on the page and live.
func TestTheChannelListCountsMentions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.chat(t)
	e.say(t, c.admin, c.public, "@bob please look")
	e.say(t, c.admin, c.public, "and nobody else")
	bob := e.client(t).signIn("acme", "bob")
	_, page := bob.get("/t/" + e.acme.ID + "/channels")
	for _, want := range []string{`data-testid="mentions-general">@1<`, `data-testid="nav-unread" data-count="2"`, `data-testid="nav-mentions">@1<`} {
		if !strings.Contains(page, want) {
			t.Errorf("bob's list lacks %s: %s", want, excerpt(page, "channel-row-general"))
		}
	}
	_, page = e.client(t).signIn("acme", "admin").get("/t/" + e.acme.ID + "/channels")
	if !strings.Contains(page, `data-testid="mentions-general" hidden`) || strings.Contains(page, `data-testid="nav-mentions"`) {
		t.Errorf("the admin's list counts a mention of bob: %s", excerpt(page, "channel-row-general"))
	}

	// Live: a new mention, and an edit that adds one, count on the list
	// and in the navigation.
	live, resp := bob.openLive(livePath(e.acme.ID, "", 0), "")
	if live == nil {
		t.Fatalf("open the stream: status %d", resp.StatusCode)
	}
	live.next(t, `id="nav-unread"`) // the snapshot
	e.say(t, c.admin, c.public, "@bob again")
	ev, _ := live.next(t, `id="mentions-`+c.public.ID+`"`)
	for _, want := range []string{`data-testid="mentions-general">@2<`, `data-count="3"`, `data-testid="nav-mentions">@2<`} {
		if !strings.Contains(ev.data, want) {
			t.Errorf("the live update lacks %s: %.600s", want, ev.data)
		}
	}
	plain := e.say(t, c.admin, c.public, "plain")
	live.next(t, `data-count="4"`)
	if _, err := e.config.Messaging.EditMessage(context.Background(), e.acme.ID, c.admin, c.public.ID, plain.ID, kanri.Seen{ETag: plain.ETag, State: plain.Content}, "plain, @bob"); err != nil {
		t.Fatal(err)
	}
	if ev, _ := live.next(t, `data-testid="nav-mentions">@3<`); !strings.Contains(ev.data, `data-testid="mentions-general">@3<`) {
		t.Errorf("an edit's mention is not counted in the list: %.600s", ev.data)
	}
}

// TestLiveStreamOfASupportSessionEnds: a support session's live stream
// ends with the session: past its time, when the tenant turns support
// access off, and when its staff member loses the right.
func TestLiveStreamOfASupportSessionEnds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		change func(e *env) error
	}{
		{"past its time", func(e *env) error { e.clock.Advance(support.Duration); return nil }},
		{"support access turned off", func(e *env) error {
			in := kanri.SettingsInputOf(e.fresh(t, e.acme.ID))
			in.SupportAccess = kanri.SupportOff
			_, err := e.tenants.UpdateSettings(audit.WithActor(context.Background(), audit.Actor{UserID: "user_own", TenantID: e.acme.ID}), e.acme.ID, "", nil, in)
			return err
		}},
		{"staff deactivated", func(e *env) error {
			id, err := e.st.Tenant(kanri.PrivilegedTenantID).UserIDByUsername(context.Background(), "olivia")
			if err == nil {
				_, err = e.users.SetActive(system(), kanri.PrivilegedTenantID, id, kanri.Seen{}, false)
			}
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			c := e.chat(t)
			eager := e.serverWith(t, func(cfg *web.Config) { cfg.LiveRecheck = 50 * time.Millisecond })
			staff := e.globalAdmin(t, "olivia")
			e.openSupportAs(t, staff, e.acmeBob.ID, "Ticket 12: bob's channel")
			live := staff.watch(t, eager, c.public)
			e.clock.Advance(time.Second) // a change must come after the start
			if err := tc.change(e); err != nil {
				t.Fatal(err)
			}
			live.ended(t, 20*time.Second)
		})
	}
}
