package chat

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/messaging"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/chatview"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// channelsPage returns the layout of a channels page, with its live
// stream: of the channel it shows (ch, with its latest message), or of the
// list of channels (ch nil).
func (s *Pages) channelsPage(c echo.Context, title string, ch *kanri.Channel) views.Page {
	p := s.Page(c, title, "channels")
	if ch != nil {
		p.Live = views.LivePath(httpkit.Tenant(c).ID, ch.ID, ch.LastSeq, false)
	} else {
		p.Live = views.LivePath(httpkit.Tenant(c).ID, "", 0, true)
	}
	return p
}

// listChannels shows the person's channels with their unread counts, and
// a page of the tenant's public channels to browse.
func (s *Pages) listChannels(c echo.Context) error {
	ctx := c.Request().Context()
	t, me := httpkit.Tenant(c), chatview.Person(c)
	mine, mineNext, err := s.Messaging.Mine(ctx, t.ID, me.UserID, 100, c.QueryParam("mine"))
	if err != nil && !kanri.IsCode(err, kanri.EINVALID) {
		return err
	}
	v := views.ChannelsView{Search: c.QueryParam("q"), Archived: c.QueryParam("archived") == "1", Joined: map[string]bool{}}
	for _, m := range mine {
		if !m.Channel.Archived || v.Archived {
			v.Mine = append(v.Mine, views.ChannelRow{Channel: m.Channel, Unread: m.UnreadLabel(), Mentions: m.Mentions})
		}
		v.Joined[m.Channel.ID] = true
	}
	if mineNext != "" {
		v.MinePaging = views.Paging{NextURL: views.ChannelsPath(t.ID) + "?mine=" + url.QueryEscape(mineNext), Total: -1}
	}
	browse, pg, err := console.ListPage(c, views.ChannelsPath(t.ID), 50, func(next string, limit int) ([]*kanri.Channel, string, error) {
		return s.Messaging.Browse(ctx, t.ID, messaging.BrowseQuery{Search: v.Search, Archived: v.Archived, Limit: limit, Next: next})
	})
	if err != nil {
		return err
	}
	v.Browse, v.Paging = browse, pg
	return httpkit.Render(c, http.StatusOK, views.ChannelsPage(s.channelsPage(c, "channels.title", nil), v))
}

// newChannel shows the form that creates a channel.
func (s *Pages) newChannel(c echo.Context) error {
	return httpkit.Render(c, http.StatusOK, views.ChannelFormPage(s.Page(c, "channels.new", "channels"), views.ChannelForm{}))
}

func channelForm(c echo.Context) messaging.ChannelInput {
	return messaging.ChannelInput{
		Name: c.FormValue("name"), DisplayName: c.FormValue("displayName"), Description: c.FormValue("description"),
		IsPrivate: c.FormValue("isPrivate") == "1",
	}
}

// channelFormFailed shows a channel's form again with the input and its
// errors.
func (s *Pages) channelFormFailed(c echo.Context, ch *kanri.Channel, in messaging.ChannelInput, err error) error {
	status, errs := http.StatusUnprocessableEntity, views.Errors(kanri.ErrorFields(err))
	switch {
	case kanri.IsCode(err, kanri.ESTALE):
		status, errs = http.StatusConflict, views.Errors{"_form": "stale.title"}
	case kanri.IsCode(err, kanri.ECONFLICT) && ch == nil:
		// The tenant has its most channels: said on the form, input kept.
		status, errs = http.StatusConflict, views.Errors{"_form": httpkit.Message(c.Request().Context(), err, "error.title")}
	case !kanri.IsCode(err, kanri.EINVALID):
		return err
	}
	title := "channels.new"
	if ch != nil {
		title = "channels.edit_title"
	}
	return httpkit.Render(c, status, views.ChannelFormPage(s.Page(c, title, "channels"), views.ChannelForm{
		Channel: ch, Input: views.ChannelInput(in), Errors: errs,
	}))
}

// createChannel creates a channel with the person as its owner.
func (s *Pages) createChannel(c echo.Context) error {
	t, in := httpkit.Tenant(c), channelForm(c)
	ch, err := s.Messaging.CreateChannel(c.Request().Context(), t.ID, chatview.Person(c), in)
	if err != nil {
		return s.channelFormFailed(c, nil, in, err)
	}
	return s.Report(c, views.ChannelPath(t.ID, ch.ID), "channels.created", ch.Title())
}

// showChannel shows a channel's latest messages (or those a search
// finds), the first unread one marked, and the composer.
func (s *Pages) showChannel(c echo.Context) error {
	ctx := c.Request().Context()
	t, me := httpkit.Tenant(c), chatview.Person(c)
	ch, m, err := s.Messaging.Channel(ctx, t.ID, me.UserID, c.Param("id"))
	if err != nil {
		return err
	}
	v := views.ChannelView{Channel: ch, Member: m, CanManage: messaging.CanManage(me, ch, m), Search: c.QueryParam("q"), Composer: s.composer(c, ch.ID)}
	if v.Messages, v.OlderURL, err = s.messages().Page(c, ch, m, "", v.Search, s.CSRFToken(c)); err != nil {
		return err
	}
	if v.Search == "" {
		v.FirstUnread = chatview.FirstUnread(v.Messages, m, me.UserID)
	}
	return httpkit.Render(c, http.StatusOK, views.ChannelPage(s.channelsPage(c, "channels.title", ch), v))
}

// composer returns the composer of a channel, with the files the person
// may attach when the file service is theirs to use.
func (s *Pages) composer(c echo.Context, channelID string) views.ComposerView {
	v := views.ComposerView{ChannelID: channelID}
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	if httpkit.Can(c, role.FilesRead) && s.Catalog.Usable(ctx, t.ID, kanri.FileServiceID) == nil {
		v.Files, _ = s.Files.Recent(ctx, t.ID, attachable)
	}
	return v
}

// attachable is how many of the latest files the composer offers to
// attach.
const attachable = 20

// olderMessages returns the page of older messages that replaces the
// link that asked for it.
func (s *Pages) olderMessages(c echo.Context) error {
	ctx := c.Request().Context()
	t, me := httpkit.Tenant(c), chatview.Person(c)
	ch, m, err := s.Messaging.Channel(ctx, t.ID, me.UserID, c.Param("id"))
	if err != nil {
		return err
	}
	v := views.ChannelView{Channel: ch, Member: m, CanManage: messaging.CanManage(me, ch, m), Search: c.QueryParam("q"), Paged: true}
	if v.Messages, v.OlderURL, err = s.messages().Page(c, ch, m, c.QueryParam("next"), v.Search, s.CSRFToken(c)); err != nil {
		return err
	}
	if httpkit.IsHTMX(c) {
		return httpkit.Render(c, http.StatusOK, views.OlderPage(v.OlderURL, v.Messages))
	}
	p := s.Page(c, "channels.title", "channels") // no live updates
	return httpkit.Render(c, http.StatusOK, views.ChannelPage(p, v))
}

// editChannel shows a channel's form.
func (s *Pages) editChannel(c echo.Context) error {
	t, me := httpkit.Tenant(c), chatview.Person(c)
	ch, m, err := s.Messaging.Channel(c.Request().Context(), t.ID, me.UserID, c.Param("id"))
	if err != nil {
		return err
	}
	if !messaging.CanManage(me, ch, m) {
		return kanri.E(kanri.EFORBIDDEN, "channels.not_owner")
	}
	in := views.ChannelInput{Name: ch.Name, DisplayName: ch.DisplayName, Description: ch.Description, IsPrivate: ch.IsPrivate}
	return httpkit.Render(c, http.StatusOK, views.ChannelFormPage(s.Page(c, "channels.edit_title", "channels"), views.ChannelForm{Channel: ch, Input: in}))
}

// updateChannel saves a channel's form.
func (s *Pages) updateChannel(c echo.Context) error {
	ctx := c.Request().Context()
	t, me, in := httpkit.Tenant(c), chatview.Person(c), channelForm(c)
	ch, err := s.Messaging.UpdateChannel(ctx, t.ID, me, c.Param("id"), console.Seen(c), in)
	if err == nil {
		return s.Report(c, views.ChannelPath(t.ID, ch.ID), "channels.updated", ch.Title())
	}
	cur, _, gerr := s.Messaging.Channel(ctx, t.ID, me.UserID, c.Param("id"))
	if gerr != nil {
		return gerr
	}
	if kanri.IsCode(err, kanri.ESTALE) {
		cur.ETag = "" // the form shows what is there now; saving again overwrites it knowingly
		c.Request().Form.Set("etag", "")
	}
	return s.channelFormFailed(c, cur, in, err)
}

// archiveChannel archives a channel; unarchiveChannel restores it.
func (s *Pages) archiveChannel(c echo.Context) error   { return s.setArchived(c, true) }
func (s *Pages) unarchiveChannel(c echo.Context) error { return s.setArchived(c, false) }

func (s *Pages) setArchived(c echo.Context, archived bool) error {
	t := httpkit.Tenant(c)
	key := "channels.archived_done"
	if !archived {
		key = "channels.unarchived_done"
	}
	return s.Action(c, key, views.ChannelPath(t.ID, c.Param("id")), func(seen kanri.Seen) (string, error) {
		ch, err := s.Messaging.ArchiveChannel(c.Request().Context(), t.ID, chatview.Person(c), c.Param("id"), seen, archived)
		if err != nil {
			return "", err
		}
		return ch.Title(), nil
	})
}

// deleteChannel deletes a channel with its messages.
func (s *Pages) deleteChannel(c echo.Context) error {
	ctx := c.Request().Context()
	t, me := httpkit.Tenant(c), chatview.Person(c)
	return s.Action(c, "channels.deleted", views.ChannelsPath(t.ID), func(seen kanri.Seen) (string, error) {
		ch, _, err := s.Messaging.Channel(ctx, t.ID, me.UserID, c.Param("id"))
		if err != nil {
			return "", err
		}
		return ch.Title(), s.Messaging.DeleteChannel(ctx, t.ID, me, ch.ID, seen)
	})
}

// joinChannel makes the person a member of a public channel.
func (s *Pages) joinChannel(c echo.Context) error {
	ctx := c.Request().Context()
	t, me := httpkit.Tenant(c), chatview.Person(c)
	if err := s.Messaging.Join(ctx, t.ID, me, c.Param("id")); err != nil {
		return err
	}
	return console.Redirect(c, views.ChannelPath(t.ID, c.Param("id")))
}

// leaveChannel ends the person's membership of a channel.
func (s *Pages) leaveChannel(c echo.Context) error {
	ctx := c.Request().Context()
	t, me := httpkit.Tenant(c), chatview.Person(c)
	ch, _, err := s.Messaging.Channel(ctx, t.ID, me.UserID, c.Param("id"))
	if err != nil {
		return err
	}
	if err := s.Messaging.Leave(ctx, t.ID, me, ch.ID); err != nil {
		return err
	}
	return s.Report(c, views.ChannelsPath(t.ID), "channels.left", ch.Title())
}

// showMembers lists a channel's members, with the owners' tools.
func (s *Pages) showMembers(c echo.Context) error { return s.showMembersWith(c, http.StatusOK, nil) }

func (s *Pages) showMembersWith(c echo.Context, status int, errs views.Errors) error {
	ctx := c.Request().Context()
	t, me := httpkit.Tenant(c), chatview.Person(c)
	ch, m, err := s.Messaging.Channel(ctx, t.ID, me.UserID, c.Param("id"))
	if err != nil {
		return err
	}
	members, pg, err := console.ListPage(c, views.ChannelPath(t.ID, ch.ID)+"/members", 50, func(next string, limit int) ([]messaging.Member, string, error) {
		return s.Messaging.Members(ctx, t.ID, me.UserID, ch.ID, limit, next)
	})
	if err != nil {
		return err
	}
	v := views.MembersView{Channel: ch, Paging: pg, CanManage: messaging.CanManage(me, ch, m), Errors: errs}
	in := map[string]bool{}
	for _, mb := range members {
		v.Members = append(v.Members, views.MemberRow{UserID: mb.UserID, Name: mb.Name, Role: mb.Role, JoinedAt: mb.JoinedAt})
		in[mb.UserID] = true
	}
	if v.CanManage {
		if v.Candidates, err = s.Messaging.Candidates(ctx, t.ID, in); err != nil {
			return err
		}
	}
	return httpkit.Render(c, status, views.MembersPage(s.Page(c, "channels.members", "channels"), v))
}

// addMember adds a user to a channel.
func (s *Pages) addMember(c echo.Context) error {
	t := httpkit.Tenant(c)
	err := s.Messaging.AddMember(c.Request().Context(), t.ID, chatview.Person(c), c.Param("id"), c.FormValue("userId"))
	if kanri.IsCode(err, kanri.EINVALID) {
		return s.showMembersWith(c, http.StatusUnprocessableEntity, views.Errors(kanri.ErrorFields(err)))
	}
	if err != nil {
		return err
	}
	return s.Report(c, views.ChannelPath(t.ID, c.Param("id"))+"/members", "channels.member_added")
}

// removeMember ends a user's membership of a channel.
func (s *Pages) removeMember(c echo.Context) error {
	t := httpkit.Tenant(c)
	if err := s.Messaging.RemoveMember(c.Request().Context(), t.ID, chatview.Person(c), c.Param("id"), c.Param("user")); err != nil {
		return err
	}
	return s.Report(c, views.ChannelPath(t.ID, c.Param("id"))+"/members", "channels.member_removed")
}

// setMemberRole makes a member an owner or a member.
func (s *Pages) setMemberRole(c echo.Context) error {
	t := httpkit.Tenant(c)
	if err := s.Messaging.SetRole(c.Request().Context(), t.ID, chatview.Person(c), c.Param("id"), c.Param("user"), c.FormValue("role")); err != nil {
		return err
	}
	return s.Report(c, views.ChannelPath(t.ID, c.Param("id"))+"/members", "channels.role_changed")
}

// postMessage sends a message; from the page, the composer comes back
// empty and the message is appended, or with the text and its error.
func (s *Pages) postMessage(c echo.Context) error {
	ctx := c.Request().Context()
	t, me := httpkit.Tenant(c), chatview.Person(c)
	content, attachments := c.FormValue("content"), c.Request().Form["attachments"]
	msg, err := s.Messaging.Post(ctx, t.ID, me, c.Param("id"), content, attachments)
	if kanri.IsCode(err, kanri.EINVALID) && httpkit.IsHTMX(c) {
		v := s.composer(c, c.Param("id"))
		v.Content, v.Picked, v.Errors, v.Focus = content, attachments, views.Errors(kanri.ErrorFields(err)), true
		return httpkit.Render(c, http.StatusUnprocessableEntity, views.Composer(s.Page(c, "", "channels"), v))
	}
	if err != nil {
		return err
	}
	if !httpkit.IsHTMX(c) {
		return console.Redirect(c, views.ChannelPath(t.ID, msg.ChannelID))
	}
	ch, m, err := s.Messaging.Channel(ctx, t.ID, me.UserID, msg.ChannelID)
	if err != nil {
		return err
	}
	p := s.Page(c, "", "channels")
	v := s.composer(c, msg.ChannelID)
	v.Focus = true
	return httpkit.Render(c, http.StatusOK, templ.Join(
		views.Composer(p, v),
		views.NewMessage(s.messages().View(ctx, t.ID, me, ch, m, msg, p.CSRF)),
	))
}

// messageAction answers a change of a message made from the page: the
// message as it is now, replaced in place (its live event replaces it in
// the other tabs).
func (s *Pages) messageAction(c echo.Context, msg *kanri.Message) error {
	t, me := httpkit.Tenant(c), chatview.Person(c)
	if !httpkit.IsHTMX(c) {
		return console.Redirect(c, views.ChannelPath(t.ID, c.Param("id")))
	}
	if msg == nil {
		return c.NoContent(http.StatusOK)
	}
	ch, m, err := s.Messaging.Channel(c.Request().Context(), t.ID, me.UserID, msg.ChannelID)
	if err != nil {
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.ReplacedMessage(s.messages().View(c.Request().Context(), t.ID, me, ch, m, msg, s.CSRFToken(c))))
}

// editMessage changes the person's own message.
func (s *Pages) editMessage(c echo.Context) error {
	msg, err := s.Messaging.EditMessage(c.Request().Context(), httpkit.Tenant(c).ID, chatview.Person(c), c.Param("id"), c.Param("msg"), console.Seen(c), c.FormValue("content"))
	if err != nil {
		return err
	}
	return s.messageAction(c, msg)
}

// deleteMessage deletes a message.
func (s *Pages) deleteMessage(c echo.Context) error {
	if err := s.Messaging.DeleteMessage(c.Request().Context(), httpkit.Tenant(c).ID, chatview.Person(c), c.Param("id"), c.Param("msg")); err != nil {
		return err
	}
	if httpkit.IsHTMX(c) {
		return httpkit.Render(c, http.StatusOK, views.RemovedMessage(c.Param("msg")))
	}
	return s.messageAction(c, nil)
}

// reactToMessage adds or takes back the person's reaction.
func (s *Pages) reactToMessage(c echo.Context) error {
	msg, err := s.Messaging.React(c.Request().Context(), httpkit.Tenant(c).ID, chatview.Person(c), c.Param("id"), c.Param("msg"), c.FormValue("emoji"), c.FormValue("on") != "0")
	if err != nil {
		return err
	}
	return s.messageAction(c, msg)
}

// markRead moves the person's read mark in a channel.
func (s *Pages) markRead(c echo.Context) error {
	seq, err := strconv.ParseInt(c.FormValue("seq"), 10, 64)
	if err != nil || seq < 0 {
		return kanri.Invalid(kanri.Fields{"seq": "messages.bad_seq"})
	}
	if err := s.Messaging.MarkRead(c.Request().Context(), httpkit.Tenant(c).ID, chatview.Person(c).UserID, c.Param("id"), seq); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// messages reads messages for their views.
func (s *Pages) messages() chatview.Messages {
	return chatview.Messages{Messaging: s.Messaging, Files: s.Files}
}
