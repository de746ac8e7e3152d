package views

import (
	"bytes"
	"context"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/kanri"
)

// TestAudienceIsWhatDiffers renders one message for people who differ in
// everything MessageItem reads of who sees it, and checks that two people
// with the same Audience see the same bytes: a live update is rendered
// once per audience and sent to all of its people.
func TestAudienceIsWhatDiffers(t *testing.T) {
	// Every field of MessageView, and how Audience covers it: a new field
	// must be added here, and to Audience when it differs between people.
	covered := map[string]string{
		"TenantID": "the same for everyone of an event", "Message": "the same for everyone of an event",
		"Attachments": "the same for everyone of an event",
		"Mine":        "key", "Moderate": "key", "Member": "key", "MarkRead": "key", "CSRF": "key", "OOB": "key",
		"UserID": "key, through the reactions that are theirs", "Username": "key, when mentioned",
	}
	typ := reflect.TypeFor[MessageView]()
	for i := range typ.NumField() {
		if _, ok := covered[typ.Field(i).Name]; !ok {
			t.Errorf("MessageView.%s: is it the same for everyone who sees an update? Say so here, or add it to Audience", typ.Field(i).Name)
		}
	}

	msg := &kanri.Message{
		Doc: kanri.Doc{ID: "msg_1", ETag: `"1"`}, ChannelID: "chan_1", Content: "hello @Ann and @bob, see https://example.com",
		SenderID: "user_ann", SenderName: "Ann", Seq: 7,
		Reactions: map[string][]string{"👍": {"user_bob", "user_cy"}, "🎉": {"user_cy"}},
	}
	mentioned := MentionNames(msg.Content)
	type person struct{ id, name string }
	people := []person{{"user_ann", "ann"}, {"user_bob", "bob"}, {"user_cy", "cy"}, {"user_dee", "dee"}, {"user_eve", "eve"}, {"user_fay", "Fay"}}
	rendered := map[string]string{} // audience → bytes
	for _, p := range people {
		for _, moderate := range []bool{false, true} {
			for _, member := range []bool{false, true} {
				for _, markRead := range []bool{false, true} {
					for _, oob := range []string{"", "true"} {
						v := MessageView{
							TenantID: "tenant_1", Message: msg, UserID: p.id, Username: p.name, OOB: oob,
							Mine: msg.SenderID == p.id, Moderate: moderate, Member: member, MarkRead: markRead,
						}
						var buf bytes.Buffer
						if err := MessageItem(v).Render(context.Background(), &buf); err != nil {
							t.Fatal(err)
						}
						key := v.Audience(mentioned)
						if was, ok := rendered[key]; ok && was != buf.String() {
							t.Errorf("%s (moderate %v, member %v, mark read %v, oob %q) has the audience %q of someone who sees it otherwise:\n%s\nagainst\n%s",
								p.name, moderate, member, markRead, oob, key, buf.String(), was)
						}
						rendered[key] = buf.String()
					}
				}
			}
		}
	}
	// Ann sent it and is mentioned, Bob is mentioned and reacted, Cy
	// reacted; dee, eve and Fay are alike: they share their audiences.
	if got, want := len(rendered), 4*16; got != want {
		t.Errorf("%d audiences for 6 people in 16 situations, want %d (4 kinds of people)", got, want)
	}
}

// TestRevIsWhatIsShown renders variants of one message and checks that
// two of them with the same Rev render the same bytes, once the parts Rev
// leaves out (OOB, CSRF, MarkRead) are set alike: channels.js keeps an
// element whose live copy has its rev, and must never keep a stale one.
func TestRevIsWhatIsShown(t *testing.T) {
	base := func() MessageView {
		return MessageView{
			TenantID: "tenant_1", UserID: "user_bob", Username: "bob", Member: true,
			Message: &kanri.Message{
				Doc: kanri.Doc{ID: "msg_1", ETag: `"1"`}, ChannelID: "chan_1", Content: "hello @bob",
				SenderID: "user_ann", SenderName: "Ann", Seq: 7, SentAt: kanri.NewTime(time.Date(2026, 11, 28, 1, 2, 3, 0, time.UTC)),
				Reactions: map[string][]string{"👍": {"user_cy"}},
			},
		}
	}
	variants := map[string]func(*MessageView){
		"as it is":        func(*MessageView) {},
		"another version": func(v *MessageView) { v.Message.ETag = `"2"` },
		"edited": func(v *MessageView) {
			v.Message.Content = "hello"
			v.Message.EditedAt = kanri.NewTime(time.Date(2026, 11, 28, 1, 5, 0, 0, time.UTC))
		},
		"a reaction more":   func(v *MessageView) { v.Message.Reactions = map[string][]string{"👍": {"user_cy", "user_dee"}} },
		"bob's reaction":    func(v *MessageView) { v.Message.Reactions = map[string][]string{"👍": {"user_bob"}} },
		"another emoji":     func(v *MessageView) { v.Message.Reactions = map[string][]string{"🎉": {"user_cy"}} },
		"an attachment":     func(v *MessageView) { v.Attachments = []Attachment{{ID: "file_1", Name: "a.png", Image: true}} },
		"not a member":      func(v *MessageView) { v.Member = false },
		"a moderator":       func(v *MessageView) { v.Moderate = true },
		"bob's own":         func(v *MessageView) { v.Message.SenderID, v.Message.SenderName, v.Mine = "user_bob", "Bob", true },
		"another sender":    func(v *MessageView) { v.Message.SenderName = "Anne" },
		"a system message":  func(v *MessageView) { v.Message.System, v.Message.Subject = kanri.SystemJoined, "Cy" },
		"with a token":      func(v *MessageView) { v.CSRF = "token" },
		"out of band":       func(v *MessageView) { v.OOB = "true" },
		"to be marked read": func(v *MessageView) { v.MarkRead = true },
	}
	rev := regexp.MustCompile(` data-rev="[^"]*"`)
	type shown struct{ rev, html string }
	got := map[string]shown{}
	for name, change := range variants {
		v := base()
		change(&v)
		r := v.Rev()
		v.CSRF, v.OOB, v.MarkRead = "", "", false
		var buf bytes.Buffer
		if err := MessageItem(v).Render(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		got[name] = shown{r, rev.ReplaceAllString(buf.String(), "")}
	}
	for a, x := range got {
		for b, y := range got {
			if a < b && x.rev == y.rev && x.html != y.html {
				t.Errorf("%q and %q have the same rev and render differently:\n%s\n%s", a, b, x.html, y.html)
			}
		}
	}
	for _, same := range []string{"with a token", "out of band", "to be marked read"} {
		if got["as it is"].rev != got[same].rev {
			t.Errorf("%q has another rev than the message as it is: a live copy of it would replace the element", same)
		}
	}
}
