package kanri

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Document types of the messaging service besides the channels, members and
// messages of the requirements (docs/data-model.md, "Messaging").
const (
	// TypeChannelName reserves a channel's name in its tenant.
	TypeChannelName = "channel_name"
	// TypeReaction is one person's reaction to a message with one emoji.
	TypeReaction = "reaction"
	// TypeChannelDeletion marks a deleted channel whose messages,
	// memberships and reactions are still being removed.
	TypeChannelDeletion = "channel_deletion"
)

// Channel is a conversation space within a tenant
// (docs/data-model.md, "Messaging"). Its ChannelSeq numbers its messages
// and keeps the window from which unread counts are derived; it changes in
// the same transaction as the message it numbers.
type Channel struct {
	Doc
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
	Description string `json:"description"`
	IsPrivate   bool   `json:"isPrivate"`
	// MemberCount changes in the same transaction as the membership it
	// counts, so it is exact whatever runs concurrently.
	MemberCount int    `json:"memberCount"`
	CreatedBy   string `json:"createdBy"`
	CreatedAt   Time   `json:"createdAt"`
	UpdatedAt   Time   `json:"updatedAt"`
	// Archived channels are read-only and left out of the default list.
	Archived    bool     `json:"archived"`
	ArchivedAt  Time     `json:"archivedAt"`
	SearchTerms []string `json:"searchTerms,omitempty"`
	ChannelSeq
}

// SearchFields implements Searchable: a channel is found by its names.
func (c *Channel) SearchFields() (*[]string, []string) {
	return &c.SearchTerms, []string{c.Name, c.DisplayName}
}

// Title is what people call the channel: its display name, else its name.
func (c *Channel) Title() string {
	if c.DisplayName != "" {
		return c.DisplayName
	}
	return c.Name
}

// State is what an edit of the channel depends on.
func (c *Channel) State() string {
	return StateOf(c.Name, c.DisplayName, c.Description, boolString(c.IsPrivate)+boolString(c.Archived))
}

// StateOf is the state of a document made of fields, as forms carry it in
// a hidden field: a digest, so that no separator (a NUL, which HTML
// cannot carry) nor a field's text goes into the page.
func StateOf(fields ...string) string {
	h := sha256.New()
	for _, f := range fields {
		h.Write([]byte(f))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

func boolString(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// channelName is what a channel's name may be: lower-case letters, digits,
// hyphens and underscores, starting with a letter or digit.
var channelName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,79}$`)

// NormalChannelName returns the name a person meant by s: trimmed, in
// lower case, with each run of spaces one hyphen ("Team Chat" is
// team-chat). CheckChannelName still judges what it returns.
func NormalChannelName(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), "-")
}

// CheckChannelName returns the message key of what is wrong with a
// channel's name, or "".
func CheckChannelName(name string) string {
	switch {
	case name == "":
		return "validation.required"
	case !channelName.MatchString(name):
		return "channels.bad_name"
	}
	return ""
}

// ChannelNameID returns the id of the reservation of a channel name.
func ChannelNameID(name string) string {
	h := sha256.Sum256([]byte(name))
	return "channelname_" + hex.EncodeToString(h[:20])
}

// ChannelName reserves a channel's name; its id is ChannelNameID.
type ChannelName struct {
	Doc
	ChannelID string `json:"channelId"`
}

// ChannelDeletion is left by a channel's deletion until its messages,
// memberships and reactions are gone; its id is the channel's.
type ChannelDeletion struct {
	Doc
	ChannelID string `json:"channelId"`
	DeletedAt Time   `json:"deletedAt"`
}

// Channel member roles.
const (
	RoleOwner  = "owner"
	RoleMember = "member"
)

// ChannelMember records a user's membership of a channel
// (docs/data-model.md, "Messaging"). ReadSeq is the number of the last
// message the member read: a channel joined starts read up to its latest
// message.
type ChannelMember struct {
	Doc
	ChannelID  string `json:"channelId"`
	UserID     string `json:"userId"`
	Role       string `json:"role"`
	JoinedAt   Time   `json:"joinedAt"`
	LastReadAt Time   `json:"lastReadAt"`
	ReadSeq    int64  `json:"readSeq"`
	// MentionSeqs are the numbers of the latest messages that mention the
	// member (at most MaxMentionSeqs); those unread are its mentions.
	MentionSeqs []int64 `json:"mentionSeqs,omitempty"`
}

// MaxMentionSeqs bounds how many mentions a membership remembers.
const MaxMentionSeqs = 100

// Mentions returns how many of the messages unread seqs (ChannelSeq's
// UnreadSeqs: counted, not expired) mention the member: a deleted or
// expired message that mentioned it no longer counts.
func (m *ChannelMember) Mentions(unread []int64) int {
	n := 0
	for _, q := range m.MentionSeqs {
		if slices.Contains(unread, q) {
			n++
		}
	}
	return n
}

// MentionPattern finds the mentions in a message's text: @ and a
// username, at the start or after a character that is not part of a word
// (an e-mail address mentions no one). Its group 1 is the mention, group 2
// the name (trailing ".", "_" and "-" end a sentence, not the name).
var MentionPattern = regexp.MustCompile(`(?:^|[^\p{L}\p{N}._@-])(@([\p{L}\p{N}][\p{L}\p{N}._-]*))`)

// MentionedNames returns the usernames a message's text mentions, each
// once, at most max of them.
func MentionedNames(text string, max int) []string {
	var out []string
	for _, m := range MentionPattern.FindAllStringSubmatch(text, -1) {
		name := strings.TrimRight(m[2], "._-")
		if !slices.ContainsFunc(out, func(n string) bool { return strings.EqualFold(n, name) }) {
			out = append(out, name)
			if len(out) == max {
				break
			}
		}
	}
	return out
}

// ChannelMemberID returns the id of a user's membership of a channel.
func ChannelMemberID(channelID, userID string) string {
	return "member_" + channelID + "_" + userID
}

// MaxMessageLength bounds a message's content, in characters.
const MaxMessageLength = 4000

// MaxAttachments bounds the files a message links to.
const MaxAttachments = 10

// System messages: what happened in a channel, told by Kanri. They never
// count as unread.
const (
	SystemJoined  = "joined"
	SystemLeft    = "left"
	SystemAdded   = "added"
	SystemRemoved = "removed"
)

// Message is one post in a channel (docs/data-model.md, "Messaging").
// Messages expire a year after they were sent
// (docs/data-model.md, "Retention"): every write of a message sets its ttl
// to what is left of that year, so an edit never extends its life.
type Message struct {
	Doc
	ChannelID  string `json:"channelId"`
	Content    string `json:"content"`
	SenderID   string `json:"senderId"`
	SenderName string `json:"senderName"`
	SentAt     Time   `json:"sentAt"`
	EditedAt   Time   `json:"editedAt"`
	// Reactions is not stored: each reaction is its own document (Reaction),
	// and readers fill this in from them, in the data model's shape (emoji →
	// the ids of who reacted; docs/data-model.md, "Messaging").
	Reactions   map[string][]string `json:"reactions,omitempty"`
	Attachments []string            `json:"attachments"`
	// Seq is the message's number in its channel.
	Seq int64 `json:"seq"`
	// System names what a system message tells (SystemJoined…), with
	// Subject the name of whom it is about; "" for a person's message.
	System      string   `json:"system,omitempty"`
	Subject     string   `json:"subject,omitempty"`
	SearchTerms []string `json:"searchTerms,omitempty"`
	TTL         int      `json:"ttl,omitempty"`
}

// SearchFields implements Searchable: a message is found by its content.
func (m *Message) SearchFields() (*[]string, []string) {
	return &m.SearchTerms, []string{m.Content}
}

// MessageTTL returns the ttl, in seconds, that a document of a message
// sent at sentAt gets when written at now: what is left of the message's
// year, and at least one second.
func MessageTTL(sentAt, now time.Time) int {
	left := sentAt.Add(TTLMessage * time.Second).Sub(now)
	return max(int(left/time.Second), 1)
}

// Expired reports whether the message outlived its year at now, which the
// store may not have removed yet.
func (m *Message) Expired(now time.Time) bool {
	return !m.SentAt.Add(TTLMessage * time.Second).After(now)
}

// CheckMessage returns the message key of what is wrong with a message's
// content, or "".
func CheckMessage(content string) string {
	switch n := utf8.RuneCountInString(content); {
	case n == 0:
		return "validation.required"
	case n > MaxMessageLength:
		return "messages.too_long"
	case !utf8.ValidString(content), HasHidden(content, true):
		return "messages.bad_text"
	}
	return ""
}

// Reaction is one person's reaction to a message with one emoji: one
// document per (message, user, emoji), so concurrent reactions never
// overwrite one another and adding one twice is one. It expires with its
// message; a reaction never extends a message's life.
type Reaction struct {
	Doc
	ChannelID     string `json:"channelId"`
	MessageID     string `json:"messageId"`
	MessageSentAt Time   `json:"messageSentAt"`
	UserID        string `json:"userId"`
	Emoji         string `json:"emoji"`
	CreatedAt     Time   `json:"createdAt"`
	TTL           int    `json:"ttl,omitempty"`
}

// ReactionID returns the id of a user's reaction to a message with emoji.
func ReactionID(messageID, userID, emoji string) string {
	h := sha256.Sum256([]byte(emoji))
	return "reaction_" + messageID + "_" + userID + "_" + hex.EncodeToString(h[:8])
}

// Reactions are the emoji a message may be reacted with: a fixed set, so
// that nothing a person types becomes a reaction.
var Reactions = []string{"👍", "❤️", "😂", "🎉", "😮", "🙏", "👀", "✅"}
