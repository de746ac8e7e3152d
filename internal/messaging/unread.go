package messaging

import (
	"context"
	"slices"
	"time"

	"github.com/kanri/kanri/internal/kanri"
)

// TrackedChannels is how many of a person's channels a Tracker follows
// (the first by channel id): a bound on what one page load or one live
// stream reads and keeps.
const TrackedChannels = 200

// Unread is what a person has not read in one of their channels: the
// numbers of its unread messages, and of those that mention the person.
type Unread struct {
	Name    string
	ReadSeq int64
	// Seqs are the unread messages the channel's window knows of; AtLeast
	// says there may be more.
	Seqs     map[int64]bool
	AtLeast  bool
	Mentions map[int64]bool
}

// Label is how a list shows the unread count (UnreadLabel).
func (u *Unread) Label() string { return UnreadLabel(len(u.Seqs), u.AtLeast) }

// Tracker follows, for one person's live stream, their unread messages
// and mentions across their channels, and which channels' events they may
// receive: it starts from their memberships and then applies the events of
// the channels, so that a live page keeps its counts without reading the
// store again. It is not safe for concurrent use (one per stream).
type Tracker struct {
	svc      *Service
	tenantID string
	me       Person
	channels map[string]*Unread
	// sees is what is known of the private channels whose events the
	// person may receive: those they are a member of.
	sees map[string]bool
}

// NewTracker returns a tracker of me's channels, empty until Reset. A
// tracker made this way knows no more than what it is told: a private
// channel not among them is not seen.
func NewTracker(me Person) *Tracker {
	return &Tracker{me: me, channels: map[string]*Unread{}, sees: map[string]bool{}}
}

// Track returns a tracker of the first TrackedChannels of me's channels, as
// the store has them now.
func (s *Service) Track(ctx context.Context, tenantID string, me Person) (*Tracker, error) {
	mine, _, err := s.Mine(ctx, tenantID, me.UserID, TrackedChannels, "")
	if err != nil {
		return nil, err
	}
	t := NewTracker(me)
	t.svc, t.tenantID = s, tenantID
	t.Reset(mine, s.Now())
	return t, nil
}

// Reset starts again from the memberships mine, at now.
func (t *Tracker) Reset(mine []Membership, now time.Time) {
	clear(t.channels)
	clear(t.sees)
	for _, m := range mine {
		t.sees[m.Channel.ID] = true
		seqs, atLeast := m.Channel.UnreadSeqs(m.Member.ReadSeq, now)
		u := &Unread{Name: m.Channel.Name, ReadSeq: m.Member.ReadSeq, Seqs: map[int64]bool{}, AtLeast: atLeast, Mentions: map[int64]bool{}}
		for _, q := range seqs {
			u.Seqs[q] = true
			if slices.Contains(m.Member.MentionSeqs, q) {
				u.Mentions[q] = true
			}
		}
		t.channels[m.Channel.ID] = u
	}
}

// Channel returns what the person has not read in a channel, nil if it is
// not one of the channels followed.
func (t *Tracker) Channel(id string) *Unread { return t.channels[id] }

// IDs returns the ids of the channels followed, sorted.
func (t *Tracker) IDs() []string {
	ids := make([]string, 0, len(t.channels))
	for id := range t.channels {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Total is what a person has not read in all their channels.
type Total struct {
	// Unread is the number of unread messages, at least that many when
	// AtLeast; Mentions how many of them mention the person.
	Unread   int
	AtLeast  bool
	Mentions int
}

// Label is how the navigation shows the count (UnreadLabel).
func (t Total) Label() string { return UnreadLabel(t.Unread, t.AtLeast) }

// Total returns what the person has not read in the channels followed.
func (t *Tracker) Total() Total {
	var out Total
	for _, u := range t.channels {
		out.Unread += len(u.Seqs)
		out.AtLeast = out.AtLeast || u.AtLeast
		out.Mentions += len(u.Mentions)
	}
	return out
}

// Apply updates the tracker with an event of kind about channel p.ChannelID
// and reports whether what the person has not read there changed. Events
// of channels the person is not a member of change nothing.
func (t *Tracker) Apply(kind string, p *Payload) bool {
	if p.UserID == t.me.UserID {
		switch kind {
		case KindMemberJoined:
			t.sees[p.ChannelID] = true
			if t.channels[p.ChannelID] == nil {
				t.channels[p.ChannelID] = &Unread{Name: p.Name, Seqs: map[int64]bool{}, Mentions: map[int64]bool{}}
			}
			return false
		case KindMemberLeft:
			t.sees[p.ChannelID] = false
			_, had := t.channels[p.ChannelID]
			delete(t.channels, p.ChannelID)
			return had
		}
	}
	u := t.channels[p.ChannelID]
	if u == nil {
		return false
	}
	msg := p.Message
	switch kind {
	case KindMessageCreated:
		if msg == nil || !p.Counted || msg.SenderID == t.me.UserID || msg.Seq <= u.ReadSeq {
			return false
		}
		u.Seqs[msg.Seq] = true
		if t.mentioned(p) {
			u.Mentions[msg.Seq] = true
		}
		return true
	case KindMessageUpdated:
		// An edit that adds a mention of an unread message counts it, as
		// the service does (noteMentions); removing one does not uncount it.
		if msg == nil || !u.Seqs[msg.Seq] || u.Mentions[msg.Seq] || !t.mentioned(p) {
			return false
		}
		u.Mentions[msg.Seq] = true
		return true
	case KindMessageDeleted:
		if msg == nil || !u.Seqs[msg.Seq] {
			return false
		}
		delete(u.Seqs, msg.Seq)
		delete(u.Mentions, msg.Seq)
		return true
	case KindMemberRead:
		if p.UserID != t.me.UserID || p.ReadSeq <= u.ReadSeq {
			return false
		}
		u.ReadSeq = p.ReadSeq
		for q := range u.Seqs {
			if q <= p.ReadSeq {
				delete(u.Seqs, q)
				delete(u.Mentions, q)
			}
		}
		if len(u.Seqs) == 0 {
			u.AtLeast = false
		}
		return true
	}
	return false
}

// Sees reports whether the person may receive the events of a channel:
// of any public one, and of a private one they are a member of (asked of
// the store once per channel, then kept up to date by Apply).
func (t *Tracker) Sees(ctx context.Context, channelID string, private bool) (bool, error) {
	if !private {
		return true, nil
	}
	if ok, known := t.sees[channelID]; known || t.svc == nil {
		return ok, nil
	}
	ok, err := t.svc.Visible(ctx, t.tenantID, t.me.UserID, channelID, true)
	if err == nil {
		t.sees[channelID] = ok
	}
	return ok, err
}

// mentioned reports whether p's message mentions the person (not their
// own).
func (t *Tracker) mentioned(p *Payload) bool {
	msg := p.Message
	if t.me.Username == "" || msg.SenderID == t.me.UserID || msg.System != "" {
		return false
	}
	p.Prepare()
	return slices.Contains(p.mentions, kanri.UsernameID(t.me.Username))
}
