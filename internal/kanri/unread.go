package kanri

import "time"

// Unread counts are derived, not counted: a channel numbers its messages
// (LastSeq) and keeps a window of its latest ones (Recent); a member keeps
// the number of the last message it read. Deleted and system messages are
// marked in the window as not counted, and expired ones are recognised by
// their sending time, so an unread count never needs a query over the
// messages and is exact within the window (which covers more than the
// "99+" a list shows).

// ChannelWindow is how many of a channel's latest messages its window
// keeps.
const ChannelWindow = 200

// UnreadShown is the largest unread count a list shows as a number; above
// it, "99+".
const UnreadShown = 99

// RecentMessage is one entry of a channel's window of its latest messages.
type RecentMessage struct {
	Seq    int64 `json:"seq"`
	SentAt Time  `json:"sentAt"`
	// Counted is false for a message that never counts as unread (a system
	// message) or no longer does (deleted).
	Counted bool `json:"counted"`
}

// ChannelSeq is what a channel document keeps for unread counts.
type ChannelSeq struct {
	// LastSeq is the number of the channel's latest message (0: none yet).
	LastSeq int64 `json:"lastSeq"`
	// Recent is the window of the latest messages, oldest first, at most
	// ChannelWindow.
	Recent []RecentMessage `json:"recent,omitempty"`
}

// Post numbers a new message sent at sentAt and returns its number.
func (c *ChannelSeq) Post(sentAt Time, counted bool) int64 {
	c.LastSeq++
	c.Recent = append(c.Recent, RecentMessage{Seq: c.LastSeq, SentAt: sentAt, Counted: counted})
	if over := len(c.Recent) - ChannelWindow; over > 0 {
		c.Recent = append(c.Recent[:0:0], c.Recent[over:]...)
	}
	return c.LastSeq
}

// Uncount marks the message seq as no longer counted (it was deleted) and
// reports whether the window changed.
func (c *ChannelSeq) Uncount(seq int64) bool {
	for i := range c.Recent {
		if c.Recent[i].Seq == seq && c.Recent[i].Counted {
			c.Recent[i].Counted = false
			return true
		}
	}
	return false
}

// Unread returns how many messages after readSeq count as unread at now:
// counted and not expired. atLeast says the true number may be larger (the
// member read nothing the window still holds, and messages before it may
// be unread too); a list then shows n+ (or "99+").
func (c *ChannelSeq) Unread(readSeq int64, now time.Time) (n int, atLeast bool) {
	seqs, atLeast := c.UnreadSeqs(readSeq, now)
	return len(seqs), atLeast
}

// UnreadSeqs returns the numbers of the messages after readSeq that count
// as unread at now, and atLeast as Unread does.
func (c *ChannelSeq) UnreadSeqs(readSeq int64, now time.Time) (seqs []int64, atLeast bool) {
	oldest := now.Add(-time.Duration(TTLMessage) * time.Second)
	for i := len(c.Recent) - 1; i >= 0 && c.Recent[i].Seq > readSeq; i-- {
		if r := c.Recent[i]; r.Counted && r.SentAt.After(oldest) {
			seqs = append(seqs, r.Seq)
		}
	}
	if len(c.Recent) > 0 && readSeq < c.Recent[0].Seq-1 {
		// Messages before the window are unread too; only those still
		// young enough to exist count, and the window says nothing of them.
		atLeast = c.Recent[0].SentAt.After(oldest)
	}
	return seqs, atLeast
}
