// Package chatview makes the views of channels and messages as a person
// sees them, which the console's channel pages and the live streams both
// render.
package chatview

import (
	"context"
	"net/url"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/messaging"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/httpkit"
)

// PageSize is how many messages a channel's page and each older page
// show.
const PageSize = 50

// Person returns who acts in the messaging service: the signed-in user
// with the rights of their roles.
func Person(c echo.Context) messaging.Person {
	u := c.Get(httpkit.KeyUser).(*kanri.User)
	name := u.DisplayName
	if name == "" {
		name = u.Username
	}
	return messaging.Person{UserID: u.ID, Name: name, Username: u.Username, ManageChannels: httpkit.Can(c, role.ChannelsUpdate), ModerateMessages: httpkit.Can(c, role.MessagesDelete)}
}

// Messages reads messages and the files they link to, for their views.
type Messages struct {
	Messaging *messaging.Service
	Files     *files.Service
}

// Page returns a page of a channel's messages before the continuation
// next, oldest first, and the URL of the page before it; csrf is the
// token of the forms each message carries.
func (s Messages) Page(c echo.Context, ch *kanri.Channel, m *kanri.ChannelMember, next, search, csrf string) ([]views.MessageView, string, error) {
	t, me := httpkit.Tenant(c), Person(c)
	ms, older, err := s.Messaging.Messages(c.Request().Context(), t.ID, me.UserID, ch.ID, messaging.MessageQuery{Search: search, Limit: PageSize, Next: next})
	if err != nil {
		return nil, "", err
	}
	out := make([]views.MessageView, len(ms))
	for i, msg := range ms {
		out[len(ms)-1-i] = s.View(c.Request().Context(), t.ID, me, ch, m, msg, csrf)
	}
	if len(out) > 0 && next == "" && m != nil && search == "" {
		out[len(out)-1].MarkRead = out[len(out)-1].Message.Seq > m.ReadSeq
	}
	olderURL := ""
	if older != "" {
		olderURL = views.ChannelPath(t.ID, ch.ID) + "/messages?next=" + url.QueryEscape(older)
		if search != "" {
			olderURL += "&q=" + url.QueryEscape(search)
		}
	}
	return out, olderURL, nil
}

// View is a message as the person sees it.
func (s Messages) View(ctx context.Context, tenantID string, me messaging.Person, ch *kanri.Channel, m *kanri.ChannelMember, msg *kanri.Message, csrf string) views.MessageView {
	return ViewWith(tenantID, me, ch, m, msg, csrf, s.Attachments(ctx, tenantID, msg))
}

// Attachments returns the files a message links to that still exist.
func (s Messages) Attachments(ctx context.Context, tenantID string, msg *kanri.Message) []views.Attachment {
	var out []views.Attachment
	for _, id := range msg.Attachments {
		if f, err := s.Files.LiveFile(ctx, tenantID, id); err == nil {
			out = append(out, views.Attachment{ID: f.ID, Name: f.Title(), Image: PreviewKind(f) == "image"})
		}
	}
	return out
}

// ViewWith is View with the message's attachments already read (a live
// event's, read once for all its streams).
func ViewWith(tenantID string, me messaging.Person, ch *kanri.Channel, m *kanri.ChannelMember, msg *kanri.Message, csrf string, atts []views.Attachment) views.MessageView {
	member := m != nil && !ch.Archived
	return views.MessageView{
		TenantID: tenantID, Message: msg, UserID: me.UserID, Username: me.Username, CSRF: csrf, Attachments: atts,
		Mine: msg.SenderID == me.UserID && msg.System == "", Moderate: me.ModerateMessages && msg.System == "", Member: member,
	}
}

// FirstUnread returns the number of the first message of ms the member
// has not read (0: none).
func FirstUnread(ms []views.MessageView, m *kanri.ChannelMember, userID string) int64 {
	if m == nil {
		return 0
	}
	for _, mv := range ms {
		if mv.Message.Seq > m.ReadSeq && mv.Message.System == "" && mv.Message.SenderID != userID {
			return mv.Message.Seq
		}
	}
	return 0
}

// NavUnread is how the navigation shows t.
func NavUnread(t messaging.Total) views.NavUnread {
	return views.NavUnread{Count: t.Unread, Label: t.Label(), Mentions: t.Mentions}
}

// UnreadUpdate is the update of a channel's counts in the list.
func UnreadUpdate(channelID string, u *messaging.Unread) templ.Component {
	return views.UnreadUpdate(channelID, u.Name, u.Label(), len(u.Mentions))
}

// PreviewKind says how a file is previewed: "image", "pdf", "text" or ""
// (not at all).
func PreviewKind(f *kanri.File) string {
	switch {
	case strings.HasPrefix(f.ContentType, "image/") && f.Thumbnailable():
		return "image"
	case f.ContentType == "application/pdf":
		return "pdf"
	case f.ContentType == "text/plain":
		return "text"
	}
	return ""
}
