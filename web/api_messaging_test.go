package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/messaging"
	"github.com/kanri/kanri/internal/role"
)

// apiChannelDoc is a channel as the API answers it.
type apiChannelDoc struct {
	ID, Name, DisplayName, Description string
	IsPrivate, Archived                bool
	MemberCount                        int
	Membership                         *struct {
		Role          string
		ReadSeq       int64
		Unread        int
		UnreadAtLeast bool
	}
}

// apiMessageDoc is a message as the API answers it.
type apiMessageDoc struct {
	ID, ChannelID, Content, SenderID, SenderName string
	Seq                                          int64
	EditedAt                                     *string
	Reactions                                    map[string][]string
	Attachments                                  []string
	System                                       *string
}

// apiMemberDoc is a member of a channel as the API answers it.
type apiMemberDoc struct{ UserID, Name, Role string }

// messagingKey makes a new acme user holding roleName in the messaging
// service (none when empty) and returns their id and a read-write key
// they made.
func (e *env) messagingKey(t *testing.T, username, roleName string) (string, string) {
	t.Helper()
	ctx := e.asAdmin(e.acme.ID)
	name := strings.ToUpper(username[:1]) + username[1:]
	u, err := e.users.Create(ctx, e.acme.ID, kanri.UserInput{Username: username, Email: username + "@acme.test", DisplayName: name, Password: password})
	if err != nil {
		t.Fatal(err)
	}
	if roleName != "" {
		if _, _, err := e.roles.Assign(ctx, role.Grant{Tenant: e.acme, UserID: u.ID, ServiceID: kanri.MessagingServiceID, RoleName: roleName}); err != nil {
			t.Fatal(err)
		}
	}
	e.apiKey(t, e.acme.ID, "read") // the API service
	by := audit.WithActor(context.Background(), audit.Actor{UserID: u.ID, UserName: u.Username, TenantID: e.acme.ID})
	_, secret, err := e.keys.Create(by, e.acme.ID, apikey.Input{Name: "by " + username, Scopes: []string{"read", "write"}})
	if err != nil {
		t.Fatal(err)
	}
	return u.ID, secret
}

// createChannel creates a channel with a key and returns it.
func (e *env) createChannel(t *testing.T, secret string, body map[string]any) apiChannelDoc {
	t.Helper()
	a := e.api(t, http.MethodPost, "/api/v1/channels", secret, body)
	if a.status != http.StatusCreated {
		t.Fatalf("create channel %v: %d %s", body, a.status, a.body)
	}
	var ch apiChannelDoc
	a.decode(&ch)
	return ch
}

// postMessage posts a message with a key and returns it.
func (e *env) postMessage(t *testing.T, secret, channelID, content string) apiMessageDoc {
	t.Helper()
	a := e.api(t, http.MethodPost, "/api/v1/channels/"+channelID+"/messages", secret, map[string]any{"content": content})
	if a.status != http.StatusCreated {
		t.Fatalf("post %q: %d %s", content, a.status, a.body)
	}
	var m apiMessageDoc
	a.decode(&m)
	return m
}

// getChannel reads a channel with a key.
func (e *env) getChannel(t *testing.T, secret, id string) (apiChannelDoc, string) {
	t.Helper()
	a := e.api(t, http.MethodGet, "/api/v1/channels/"+id, secret, nil)
	if a.status != http.StatusOK {
		t.Fatalf("GET channel %s: %d %s", id, a.status, a.body)
	}
	var ch apiChannelDoc
	a.decode(&ch)
	return ch, a.resp.Header.Get("ETag")
}

// channelNames lists the names of a list of channels.
func (e *env) channelNames(t *testing.T, secret, query string) []string {
	t.Helper()
	var list struct{ Items []apiChannelDoc }
	a := e.api(t, http.MethodGet, "/api/v1/channels"+query, secret, nil)
	if a.status != http.StatusOK {
		t.Fatalf("GET /channels%s: %d %s", query, a.status, a.body)
	}
	a.decode(&list)
	names := []string{}
	for _, c := range list.Items {
		names = append(names, c.Name)
	}
	return names
}

// wantField checks a 422 problem naming a field.
func wantField(t *testing.T, what string, a apiCall, field string) {
	t.Helper()
	if p := wantProblem(t, what, a, http.StatusUnprocessableEntity, "invalid"); p != nil {
		if errs, _ := p["errors"].(map[string]any); errs[field] == nil {
			t.Errorf("%s: the problem does not name %s: %v", what, field, p)
		}
	}
}

func TestAPIChannels(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignMessaging(t, e.acme.ID)
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")

	a := e.api(t, http.MethodPost, "/api/v1/channels", rw, map[string]any{"name": "general", "displayName": "General", "description": "Everyone"})
	var general apiChannelDoc
	a.decode(&general)
	if a.status != http.StatusCreated || a.resp.Header.Get("Location") != "/api/v1/channels/"+general.ID || a.resp.Header.Get("ETag") == "" ||
		general.MemberCount != 1 || general.DisplayName != "General" || general.IsPrivate {
		t.Fatalf("create a channel: %d %v %s", a.status, a.resp.Header, a.body)
	}
	for _, tc := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"a name with punctuation", map[string]any{"name": "Bad!Name"}, "name"},
		{"a name taken", map[string]any{"name": "general"}, "name"},
		{"no name", map[string]any{"displayName": "Nameless"}, "name"},
		{"a name too long", map[string]any{"name": strings.Repeat("a", 81)}, "name"},
		{"a display name too long", map[string]any{"name": "long", "displayName": strings.Repeat("長", 101)}, "displayName"},
		{"a description too long", map[string]any{"name": "long", "description": strings.Repeat("x", 1001)}, "description"},
		{"a display name with a direction override", map[string]any{"name": "hidden", "displayName": "abc\u202egpj.exe"}, "displayName"},
	} {
		wantField(t, tc.name, e.api(t, http.MethodPost, "/api/v1/channels", rw, tc.body), tc.field)
	}
	if a := e.api(t, http.MethodPost, "/api/v1/channels", rw, map[string]any{"name": "x", "memberCount": 9}); a.status != http.StatusBadRequest {
		t.Errorf("an unknown field: got %d, want 400", a.status)
	}
	secret := e.createChannel(t, rw, map[string]any{"name": "secret", "isPrivate": true})
	e.createChannel(t, rw, map[string]any{"name": "random"})

	// The key creator's channels, and the public ones.
	mine := e.channelNames(t, rw, "")
	slices.Sort(mine)
	if want := []string{"general", "random", "secret"}; !slices.Equal(mine, want) {
		t.Errorf("the creator's channels: got %q, want %q", mine, want)
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"?browse=true", []string{"general", "random"}},
		{"?browse=true&q=gen", []string{"general"}},
		{"?browse=true&q=sec", []string{}},
		{"?browse=true&archived=true", []string{}},
		{"?browse=true&limit=1", []string{"general"}},
	} {
		if got := e.channelNames(t, rw, tc.query); !slices.Equal(got, tc.want) {
			t.Errorf("GET /channels%s: got %q, want %q", tc.query, got, tc.want)
		}
	}
	for _, tc := range []struct {
		query string
		want  int
	}{
		{"?q=gen", http.StatusBadRequest},
		{"?archived=true", http.StatusBadRequest},
		{"?browse=1", http.StatusBadRequest},
		{"?browse=true&next=garbage", http.StatusUnprocessableEntity},
		{"?next=garbage", http.StatusUnprocessableEntity},
	} {
		if a := e.api(t, http.MethodGet, "/api/v1/channels"+tc.query, rw, nil); a.status != tc.want {
			t.Errorf("GET /channels%s: got %d, want %d: %s", tc.query, a.status, tc.want, a.body)
		}
	}

	// Read; a message posted changes neither the answer nor its ETag.
	path := "/api/v1/channels/" + general.ID
	_, tag := e.getChannel(t, rw, general.ID)
	if a := e.api(t, http.MethodGet, path, rw, nil, "If-None-Match", tag); a.status != http.StatusNotModified {
		t.Errorf("If-None-Match of the current ETag: %d", a.status)
	}
	e.postMessage(t, rw, general.ID, "hello")
	if _, after := e.getChannel(t, rw, general.ID); after != tag {
		t.Errorf("a message changed the channel's ETag: %s, then %s", tag, after)
	}

	// Change with If-Match: the ETag read before the message still holds.
	a = e.api(t, http.MethodPatch, path, rw, map[string]any{"description": "Everyone, every day"}, "If-Match", tag)
	var got apiChannelDoc
	a.decode(&got)
	newTag := a.resp.Header.Get("ETag")
	if a.status != http.StatusOK || got.Description != "Everyone, every day" || got.DisplayName != "General" || newTag == tag {
		t.Fatalf("PATCH at the ETag read: %d %q %s", a.status, newTag, a.body)
	}
	a = e.api(t, http.MethodPatch, path, rw, map[string]any{"displayName": "Lost"}, "If-Match", tag)
	wantProblem(t, "PATCH at the ETag before the change", a, http.StatusPreconditionFailed, "stale")
	if cur, _ := e.getChannel(t, rw, general.ID); cur.DisplayName != "General" {
		t.Errorf("a refused PATCH changed the channel: %q", cur.DisplayName)
	}
	a = e.api(t, http.MethodPatch, path, rw, map[string]any{"displayName": "All hands"})
	a.decode(&got)
	if a.status != http.StatusOK || got.DisplayName != "All hands" || got.Description != "Everyone, every day" || got.Name != "general" {
		t.Errorf("PATCH without If-Match: %d %s", a.status, a.body)
	}
	wantField(t, "a rename to a name taken", e.api(t, http.MethodPatch, path, rw, map[string]any{"name": "random"}), "name")
	wantField(t, "a rename to a bad name", e.api(t, http.MethodPatch, path, rw, map[string]any{"name": "No!"}), "name")

	// Archive and restore, with If-Match.
	e.clock.Advance(time.Second)
	cur, tag := e.getChannel(t, rw, general.ID)
	if a := e.api(t, http.MethodPost, path+"/archive", rw, nil, "If-Match", `"stale"`); a.status != http.StatusPreconditionFailed {
		t.Errorf("archive at another ETag: %d", a.status)
	}
	a = e.api(t, http.MethodPost, path+"/archive", rw, nil, "If-Match", tag)
	a.decode(&cur)
	if a.status != http.StatusOK || !cur.Archived {
		t.Fatalf("archive: %d %s", a.status, a.body)
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{{"?browse=true", []string{"random"}}, {"?browse=true&archived=true", []string{"general"}}} {
		if got := e.channelNames(t, rw, tc.query); !slices.Equal(got, tc.want) {
			t.Errorf("GET /channels%s with general archived: got %q, want %q", tc.query, got, tc.want)
		}
	}
	wantProblem(t, "PATCH an archived channel", e.api(t, http.MethodPatch, path, rw, map[string]any{"description": "x"}), http.StatusConflict, "conflict")
	wantProblem(t, "post to an archived channel", e.api(t, http.MethodPost, path+"/messages", rw, map[string]any{"content": "x"}), http.StatusConflict, "conflict")
	a = e.api(t, http.MethodPost, path+"/unarchive", rw, nil)
	a.decode(&cur)
	if a.status != http.StatusOK || cur.Archived {
		t.Fatalf("unarchive: %d %s", a.status, a.body)
	}

	// Delete, with If-Match; the name is free again.
	if a := e.api(t, http.MethodDelete, path, rw, nil, "If-Match", tag); a.status != http.StatusPreconditionFailed {
		t.Errorf("DELETE at the ETag before the archive: %d", a.status)
	}
	_, tag = e.getChannel(t, rw, general.ID)
	e.postMessage(t, rw, general.ID, "a message between the read and the delete")
	if a := e.api(t, http.MethodDelete, path, rw, nil, "If-Match", tag); a.status != http.StatusNoContent {
		t.Fatalf("DELETE at the ETag read before a message: %d %s", a.status, a.body)
	}
	for _, p := range []string{path, path + "/messages", path + "/members"} {
		if a := e.api(t, http.MethodGet, p, rw, nil); a.status != http.StatusNotFound {
			t.Errorf("GET %s of a deleted channel: %d", p, a.status)
		}
	}
	if got := e.channelNames(t, rw, "?browse=true"); !slices.Equal(got, []string{"random"}) {
		t.Errorf("public channels after the delete: %q", got)
	}
	e.createChannel(t, rw, map[string]any{"name": "general"})
	if a := e.api(t, http.MethodDelete, "/api/v1/channels/"+secret.ID, rw, nil); a.status != http.StatusNoContent {
		t.Errorf("DELETE without If-Match: %d %s", a.status, a.body)
	}
}

func TestAPIChannelMembers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignMessaging(t, e.acme.ID)
	_, admin := e.apiKey(t, e.acme.ID, "read", "write")
	miaID, mia := e.messagingKey(t, "mia", role.Member)
	team := e.createChannel(t, admin, map[string]any{"name": "team"})
	path := "/api/v1/channels/" + team.ID

	// Join and leave, each twice: memberCount counts once.
	for _, tc := range []struct {
		action string
		status int
		count  int
	}{
		{"/join", http.StatusOK, 2},
		{"/join", http.StatusOK, 2},
		{"/leave", http.StatusNoContent, 1},
		{"/leave", http.StatusNoContent, 1},
		{"/join", http.StatusOK, 2},
	} {
		if a := e.api(t, http.MethodPost, path+tc.action, mia, nil); a.status != tc.status {
			t.Fatalf("%s: got %d, want %d: %s", tc.action, a.status, tc.status, a.body)
		}
		if ch, _ := e.getChannel(t, admin, team.ID); ch.MemberCount != tc.count {
			t.Errorf("memberCount after %s: got %d, want %d", tc.action, ch.MemberCount, tc.count)
		}
	}
	members := func() map[string]string {
		t.Helper()
		var list struct{ Items []apiMemberDoc }
		a := e.api(t, http.MethodGet, path+"/members", admin, nil)
		if a.status != http.StatusOK {
			t.Fatalf("GET members: %d %s", a.status, a.body)
		}
		a.decode(&list)
		out := map[string]string{}
		for _, m := range list.Items {
			out[m.UserID] = m.Role + " " + m.Name
		}
		return out
	}
	if got, want := members(), map[string]string{e.acmeAdmin.ID: "owner acme admin", miaID: "member Mia"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("members: got %v, want %v", got, want)
	}

	// Owners add, remove and hand over; the last owner stays one. Bob
	// needs a messaging role first (he could not read the channel).
	bob := e.acmeBob.ID
	if a := e.api(t, http.MethodPost, path+"/members", admin, map[string]any{"userId": bob}); a.status != http.StatusUnprocessableEntity {
		t.Errorf("add bob without a messaging role: %d, want 422", a.status)
	}
	if _, _, err := e.roles.Assign(system(), role.Grant{Tenant: e.acme, UserID: bob, ServiceID: kanri.MessagingServiceID, RoleName: role.Viewer}); err != nil {
		t.Fatal(err)
	}
	a := e.api(t, http.MethodPost, path+"/members", admin, map[string]any{"userId": bob})
	var m apiMemberDoc
	a.decode(&m)
	if a.status != http.StatusCreated || a.resp.Header.Get("Location") != path+"/members/"+bob || m.Role != "member" || m.Name != "Bob" {
		t.Fatalf("add bob: %d %v %s", a.status, a.resp.Header, a.body)
	}
	if a := e.api(t, http.MethodPost, path+"/members", admin, map[string]any{"userId": bob}); a.status != http.StatusOK {
		t.Errorf("add bob again: got %d, want 200", a.status)
	}
	if ch, _ := e.getChannel(t, admin, team.ID); ch.MemberCount != 3 {
		t.Errorf("memberCount after adding bob twice: got %d, want 3", ch.MemberCount)
	}
	for _, tc := range []struct {
		name, method, path, secret string
		body                       map[string]any
		status                     int
	}{
		{"add another tenant's user", http.MethodPost, path + "/members", admin, map[string]any{"userId": e.globUsr.ID}, http.StatusUnprocessableEntity},
		{"add no one", http.MethodPost, path + "/members", admin, map[string]any{"userId": "user_missing"}, http.StatusUnprocessableEntity},
		{"a member adds", http.MethodPost, path + "/members", mia, map[string]any{"userId": e.acmeAdmin.ID}, http.StatusForbidden},
		{"a member hands over", http.MethodPatch, path + "/members/" + miaID, mia, map[string]any{"role": "owner"}, http.StatusForbidden},
		{"a member removes", http.MethodDelete, path + "/members/" + bob, mia, nil, http.StatusForbidden},
		{"a role that is none", http.MethodPatch, path + "/members/" + miaID, admin, map[string]any{"role": "boss"}, http.StatusUnprocessableEntity},
		{"the role of someone who is not a member", http.MethodPatch, path + "/members/" + e.globUsr.ID, admin, map[string]any{"role": "owner"}, http.StatusNotFound},
		{"the last owner steps down", http.MethodPatch, path + "/members/" + e.acmeAdmin.ID, admin, map[string]any{"role": "member"}, http.StatusConflict},
		{"the last owner leaves", http.MethodPost, path + "/leave", admin, nil, http.StatusConflict},
		{"the last owner is removed", http.MethodDelete, path + "/members/" + e.acmeAdmin.ID, admin, nil, http.StatusConflict},
	} {
		a := e.api(t, tc.method, tc.path, tc.secret, tc.body)
		if a.status != tc.status {
			t.Errorf("%s: got %d, want %d: %s", tc.name, a.status, tc.status, a.body)
			continue
		}
		a.problem()
	}
	a = e.api(t, http.MethodPatch, path+"/members/"+miaID, admin, map[string]any{"role": "owner"})
	a.decode(&m)
	if a.status != http.StatusOK || m.Role != "owner" {
		t.Fatalf("make mia an owner: %d %s", a.status, a.body)
	}
	if a := e.api(t, http.MethodDelete, path+"/members/"+bob, mia, nil); a.status != http.StatusNoContent {
		t.Errorf("mia, an owner now, removes bob: %d %s", a.status, a.body)
	}
	if a := e.api(t, http.MethodDelete, path+"/members/"+bob, mia, nil); a.status != http.StatusNoContent {
		t.Errorf("remove bob again: %d %s", a.status, a.body)
	}
	if a := e.api(t, http.MethodPost, path+"/leave", admin, nil); a.status != http.StatusNoContent {
		t.Errorf("the admin leaves after handing over: %d %s", a.status, a.body)
	}
	if got, want := members(), map[string]string{miaID: "owner Mia"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("members at the end: got %v, want %v", got, want)
	}
}

func TestAPIUnreadCounts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignMessaging(t, e.acme.ID)
	_, admin := e.apiKey(t, e.acme.ID, "read", "write")
	_, mia := e.messagingKey(t, "mia", role.Member)
	news := e.createChannel(t, admin, map[string]any{"name": "news"})
	path := "/api/v1/channels/" + news.ID
	if a := e.api(t, http.MethodPost, path+"/join", mia, nil); a.status != http.StatusOK {
		t.Fatalf("join: %d %s", a.status, a.body)
	}
	var last apiMessageDoc
	for i := range 3 {
		e.clock.Advance(time.Second)
		last = e.postMessage(t, admin, news.ID, fmt.Sprintf("news %d", i))
	}
	unread := func(secret string) string {
		t.Helper()
		var list struct{ Items []apiChannelDoc }
		e.api(t, http.MethodGet, "/api/v1/channels", secret, nil).decode(&list)
		for _, c := range list.Items {
			if c.ID == news.ID && c.Membership != nil {
				return fmt.Sprintf("%d %v", c.Membership.Unread, c.Membership.UnreadAtLeast)
			}
		}
		return "not a member"
	}
	if got, want := unread(mia), "3 false"; got != want {
		t.Errorf("mia's unread: got %q, want %q", got, want)
	}
	if got, want := unread(admin), "0 false"; got != want {
		t.Errorf("the sender's unread: got %q, want %q", got, want)
	}
	for _, tc := range []struct {
		body   any
		status int
		want   string
	}{
		{map[string]any{"seq": last.Seq - 1}, http.StatusNoContent, "1 false"},
		{map[string]any{"seq": 0}, http.StatusNoContent, "1 false"}, // never back
		{map[string]any{"seq": -1}, http.StatusUnprocessableEntity, "1 false"},
		{map[string]any{}, http.StatusUnprocessableEntity, "1 false"},
		{map[string]any{"seq": "3"}, http.StatusBadRequest, "1 false"},
		{map[string]any{"seq": 1 << 50}, http.StatusNoContent, "0 false"}, // past the latest: everything
	} {
		a := e.api(t, http.MethodPost, path+"/read", mia, tc.body)
		if a.status != tc.status {
			t.Errorf("read %v: got %d, want %d: %s", tc.body, a.status, tc.status, a.body)
		}
		if tc.status == http.StatusUnprocessableEntity {
			wantField(t, fmt.Sprintf("read %v", tc.body), a, "seq")
		}
		if got := unread(mia); got != tc.want {
			t.Errorf("after read %v: got %q unread, want %q", tc.body, got, tc.want)
		}
	}
}

func TestAPIMessages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignMessaging(t, e.acme.ID)
	_, admin := e.apiKey(t, e.acme.ID, "read", "write") // holds messages.delete
	miaID, mia := e.messagingKey(t, "mia", role.Member)
	_, nina := e.messagingKey(t, "nina", role.Member)
	general := e.createChannel(t, admin, map[string]any{"name": "general"})
	path := "/api/v1/channels/" + general.ID
	e.api(t, http.MethodPost, path+"/join", mia, nil)

	// Post, as the key's creator.
	e.clock.Advance(time.Second)
	a := e.api(t, http.MethodPost, path+"/messages", mia, map[string]any{"content": "  first\r\nline two  "})
	var first apiMessageDoc
	a.decode(&first)
	if a.status != http.StatusCreated || a.resp.Header.Get("Location") != path+"/messages/"+first.ID || a.resp.Header.Get("ETag") == "" ||
		first.SenderID != miaID || first.SenderName != "Mia" || first.Content != "first\nline two" || first.System != nil || len(first.Reactions) != 0 {
		t.Fatalf("post: %d %v %s", a.status, a.resp.Header, a.body)
	}
	want := []string{"first\nline two"}
	for _, c := range []string{"an apple", "a banana split", "cherries", "dates"} {
		e.clock.Advance(time.Second)
		e.postMessage(t, admin, general.ID, c)
		want = append([]string{c}, want...)
	}
	want = append(want, "") // mia joining, told by Kanri

	// Newest first, in pages.
	var got []string
	next, pages := "", 0
	for {
		query := "?limit=2"
		if next != "" {
			query += "&next=" + url.QueryEscape(next)
		}
		var page struct {
			Items   []apiMessageDoc
			Next    string
			HasMore bool
		}
		a := e.api(t, http.MethodGet, path+"/messages"+query, admin, nil)
		a.decode(&page)
		if a.status != http.StatusOK || (page.Next != "") != page.HasMore || (page.Next != "") != (a.resp.Header.Get("Link") != "") {
			t.Fatalf("page %d: %d %v %s", pages, a.status, a.resp.Header, a.body)
		}
		for _, m := range page.Items {
			got = append(got, m.Content)
			if m.Content == "" && (m.System == nil || *m.System != kanri.SystemJoined) {
				t.Errorf("the system message: %+v", m)
			}
		}
		pages++
		if next = page.Next; next == "" || pages > 10 {
			break
		}
	}
	if !slices.Equal(got, want) || pages != 3 {
		t.Errorf("messages in %d pages: got %q, want %q", pages, got, want)
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"?q=banana", []string{"a banana split"}},
		{"?q=che", []string{"cherries"}},
		{"?q=line+two", []string{"first\nline two"}},
		{"?q=durian", nil},
	} {
		var list struct{ Items []apiMessageDoc }
		e.api(t, http.MethodGet, path+"/messages"+tc.query, mia, nil).decode(&list)
		var got []string
		for _, m := range list.Items {
			got = append(got, m.Content)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("search %s: got %q, want %q", tc.query, got, tc.want)
		}
	}
	if a := e.api(t, http.MethodGet, path+"/messages?next=garbage", admin, nil); a.status != http.StatusUnprocessableEntity {
		t.Errorf("a bad next: %d", a.status)
	}

	// Refusals of posts.
	wantField(t, "an empty message", e.api(t, http.MethodPost, path+"/messages", mia, map[string]any{"content": " \n "}), "content")
	wantField(t, "a message with a control character", e.api(t, http.MethodPost, path+"/messages", mia, map[string]any{"content": "bell\x07"}), "content")
	a = e.api(t, http.MethodPost, path+"/messages", mia, map[string]any{"content": strings.Repeat("あ", kanri.MaxMessageLength+1)})
	wantField(t, "a message too long", a, "content")
	if p := a.problem(); !strings.Contains(fmt.Sprint(p["errors"]), "4,000") {
		t.Errorf("too long: the problem does not say the limit: %v", p)
	}
	if a := e.api(t, http.MethodPost, path+"/messages", mia, map[string]any{"content": strings.Repeat("あ", kanri.MaxMessageLength)}); a.status != http.StatusCreated {
		t.Errorf("a message of the longest length: %d", a.status)
	}
	wantProblem(t, "a non-member posts", e.api(t, http.MethodPost, path+"/messages", nina, map[string]any{"content": "hi"}), http.StatusForbidden, "forbidden")

	// Attachments are the tenant's files.
	file := e.uploadFile(t, e.acme.ID, "", "plan.txt", []byte("plan"))
	a = e.api(t, http.MethodPost, path+"/messages", mia, map[string]any{"content": "see the plan", "attachments": []string{file.ID}})
	var withFile apiMessageDoc
	a.decode(&withFile)
	if a.status != http.StatusCreated || !slices.Equal(withFile.Attachments, []string{file.ID}) {
		t.Errorf("a message with an attachment: %d %s", a.status, a.body)
	}
	wantField(t, "an attachment that is no file", e.api(t, http.MethodPost, path+"/messages", mia, map[string]any{"content": "x", "attachments": []string{"file_missing"}}), "attachments")

	// Idempotency-Key: sent twice, one message.
	a1 := e.api(t, http.MethodPost, path+"/messages", mia, map[string]any{"content": "once"}, "Idempotency-Key", "post-once")
	a2 := e.api(t, http.MethodPost, path+"/messages", mia, map[string]any{"content": "once"}, "Idempotency-Key", "post-once")
	if a1.status != http.StatusCreated || a2.status != http.StatusCreated || string(a1.body) != string(a2.body) || a2.resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("a post sent twice with one key: %d %d %v", a1.status, a2.status, a2.resp.Header)
	}

	// Edit one's own, with If-Match.
	msgPath := path + "/messages/" + first.ID
	a = e.api(t, http.MethodGet, msgPath, mia, nil)
	tag := a.resp.Header.Get("ETag")
	if a.status != http.StatusOK || tag == "" {
		t.Fatalf("GET a message: %d %s", a.status, a.body)
	}
	if a := e.api(t, http.MethodGet, msgPath, mia, nil, "If-None-Match", tag); a.status != http.StatusNotModified {
		t.Errorf("If-None-Match of the current ETag: %d", a.status)
	}
	a = e.api(t, http.MethodPatch, msgPath, mia, map[string]any{"content": "first, edited"}, "If-Match", tag)
	var edited apiMessageDoc
	a.decode(&edited)
	if a.status != http.StatusOK || edited.Content != "first, edited" || edited.EditedAt == nil || edited.Seq != first.Seq || a.resp.Header.Get("ETag") == tag {
		t.Fatalf("edit: %d %s", a.status, a.body)
	}
	wantProblem(t, "an edit at the ETag before the last", e.api(t, http.MethodPatch, msgPath, mia, map[string]any{"content": "lost"}, "If-Match", tag), http.StatusPreconditionFailed, "stale")
	wantProblem(t, "an edit of someone else's message", e.api(t, http.MethodPatch, msgPath, admin, map[string]any{"content": "mine now"}), http.StatusForbidden, "forbidden")
	wantField(t, "an edit too long", e.api(t, http.MethodPatch, msgPath, mia, map[string]any{"content": strings.Repeat("x", kanri.MaxMessageLength+1)}), "content")
	var cur apiMessageDoc
	e.api(t, http.MethodGet, msgPath, mia, nil).decode(&cur)
	if cur.Content != "first, edited" {
		t.Errorf("refused edits changed the message: %q", cur.Content)
	}

	// Reactions: adding twice is adding once, taking back twice too.
	like, heart := url.PathEscape("👍"), url.PathEscape("❤️")
	tag = e.api(t, http.MethodGet, msgPath, mia, nil).resp.Header.Get("ETag")
	for _, tc := range []struct {
		name, method, path, secret string
		body                       map[string]any
		status                     int
		want                       string // the message's reactions after it
	}{
		{"mia likes", http.MethodPost, msgPath + "/reactions", mia, map[string]any{"emoji": "👍"}, http.StatusCreated, "map[👍:[" + miaID + "]]"},
		{"mia likes again", http.MethodPost, msgPath + "/reactions", mia, map[string]any{"emoji": "👍"}, http.StatusOK, "map[👍:[" + miaID + "]]"},
		{"mia loves", http.MethodPost, msgPath + "/reactions", mia, map[string]any{"emoji": "❤️"}, http.StatusCreated, "map[❤️:[" + miaID + "] 👍:[" + miaID + "]]"},
		{"the admin likes", http.MethodPost, msgPath + "/reactions", admin, map[string]any{"emoji": "👍"}, http.StatusCreated, "map[❤️:[" + miaID + "] 👍:" + fmt.Sprint(sorted(miaID, e.acmeAdmin.ID)) + "]"},
		{"mia takes her like back", http.MethodDelete, msgPath + "/reactions/" + like, mia, nil, http.StatusNoContent, "map[❤️:[" + miaID + "] 👍:[" + e.acmeAdmin.ID + "]]"},
		{"mia takes it back again", http.MethodDelete, msgPath + "/reactions/" + like, mia, nil, http.StatusNoContent, "map[❤️:[" + miaID + "] 👍:[" + e.acmeAdmin.ID + "]]"},
		{"mia takes her heart back", http.MethodDelete, msgPath + "/reactions/" + heart, mia, nil, http.StatusNoContent, "map[👍:[" + e.acmeAdmin.ID + "]]"},
		{"an emoji not offered", http.MethodPost, msgPath + "/reactions", mia, map[string]any{"emoji": "💩"}, http.StatusUnprocessableEntity, "map[👍:[" + e.acmeAdmin.ID + "]]"},
		{"text for an emoji", http.MethodPost, msgPath + "/reactions", mia, map[string]any{"emoji": "+1"}, http.StatusUnprocessableEntity, "map[👍:[" + e.acmeAdmin.ID + "]]"},
		{"an emoji not offered, taken back", http.MethodDelete, msgPath + "/reactions/" + url.PathEscape("💩"), mia, nil, http.StatusUnprocessableEntity, "map[👍:[" + e.acmeAdmin.ID + "]]"},
		{"a non-member reacts", http.MethodPost, msgPath + "/reactions", nina, map[string]any{"emoji": "👍"}, http.StatusForbidden, "map[👍:[" + e.acmeAdmin.ID + "]]"},
	} {
		a := e.api(t, tc.method, tc.path, tc.secret, tc.body)
		if a.status != tc.status {
			t.Errorf("%s: got %d, want %d: %s", tc.name, a.status, tc.status, a.body)
		}
		if a.status == http.StatusCreated && a.resp.Header.Get("Location") != msgPath+"/reactions/"+url.PathEscape(tc.body["emoji"].(string)) {
			t.Errorf("%s: Location %q", tc.name, a.resp.Header.Get("Location"))
		}
		if tc.status == http.StatusUnprocessableEntity {
			wantField(t, tc.name, a, "emoji")
		}
		var m apiMessageDoc
		e.api(t, http.MethodGet, msgPath, mia, nil).decode(&m)
		if got := fmt.Sprint(m.Reactions); got != tc.want {
			t.Errorf("%s: reactions %s, want %s", tc.name, got, tc.want)
		}
	}
	if a := e.api(t, http.MethodGet, msgPath, mia, nil, "If-None-Match", tag); a.status != http.StatusOK {
		t.Errorf("the ETag did not change with the reactions: %d", a.status)
	}
	var joined apiMessageDoc
	var list struct{ Items []apiMessageDoc }
	e.api(t, http.MethodGet, path+"/messages?limit=100", mia, nil).decode(&list)
	for _, m := range list.Items {
		if m.System != nil {
			joined = m
		}
	}
	wantProblem(t, "a reaction to a system message", e.api(t, http.MethodPost, path+"/messages/"+joined.ID+"/reactions", mia, map[string]any{"emoji": "👍"}), http.StatusForbidden, "forbidden")

	// Delete: one's own, or anyone's with messages.delete.
	adminsMsg := e.postMessage(t, admin, general.ID, "the admin's")
	wantProblem(t, "mia deletes the admin's message", e.api(t, http.MethodDelete, path+"/messages/"+adminsMsg.ID, mia, nil), http.StatusForbidden, "forbidden")
	for _, tc := range []struct {
		name, id, secret string
	}{
		{"the admin deletes mia's message", first.ID, admin},
		{"mia deletes her own", withFile.ID, mia},
	} {
		if a := e.api(t, http.MethodDelete, path+"/messages/"+tc.id, tc.secret, nil); a.status != http.StatusNoContent {
			t.Errorf("%s: %d %s", tc.name, a.status, a.body)
		}
		for _, p := range []string{"", "/reactions"} {
			var body any
			if p != "" {
				body = map[string]any{"emoji": "👍"}
			}
			method := map[string]string{"": http.MethodGet, "/reactions": http.MethodPost}[p]
			if a := e.api(t, method, path+"/messages/"+tc.id+p, admin, body); a.status != http.StatusNotFound {
				t.Errorf("%s, then %s %s: %d, want 404", tc.name, method, p, a.status)
			}
		}
	}
	if a := e.api(t, http.MethodDelete, path+"/messages/"+first.ID, admin, nil); a.status != http.StatusNotFound {
		t.Errorf("a message deleted twice: %d", a.status)
	}
}

// sorted returns its arguments in order.
func sorted(s ...string) []string { slices.Sort(s); return s }

// messagingBody returns a body an operation on channels takes, so that
// its refusal is the route's, not the body's.
func messagingBody(method, path, userID string) any {
	switch {
	case method == http.MethodPost && strings.HasSuffix(path, "/channels"):
		return map[string]any{"name": "taken-over"}
	case method == http.MethodPatch && strings.HasSuffix(path, "/:channel"):
		return map[string]any{"description": "hacked"}
	case method == http.MethodPost && strings.HasSuffix(path, "/members"):
		return map[string]any{"userId": userID}
	case method == http.MethodPatch && strings.HasSuffix(path, "/:user"):
		return map[string]any{"role": "owner"}
	case method == http.MethodPost && strings.HasSuffix(path, "/read"):
		return map[string]any{"seq": 1}
	case method == http.MethodPost && strings.HasSuffix(path, "/messages"):
		return map[string]any{"content": "hacked"}
	case method == http.MethodPatch && strings.HasSuffix(path, "/:message"):
		return map[string]any{"content": "hacked"}
	case method == http.MethodPost && strings.HasSuffix(path, "/reactions"):
		return map[string]any{"emoji": "👍"}
	}
	return nil
}

// channelRoutes returns the API's routes on one channel.
func (e *env) channelRoutes() []struct{ method, path string } {
	var out []struct{ method, path string }
	for _, r := range e.routes() {
		if strings.HasPrefix(r.Name, "api:") && strings.HasPrefix(r.Path, "/api/v1/channels/:channel") {
			out = append(out, struct{ method, path string }{r.Method, r.Path})
		}
	}
	return out
}

// messagingFixture is a channel of a tenant with a message reacted to,
// made through the service.
type messagingFixture struct {
	channel *kanri.Channel
	message *kanri.Message
}

func (e *env) messagingFixture(t *testing.T, tenantID string, owner messaging.Person, private bool) messagingFixture {
	t.Helper()
	e.assignMessaging(t, tenantID)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: owner.UserID, TenantID: tenantID})
	c, err := e.config.Messaging.CreateChannel(ctx, tenantID, owner, messaging.ChannelInput{Name: "secret", Description: "theirs", IsPrivate: private})
	if err != nil {
		t.Fatal(err)
	}
	m, err := e.config.Messaging.Post(ctx, tenantID, owner, c.ID, "their plan", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.config.Messaging.React(ctx, tenantID, owner, c.ID, m.ID, "👍", true); err != nil {
		t.Fatal(err)
	}
	return messagingFixture{channel: c, message: m}
}

// unchanged checks that nothing of the fixture changed.
func (f messagingFixture) unchanged(t *testing.T, e *env, tenantID, ownerID string) {
	t.Helper()
	ctx := context.Background()
	c, _, err := e.config.Messaging.Channel(ctx, tenantID, ownerID, f.channel.ID)
	if err != nil || c.Name != "secret" || c.Description != "theirs" || c.Archived || c.MemberCount != 1 {
		t.Errorf("the channel changed: %+v, %v", c, err)
	}
	m, err := e.config.Messaging.Message(ctx, tenantID, ownerID, f.channel.ID, f.message.ID)
	if err != nil || m.Content != "their plan" || len(m.Reactions["👍"]) != 1 {
		t.Errorf("the message changed: %+v, %v", m, err)
	}
}

// everyChannelRoute calls every operation on a channel with a key and
// checks each answers want; it returns how many it called.
func (e *env) everyChannelRoute(t *testing.T, secret string, f messagingFixture, userID string, want int) int {
	t.Helper()
	n := 0
	for _, r := range e.channelRoutes() {
		path := strings.NewReplacer(":channel", f.channel.ID, ":message", f.message.ID, ":user", userID, ":emoji", url.PathEscape("👍")).Replace(r.path)
		a := e.api(t, r.method, path, secret, messagingBody(r.method, r.path, userID))
		if a.status != want {
			t.Errorf("%s %s: got %d, want %d: %s", r.method, r.path, a.status, want, a.body)
		}
		n++
	}
	return n
}

// TestAPIMessagingOfAnotherTenantAnswer404 calls every operation on a
// channel with acme's ids under a globex key whose creator may do
// anything in globex: each is 404, and nothing of acme's changes.
func TestAPIMessagingOfAnotherTenantAnswer404(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := messaging.Person{UserID: e.acmeAdmin.ID, Name: "acme admin"}
	f := e.messagingFixture(t, e.acme.ID, owner, false)
	e.assignMessaging(t, e.globex.ID)
	_, globex := e.apiKey(t, e.globex.ID, "read", "write")
	if n := e.everyChannelRoute(t, globex, f, owner.UserID, http.StatusNotFound); n < 21 { // the owner is a member: GET of a member must not find them
		t.Errorf("checked %d operations; the channels' operations look incomplete", n)
	}
	for _, q := range []string{"", "?browse=true", "?browse=true&q=secret"} {
		if got := e.channelNames(t, globex, q); len(got) != 0 {
			t.Errorf("GET /channels%s under globex's key: %q", q, got)
		}
	}
	f.unchanged(t, e, e.acme.ID, owner.UserID)
}

// TestAPIPrivateChannelAnswers404ToNonMembers calls every operation on a
// private channel with the key of an administrator who may manage any
// public channel and delete anyone's message, but is not a member: each
// is 404, as if the channel did not exist, until they are added.
func TestAPIPrivateChannelAnswers404ToNonMembers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := messaging.Person{UserID: e.acmeBob.ID, Name: "Bob"}
	f := e.messagingFixture(t, e.acme.ID, owner, true)
	_, admin := e.apiKey(t, e.acme.ID, "read", "write")
	if n := e.everyChannelRoute(t, admin, f, e.acmeBob.ID, http.StatusNotFound); n < 19 {
		t.Errorf("checked %d operations; the channels' operations look incomplete", n)
	}
	for _, q := range []string{"", "?browse=true", "?browse=true&q=secret"} {
		if got := e.channelNames(t, admin, q); len(got) != 0 {
			t.Errorf("GET /channels%s of a non-member: %q", q, got)
		}
	}
	f.unchanged(t, e, e.acme.ID, owner.UserID)

	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: owner.UserID, TenantID: e.acme.ID})
	if err := e.config.Messaging.AddMember(ctx, e.acme.ID, owner, f.channel.ID, e.acmeAdmin.ID); err != nil {
		t.Fatal(err)
	}
	if ch, _ := e.getChannel(t, admin, f.channel.ID); ch.Name != "secret" || !ch.IsPrivate {
		t.Errorf("the channel once a member: %+v", ch)
	}
}

// TestAPIMessagingRefusals checks who may do what: a read-only key writes
// nothing, a key does no more than its creator's messaging role allows,
// the service checks who owns a channel, and a tenant without the
// messaging service is refused every operation.
func TestAPIMessagingRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignMessaging(t, e.acme.ID)
	_, admin := e.apiKey(t, e.acme.ID, "read", "write")
	_, read := e.apiKey(t, e.acme.ID, "read")
	_, viewer := e.messagingKey(t, "vera", role.Viewer)
	_, member := e.messagingKey(t, "mia", role.Member)
	_, nobody := e.messagingKey(t, "nora", "")
	general := e.createChannel(t, admin, map[string]any{"name": "general"})
	path := "/api/v1/channels/" + general.ID
	for _, name := range []string{"vera", "mia"} {
		if a := e.api(t, http.MethodPost, path+"/members", admin, map[string]any{"userId": e.userIDOf(t, e.acme.ID, name)}); a.status != http.StatusCreated {
			t.Fatalf("add %s: %d %s", name, a.status, a.body)
		}
	}
	msg := e.postMessage(t, admin, general.ID, "the admin's")

	// A read-only key: every write is 403, naming the scope.
	writes := 0
	for _, r := range e.routes() {
		if r.Name != "api:write" || !strings.HasPrefix(r.Path, "/api/v1/channels") {
			continue
		}
		writes++
		p := strings.NewReplacer(":channel", general.ID, ":message", msg.ID, ":user", e.acmeBob.ID, ":emoji", url.PathEscape("👍")).Replace(r.Path)
		a := e.api(t, r.Method, p, read, messagingBody(r.Method, r.Path, e.acmeBob.ID))
		if pr := wantProblem(t, r.Method+" "+r.Path+" with a read-only key", a, http.StatusForbidden, "forbidden"); pr != nil && !strings.Contains(pr["detail"].(string), "write") {
			t.Errorf("%s %s: detail %q does not name the scope", r.Method, r.Path, pr["detail"])
		}
	}
	if writes < 16 {
		t.Errorf("checked %d writes; the channels' operations look incomplete", writes)
	}

	// Each key as far as its creator's role goes.
	for _, tc := range []struct {
		who, secret, method, path string
		body                      any
		status                    int
		detail                    string // in the problem's detail
	}{
		{"no role", nobody, http.MethodGet, "/api/v1/channels", nil, http.StatusForbidden, role.ChannelsRead},
		{"no role", nobody, http.MethodGet, path, nil, http.StatusForbidden, role.ChannelsRead},
		{"no role", nobody, http.MethodGet, path + "/messages", nil, http.StatusForbidden, role.ChannelsRead},
		{"viewer", viewer, http.MethodGet, path + "/messages", nil, http.StatusOK, ""},
		{"viewer", viewer, http.MethodPost, path + "/read", map[string]any{"seq": msg.Seq}, http.StatusNoContent, ""},
		{"viewer", viewer, http.MethodPost, "/api/v1/channels", map[string]any{"name": "vera"}, http.StatusForbidden, role.ChannelsCreate},
		{"viewer", viewer, http.MethodPost, path + "/messages", map[string]any{"content": "hi"}, http.StatusForbidden, role.MessagesCreate},
		{"viewer", viewer, http.MethodPost, path + "/messages/" + msg.ID + "/reactions", map[string]any{"emoji": "👍"}, http.StatusForbidden, role.MessagesCreate},
		{"viewer", viewer, http.MethodPost, path + "/join", nil, http.StatusForbidden, role.MessagesCreate},
		{"viewer", viewer, http.MethodPatch, path, map[string]any{"description": "x"}, http.StatusForbidden, role.ChannelsCreate},
		{"viewer", viewer, http.MethodDelete, path, nil, http.StatusForbidden, role.ChannelsDelete},
		{"viewer", viewer, http.MethodPost, path + "/leave", nil, http.StatusNoContent, ""},
		{"member", member, http.MethodPatch, path, map[string]any{"description": "x"}, http.StatusForbidden, "owners"},
		{"member", member, http.MethodPost, path + "/archive", nil, http.StatusForbidden, "owners"},
		{"member", member, http.MethodDelete, path, nil, http.StatusForbidden, role.ChannelsDelete},
		{"member", member, http.MethodPost, path + "/members", map[string]any{"userId": e.acmeBob.ID}, http.StatusForbidden, "owners"},
		{"member", member, http.MethodDelete, path + "/messages/" + msg.ID, nil, http.StatusForbidden, "sender"},
		{"member", member, http.MethodPost, path + "/messages/" + msg.ID + "/reactions", map[string]any{"emoji": "👍"}, http.StatusCreated, ""},
		{"member", member, http.MethodPost, "/api/v1/channels", map[string]any{"name": "mia"}, http.StatusCreated, ""},
		{"admin", admin, http.MethodPatch, "/api/v1/channels/" + e.createChannel(t, member, map[string]any{"name": "mias"}).ID, map[string]any{"description": "tidied"}, http.StatusOK, ""},
	} {
		a := e.api(t, tc.method, tc.path, tc.secret, tc.body)
		if tc.detail == "" {
			if a.status != tc.status {
				t.Errorf("%s: %s %s: got %d, want %d: %s", tc.who, tc.method, tc.path, a.status, tc.status, a.body)
			}
			continue
		}
		if p := wantProblem(t, tc.who+": "+tc.method+" "+tc.path, a, tc.status, "forbidden"); p != nil && !strings.Contains(p["detail"].(string), tc.detail) {
			t.Errorf("%s: %s %s: detail %q, want it to name %s", tc.who, tc.method, tc.path, p["detail"], tc.detail)
		}
	}
	if ch, _ := e.getChannel(t, admin, general.ID); ch.Description != "" || ch.Archived || ch.MemberCount != 2 {
		t.Errorf("the refusals changed the channel: %+v", ch)
	}

	// A tenant without the messaging service: every operation is 403.
	_, globex := e.apiKey(t, e.globex.ID, "read", "write")
	all := 0
	for _, r := range e.routes() {
		if !strings.HasPrefix(r.Name, "api:") || !strings.HasPrefix(r.Path, "/api/v1/channels") {
			continue
		}
		all++
		p := strings.NewReplacer(":channel", general.ID, ":message", msg.ID, ":user", e.acmeBob.ID, ":emoji", url.PathEscape("👍")).Replace(r.Path)
		a := e.api(t, r.Method, p, globex, messagingBody(r.Method, r.Path, e.acmeBob.ID))
		if pr := wantProblem(t, r.Method+" "+r.Path+" without the messaging service", a, http.StatusForbidden, "forbidden"); pr != nil && pr["detail"] != "This service is not assigned to your organisation." {
			t.Errorf("%s %s without the messaging service: detail %q", r.Method, r.Path, pr["detail"])
		}
	}
	if all < 21 {
		t.Errorf("checked %d operations; the channels' operations look incomplete", all)
	}
}

// TestAPIChannelPatchesWithoutIfMatchKeepEachOther sends PATCHes of two
// fields at once, without If-Match: each is made to the channel as it is
// when written, so none is refused and none undoes the other's field.
func TestAPIChannelPatchesWithoutIfMatchKeepEachOther(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignMessaging(t, e.acme.ID)
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")
	ch := e.createChannel(t, rw, map[string]any{"name": "busy"})
	const n = 8
	var wg sync.WaitGroup
	for _, field := range []string{"displayName", "description"} {
		wg.Go(func() {
			for i := range n {
				if a := e.api(t, http.MethodPatch, "/api/v1/channels/"+ch.ID, rw, map[string]any{field: fmt.Sprintf("%s %d", field, i)}); a.status != http.StatusOK {
					t.Errorf("PATCH %s %d: got %d, want 200: %s", field, i, a.status, a.body)
				}
			}
		})
	}
	wg.Wait()
	got, _ := e.getChannel(t, rw, ch.ID)
	if want := fmt.Sprintf("displayName %d/description %d", n-1, n-1); got.DisplayName+"/"+got.Description != want {
		t.Errorf("got %s/%s, want %s", got.DisplayName, got.Description, want)
	}
}

// TestAPIIfMatchIsHonouredOrRefused: every change either takes If-Match
// (a stale one is 412 and changes nothing) or refuses it with 400 before
// doing anything; none ignores it.
func TestAPIIfMatchIsHonouredOrRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignMessaging(t, e.acme.ID)
	e.assignFiles(t, e.acme.ID)
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")
	ch := e.createChannel(t, rw, map[string]any{"name": "ifmatch"})
	msg := e.postMessage(t, rw, ch.ID, "keep me")
	stale := `"stale"`

	// DELETE of a message takes it.
	path := "/api/v1/channels/" + ch.ID + "/messages/" + msg.ID
	if a := e.api(t, http.MethodDelete, path, rw, nil, "If-Match", stale); a.status != http.StatusPreconditionFailed {
		t.Errorf("DELETE a message with a stale If-Match: %d, want 412", a.status)
	}
	if a := e.api(t, http.MethodGet, path, rw, nil); a.status != http.StatusOK {
		t.Fatalf("the message is gone after a stale DELETE: %d", a.status)
	}
	tag := e.api(t, http.MethodGet, path, rw, nil).resp.Header.Get("ETag")
	if a := e.api(t, http.MethodDelete, path, rw, nil, "If-Match", tag); a.status != http.StatusNoContent {
		t.Errorf("DELETE a message with its ETag: %d, want 204", a.status)
	}

	// Every other change refuses it, before it changes anything. Which
	// take it, the document says (an If-Match parameter).
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct{ Name string }
		}
	}
	if err := json.Unmarshal(e.api(t, http.MethodGet, "/api/v1/openapi.json", "", nil).body, &doc); err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`:([a-z]+)`)
	honours := func(method, path string) bool {
		op := doc.Paths[param.ReplaceAllString(strings.TrimPrefix(path, "/api/v1"), "{$1}")][strings.ToLower(method)]
		return slices.ContainsFunc(op.Parameters, func(p struct{ Name string }) bool { return p.Name == "If-Match" })
	}
	if !honours(http.MethodDelete, "/api/v1/channels/:channel/messages/:message") {
		t.Fatal("the document does not say DELETE of a message takes If-Match")
	}
	refused := 0
	for _, r := range e.routes() {
		if !strings.HasPrefix(r.Name, "api:") || r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions {
			continue
		}
		if honours(r.Method, r.Path) {
			continue
		}
		p := strings.NewReplacer(":channel", ch.ID, ":message", msg.ID, ":user", e.acmeBob.ID, ":id", e.acmeBob.ID,
			":emoji", url.PathEscape("👍"), ":service", kanri.FileServiceID, ":role", "viewer", ":upload", "upload_x", ":file", "file_x", ":folder", "folder_x").Replace(r.Path)
		a := e.api(t, r.Method, p, rw, messagingBody(r.Method, r.Path, e.acmeBob.ID), "If-Match", stale)
		if a.status != http.StatusBadRequest || !strings.Contains(string(a.body), "does not take If-Match") {
			t.Errorf("%s %s with If-Match: %d %.200s, want 400", r.Method, r.Path, a.status, a.body)
		}
		refused++
	}
	if refused < 10 {
		t.Errorf("only %d operations checked", refused)
	}
}
