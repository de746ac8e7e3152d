package messaging

import (
	"context"
	"slices"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// Member is one member of a channel with the name people know them by.
type Member struct {
	*kanri.ChannelMember
	Name string
}

// Members returns one page of a channel's members, by user id.
func (s *Service) Members(ctx context.Context, tenantID, userID, channelID string, limit int, next string) ([]Member, string, error) {
	if _, _, err := s.Channel(ctx, tenantID, userID, channelID); err != nil {
		return nil, "", err
	}
	ten := s.Store.Tenant(tenantID)
	ms, next, err := ten.ChannelMembers().Query(ctx, docstore.Query{
		Where: []docstore.Filter{docstore.Eq("channelId", channelID)}, OrderBy: "userId", Limit: limit, Continuation: next,
	})
	if err != nil {
		return nil, "", err
	}
	out := make([]Member, len(ms))
	for i, m := range ms {
		out[i] = Member{ChannelMember: m, Name: s.userName(ctx, tenantID, m.UserID)}
	}
	return out, next, nil
}

// Member returns the membership of memberID in a channel the user can see,
// with the member's name. Someone who is not a member is not found.
func (s *Service) Member(ctx context.Context, tenantID, userID, channelID, memberID string) (Member, error) {
	if _, _, err := s.Channel(ctx, tenantID, userID, channelID); err != nil {
		return Member{}, err
	}
	m, err := s.Store.Tenant(tenantID).ChannelMembers().Get(ctx, kanri.ChannelMemberID(channelID, memberID))
	if err != nil {
		return Member{}, err
	}
	return Member{ChannelMember: m, Name: s.userName(ctx, tenantID, memberID)}, nil
}

// userName returns what people call a user of the tenant, or "" for one
// who is gone.
func (s *Service) userName(ctx context.Context, tenantID, userID string) string {
	u, err := s.Store.Tenant(tenantID).Users().Get(ctx, userID)
	if err != nil {
		return ""
	}
	if u.DisplayName != "" {
		return u.DisplayName
	}
	return u.Username
}

// membership changes a channel's membership: change is given the channel
// (its memberCount and window already updated by the caller through
// delta and system) and returns the operations on the membership, written
// in one transaction with the channel and the system message, retried from
// a fresh read when another write came first.
func (s *Service) membership(ctx context.Context, tenantID, channelID string, delta int, system, subject string, p Person, change func(c *kanri.Channel) ([]pendingOp, error)) (*kanri.Channel, *kanri.Message, error) {
	ten := s.Store.Tenant(tenantID)
	type result struct {
		c *kanri.Channel
		m *kanri.Message
	}
	r, err := store.Retry(ctx, func() (result, error) {
		c, err := ten.Channels().Get(ctx, channelID)
		if err != nil {
			return result{}, err
		}
		if c.Archived {
			return result{}, kanri.E(kanri.ECONFLICT, "channels.archived")
		}
		more, err := change(c)
		if err != nil || more == nil {
			return result{c, nil}, err
		}
		c.MemberCount += delta
		now := s.Now()
		msg := s.newMessage(c, p, now, "")
		msg.System, msg.Subject = system, subject
		msg.Seq = c.Post(msg.SentAt, false)
		ops, err := opsOf(append([]pendingOp{op(ten.Channels(), docstore.OpReplace, c), op(ten.Messages(), docstore.OpCreate, msg)}, more...)...)
		if err != nil {
			return result{}, err
		}
		if _, err := ten.Batch(ctx, kanri.ContainerMessaging, ops); err != nil {
			return result{}, store.Raced(err)
		}
		return result{c, msg}, nil
	})
	if err != nil || r.m == nil {
		return r.c, nil, err
	}
	s.publish(ctx, tenantID, KindMessageCreated, Payload{ChannelID: channelID, Private: r.c.IsPrivate, Message: r.m})
	return r.c, r.m, nil
}

// Join makes p a member of a public channel, its messages so far read.
// Joining a channel one is a member of changes nothing.
func (s *Service) Join(ctx context.Context, tenantID string, p Person, channelID string) error {
	c, m, err := s.Channel(ctx, tenantID, p.UserID, channelID)
	if err != nil || m != nil {
		return err
	}
	if c.IsPrivate {
		return kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return s.add(ctx, tenantID, p, c.ID, p.UserID, p.Name, kanri.SystemJoined)
}

// add makes a user a member of a channel, as a system message says.
func (s *Service) add(ctx context.Context, tenantID string, p Person, channelID, userID, name, system string) error {
	ten := s.Store.Tenant(tenantID)
	c, msg, err := s.membership(ctx, tenantID, channelID, +1, system, name, p, func(c *kanri.Channel) ([]pendingOp, error) {
		_, err := ten.ChannelMembers().Get(ctx, kanri.ChannelMemberID(c.ID, userID))
		switch {
		case err == nil:
			return nil, nil // a member already
		case !kanri.IsCode(err, kanri.ENOTFOUND):
			return nil, err
		}
		now := kanri.NewTime(s.Now())
		return []pendingOp{op(ten.ChannelMembers(), docstore.OpCreate, &kanri.ChannelMember{
			Doc:       kanri.Doc{ID: kanri.ChannelMemberID(c.ID, userID)},
			ChannelID: c.ID, UserID: userID, Role: kanri.RoleMember, JoinedAt: now, LastReadAt: now,
			ReadSeq: c.LastSeq + 1, // the system message that tells of the joining
		})}, nil
	})
	if err != nil || msg == nil {
		return err // nil: a member already, nothing written
	}
	s.Audit.Change(ctx, tenantID, "channel.member_add", kanri.AuditResource{Type: kanri.AuditChannelMember, ID: kanri.ChannelMemberID(channelID, userID), Name: name}, nil, map[string]any{"channel": c.Name, "userId": userID})
	s.publish(ctx, tenantID, KindMemberJoined, Payload{ChannelID: channelID, Private: c.IsPrivate, UserID: userID, Name: c.Name, MemberCount: c.MemberCount})
	return nil
}

// AddMember makes a user of the tenant a member of a channel p owns (or,
// for a public channel, may manage).
func (s *Service) AddMember(ctx context.Context, tenantID string, p Person, channelID, userID string) error {
	c, m, err := s.Channel(ctx, tenantID, p.UserID, channelID)
	if err != nil {
		return err
	}
	if !canManage(p, c, m) {
		return kanri.E(kanri.EFORBIDDEN, "channels.not_owner")
	}
	ten := s.Store.Tenant(tenantID)
	u, err := ten.Users().Get(ctx, userID)
	if err != nil || !u.IsActive || !u.DeletedAt.IsZero() {
		return kanri.Invalid(kanri.Fields{"userId": "channels.no_such_user"})
	}
	// A member must be able to read the channel: a role of the messaging
	// service (any of them reads channels).
	ras, _, err := ten.RoleAssignments().Query(ctx, docstore.Query{
		Where: []docstore.Filter{docstore.Eq("userId", u.ID), docstore.Eq("serviceId", kanri.MessagingServiceID)}, Limit: 1})
	if err != nil {
		return err
	}
	if len(ras) == 0 {
		return kanri.Invalid(kanri.Fields{"userId": "channels.no_messaging_role"})
	}
	name := u.DisplayName
	if name == "" {
		name = u.Username
	}
	return s.add(ctx, tenantID, p, c.ID, u.ID, name, kanri.SystemAdded)
}

// maxCandidates is the most people a channel's add form offers.
const maxCandidates = 200

// Candidates returns the people an owner may add to a channel: the
// tenant's active users with a role of the messaging service (who can
// read channels) who are not members (in), by username.
func (s *Service) Candidates(ctx context.Context, tenantID string, in map[string]bool) ([]*kanri.User, error) {
	ten := s.Store.Tenant(tenantID)
	ras, _, err := ten.RoleAssignments().Query(ctx, docstore.Query{
		Where: []docstore.Filter{docstore.Eq("serviceId", kanri.MessagingServiceID)}, Limit: docstore.MaxPageSize})
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, ra := range ras {
		if !in[ra.UserID] && !slices.Contains(ids, ra.UserID) {
			ids = append(ids, ra.UserID)
		}
	}
	slices.Sort(ids)
	users, err := ten.Users().ByIDs(ctx, ids, "username")
	if err != nil {
		return nil, err
	}
	users = slices.DeleteFunc(users, func(u *kanri.User) bool { return !u.IsActive || !u.DeletedAt.IsZero() })
	return users[:min(len(users), maxCandidates)], nil
}

// Leave ends p's membership of a channel. The last owner must hand the
// channel over first.
func (s *Service) Leave(ctx context.Context, tenantID string, p Person, channelID string) error {
	return s.remove(ctx, tenantID, p, channelID, p.UserID, p.Name, kanri.SystemLeft)
}

// RemoveMember ends a user's membership of a channel p owns.
func (s *Service) RemoveMember(ctx context.Context, tenantID string, p Person, channelID, userID string) error {
	c, m, err := s.Channel(ctx, tenantID, p.UserID, channelID)
	if err != nil {
		return err
	}
	if !canManage(p, c, m) {
		return kanri.E(kanri.EFORBIDDEN, "channels.not_owner")
	}
	return s.remove(ctx, tenantID, p, channelID, userID, s.userName(ctx, tenantID, userID), kanri.SystemRemoved)
}

func (s *Service) remove(ctx context.Context, tenantID string, p Person, channelID, userID, name, system string) error {
	ten := s.Store.Tenant(tenantID)
	if _, _, err := s.Channel(ctx, tenantID, p.UserID, channelID); err != nil {
		return err
	}
	c, msg, err := s.membership(ctx, tenantID, channelID, -1, system, name, p, func(c *kanri.Channel) ([]pendingOp, error) {
		m, err := ten.ChannelMembers().Get(ctx, kanri.ChannelMemberID(c.ID, userID))
		if kanri.IsCode(err, kanri.ENOTFOUND) {
			return nil, nil // not a member
		}
		if err != nil {
			return nil, err
		}
		if m.Role == kanri.RoleOwner {
			if err := s.otherOwner(ctx, tenantID, c.ID, userID); err != nil {
				return nil, err
			}
		}
		return []pendingOp{deleteOp(m.ID, m.ETag)}, nil
	})
	if err != nil || msg == nil {
		return err // nil: not a member, nothing written
	}
	s.Audit.Change(ctx, tenantID, "channel.member_remove", kanri.AuditResource{Type: kanri.AuditChannelMember, ID: kanri.ChannelMemberID(channelID, userID), Name: name}, map[string]any{"channel": c.Name, "userId": userID}, nil)
	s.publish(ctx, tenantID, KindMemberLeft, Payload{ChannelID: channelID, Private: c.IsPrivate, UserID: userID, Name: c.Name, MemberCount: c.MemberCount})
	return nil
}

// otherOwner returns nil when the channel has an owner besides userID,
// else the error of the last owner.
func (s *Service) otherOwner(ctx context.Context, tenantID, channelID, userID string) error {
	owners, _, err := s.Store.Tenant(tenantID).ChannelMembers().Query(ctx, docstore.Query{
		Where: []docstore.Filter{docstore.Eq("channelId", channelID), docstore.Eq("role", kanri.RoleOwner)}, OrderBy: "userId", Limit: 2,
	})
	if err != nil {
		return err
	}
	for _, o := range owners {
		if o.UserID != userID {
			return nil
		}
	}
	return kanri.E(kanri.ECONFLICT, "channels.last_owner")
}

// SetRole makes a member of a channel p owns an owner or a member. The
// last owner stays one.
func (s *Service) SetRole(ctx context.Context, tenantID string, p Person, channelID, userID, roleName string) error {
	if roleName != kanri.RoleOwner && roleName != kanri.RoleMember {
		return kanri.Invalid(kanri.Fields{"role": "validation.role"})
	}
	c, m, err := s.Channel(ctx, tenantID, p.UserID, channelID)
	if err != nil {
		return err
	}
	if !canManage(p, c, m) {
		return kanri.E(kanri.EFORBIDDEN, "channels.not_owner")
	}
	ten := s.Store.Tenant(tenantID)
	var before string
	_, err = ten.ChannelMembers().Modify(ctx, kanri.ChannelMemberID(channelID, userID), nil, func(m *kanri.ChannelMember) error {
		before = m.Role
		if m.Role == kanri.RoleOwner && roleName != kanri.RoleOwner {
			return s.otherOwner(ctx, tenantID, channelID, userID)
		}
		m.Role = roleName
		return nil
	})
	if err != nil {
		return err
	}
	if before != roleName {
		s.Audit.Change(ctx, tenantID, "channel.member_role", kanri.AuditResource{Type: kanri.AuditChannelMember, ID: kanri.ChannelMemberID(channelID, userID), Name: s.userName(ctx, tenantID, userID)},
			map[string]any{"role": before}, map[string]any{"role": roleName})
	}
	return nil
}

// MarkRead advances the user's read mark in a channel to seq (never back,
// never past the channel's latest message).
func (s *Service) MarkRead(ctx context.Context, tenantID, userID, channelID string, seq int64) error {
	c, m, err := s.Channel(ctx, tenantID, userID, channelID)
	if err != nil {
		return err
	}
	if m == nil {
		return nil // not a member: nothing to remember
	}
	seq = min(seq, c.LastSeq)
	if seq <= m.ReadSeq {
		return nil
	}
	moved := false
	m, err = s.Store.Tenant(tenantID).ChannelMembers().Modify(ctx, m.ID, nil, func(m *kanri.ChannelMember) error {
		if moved = seq > m.ReadSeq; moved {
			m.ReadSeq, m.LastReadAt = seq, kanri.NewTime(s.Now())
		}
		return nil
	})
	if err != nil || !moved {
		return err
	}
	s.publish(ctx, tenantID, KindMemberRead, Payload{ChannelID: channelID, Private: c.IsPrivate, UserID: userID, ReadSeq: m.ReadSeq})
	return nil
}
