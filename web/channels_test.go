package web_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/messaging"
	"github.com/kanri/kanri/internal/role"
)

// assignMessaging assigns the messaging service to a tenant.
func (e *env) assignMessaging(t testing.TB, tenantID string) {
	e.assign(t, tenantID, kanri.MessagingServiceID)
}

// userIDOf returns the id of a tenant's user by username or e-mail address.
func (e *env) userIDOf(t testing.TB, tenantID, name string) string {
	t.Helper()
	ctx := context.Background()
	for _, field := range []string{"username", "email"} {
		us, _, err := e.st.Tenant(tenantID).Users().Query(ctx, docstore.Query{Where: []docstore.Filter{docstore.Eq(field, name)}, OrderBy: field, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(us) == 1 {
			return us[0].ID
		}
	}
	t.Fatalf("no user %s in %s", name, tenantID)
	return ""
}

// matrixChannel makes a public channel owned by a user (who need not be
// of the tenant: the operator's staff act in every tenant), with a
// message of theirs and acme's Bob a member, and returns their ids.
func (e *env) matrixChannel(t testing.TB, tenantID, ownerID string, n int64) (string, string) {
	t.Helper()
	e.assignMessaging(t, tenantID)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID})
	owner := messaging.Person{UserID: ownerID, Name: "Owner"}
	c, err := e.config.Messaging.CreateChannel(ctx, tenantID, owner, messaging.ChannelInput{Name: fmt.Sprintf("matrix-%d", n)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.config.Messaging.Join(ctx, tenantID, messaging.Person{UserID: e.acmeBob.ID, Name: "Bob"}, c.ID); err != nil {
		t.Fatal(err)
	}
	m, err := e.config.Messaging.Post(ctx, tenantID, owner, c.ID, "matrix", nil)
	if err != nil {
		t.Fatal(err)
	}
	return c.ID, m.ID
}

// TestChannelPagesDoWhatTheySay drives the channel pages as a browser
// would (forms and htmx requests) and checks each change through the
// service.
func TestChannelPagesDoWhatTheySay(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.chat(t)
	admin := e.client(t).signIn("acme", "admin")
	bob := e.client(t).signIn("acme", "bob")
	svc := e.config.Messaging
	ctx := context.Background()
	acme := "/t/" + e.acme.ID + "/channels"

	// Create: a refused form keeps its input; a good one lands on the
	// channel.
	resp, body := admin.post(acme, url.Values{"name": {"Bad!Name"}, "displayName": {"Kept <i>"}})
	wantStatus(t, "create with a bad name", resp, http.StatusUnprocessableEntity)
	if !strings.Contains(body, `value="Kept &lt;i&gt;"`) {
		t.Errorf("the refused form does not keep the display name")
	}
	resp, _ = admin.post(acme, url.Values{"name": {"team"}, "displayName": {"Team"}, "isPrivate": {"1"}})
	wantStatus(t, "create", resp, http.StatusSeeOther)
	team := strings.TrimPrefix(resp.Header.Get("Location"), acme+"/")
	if ch, _, err := svc.Channel(ctx, e.acme.ID, e.acmeAdmin.ID, team); err != nil || !ch.IsPrivate || ch.MemberCount != 1 {
		t.Fatalf("the created channel: %+v (%v)", ch, err)
	}

	// Bob cannot see the private channel, by list or URL, until added.
	_, body = bob.get(acme)
	if strings.Contains(body, "team") {
		t.Errorf("bob's channel list shows the private channel")
	}
	for _, p := range []string{acme + "/" + team, acme + "/" + team + "/members", acme + "/" + team + "/messages"} {
		resp, _ := bob.get(p)
		wantStatus(t, "bob GET "+p, resp, http.StatusNotFound)
	}
	resp, _ = bob.post(acme+"/"+team+"/messages", url.Values{"content": {"let me in"}})
	wantStatus(t, "bob posts to the private channel", resp, http.StatusNotFound)
	resp, _ = admin.post(acme+"/"+team+"/members", url.Values{"userId": {e.acmeBob.ID}})
	wantStatus(t, "add bob", resp, http.StatusSeeOther)
	resp, _ = bob.get(acme + "/" + team)
	wantStatus(t, "bob, a member now, opens it", resp, http.StatusOK)

	// Posting from the page answers the emptied composer and the message.
	resp, body = bob.send(http.MethodPost, acme+"/"+team+"/messages", strings.NewReader(url.Values{"content": {"hi <b>team</b>"}, "_csrf": {bob.csrf}}.Encode()),
		http.Header{"HX-Request": {"true"}, "Content-Type": {"application/x-www-form-urlencoded"}})
	wantStatus(t, "post from the page", resp, http.StatusOK)
	if !strings.Contains(body, `hx-swap-oob="beforeend:#messages"`) || !strings.Contains(body, "hi &lt;b&gt;team&lt;/b&gt;") {
		t.Errorf("the post's answer: %.400s", body)
	}
	resp, body = bob.send(http.MethodPost, acme+"/"+team+"/messages", strings.NewReader(url.Values{"content": {strings.Repeat("x", 4001)}, "_csrf": {bob.csrf}}.Encode()),
		http.Header{"HX-Request": {"true"}, "Content-Type": {"application/x-www-form-urlencoded"}})
	wantStatus(t, "a message too long", resp, http.StatusUnprocessableEntity)
	if !strings.Contains(body, "at most 4,000") || !strings.Contains(body, strings.Repeat("x", 100)) {
		t.Errorf("the refused composer does not say why or keep the text")
	}
	// Attachments: a file of the tenant is linked by its name; another
	// tenant's file is refused.
	e.assignFiles(t, e.acme.ID)
	if _, _, err := e.roles.Assign(audit.WithActor(ctx, audit.Actor{UserID: "system"}), role.Grant{Tenant: e.acme, UserID: e.acmeBob.ID, ServiceID: kanri.FileServiceID, RoleName: role.Viewer}); err != nil {
		t.Fatal(err)
	}
	plan := e.uploadFile(t, e.acme.ID, "", "plan.txt", []byte("the plan"))
	theirs := e.uploadFile(t, e.globex.ID, "", "theirs.txt", []byte("not yours"))
	_, body = bob.get(acme + "/" + team)
	if !strings.Contains(body, `data-testid="attach-plan.txt"`) {
		t.Errorf("the composer does not offer the tenant's latest file")
	}
	resp, body = bob.send(http.MethodPost, acme+"/"+team+"/messages", strings.NewReader(url.Values{"content": {"see theirs"}, "attachments": {theirs.ID}, "_csrf": {bob.csrf}}.Encode()),
		http.Header{"HX-Request": {"true"}, "Content-Type": {"application/x-www-form-urlencoded"}})
	wantStatus(t, "attach another tenant's file", resp, http.StatusUnprocessableEntity)
	resp, body = bob.send(http.MethodPost, acme+"/"+team+"/messages", strings.NewReader(url.Values{"content": {"see the plan"}, "attachments": {plan.ID}, "_csrf": {bob.csrf}}.Encode()),
		http.Header{"HX-Request": {"true"}, "Content-Type": {"application/x-www-form-urlencoded"}})
	wantStatus(t, "attach a file", resp, http.StatusOK)
	if !strings.Contains(body, `href="/t/`+e.acme.ID+`/files/`+plan.ID+`"`) || !strings.Contains(body, "plan.txt") {
		t.Errorf("the message does not link its attachment: %.600s", body)
	}

	ms, _, err := svc.Messages(ctx, e.acme.ID, e.acmeBob.ID, team, messaging.MessageQuery{})
	var msg *kanri.Message
	for _, m := range ms {
		if m.Content == "hi <b>team</b>" {
			msg = m
		}
	}
	if err != nil || msg == nil {
		t.Fatalf("the posted message is not in the channel (%v)", err)
	}

	// React, edit, delete: the admin may not edit Bob's message but, as a
	// moderator, delete it.
	resp, _ = admin.post(acme+"/"+team+"/messages/"+msg.ID+"/react", url.Values{"emoji": {"👍"}, "on": {"1"}})
	wantStatus(t, "react", resp, http.StatusSeeOther)
	resp, _ = admin.post(acme+"/"+team+"/messages/"+msg.ID, url.Values{"content": {"hijacked"}})
	wantStatus(t, "the admin edits bob's message", resp, http.StatusForbidden)
	resp, _ = bob.post(acme+"/"+team+"/messages/"+msg.ID, url.Values{"content": {"hi team"}, "etag": {msg.ETag}, "state": {msg.Content}})
	wantStatus(t, "bob edits his message", resp, http.StatusSeeOther)
	got, err := svc.Message(ctx, e.acme.ID, e.acmeBob.ID, team, msg.ID)
	if err != nil || got.Content != "hi team" || got.EditedAt.IsZero() || len(got.Reactions["👍"]) != 1 {
		t.Errorf("after the reaction and the edit: %+v (%v)", got, err)
	}
	resp, _ = admin.post(acme+"/"+team+"/messages/"+msg.ID+"/delete", nil)
	wantStatus(t, "the admin deletes bob's message", resp, http.StatusSeeOther)
	if _, err := svc.Message(ctx, e.acme.ID, e.acmeBob.ID, team, msg.ID); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("the deleted message: %v, want not found", err)
	}

	// Members: the last owner cannot leave; hand over, then leave.
	admin.post(acme+"/"+team+"/leave", nil) // refused, back to the channel with the reason
	if _, m, err := svc.Channel(ctx, e.acme.ID, e.acmeAdmin.ID, team); err != nil || m == nil {
		t.Errorf("the last owner left: member %v (%v)", m, err)
	}
	resp, _ = admin.post(acme+"/"+team+"/members/"+e.acmeBob.ID+"/role", url.Values{"role": {"owner"}})
	wantStatus(t, "make bob an owner", resp, http.StatusSeeOther)
	resp, _ = admin.post(acme+"/"+team+"/leave", nil)
	wantStatus(t, "the admin leaves", resp, http.StatusSeeOther)

	// Edit, archive (read-only), restore, delete the public channel.
	pub := acme + "/" + c.public.ID
	resp, _ = admin.get(pub + "/edit")
	wantStatus(t, "edit form", resp, http.StatusOK)
	resp, _ = admin.post(pub, url.Values{"name": {"general"}, "displayName": {"General chat"}, "etag": {c.public.ETag}, "state": {c.public.State()}})
	wantStatus(t, "save", resp, http.StatusSeeOther)
	resp, _ = admin.post(pub, url.Values{"name": {"general"}, "displayName": {"Stale"}, "etag": {c.public.ETag}, "state": {c.public.State()}})
	wantStatus(t, "a stale save", resp, http.StatusConflict)
	resp, _ = admin.post(pub+"/archive", nil)
	wantStatus(t, "archive", resp, http.StatusSeeOther)
	before, _, _ := svc.Channel(ctx, e.acme.ID, e.acmeBob.ID, c.public.ID)
	bob.post(pub+"/messages", url.Values{"content": {"anyone?"}})
	if after, _, _ := svc.Channel(ctx, e.acme.ID, e.acmeBob.ID, c.public.ID); after.LastSeq != before.LastSeq {
		t.Errorf("a post to an archived channel was taken")
	}
	resp, _ = bob.post(pub+"/delete", nil)
	wantStatus(t, "bob (no channels.delete) deletes it", resp, http.StatusForbidden)
	resp, _ = admin.post(pub+"/unarchive", nil)
	wantStatus(t, "restore", resp, http.StatusSeeOther)
	resp, _ = admin.post(pub+"/delete", nil)
	wantStatus(t, "delete", resp, http.StatusSeeOther)
	resp, _ = admin.get(pub)
	wantStatus(t, "the deleted channel", resp, http.StatusNotFound)
}

// TestOlderMessagesReachTheFirst: a channel of 120 messages shows its
// latest 50; the older pages, loaded in place (htmx) and by the link
// (a page of its own), reach the first message without repeating one.
func TestOlderMessagesReachTheFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.chat(t)
	for i := range 120 {
		e.say(t, c.admin, c.public, fmt.Sprintf("message-%03d", i))
	}
	admin := e.client(t).signIn("acme", "admin")
	_, body := admin.get("/t/" + e.acme.ID + "/channels/" + c.public.ID)
	shown := messagesIn(body)
	if len(shown) != 50 || shown[0] != "message-070" || shown[49] != "message-119" {
		t.Fatalf("the channel's page shows %d messages %v, want the latest 50", len(shown), shown)
	}
	for _, htmx := range []bool{true, false} {
		seen := map[string]bool{}
		for _, m := range shown {
			seen[m] = true
		}
		older, pages := olderURLIn(body), 0
		for older != "" {
			h := http.Header{}
			if htmx {
				h.Set("HX-Request", "true")
			}
			resp, page := admin.send(http.MethodGet, older, nil, h)
			wantStatus(t, "older messages", resp, http.StatusOK)
			if pages++; pages > 5 {
				t.Fatal("more than 5 older pages for 70 messages")
			}
			for _, m := range messagesIn(page) {
				if seen[m] {
					t.Errorf("htmx %t: page %d repeats %s", htmx, pages, m)
				}
				seen[m] = true
			}
			if !htmx && !strings.Contains(page, `data-testid="messages-latest"`) {
				t.Errorf("an older page of its own has no way back to the latest")
			}
			older = olderURLIn(page)
		}
		if len(seen) != 120 || !seen["message-000"] {
			t.Errorf("htmx %t: %d messages reached, want all 120", htmx, len(seen))
		}
	}
}

var (
	messageText = regexp.MustCompile(`data-testid="message-content">(message-\d{3})<`)
	olderLink   = regexp.MustCompile(`data-testid="messages-older"[^>]*>\s*<a href="([^"]+)"`)
)

// messagesIn returns the texts message-NNN in a page, in order.
func messagesIn(page string) []string {
	var out []string
	for _, m := range messageText.FindAllStringSubmatch(page, -1) {
		out = append(out, m[1])
	}
	return out
}

// olderURLIn returns the URL of a page's older messages, or "".
func olderURLIn(page string) string {
	m := olderLink.FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// TestMyChannelsCountNothingFalse: the list of one's channels shows no
// "0 in all" under channels it lists.
func TestMyChannelsCountNothingFalse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.chat(t)
	_, page := e.client(t).signIn("acme", "bob").get("/t/" + e.acme.ID + "/channels")
	mine := page[strings.Index(page, `data-testid="channels-mine"`):]
	mine = mine[:strings.Index(mine, `data-testid="channel-search-form"`)]
	if strings.Contains(mine, "0 in all") {
		t.Error("My channels lists a channel and says 0 in all")
	}
}

// TestAnAttachedImageIsShown: an image attached to a message shows as its
// thumbnail; another file as its name.
func TestAnAttachedImageIsShown(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.chat(t)
	img := e.uploadFile(t, e.acme.ID, "", "pic.png", pngImage(t, 300, 200))
	doc := e.uploadFile(t, e.acme.ID, "", "notes.txt", []byte("notes"))
	if _, err := e.config.Messaging.Post(context.Background(), e.acme.ID, c.admin, c.public.ID, "see these", []string{img.ID, doc.ID}); err != nil {
		t.Fatal(err)
	}
	_, page := e.client(t).signIn("acme", "admin").get("/t/" + e.acme.ID + "/channels/" + c.public.ID)
	if want := `src="/t/` + e.acme.ID + `/files/` + img.ID + `/thumbnail"`; !strings.Contains(page, want) {
		t.Error("the attached image is not shown as its thumbnail")
	}
	if !strings.Contains(page, "📎 notes.txt") {
		t.Error("the attached text file is not shown by its name")
	}
}
