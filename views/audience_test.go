package views

import (
	"bytes"
	"context"
	"reflect"
	"testing"

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
