package messaging_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/events"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/messaging"
	"github.com/kanri/kanri/internal/store"
)

const ten = "tenant_acme"

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

type fixture struct {
	ctx   context.Context
	svc   *messaging.Service
	bus   *events.Local
	st    *store.Store
	ds    *bolt.Store
	clock *clock
}

var (
	alice = messaging.Person{UserID: "user_alice", Name: "Alice"}
	bob   = messaging.Person{UserID: "user_bob", Name: "Bob"}
	carol = messaging.Person{UserID: "user_carol", Name: "Carol"}
	admin = messaging.Person{UserID: "user_admin", Name: "Admin", ManageChannels: true, ModerateMessages: true}
)

func setup(t *testing.T) *fixture {
	t.Helper()
	ds := bolttest.Open(t)
	clk := &clock{t: time.Date(2026, 6, 10, 10, 30, 0, 0, time.UTC)}
	st := store.New(ds, nil, features.Schema())
	d := app.NewDeps(st, slog.New(slog.DiscardHandler), clk.now)
	ctx := audit.WithActor(t.Context(), audit.Actor{UserID: "user_admin", UserName: "admin", TenantID: ten})
	for _, p := range []messaging.Person{alice, bob, carol, admin} {
		u := &kanri.User{Doc: kanri.Doc{ID: p.UserID}, Username: strings.ToLower(p.Name), DisplayName: p.Name, IsActive: true}
		if err := st.Tenant(ten).Users().Create(ctx, u); err != nil {
			t.Fatal(err)
		}
		// Each may read channels: a role of the messaging service.
		ra := &kanri.RoleAssignment{Doc: kanri.Doc{ID: kanri.RoleAssignmentID(u.ID, kanri.MessagingServiceID, "member")}, UserID: u.ID, ServiceID: kanri.MessagingServiceID, RoleName: "member"}
		if err := st.Tenant(ten).RoleAssignments().Create(ctx, ra); err != nil {
			t.Fatal(err)
		}
	}
	bus := events.NewLocal()
	svc := messaging.New(d, bus, nil)
	t.Cleanup(svc.Wait)
	return &fixture{ctx: ctx, svc: svc, bus: bus, st: st, ds: ds, clock: clk}
}

func (f *fixture) channel(t *testing.T, p messaging.Person, name string, private bool) *kanri.Channel {
	t.Helper()
	c, err := f.svc.CreateChannel(f.ctx, ten, p, messaging.ChannelInput{Name: name, DisplayName: strings.ToUpper(name), IsPrivate: private})
	if err != nil {
		t.Fatalf("create channel %s: %v", name, err)
	}
	return c
}

func (f *fixture) post(t *testing.T, p messaging.Person, channelID, content string) *kanri.Message {
	t.Helper()
	m, err := f.svc.Post(f.ctx, ten, p, channelID, content, nil)
	if err != nil {
		t.Fatalf("post %q: %v", content, err)
	}
	return m
}

// unread returns the user's unread label of a channel, from the channel
// list.
func (f *fixture) unread(t *testing.T, userID, channelID string) string {
	t.Helper()
	ms, _, err := f.svc.Mine(f.ctx, ten, userID, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Channel.ID == channelID {
			return m.UnreadLabel()
		}
	}
	t.Fatalf("%s is not in the channels of %s", channelID, userID)
	return ""
}

func TestChannelNamesAreUniqueAndChecked(t *testing.T) {
	f := setup(t)
	f.channel(t, alice, "general", false)
	for _, tc := range []struct {
		name, field, want string
	}{
		{"general", "name", "channels.name_taken"},
		{" General ", "name", "channels.name_taken"}, // read as general
		{"", "name", "validation.required"},
		{"Bad!Name", "name", "channels.bad_name"},
		{"<script>", "name", "channels.bad_name"},
	} {
		_, err := f.svc.CreateChannel(f.ctx, ten, bob, messaging.ChannelInput{Name: tc.name})
		if got := kanri.ErrorFields(err)[tc.field]; got != tc.want {
			t.Errorf("create %q: got %q (%v), want %q", tc.name, got, err, tc.want)
		}
	}
	// A name typed the way people write is read as one: in lower case,
	// spaces as hyphens, shown as typed.
	team, err := f.svc.CreateChannel(f.ctx, ten, bob, messaging.ChannelInput{Name: "Team  Chat"})
	if err != nil {
		t.Fatal(err)
	}
	if team.Name != "team-chat" || team.DisplayName != "Team  Chat" {
		t.Errorf("Team  Chat: named %q, shown %q; want team-chat, shown as typed", team.Name, team.DisplayName)
	}
	// A renamed channel frees its name.
	c := f.channel(t, alice, "random", false)
	if _, err := f.svc.UpdateChannel(f.ctx, ten, alice, c.ID, kanri.Seen{}, messaging.ChannelInput{Name: "chatter"}); err != nil {
		t.Fatal(err)
	}
	f.channel(t, bob, "random", false)
	if _, err := f.svc.CreateChannel(f.ctx, ten, bob, messaging.ChannelInput{Name: "chatter"}); kanri.ErrorFields(err)["name"] != "channels.name_taken" {
		t.Errorf("create chatter after the rename: got %v, want name taken", err)
	}
}

func TestHostileInputIsRefusedAndChangesNothing(t *testing.T) {
	f := setup(t)
	c := f.channel(t, alice, "general", false)
	for _, tc := range []struct {
		what  string
		do    func() error
		field string
	}{
		{"a display name with a right-to-left override", func() error {
			_, err := f.svc.CreateChannel(f.ctx, ten, alice, messaging.ChannelInput{Name: "evil", DisplayName: "abc\u202egpj.exe"})
			return err
		}, "displayName"},
		{"a description with NUL", func() error {
			_, err := f.svc.CreateChannel(f.ctx, ten, alice, messaging.ChannelInput{Name: "evil", Description: "a\x00b"})
			return err
		}, "description"},
		{"a name with a slash", func() error {
			_, err := f.svc.CreateChannel(f.ctx, ten, alice, messaging.ChannelInput{Name: "../etc"})
			return err
		}, "name"},
		{"a message with an escape sequence", func() error { _, err := f.svc.Post(f.ctx, ten, alice, c.ID, "red \x1b[31m", nil); return err }, "content"},
		{"a message with an isolate", func() error { _, err := f.svc.Post(f.ctx, ten, alice, c.ID, "x\u2066y", nil); return err }, "content"},
		{"a message of invalid UTF-8", func() error { _, err := f.svc.Post(f.ctx, ten, alice, c.ID, "bad \xff", nil); return err }, "content"},
		{"an attachment that is not a file", func() error {
			_, err := f.svc.Post(f.ctx, ten, alice, c.ID, "see", []string{"file_../../etc/passwd"})
			return err
		}, "attachments"},
	} {
		err := tc.do()
		if got := kanri.ErrorFields(err)[tc.field]; got == "" {
			t.Errorf("%s: got %v, want a refusal of %s", tc.what, err, tc.field)
		}
	}
	got, _, err := f.svc.Channel(f.ctx, ten, alice.UserID, c.ID)
	if err != nil || got.LastSeq != 0 {
		t.Errorf("after the refusals: lastSeq %d (%v), want 0: nothing posted", got.LastSeq, err)
	}
	if ms, _, _ := f.svc.Browse(f.ctx, ten, messaging.BrowseQuery{}); len(ms) != 1 {
		t.Errorf("after the refusals: %d public channels, want 1", len(ms))
	}
	// Newlines and tabs are text.
	if _, err := f.svc.Post(f.ctx, ten, alice, c.ID, "line 1\n\tline 2", nil); err != nil {
		t.Errorf("a message with a newline and a tab: %v", err)
	}
}

func TestPrivateChannelsAreInvisibleToNonMembers(t *testing.T) {
	f := setup(t)
	c := f.channel(t, alice, "secret", true)
	m := f.post(t, alice, c.ID, "hush")
	for _, p := range []messaging.Person{bob, admin} {
		if _, _, err := f.svc.Channel(f.ctx, ten, p.UserID, c.ID); !kanri.IsCode(err, kanri.ENOTFOUND) {
			t.Errorf("%s reads the channel: got %v, want not found", p.Name, err)
		}
		if _, _, err := f.svc.Messages(f.ctx, ten, p.UserID, c.ID, messaging.MessageQuery{}); !kanri.IsCode(err, kanri.ENOTFOUND) {
			t.Errorf("%s reads its messages: got %v, want not found", p.Name, err)
		}
		if _, err := f.svc.Message(f.ctx, ten, p.UserID, c.ID, m.ID); !kanri.IsCode(err, kanri.ENOTFOUND) {
			t.Errorf("%s reads a message: got %v, want not found", p.Name, err)
		}
		if err := f.svc.Join(f.ctx, ten, p, c.ID); !kanri.IsCode(err, kanri.ENOTFOUND) {
			t.Errorf("%s joins: got %v, want not found", p.Name, err)
		}
		if err := f.svc.DeleteChannel(f.ctx, ten, p, c.ID, kanri.Seen{}); !kanri.IsCode(err, kanri.ENOTFOUND) {
			t.Errorf("%s deletes it: got %v, want not found", p.Name, err)
		}
		if ok, _ := f.svc.Visible(f.ctx, ten, p.UserID, c.ID, true); ok {
			t.Errorf("%s: visible, want not", p.Name)
		}
	}
	list, _, err := f.svc.Browse(f.ctx, ten, messaging.BrowseQuery{})
	if err != nil || len(list) != 0 {
		t.Errorf("browse: got %d channels (%v), want none", len(list), err)
	}
	if err := f.svc.AddMember(f.ctx, ten, alice, c.ID, bob.UserID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Message(f.ctx, ten, bob.UserID, c.ID, m.ID); err != nil {
		t.Errorf("bob, a member now, reads the message: %v", err)
	}
}

func TestMemberCountIsExactUnderConcurrentJoinsAndLeaves(t *testing.T) {
	f := setup(t)
	c := f.channel(t, alice, "general", false)
	var people []messaging.Person
	for i := range 12 {
		people = append(people, messaging.Person{UserID: fmt.Sprintf("user_%02d", i), Name: fmt.Sprintf("P%d", i)})
	}
	var wg sync.WaitGroup
	for i, p := range people {
		wg.Go(func() {
			if err := f.svc.Join(f.ctx, ten, p, c.ID); err != nil {
				t.Errorf("join %s: %v", p.Name, err)
			}
			if err := f.svc.Join(f.ctx, ten, p, c.ID); err != nil { // twice is once
				t.Errorf("join %s again: %v", p.Name, err)
			}
			if i%3 == 0 {
				if err := f.svc.Leave(f.ctx, ten, p, c.ID); err != nil {
					t.Errorf("leave %s: %v", p.Name, err)
				}
			}
		})
	}
	wg.Wait()
	got, _, err := f.svc.Channel(f.ctx, ten, alice.UserID, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 + 12 - 4; got.MemberCount != want {
		t.Errorf("memberCount: got %d, want %d", got.MemberCount, want)
	}
	members, _, err := f.svc.Members(f.ctx, ten, alice.UserID, c.ID, 100, "")
	if err != nil || len(members) != got.MemberCount {
		t.Errorf("members: got %d (%v), want %d", len(members), err, got.MemberCount)
	}
}

func TestTheLastOwnerCannotLeave(t *testing.T) {
	f := setup(t)
	c := f.channel(t, alice, "team", true)
	if err := f.svc.Leave(f.ctx, ten, alice, c.ID); kanri.ErrorCode(err) != kanri.ECONFLICT {
		t.Fatalf("last owner leaves: got %v, want conflict", err)
	}
	if err := f.svc.AddMember(f.ctx, ten, alice, c.ID, bob.UserID); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.AddMember(f.ctx, ten, bob, c.ID, carol.UserID); kanri.ErrorCode(err) != kanri.EFORBIDDEN {
		t.Errorf("a member adds a member: got %v, want forbidden", err)
	}
	if err := f.svc.SetRole(f.ctx, ten, alice, c.ID, alice.UserID, kanri.RoleMember); kanri.ErrorCode(err) != kanri.ECONFLICT {
		t.Errorf("the last owner steps down: got %v, want conflict", err)
	}
	if err := f.svc.SetRole(f.ctx, ten, alice, c.ID, bob.UserID, kanri.RoleOwner); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Leave(f.ctx, ten, alice, c.ID); err != nil {
		t.Errorf("an owner leaves after handing over: %v", err)
	}
	if _, _, err := f.svc.Channel(f.ctx, ten, alice.UserID, c.ID); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("alice reads the private channel she left: got %v, want not found", err)
	}
}

func TestUnreadCountsAreExactAfterDeletesAndExpiries(t *testing.T) {
	f := setup(t)
	c := f.channel(t, alice, "general", false)
	f.post(t, alice, c.ID, "before bob")
	if err := f.svc.Join(f.ctx, ten, bob, c.ID); err != nil {
		t.Fatal(err)
	}
	if got := f.unread(t, bob.UserID, c.ID); got != "" {
		t.Errorf("joined today: got %q unread, want none", got)
	}
	var ms []*kanri.Message
	for i := range 5 {
		f.clock.add(time.Minute)
		ms = append(ms, f.post(t, alice, c.ID, fmt.Sprintf("m%d", i)))
	}
	if err := f.svc.Join(f.ctx, ten, carol, c.ID); err != nil { // a system message: never unread
		t.Fatal(err)
	}
	for _, tc := range []struct {
		step string
		do   func() error
		want string
	}{
		{"five posted", func() error { return nil }, "5"},
		{"one deleted", func() error { return f.svc.DeleteMessage(f.ctx, ten, alice, c.ID, ms[1].ID) }, "4"},
		{"deleted by an admin", func() error { return f.svc.DeleteMessage(f.ctx, ten, admin, c.ID, ms[2].ID) }, "3"},
		{"read up to m3", func() error { return f.svc.MarkRead(f.ctx, ten, bob.UserID, c.ID, ms[3].Seq) }, "1"},
		{"read mark never moves back", func() error { return f.svc.MarkRead(f.ctx, ten, bob.UserID, c.ID, 1) }, "1"},
		{"bob's own post", func() error { _, err := f.svc.Post(f.ctx, ten, bob, c.ID, "me", nil); return err }, ""},
		{"two more, a year later the first one expired", func() error {
			f.clock.add(24 * time.Hour)
			f.post(t, alice, c.ID, "late 1")
			f.post(t, alice, c.ID, "late 2")
			f.clock.add(kanri.TTLMessage*time.Second - 12*time.Hour)
			return nil
		}, "2"},
	} {
		if err := tc.do(); err != nil {
			t.Fatalf("%s: %v", tc.step, err)
		}
		if got := f.unread(t, bob.UserID, c.ID); got != tc.want {
			t.Errorf("%s: got %q unread, want %q", tc.step, got, tc.want)
		}
	}
	// Expired messages vanish from the channel's page too.
	f.clock.add(24 * time.Hour)
	page, _, err := f.svc.Messages(f.ctx, ten, bob.UserID, c.ID, messaging.MessageQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 0 {
		t.Errorf("after every message expired: got %d messages, want none", len(page))
	}
	if got := f.unread(t, bob.UserID, c.ID); got != "" {
		t.Errorf("after every message expired: got %q unread, want none", got)
	}
}

func TestUnreadAboveTheLimitShowsPlus(t *testing.T) {
	for _, tc := range []struct {
		n       int
		atLeast bool
		want    string
	}{{0, false, ""}, {3, false, "3"}, {99, false, "99"}, {100, false, "99+"}, {7, true, "7+"}, {150, true, "99+"}} {
		if got := messaging.UnreadLabel(tc.n, tc.atLeast); got != tc.want {
			t.Errorf("UnreadLabel(%d, %t): got %q, want %q", tc.n, tc.atLeast, got, tc.want)
		}
	}
}

func TestMessagesAreEditedByTheirSenderAndDeletedByModerators(t *testing.T) {
	f := setup(t)
	c := f.channel(t, alice, "general", false)
	if err := f.svc.Join(f.ctx, ten, bob, c.ID); err != nil {
		t.Fatal(err)
	}
	m := f.post(t, alice, c.ID, "  hello\r\nworld  ")
	if m.Content != "hello\nworld" {
		t.Errorf("content: got %q, want newlines kept and spaces trimmed", m.Content)
	}
	if m.TTL != kanri.TTLMessage {
		t.Errorf("ttl of a new message: got %d, want %d", m.TTL, kanri.TTLMessage)
	}
	if _, err := f.svc.EditMessage(f.ctx, ten, bob, c.ID, m.ID, kanri.Seen{}, "mine now"); kanri.ErrorCode(err) != kanri.EFORBIDDEN {
		t.Errorf("bob edits alice's message: got %v, want forbidden", err)
	}
	if err := f.svc.DeleteMessage(f.ctx, ten, bob, c.ID, m.ID); kanri.ErrorCode(err) != kanri.EFORBIDDEN {
		t.Errorf("bob deletes alice's message: got %v, want forbidden", err)
	}
	f.clock.add(time.Hour)
	edited, err := f.svc.EditMessage(f.ctx, ten, alice, c.ID, m.ID, kanri.Seen{ETag: m.ETag, State: m.Content}, "hello again")
	if err != nil {
		t.Fatal(err)
	}
	if edited.EditedAt.IsZero() || edited.TTL != kanri.TTLMessage-3600 {
		t.Errorf("edited: editedAt %v, ttl %d; want set and %d (an edit never extends a message's life)", edited.EditedAt, edited.TTL, kanri.TTLMessage-3600)
	}
	if _, err := f.svc.EditMessage(f.ctx, ten, alice, c.ID, m.ID, kanri.Seen{ETag: m.ETag, State: m.Content}, "stale"); !kanri.IsCode(err, kanri.ESTALE) {
		t.Errorf("an edit of what changed since: got %v, want stale", err)
	}
	for _, bad := range []string{"", "   ", strings.Repeat("x", kanri.MaxMessageLength+1)} {
		if _, err := f.svc.Post(f.ctx, ten, alice, c.ID, bad, nil); !kanri.IsCode(err, kanri.EINVALID) {
			t.Errorf("post %d characters: got %v, want invalid", len(bad), err)
		}
	}
	if _, err := f.svc.Post(f.ctx, ten, carol, c.ID, "not a member", nil); kanri.ErrorCode(err) != kanri.EFORBIDDEN {
		t.Errorf("a non-member posts: got %v, want forbidden", err)
	}
	if err := f.svc.DeleteMessage(f.ctx, ten, admin, c.ID, m.ID); err != nil {
		t.Errorf("an admin deletes it: %v", err)
	}
	logs, _, err := f.st.Tenant(ten).AuditLogs().Query(f.ctx, docstore.Query{Where: []docstore.Filter{docstore.Eq("action", "message.delete")}, OrderBy: "timestamp"})
	if err != nil || len(logs) != 1 {
		t.Errorf("audit records of deletions by admins: got %d (%v), want 1", len(logs), err)
	}
}

func TestConcurrentReactionsNeverLoseEachOther(t *testing.T) {
	f := setup(t)
	c := f.channel(t, alice, "general", false)
	people := []messaging.Person{bob, carol, admin}
	for _, p := range people {
		if err := f.svc.Join(f.ctx, ten, p, c.ID); err != nil {
			t.Fatal(err)
		}
	}
	m := f.post(t, alice, c.ID, "react to me")
	var wg sync.WaitGroup
	for _, p := range append(people, alice) {
		for _, e := range []string{"👍", "🎉"} {
			for range 2 { // a double click
				wg.Go(func() {
					if _, err := f.svc.React(f.ctx, ten, p, c.ID, m.ID, e, true); err != nil {
						t.Errorf("%s reacts %s: %v", p.Name, e, err)
					}
				})
			}
		}
	}
	wg.Wait()
	if _, err := f.svc.React(f.ctx, ten, bob, c.ID, m.ID, "🎉", false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.React(f.ctx, ten, bob, c.ID, m.ID, "<b>", true); !kanri.IsCode(err, kanri.EINVALID) {
		t.Errorf("an emoji not offered: got %v, want invalid", err)
	}
	got, err := f.svc.Message(f.ctx, ten, alice.UserID, c.ID, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n, m := len(got.Reactions["👍"]), len(got.Reactions["🎉"]); n != 4 || m != 3 {
		t.Errorf("reactions: got 👍 %d 🎉 %d, want 4 and 3", n, m)
	}
}

func TestDeletedChannelsLeaveNothing(t *testing.T) {
	f := setup(t)
	c := f.channel(t, alice, "doomed", false)
	if err := f.svc.Join(f.ctx, ten, bob, c.ID); err != nil {
		t.Fatal(err)
	}
	for i := range 250 {
		m := f.post(t, alice, c.ID, fmt.Sprint("m", i))
		if i%50 == 0 {
			if _, err := f.svc.React(f.ctx, ten, bob, c.ID, m.ID, "👍", true); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := f.svc.DeleteChannel(f.ctx, ten, bob, c.ID, kanri.Seen{}); kanri.ErrorCode(err) != kanri.EFORBIDDEN {
		t.Errorf("a member deletes it: got %v, want forbidden", err)
	}
	if err := f.svc.DeleteChannel(f.ctx, ten, alice, c.ID, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	f.svc.Wait()
	if err := f.svc.FinishDeletions(f.ctx); err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{kanri.TypeChannel, kanri.TypeMessage, kanri.TypeChannelMember, kanri.TypeReaction, kanri.TypeChannelDeletion, kanri.TypeChannelName} {
		items, _, err := store.Of[kanri.Channel](f.st.Tenant(ten), kanri.ContainerMessaging, typ).Query(f.ctx, docstore.Query{Limit: 10})
		if err != nil || len(items) != 0 {
			t.Errorf("%s documents left: got %d (%v), want none", typ, len(items), err)
		}
	}
	f.channel(t, bob, "doomed", false) // the name is free again
}

func TestEventsCarryEveryChange(t *testing.T) {
	f := setup(t)
	sub, err := f.bus.Subscribe(f.ctx, ten, "")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	c := f.channel(t, alice, "general", true)
	m := f.post(t, alice, c.ID, "hi")
	if _, err := f.svc.React(f.ctx, ten, alice, c.ID, m.ID, "👍", true); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.EditMessage(f.ctx, ten, alice, c.ID, m.ID, kanri.Seen{}, "hello"); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.DeleteMessage(f.ctx, ten, alice, c.ID, m.ID); err != nil {
		t.Fatal(err)
	}
	want := []string{messaging.KindMessageCreated, messaging.KindMemberRead, messaging.KindReaction, messaging.KindMessageUpdated, messaging.KindMessageDeleted}
	for i, w := range want {
		select {
		case e := <-sub.C:
			if e.Kind != w || e.Topic != messaging.Topic(c.ID) || e.TenantID != ten {
				t.Errorf("event %d: got %s %s %s, want %s on %s", i, e.TenantID, e.Kind, e.Topic, w, messaging.Topic(c.ID))
			}
		case <-time.After(time.Minute): // a bound on a wait for a condition, not a speed floor
			t.Fatalf("event %d (%s) never came", i, w)
		}
	}
}

// TestMembershipChangesThatChangeNothingAreNotRecorded adds a member twice
// and removes someone who is not a member: only the change made is
// audited, and Member finds exactly the members, by a person who can see
// the channel.
func TestMembershipChangesThatChangeNothingAreNotRecorded(t *testing.T) {
	f := setup(t)
	c := f.channel(t, alice, "team", true)
	for range 2 {
		if err := f.svc.AddMember(f.ctx, ten, alice, c.ID, bob.UserID); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.svc.RemoveMember(f.ctx, ten, alice, c.ID, carol.UserID); err != nil {
		t.Fatalf("remove someone who is not a member: %v", err)
	}
	for _, tc := range []struct {
		action string
		want   int
	}{
		{"channel.member_add", 1},
		{"channel.member_remove", 0},
	} {
		recs, _, err := f.svc.Audit.Query(f.ctx, ten, audit.Filter{Action: tc.action})
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != tc.want {
			t.Errorf("%s: got %d records, want %d", tc.action, len(recs), tc.want)
		}
	}
	got, _, err := f.svc.Channel(f.ctx, ten, alice.UserID, c.ID)
	if err != nil || got.MemberCount != 2 {
		t.Errorf("memberCount: got %d (%v), want 2", got.MemberCount, err)
	}

	for _, tc := range []struct {
		who, member string
		want        string // the member's name, or the error code
	}{
		{alice.UserID, bob.UserID, "Bob"},
		{bob.UserID, alice.UserID, "Alice"},
		{alice.UserID, carol.UserID, kanri.ENOTFOUND},
		{carol.UserID, bob.UserID, kanri.ENOTFOUND}, // carol cannot see the private channel
	} {
		m, err := f.svc.Member(f.ctx, ten, tc.who, c.ID, tc.member)
		got := kanri.ErrorCode(err)
		if err == nil {
			got = m.Name
		}
		if got != tc.want {
			t.Errorf("Member(%s, by %s): got %q, want %q", tc.member, tc.who, got, tc.want)
		}
	}
}

// TestOnlyAUserWhoCanReadChannelsIsAdded: a user of the tenant without a
// role of the messaging service cannot be added to a channel (they could
// not read it).
func TestOnlyAUserWhoCanReadChannelsIsAdded(t *testing.T) {
	f := setup(t)
	c := f.channel(t, alice, "secret", true)
	dan := &kanri.User{Doc: kanri.Doc{ID: "user_dan"}, Username: "dan", DisplayName: "Dan", IsActive: true}
	if err := f.st.Tenant(ten).Users().Create(f.ctx, dan); err != nil {
		t.Fatal(err)
	}
	err := f.svc.AddMember(f.ctx, ten, alice, c.ID, dan.ID)
	if got := kanri.ErrorFields(err)["userId"]; got != "channels.no_messaging_role" {
		t.Errorf("adding a user without a messaging role: %v, want channels.no_messaging_role", err)
	}
	if err := f.svc.AddMember(f.ctx, ten, alice, c.ID, bob.UserID); err != nil {
		t.Errorf("adding bob, who has a messaging role: %v", err)
	}
	// The add form offers those who could read it and are not members.
	cands, err := f.svc.Candidates(f.ctx, ten, map[string]bool{alice.UserID: true, bob.UserID: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range cands {
		got = append(got, u.ID)
	}
	if want := []string{admin.UserID, carol.UserID}; !slices.Equal(got, want) && !slices.Equal(got, []string{carol.UserID, admin.UserID}) {
		t.Errorf("candidates: got %v, want %v (not dan, who has no messaging role)", got, want)
	}
}

// TestMentionsAreCountedUntilRead: a message mentioning a member by
// username (in any case, once however often) counts as a mention of them
// while unread; the sender's mention of themself, and of someone who is
// not a member or not a user, counts for no one; a deleted message stops
// counting, and reading clears the rest.
func TestMentionsAreCountedUntilRead(t *testing.T) {
	f := setup(t)
	for _, p := range []messaging.Person{alice, bob} {
		r := &kanri.Username{Doc: kanri.Doc{ID: kanri.UsernameID(strings.ToLower(p.Name))}, UserID: p.UserID}
		if err := f.st.Tenant(ten).Usernames().Create(f.ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	c := f.channel(t, alice, "general", false)
	if err := f.svc.Join(f.ctx, ten, bob, c.ID); err != nil {
		t.Fatal(err)
	}
	mentions := func(userID string) int {
		t.Helper()
		ms, _, err := f.svc.Mine(f.ctx, ten, userID, 100, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.Channel.ID == c.ID {
				return m.Mentions
			}
		}
		t.Fatalf("%s is not in general", userID)
		return 0
	}
	first := f.post(t, alice, c.ID, "@BOB look, @bob. And @alice, @nobody, mail bob@example.com")
	f.post(t, alice, c.ID, "@bob again")
	plain := f.post(t, alice, c.ID, "no mention")
	if got, want := mentions(bob.UserID), 2; got != want {
		t.Errorf("bob's mentions: got %d, want %d", got, want)
	}
	if got := mentions(alice.UserID); got != 0 {
		t.Errorf("alice's mentions of herself: got %d, want 0", got)
	}
	if err := f.svc.DeleteMessage(f.ctx, ten, alice, c.ID, first.ID); err != nil {
		t.Fatal(err)
	}
	if got, want := mentions(bob.UserID), 1; got != want {
		t.Errorf("bob's mentions after a deletion: got %d, want %d", got, want)
	}
	// An edit that adds a mention counts it, once however often it is
	// edited again.
	edited := plain
	for _, text := range []string{"now @bob", "now @Bob!", "@bob, now @alice"} {
		var err error
		if edited, err = f.svc.EditMessage(f.ctx, ten, alice, c.ID, plain.ID, kanri.Seen{ETag: edited.ETag, State: edited.Content}, text); err != nil {
			t.Fatal(err)
		}
		if got, want := mentions(bob.UserID), 2; got != want {
			t.Errorf("bob's mentions after the edit to %q: got %d, want %d", text, got, want)
		}
	}
	ch, _, err := f.svc.Channel(f.ctx, ten, bob.UserID, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.MarkRead(f.ctx, ten, bob.UserID, c.ID, ch.LastSeq); err != nil {
		t.Fatal(err)
	}
	if got := mentions(bob.UserID); got != 0 {
		t.Errorf("bob's mentions once read: got %d, want 0", got)
	}
}

func TestMentionedNames(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"@bob hi @Bob and @ann_b.", []string{"bob", "ann_b"}},
		{"mail bob@example.com, @ alone", nil},
		{"@山田さん", []string{"山田さん"}},
	} {
		if got := kanri.MentionedNames(c.in, 20); !slices.Equal(got, c.want) {
			t.Errorf("MentionedNames(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := kanri.MentionedNames("@a @b @c", 2); len(got) != 2 {
		t.Errorf("at most 2: got %q", got)
	}
}

// TestPatchChannelAfterAConcurrentChange: a change made between the read
// and the write is stale for a conditional patch, and read again by an
// unconditional one, which keeps it.
func TestPatchChannelAfterAConcurrentChange(t *testing.T) {
	for _, c := range []struct {
		conditional bool
		wantStale   bool
	}{{true, true}, {false, false}} {
		f := setup(t)
		ch := f.channel(t, alice, fmt.Sprintf("patched-%v", c.conditional), false)
		calls := 0
		got, err := f.svc.PatchChannel(f.ctx, ten, alice, ch.ID, func(*kanri.Channel) (bool, error) { return c.conditional, nil }, func(cur *kanri.Channel) messaging.ChannelInput {
			calls++
			if calls == 1 { // someone else changes the description meanwhile
				in := messaging.ChannelInput{Name: cur.Name, DisplayName: cur.DisplayName, Description: "theirs", IsPrivate: cur.IsPrivate}
				if _, err := f.svc.UpdateChannel(f.ctx, ten, alice, cur.ID, kanri.Seen{}, in); err != nil {
					t.Fatal(err)
				}
			}
			return messaging.ChannelInput{Name: cur.Name, DisplayName: "Mine", Description: cur.Description, IsPrivate: cur.IsPrivate}
		})
		if c.wantStale {
			if !kanri.IsCode(err, kanri.ESTALE) {
				t.Errorf("conditional: got %v, want stale", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("unconditional: %v", err)
		}
		if got.DisplayName != "Mine" || got.Description != "theirs" || calls != 2 {
			t.Errorf("unconditional: got %q/%q after %d reads, want Mine/theirs after 2", got.DisplayName, got.Description, calls)
		}
	}
}
