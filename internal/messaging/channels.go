package messaging

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/search"
	"github.com/kanri/kanri/internal/store"
)

// Lengths of a channel's texts, in characters.
const (
	maxDisplayName = 100
	maxDescription = 1000
)

// ChannelInput is what a channel's form edits.
type ChannelInput struct {
	Name        string
	DisplayName string
	Description string
	IsPrivate   bool
}

func (in *ChannelInput) check() error {
	typed := strings.TrimSpace(in.Name)
	in.Name = kanri.NormalChannelName(typed)
	in.DisplayName, in.Description = strings.TrimSpace(in.DisplayName), strings.TrimSpace(in.Description)
	if in.DisplayName == "" && typed != in.Name && kanri.CheckChannelName(in.Name) == "" {
		in.DisplayName = typed // "Team Chat" is shown as typed, named team-chat
	}
	f := kanri.Fields{}
	if msg := kanri.CheckChannelName(in.Name); msg != "" {
		f["name"] = msg
	}
	switch {
	case utf8.RuneCountInString(in.DisplayName) > maxDisplayName:
		f["displayName"] = "validation.too_long"
	case kanri.HasHidden(in.DisplayName, false):
		f["displayName"] = "validation.hidden_chars"
	}
	switch {
	case utf8.RuneCountInString(in.Description) > maxDescription:
		f["description"] = "validation.too_long"
	case kanri.HasHidden(in.Description, true):
		f["description"] = "validation.hidden_chars"
	}
	if len(f) > 0 {
		return kanri.Invalid(f)
	}
	return nil
}

func channelFields(c *kanri.Channel) map[string]any {
	return map[string]any{"name": c.Name, "displayName": c.DisplayName, "description": c.Description, "isPrivate": c.IsPrivate, "archived": c.Archived}
}

// nameTaken is the error of a channel name already in use.
func nameTaken() error { return kanri.Invalid(kanri.Fields{"name": "channels.name_taken"}) }

// CreateChannel creates a channel with p as its owner and first member.
func (s *Service) CreateChannel(ctx context.Context, tenantID string, p Person, in ChannelInput) (*kanri.Channel, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, err
	}
	ten := s.Store.Tenant(tenantID)
	now := kanri.NewTime(s.Now())
	c := &kanri.Channel{
		Doc:  kanri.Doc{ID: newID("channel_")},
		Name: in.Name, DisplayName: in.DisplayName, Description: in.Description, IsPrivate: in.IsPrivate,
		MemberCount: 1, CreatedBy: p.UserID, CreatedAt: now, UpdatedAt: now,
	}
	m := &kanri.ChannelMember{
		Doc:       kanri.Doc{ID: kanri.ChannelMemberID(c.ID, p.UserID)},
		ChannelID: c.ID, UserID: p.UserID, Role: kanri.RoleOwner, JoinedAt: now, LastReadAt: now,
	}
	ops, err := opsOf(
		op(ten.Channels(), docstore.OpCreate, c),
		op(ten.ChannelNames(), docstore.OpCreate, &kanri.ChannelName{Doc: kanri.Doc{ID: kanri.ChannelNameID(c.Name)}, ChannelID: c.ID}),
		op(ten.ChannelMembers(), docstore.OpCreate, m),
	)
	if err != nil {
		return nil, err
	}
	limit, err := store.CountLimit(ctx, ten, kanri.MessagingServiceID, "maxChannels")
	if err != nil {
		return nil, err
	}
	if limit == 0 {
		_, err = ten.Batch(ctx, kanri.ContainerMessaging, ops)
	} else {
		_, err = store.CreateWithin(ctx, ten, kanri.ContainerMessaging, "channels", limit, kanri.E(kanri.ECONFLICT, "channels.limit_reached", limit),
			func() (int, error) {
				cs, _, err := ten.Channels().Query(ctx, docstore.Query{Limit: limit})
				return len(cs), err
			}, ops)
	}
	if err != nil {
		if kanri.IsCode(err, kanri.ECONFLICT) && !isLimit(err) {
			return nil, nameTaken()
		}
		return nil, err
	}
	s.Audit.Change(ctx, tenantID, "channel.create", kanri.AuditResource{Type: kanri.AuditChannel, ID: c.ID, Name: c.Name}, nil, channelFields(c))
	return ten.Channels().Get(ctx, c.ID)
}

// isLimit reports whether err is the refusal of a channel past the limit.
func isLimit(err error) bool {
	key, _ := kanri.ErrorMessage(err)
	return key == "channels.limit_reached"
}

// pendingOp is a batch operation or the error of making it.
type pendingOp struct {
	op  docstore.Op
	err error
}

func op[E any, P store.Entity[E]](r *store.Repo[E, P], kind docstore.OpKind, doc P) pendingOp {
	o, err := r.Op(kind, doc)
	return pendingOp{o, err}
}

func deleteOp(id, etag string) pendingOp {
	return pendingOp{op: docstore.Op{Kind: docstore.OpDelete, ID: id, IfMatch: etag}}
}

func opsOf(ps ...pendingOp) ([]docstore.Op, error) {
	out := make([]docstore.Op, 0, len(ps))
	for _, p := range ps {
		if p.err != nil {
			return nil, p.err
		}
		out = append(out, p.op)
	}
	return out, nil
}

// Channel returns a channel p can see, and p's membership of it (nil when
// p is not a member). A private channel p is not a member of is not found,
// as if it did not exist.
func (s *Service) Channel(ctx context.Context, tenantID, userID, id string) (*kanri.Channel, *kanri.ChannelMember, error) {
	if err := checkID(tenantID, id, "channel_"); err != nil {
		return nil, nil, err
	}
	ten := s.Store.Tenant(tenantID)
	var (
		c *kanri.Channel
		m *kanri.ChannelMember
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) { c, err = ten.Channels().Get(gctx, id); return err })
	g.Go(func() error {
		var err error
		m, err = ten.ChannelMembers().Get(gctx, kanri.ChannelMemberID(id, userID))
		if kanri.IsCode(err, kanri.ENOTFOUND) {
			m, err = nil, nil
		}
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	if c.IsPrivate && m == nil {
		return nil, nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return c, m, nil
}

// Visible reports whether the user may see what happens in a channel: a
// public one, or a private one they are a member of.
func (s *Service) Visible(ctx context.Context, tenantID, userID, channelID string, private bool) (bool, error) {
	if !private {
		return true, nil
	}
	_, err := s.Store.Tenant(tenantID).ChannelMembers().Get(ctx, kanri.ChannelMemberID(channelID, userID))
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return false, nil
	}
	return err == nil, err
}

// BrowseQuery is what the list of a tenant's public channels asks for.
type BrowseQuery struct {
	Search   string
	Archived bool
	Limit    int
	Next     string
}

// Browse returns one page of the tenant's public channels, archived or
// not, by name: one index range.
func (s *Service) Browse(ctx context.Context, tenantID string, q BrowseQuery) ([]*kanri.Channel, string, error) {
	where := []docstore.Filter{docstore.Eq("isPrivate", false), docstore.Eq("archived", q.Archived)}
	if strings.TrimSpace(q.Search) != "" {
		where = append(search.Filters(q.Search), where...)
	}
	return s.Store.Tenant(tenantID).Channels().Query(ctx, docstore.Query{Where: where, OrderBy: "name", Limit: q.Limit, Continuation: q.Next})
}

// Membership is one of a person's channels with its unread count.
type Membership struct {
	Channel *kanri.Channel
	Member  *kanri.ChannelMember
	// Unread is the number of unread messages; AtLeast says there may be
	// more. Mentions is how many of them mention the member.
	Unread   int
	AtLeast  bool
	Mentions int
}

// UnreadLabel is how a list shows the unread count: "" for none, the
// number, "n+" when there may be more, and "99+" above kanri.UnreadShown.
func (m Membership) UnreadLabel() string { return UnreadLabel(m.Unread, m.AtLeast) }

// UnreadLabel is how a list shows an unread count of n, at least n when
// atLeast.
func UnreadLabel(n int, atLeast bool) string {
	switch {
	case n > kanri.UnreadShown:
		return strconv.Itoa(kanri.UnreadShown) + "+"
	case atLeast:
		return strconv.Itoa(n) + "+"
	case n == 0:
		return ""
	}
	return strconv.Itoa(n)
}

// Mine returns one page of the channels the user is a member of, by
// channel id, with their unread counts: a page of memberships and one
// query for their channels, so the page costs the same whatever the
// number of messages. Channels whose deletion is under way are left out.
func (s *Service) Mine(ctx context.Context, tenantID, userID string, limit int, next string) ([]Membership, string, error) {
	ten := s.Store.Tenant(tenantID)
	members, next, err := ten.ChannelMembers().Query(ctx, docstore.Query{
		Where: []docstore.Filter{docstore.Eq("userId", userID)}, OrderBy: "channelId", Limit: limit, Continuation: next,
	})
	if err != nil {
		return nil, "", err
	}
	ids := make([]string, len(members))
	for i, m := range members {
		ids[i] = m.ChannelID
	}
	found, err := ten.Channels().ByIDs(ctx, ids, "")
	if err != nil {
		return nil, "", err
	}
	channels := make(map[string]*kanri.Channel, len(found))
	for _, c := range found {
		channels[c.ID] = c
	}
	now := s.Now()
	out := make([]Membership, 0, len(members))
	for _, m := range members {
		if c := channels[m.ChannelID]; c != nil {
			seqs, atLeast := c.UnreadSeqs(m.ReadSeq, now)
			out = append(out, Membership{Channel: c, Member: m, Unread: len(seqs), AtLeast: atLeast, Mentions: m.Mentions(seqs)})
		}
	}
	return out, next, nil
}

// canManage reports whether p may edit, archive and delete c, being m:
// an owner of it, or for a public channel a holder of channels.update.
func canManage(p Person, c *kanri.Channel, m *kanri.ChannelMember) bool {
	return (m != nil && m.Role == kanri.RoleOwner) || (!c.IsPrivate && p.ManageChannels)
}

// CanManage reports whether p may edit, archive and delete c, being m.
func CanManage(p Person, c *kanri.Channel, m *kanri.ChannelMember) bool { return canManage(p, c, m) }

// changeChannel applies change to a channel p may manage, as seen.
func (s *Service) changeChannel(ctx context.Context, tenantID string, p Person, id string, seen kanri.Seen, action string, change func(c *kanri.Channel) ([]pendingOp, error)) (*kanri.Channel, error) {
	ten := s.Store.Tenant(tenantID)
	var before map[string]any
	c, err := store.Retry(ctx, func() (*kanri.Channel, error) {
		c, m, err := s.Channel(ctx, tenantID, p.UserID, id)
		if err != nil {
			return nil, err
		}
		if !canManage(p, c, m) {
			return nil, kanri.E(kanri.EFORBIDDEN, "channels.not_owner")
		}
		if seen.Stale(c.ETag, c.State()) {
			return nil, kanri.Stale()
		}
		before = channelFields(c)
		state := c.State()
		more, err := change(c)
		if err != nil {
			return nil, err
		}
		if c.State() == state {
			return c, nil // nothing to change: nothing written
		}
		c.UpdatedAt = kanri.NewTime(s.Now())
		ops, err := opsOf(append([]pendingOp{op(ten.Channels(), docstore.OpReplace, c)}, more...)...)
		if err != nil {
			return nil, err
		}
		if _, err := ten.Batch(ctx, kanri.ContainerMessaging, ops); err != nil {
			if kanri.IsCode(err, kanri.ECONFLICT) {
				return nil, nameTaken()
			}
			return nil, store.Raced(err)
		}
		return c, nil
	})
	if err != nil {
		return nil, err
	}
	if changes := audit.Diff(before, channelFields(c)); len(before) > 0 && len(changes) > 0 {
		s.Audit.Record(ctx, audit.Entry{TenantID: tenantID, Action: action, Resource: kanri.AuditResource{Type: kanri.AuditChannel, ID: c.ID, Name: c.Name}, Changes: changes})
		s.publish(ctx, tenantID, KindChannelUpdated, Payload{ChannelID: c.ID, Private: c.IsPrivate})
	}
	return c, nil
}

// UpdateChannel changes a channel's name, display name, description and
// visibility, as seen.
func (s *Service) UpdateChannel(ctx context.Context, tenantID string, p Person, id string, seen kanri.Seen, in ChannelInput) (*kanri.Channel, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	ten := s.Store.Tenant(tenantID)
	return s.changeChannel(ctx, tenantID, p, id, seen, "channel.update", func(c *kanri.Channel) ([]pendingOp, error) {
		if c.Archived {
			return nil, kanri.E(kanri.ECONFLICT, "channels.archived")
		}
		var more []pendingOp
		if in.Name != c.Name {
			old, err := ten.ChannelNames().Get(ctx, kanri.ChannelNameID(c.Name))
			if err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
				return nil, err
			}
			if old != nil {
				more = append(more, deleteOp(old.ID, old.ETag))
			}
			more = append(more, op(ten.ChannelNames(), docstore.OpCreate, &kanri.ChannelName{Doc: kanri.Doc{ID: kanri.ChannelNameID(in.Name)}, ChannelID: c.ID}))
		}
		c.Name, c.DisplayName, c.Description, c.IsPrivate = in.Name, in.DisplayName, in.Description, in.IsPrivate
		return more, nil
	})
}

// PatchChannel sets in a channel the fields patch gives from it, as pre
// decides (store.Patch): a conditional change applies to the channel as
// read only; any other to the channel as it is when written.
func (s *Service) PatchChannel(ctx context.Context, tenantID string, p Person, id string, pre kanri.Precondition[*kanri.Channel], patch func(*kanri.Channel) ChannelInput) (*kanri.Channel, error) {
	return store.Patch(ctx, func() (*kanri.Channel, bool, error) {
		c, _, err := s.Channel(ctx, tenantID, p.UserID, id)
		if err != nil {
			return nil, false, err
		}
		conditional, err := pre(c)
		if err != nil {
			return nil, true, err // refused: the answer, never read again
		}
		c, err = s.UpdateChannel(ctx, tenantID, p, c.ID, kanri.Seen{ETag: c.ETag, State: c.State()}, patch(c))
		return c, conditional, err
	})
}

// ArchiveChannel archives (archived true) or restores a channel, as seen.
// An archived channel is read-only.
func (s *Service) ArchiveChannel(ctx context.Context, tenantID string, p Person, id string, seen kanri.Seen, archived bool) (*kanri.Channel, error) {
	action := "channel.archive"
	if !archived {
		action = "channel.unarchive"
	}
	return s.changeChannel(ctx, tenantID, p, id, seen, action, func(c *kanri.Channel) ([]pendingOp, error) {
		c.Archived = archived
		c.ArchivedAt = kanri.Time{}
		if archived {
			c.ArchivedAt = kanri.NewTime(s.Now())
		}
		return nil, nil
	})
}

// DeleteChannelIf deletes a channel as pre decides on it.
// A message posted between the read and the delete, which changes the
// channel's document but not what people see of it, makes the delete read
// the channel again rather than fail.
func (s *Service) DeleteChannelIf(ctx context.Context, tenantID string, p Person, id string, pre kanri.Precondition[*kanri.Channel]) error {
	return store.RetryErr(ctx, func() error {
		c, _, err := s.Channel(ctx, tenantID, p.UserID, id)
		if err != nil {
			return err
		}
		conditional, err := pre(c)
		if err != nil {
			return err
		}
		var seen kanri.Seen
		if conditional {
			seen = kanri.Seen{ETag: c.ETag, State: c.State()}
		}
		err = s.DeleteChannel(ctx, tenantID, p, c.ID, seen)
		if kanri.IsCode(err, kanri.ESTALE) {
			return store.LostRace(err) // changed since it was read: read it again
		}
		return err
	})
}

// DeleteChannel deletes a channel p may manage, as seen: at once for
// everyone, its name free again; its messages, memberships and reactions
// are removed in the background (and by the worker, after a crash).
func (s *Service) DeleteChannel(ctx context.Context, tenantID string, p Person, id string, seen kanri.Seen) error {
	ten := s.Store.Tenant(tenantID)
	c, m, err := s.Channel(ctx, tenantID, p.UserID, id)
	if err != nil {
		return err
	}
	if !canManage(p, c, m) {
		return kanri.E(kanri.EFORBIDDEN, "channels.not_owner")
	}
	if seen.Stale(c.ETag, c.State()) {
		return kanri.Stale()
	}
	more := []pendingOp{
		deleteOp(c.ID, c.ETag),
		op(ten.ChannelDeletions(), docstore.OpCreate, &kanri.ChannelDeletion{Doc: kanri.Doc{ID: "channeldeletion_" + c.ID}, ChannelID: c.ID, DeletedAt: kanri.NewTime(s.Now())}),
	}
	if r, err := ten.ChannelNames().Get(ctx, kanri.ChannelNameID(c.Name)); err == nil && r.ChannelID == c.ID {
		more = append(more, deleteOp(r.ID, r.ETag))
	}
	ops, err := opsOf(more...)
	if err != nil {
		return err
	}
	if _, err := ten.Batch(ctx, kanri.ContainerMessaging, ops); err != nil {
		if kanri.IsCode(err, kanri.ESTALE) || kanri.IsCode(err, kanri.ECONFLICT) {
			return kanri.Stale()
		}
		return err
	}
	s.Audit.Change(ctx, tenantID, "channel.delete", kanri.AuditResource{Type: kanri.AuditChannel, ID: c.ID, Name: c.Name}, channelFields(c), nil)
	s.publish(ctx, tenantID, KindChannelDeleted, Payload{ChannelID: c.ID, Private: c.IsPrivate})
	s.cleanups.Add(1)
	go func() {
		defer s.cleanups.Done()
		if err := s.cleanup(context.WithoutCancel(ctx), tenantID, c.ID); err != nil {
			s.Logger.Error("messaging: removing a deleted channel's messages", "tenant", tenantID, "channel", c.ID, "err", err)
		}
	}()
	return nil
}
