package messaging_test

import (
	"testing"
	"time"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/messaging"
)

// TestTrackerFollowsUnreadMessagesAndMentions applies a sequence of a
// channel's events to Bob's tracker and checks his counts after each.
func TestTrackerFollowsUnreadMessagesAndMentions(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	general := &kanri.Channel{Doc: kanri.Doc{ID: "c1"}, Name: "general"}
	seq := general.Post(kanri.NewTime(now), true) // read by Bob
	member := &kanri.ChannelMember{ChannelID: "c1", UserID: bob.UserID, ReadSeq: seq}
	tr := messaging.NewTracker(messaging.Person{UserID: bob.UserID, Username: "bob"})
	tr.Reset([]messaging.Membership{{Channel: general, Member: member}}, now)

	msg := func(seq int64, from, text string) *kanri.Message {
		return &kanri.Message{Doc: kanri.Doc{ID: "m" + string(rune('0'+seq))}, Seq: seq, SenderID: from, Content: text}
	}
	for _, step := range []struct {
		name        string
		kind        string
		p           messaging.Payload
		wantChanged bool
		want        messaging.Total
	}{
		{"a message from Alice", messaging.KindMessageCreated, messaging.Payload{ChannelID: "c1", Counted: true, Message: msg(2, alice.UserID, "hello")}, true, messaging.Total{Unread: 1}},
		{"one that mentions Bob", messaging.KindMessageCreated, messaging.Payload{ChannelID: "c1", Counted: true, Message: msg(3, alice.UserID, "@Bob look")}, true, messaging.Total{Unread: 2, Mentions: 1}},
		{"Bob's own mention of himself", messaging.KindMessageCreated, messaging.Payload{ChannelID: "c1", Counted: true, Message: msg(4, bob.UserID, "@bob note")}, false, messaging.Total{Unread: 2, Mentions: 1}},
		{"a message not counted", messaging.KindMessageCreated, messaging.Payload{ChannelID: "c1", Message: msg(5, alice.UserID, "joined")}, false, messaging.Total{Unread: 2, Mentions: 1}},
		{"another channel's message", messaging.KindMessageCreated, messaging.Payload{ChannelID: "c2", Counted: true, Message: msg(6, alice.UserID, "@bob")}, false, messaging.Total{Unread: 2, Mentions: 1}},
		{"an edit that mentions Bob", messaging.KindMessageUpdated, messaging.Payload{ChannelID: "c1", Message: msg(2, alice.UserID, "hello @bob")}, true, messaging.Total{Unread: 2, Mentions: 2}},
		{"the same edit again", messaging.KindMessageUpdated, messaging.Payload{ChannelID: "c1", Message: msg(2, alice.UserID, "hello @bob!")}, false, messaging.Total{Unread: 2, Mentions: 2}},
		{"a deleted mention", messaging.KindMessageDeleted, messaging.Payload{ChannelID: "c1", Message: msg(3, alice.UserID, "")}, true, messaging.Total{Unread: 1, Mentions: 1}},
		{"someone else reads", messaging.KindMemberRead, messaging.Payload{ChannelID: "c1", UserID: alice.UserID, ReadSeq: 9}, false, messaging.Total{Unread: 1, Mentions: 1}},
		{"Bob reads", messaging.KindMemberRead, messaging.Payload{ChannelID: "c1", UserID: bob.UserID, ReadSeq: 4}, true, messaging.Total{}},
		{"Bob joins c2", messaging.KindMemberJoined, messaging.Payload{ChannelID: "c2", UserID: bob.UserID, Name: "random"}, false, messaging.Total{}},
		{"c2's mention of Bob", messaging.KindMessageCreated, messaging.Payload{ChannelID: "c2", Counted: true, Message: msg(7, alice.UserID, "hi @bob")}, true, messaging.Total{Unread: 1, Mentions: 1}},
		{"Bob leaves c2", messaging.KindMemberLeft, messaging.Payload{ChannelID: "c2", UserID: bob.UserID}, true, messaging.Total{}},
	} {
		p := step.p
		if got := tr.Apply(step.kind, &p); got != step.wantChanged {
			t.Errorf("%s: changed = %v, want %v", step.name, got, step.wantChanged)
		}
		if got := tr.Total(); got != step.want {
			t.Errorf("%s: total = %+v, want %+v", step.name, got, step.want)
		}
	}
	if got, want := tr.IDs(), []string{"c1"}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("channels followed: got %q, want %q", got, want)
	}
}

// TestTrackerStartsFromTheMemberships: a reset counts the unread messages
// the channel's window knows of and the mentions the membership remembers.
func TestTrackerStartsFromTheMemberships(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	c := &kanri.Channel{Doc: kanri.Doc{ID: "c1"}, Name: "general"}
	for range 3 {
		c.Post(kanri.NewTime(now), true)
	}
	m := &kanri.ChannelMember{ChannelID: "c1", UserID: bob.UserID, ReadSeq: 1, MentionSeqs: []int64{1, 3}}
	tr := messaging.NewTracker(bob)
	tr.Reset([]messaging.Membership{{Channel: c, Member: m}}, now)
	if got, want := tr.Total(), (messaging.Total{Unread: 2, Mentions: 1}); got != want {
		t.Errorf("total = %+v, want %+v (seq 1 is read)", got, want)
	}
	if got, want := tr.Channel("c1").Label(), "2"; got != want {
		t.Errorf("label = %q, want %q", got, want)
	}
}

// TestTrackerSeesPublicChannelsAndItsPrivateOnes: the events of a public
// channel reach anyone; of a private one, its members, as the tracker
// follows them joining and leaving.
func TestTrackerSeesPublicChannelsAndItsPrivateOnes(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	secret := &kanri.Channel{Doc: kanri.Doc{ID: "secret"}, Name: "secret", IsPrivate: true}
	tr := messaging.NewTracker(bob)
	tr.Reset([]messaging.Membership{{Channel: secret, Member: &kanri.ChannelMember{ChannelID: "secret", UserID: bob.UserID}}}, now)
	sees := func(id string, private bool) bool {
		t.Helper()
		ok, err := tr.Sees(t.Context(), id, private)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	for _, c := range []struct {
		name    string
		event   string
		channel string
		private bool
		want    bool
	}{
		{"a public channel", "", "general", false, true},
		{"a private channel of Bob's", "", "secret", true, true},
		{"another private channel", "", "other", true, false},
		{"Bob leaves his", messaging.KindMemberLeft, "secret", true, false},
		{"Bob joins the other", messaging.KindMemberJoined, "other", true, true},
		{"someone else leaves it", messaging.KindMemberLeft + "/alice", "other", true, true},
	} {
		switch c.event {
		case messaging.KindMemberLeft, messaging.KindMemberJoined:
			tr.Apply(c.event, &messaging.Payload{ChannelID: c.channel, UserID: bob.UserID})
		case messaging.KindMemberLeft + "/alice":
			tr.Apply(messaging.KindMemberLeft, &messaging.Payload{ChannelID: c.channel, UserID: alice.UserID})
		}
		if got := sees(c.channel, c.private); got != c.want {
			t.Errorf("%s: sees %s = %v, want %v", c.name, c.channel, got, c.want)
		}
	}
}
