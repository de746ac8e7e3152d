package messaging

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/search"
	"github.com/kanri/kanri/internal/store"
)

// newMessage returns a message of p in c sent at now, not yet numbered.
func (s *Service) newMessage(c *kanri.Channel, p Person, now time.Time, content string) *kanri.Message {
	sent := kanri.NewTime(now)
	return &kanri.Message{
		Doc:       kanri.Doc{ID: fmt.Sprintf("msg_%d_%s", sent.UnixMilli(), newID("")[:12])},
		ChannelID: c.ID, Content: content, SenderID: p.UserID, SenderName: p.Name, SentAt: sent,
		Attachments: []string{}, TTL: kanri.MessageTTL(sent.Time, now),
	}
}

// writable returns the channel p may post in, being a member.
func (s *Service) writable(ctx context.Context, tenantID string, p Person, channelID string) (*kanri.Channel, *kanri.ChannelMember, error) {
	c, m, err := s.Channel(ctx, tenantID, p.UserID, channelID)
	switch {
	case err != nil:
		return nil, nil, err
	case c.Archived:
		return nil, nil, kanri.E(kanri.ECONFLICT, "channels.archived")
	case m == nil:
		return nil, nil, kanri.E(kanri.EFORBIDDEN, "messages.join_first")
	}
	return c, m, nil
}

// checkAttachments refuses attachments that are not live files of the
// tenant, or too many.
func (s *Service) checkAttachments(ctx context.Context, tenantID string, ids []string) ([]string, error) {
	var out []string
	for _, id := range ids {
		if id = strings.TrimSpace(id); id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	if len(out) > kanri.MaxAttachments {
		return nil, kanri.Invalid(kanri.Fields{"attachments": "messages.too_many_attachments"})
	}
	for _, id := range out {
		if s.Files == nil {
			return nil, kanri.Invalid(kanri.Fields{"attachments": "messages.bad_attachment"})
		}
		if _, err := s.Files.LiveFile(ctx, tenantID, id); err != nil {
			if kanri.IsCode(err, kanri.ENOTFOUND) {
				return nil, kanri.Invalid(kanri.Fields{"attachments": "messages.bad_attachment"})
			}
			return nil, err
		}
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// Post sends a message of p to a channel p is a member of, which numbers
// it in the same transaction; p's read mark moves past it.
func (s *Service) Post(ctx context.Context, tenantID string, p Person, channelID, content string, attachments []string) (*kanri.Message, error) {
	content = normalizeContent(content)
	if msg := kanri.CheckMessage(content); msg != "" {
		return nil, kanri.Invalid(kanri.Fields{"content": msg})
	}
	if _, _, err := s.writable(ctx, tenantID, p, channelID); err != nil {
		return nil, err
	}
	atts, err := s.checkAttachments(ctx, tenantID, attachments)
	if err != nil {
		return nil, err
	}
	ten := s.Store.Tenant(tenantID)
	var private bool
	msg, err := store.Retry(ctx, func() (*kanri.Message, error) {
		c, err := ten.Channels().Get(ctx, channelID)
		if err != nil {
			return nil, err
		}
		if c.Archived {
			return nil, kanri.E(kanri.ECONFLICT, "channels.archived")
		}
		private = c.IsPrivate
		msg := s.newMessage(c, p, s.Now(), content)
		msg.Attachments = atts
		msg.Seq = c.Post(msg.SentAt, true)
		ops, err := opsOf(op(ten.Channels(), docstore.OpReplace, c), op(ten.Messages(), docstore.OpCreate, msg))
		if err != nil {
			return nil, err
		}
		res, err := ten.Batch(ctx, kanri.ContainerMessaging, ops)
		if err != nil {
			return nil, store.Raced(err)
		}
		msg.ETag = res[1].ETag
		return msg, nil
	})
	if err != nil {
		return nil, err
	}
	s.noteMentions(ctx, tenantID, p, msg, "")
	s.publish(ctx, tenantID, KindMessageCreated, Payload{ChannelID: channelID, Private: private, Message: msg, Counted: true})
	if err := s.MarkRead(ctx, tenantID, p.UserID, channelID, msg.Seq); err != nil {
		s.Logger.Warn("messaging: moving the sender's read mark", "tenant", tenantID, "channel", channelID, "err", err)
	}
	return msg, nil
}

// maxMentions bounds how many people one message mentions (the rest of
// its @names are shown, not counted).
const maxMentions = 20

// noteMentions remembers, in the membership of each member the message
// mentions by username (the sender aside) and its text before (an edit's)
// did not, that it mentions them. It is done after the message is
// written: a failure is logged and costs only that mention's count, never
// the message.
func (s *Service) noteMentions(ctx context.Context, tenantID string, p Person, msg *kanri.Message, before string) {
	ten := s.Store.Tenant(tenantID)
	had := kanri.MentionedNames(before, maxMentions)
	for _, name := range kanri.MentionedNames(msg.Content, maxMentions) {
		if slices.ContainsFunc(had, func(h string) bool { return kanri.UsernameID(h) == kanri.UsernameID(name) }) {
			continue
		}
		uid, err := ten.UserIDByUsername(ctx, name)
		if kanri.IsCode(err, kanri.ENOTFOUND) || uid == p.UserID {
			continue // no such user, or oneself
		}
		if err == nil {
			_, err = ten.ChannelMembers().Modify(ctx, kanri.ChannelMemberID(msg.ChannelID, uid), nil, func(m *kanri.ChannelMember) error {
				if slices.Contains(m.MentionSeqs, msg.Seq) {
					return nil
				}
				m.MentionSeqs = append(m.MentionSeqs, msg.Seq)
				if over := len(m.MentionSeqs) - kanri.MaxMentionSeqs; over > 0 {
					m.MentionSeqs = append(m.MentionSeqs[:0:0], m.MentionSeqs[over:]...)
				}
				return nil
			})
		}
		if err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) { // not a member: nothing to count
			s.Logger.Warn("messaging: a mention not counted", "tenant", tenantID, "channel", msg.ChannelID, "err", err)
		}
	}
}

// normalizeContent keeps a message's newlines as \n and drops the blank
// lines and spaces around it.
func normalizeContent(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	return strings.TrimSpace(s)
}

// Message returns a message of a channel the user can see, with its
// reactions. An expired message is not found.
func (s *Service) Message(ctx context.Context, tenantID, userID, channelID, id string) (*kanri.Message, error) {
	if _, _, err := s.Channel(ctx, tenantID, userID, channelID); err != nil {
		return nil, err
	}
	if err := checkID(tenantID, id, "msg_"); err != nil {
		return nil, err
	}
	m, err := s.Store.Tenant(tenantID).Messages().Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if m.ChannelID != channelID || m.Expired(s.Now()) {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return m, s.fillReactions(ctx, tenantID, channelID, []*kanri.Message{m})
}

// EditMessage changes the content of p's own message, as seen. A write
// that another (a reaction's count, say) beat reads the message again; it
// is stale only if the content seen changed.
func (s *Service) EditMessage(ctx context.Context, tenantID string, p Person, channelID, id string, seen kanri.Seen, content string) (*kanri.Message, error) {
	content = normalizeContent(content)
	if msg := kanri.CheckMessage(content); msg != "" {
		return nil, kanri.Invalid(kanri.Fields{"content": msg})
	}
	return store.Retry(ctx, func() (*kanri.Message, error) { return s.editOnce(ctx, tenantID, p, channelID, id, seen, content) })
}

// editOnce is one attempt of EditMessage.
func (s *Service) editOnce(ctx context.Context, tenantID string, p Person, channelID, id string, seen kanri.Seen, content string) (*kanri.Message, error) {
	c, _, err := s.writable(ctx, tenantID, p, channelID)
	if err != nil {
		return nil, err
	}
	m, err := s.Message(ctx, tenantID, p.UserID, channelID, id)
	if err != nil {
		return nil, err
	}
	if m.SenderID != p.UserID || m.System != "" {
		return nil, kanri.E(kanri.EFORBIDDEN, "messages.not_yours")
	}
	if seen.Stale(m.ETag, m.Content) {
		return nil, kanri.Stale()
	}
	if m.Content == content {
		return m, nil
	}
	reactions, before := m.Reactions, m.Content
	now := s.Now()
	m.Content, m.EditedAt, m.Reactions = content, kanri.NewTime(now), nil
	m.TTL = kanri.MessageTTL(m.SentAt.Time, now)
	if err := s.Store.Tenant(tenantID).Messages().Replace(ctx, m); err != nil {
		return nil, store.Raced(err)
	}
	m.Reactions = reactions
	s.noteMentions(ctx, tenantID, p, m, before)
	s.publish(ctx, tenantID, KindMessageUpdated, Payload{ChannelID: channelID, Private: c.IsPrivate, Message: m})
	return m, nil
}

// DeleteMessage deletes a message: p's own, or anyone's when p moderates
// messages (which is audited). The channel's window no longer counts it as
// unread, in the same transaction.
func (s *Service) DeleteMessage(ctx context.Context, tenantID string, p Person, channelID, id string) error {
	m, err := s.Message(ctx, tenantID, p.UserID, channelID, id)
	if err != nil {
		return err
	}
	mine := m.SenderID == p.UserID && m.System == ""
	if !mine && !p.ModerateMessages {
		return kanri.E(kanri.EFORBIDDEN, "messages.not_yours")
	}
	ten := s.Store.Tenant(tenantID)
	var c *kanri.Channel
	err = store.RetryErr(ctx, func() error {
		c, err = ten.Channels().Get(ctx, channelID)
		if err != nil {
			return err
		}
		pending := []pendingOp{deleteOp(m.ID, "")}
		if c.Uncount(m.Seq) {
			pending = append(pending, op(ten.Channels(), docstore.OpReplace, c))
		}
		ops, err := opsOf(pending...)
		if err != nil {
			return err
		}
		_, err = ten.Batch(ctx, kanri.ContainerMessaging, ops)
		if kanri.IsCode(err, kanri.ENOTFOUND) {
			return nil // deleted meanwhile
		}
		return store.Raced(err)
	})
	if err != nil {
		return err
	}
	if !mine {
		s.Audit.Change(ctx, tenantID, "message.delete", kanri.AuditResource{Type: kanri.AuditMessage, ID: m.ID, Name: c.Name}, map[string]any{"senderName": m.SenderName, "sentAt": m.SentAt.String()}, nil)
	}
	s.publish(ctx, tenantID, KindMessageDeleted, Payload{ChannelID: channelID, Private: c.IsPrivate, Message: &kanri.Message{Doc: kanri.Doc{ID: m.ID}, ChannelID: channelID, Seq: m.Seq}, Counted: m.System == ""})
	reactions, err := ten.Reactions().All(ctx, docstore.Query{Where: []docstore.Filter{docstore.Eq("messageId", m.ID)}})
	for _, r := range reactions {
		if err == nil {
			err = ten.Reactions().Delete(ctx, r.ID, "")
		}
	}
	if err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
		s.Logger.Warn("messaging: removing a deleted message's reactions (they expire with it)", "tenant", tenantID, "message", m.ID, "err", err)
	}
	return nil
}

// MessageQuery is what a page of a channel's messages asks for.
type MessageQuery struct {
	// Search finds the messages with words starting with each of its
	// words.
	Search string
	Limit  int
	// Next is the continuation of the page of older messages.
	Next string
}

// Messages returns one page of a channel's messages, the newest first,
// with their reactions: one index range of the channel's messages by
// number (and of its reactions in the page's span), the same cost in
// a channel of a thousand messages as of a million. Expired messages are
// left out.
func (s *Service) Messages(ctx context.Context, tenantID, userID, channelID string, q MessageQuery) ([]*kanri.Message, string, error) {
	if _, _, err := s.Channel(ctx, tenantID, userID, channelID); err != nil {
		return nil, "", err
	}
	now := s.Now()
	// By number: messages sent in the same instant keep the order the
	// channel gave them. The expired are left out after the read, not by a
	// filter on sentAt: with one, the store prefers the index by time, which
	// that filter narrows too, and reads the channel's whole range of it
	// (up to 2,000 entries before it gives up) to sort it by number, 10 to
	// 20 times the cost of a page. Numbers follow sending times, so the
	// expired are the oldest (and the store hides them once their ttl has
	// passed). A search walks the index of words by number too (a number
	// is 9 bytes of each of the index's entries, a time 27).
	where := []docstore.Filter{docstore.Eq("channelId", channelID)}
	if strings.TrimSpace(q.Search) != "" {
		where = append(where, search.Filters(q.Search)...)
	}
	ms, next, err := s.Store.Tenant(tenantID).Messages().Query(ctx, docstore.Query{
		Where: where, OrderBy: "seq", Desc: true, Limit: q.Limit, Continuation: q.Next,
	})
	if err != nil {
		return nil, "", err
	}
	ms = slices.DeleteFunc(ms, func(m *kanri.Message) bool { return m.Expired(now) })
	return ms, next, s.fillReactions(ctx, tenantID, channelID, ms)
}

// fillReactions sets the reactions of messages of one channel from their
// reaction documents: one index range over the messages' span.
func (s *Service) fillReactions(ctx context.Context, tenantID, channelID string, ms []*kanri.Message) error {
	if len(ms) == 0 {
		return nil
	}
	lo, hi := ms[0].SentAt.String(), ms[0].SentAt.String()
	byID := make(map[string]*kanri.Message, len(ms))
	for _, m := range ms {
		lo, hi = min(lo, m.SentAt.String()), max(hi, m.SentAt.String())
		byID[m.ID] = m
		m.Reactions = nil
	}
	rs, err := s.Store.Tenant(tenantID).Reactions().All(ctx, docstore.Query{
		Where:   []docstore.Filter{docstore.Eq("channelId", channelID), docstore.Gte("messageSentAt", lo), docstore.Lte("messageSentAt", hi)},
		OrderBy: "messageSentAt", Limit: docstore.MaxPageSize,
	})
	if err != nil {
		return err
	}
	for _, r := range rs {
		if m := byID[r.MessageID]; m != nil {
			if m.Reactions == nil {
				m.Reactions = map[string][]string{}
			}
			m.Reactions[r.Emoji] = append(m.Reactions[r.Emoji], r.UserID)
		}
	}
	return nil
}

// React adds (on) or takes back p's reaction to a message with emoji.
// Either is idempotent: reacting twice is reacting once.
func (s *Service) React(ctx context.Context, tenantID string, p Person, channelID, id, emoji string, on bool) (*kanri.Message, error) {
	if !slices.Contains(kanri.Reactions, emoji) {
		return nil, kanri.Invalid(kanri.Fields{"emoji": "messages.bad_emoji"})
	}
	c, _, err := s.writable(ctx, tenantID, p, channelID)
	if err != nil {
		return nil, err
	}
	m, err := s.Message(ctx, tenantID, p.UserID, channelID, id)
	if err != nil {
		return nil, err
	}
	if m.System != "" {
		return nil, kanri.E(kanri.EFORBIDDEN, "messages.not_reactable")
	}
	repo := s.Store.Tenant(tenantID).Reactions()
	rid := kanri.ReactionID(m.ID, p.UserID, emoji)
	if on {
		now := s.Now()
		err = repo.Create(ctx, &kanri.Reaction{
			Doc:       kanri.Doc{ID: rid},
			ChannelID: channelID, MessageID: m.ID, MessageSentAt: m.SentAt, UserID: p.UserID, Emoji: emoji,
			CreatedAt: kanri.NewTime(now), TTL: kanri.MessageTTL(m.SentAt.Time, now),
		})
		if kanri.IsCode(err, kanri.ECONFLICT) {
			return m, nil // already there
		}
	} else {
		err = repo.Delete(ctx, rid, "")
		if kanri.IsCode(err, kanri.ENOTFOUND) {
			return m, nil // already gone
		}
	}
	if err != nil {
		return nil, err
	}
	if err := s.fillReactions(ctx, tenantID, channelID, []*kanri.Message{m}); err != nil {
		return nil, err
	}
	s.publish(ctx, tenantID, KindReaction, Payload{ChannelID: channelID, Private: c.IsPrivate, Message: m})
	return m, nil
}
