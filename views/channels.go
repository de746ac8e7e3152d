package views

import (
	"fmt"
	"hash/fnv"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kanri/kanri/internal/kanri"
)

// ChannelsPath is the list of a tenant's channels.
func ChannelsPath(tenantID string) string { return "/t/" + tenantID + "/channels" }

// ChannelPath is a channel's page.
func ChannelPath(tenantID, channelID string) string { return ChannelsPath(tenantID) + "/" + channelID }

// MessagePath is a message of a channel.
func MessagePath(tenantID, channelID, messageID string) string {
	return ChannelPath(tenantID, channelID) + "/messages/" + messageID
}

// LivePath is the stream of a tab's live updates, with the channel the
// tab shows ("" for none) and the number of its latest message the page
// shows, and whether it shows the list of channels.
func LivePath(tenantID, channelID string, seq int64, list bool) string {
	q := url.Values{}
	if channelID != "" {
		q.Set("channel", channelID)
		q.Set("seq", strconv.FormatInt(seq, 10))
	}
	if list {
		q.Set("list", "1")
	}
	p := "/t/" + tenantID + "/events"
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	return p
}

// ChannelRow is one channel in the list of a person's channels.
type ChannelRow struct {
	Channel *kanri.Channel
	// Unread is the label of its unread count ("" for none); Mentions how
	// many of those mention the person.
	Unread   string
	Mentions int
}

// ChannelsView is the channels page: the person's channels, and the
// tenant's public channels to browse.
type ChannelsView struct {
	Mine       []ChannelRow
	MinePaging Paging
	Browse     []*kanri.Channel
	Paging     Paging
	Search     string
	Archived   bool
	// Joined says which browsed channels the person is a member of.
	Joined map[string]bool
}

// ChannelInput is what a channel's form holds.
type ChannelInput struct {
	Name        string
	DisplayName string
	Description string
	IsPrivate   bool
}

// ChannelForm is the form that creates (Channel nil) or edits a channel.
type ChannelForm struct {
	Channel *kanri.Channel
	Input   ChannelInput
	Errors  Errors
}

// MessageView is one message as a person sees it.
type MessageView struct {
	TenantID string
	Message  *kanri.Message
	// Mine says the person sent it (they may edit and delete it);
	// Moderate that they may delete it anyway; Member that they may react.
	Mine, Moderate, Member bool
	// MarkRead asks the page to tell the server it was read once it is
	// seen.
	MarkRead bool
	CSRF     string
	// UserID is who sees it, Username their username (a mention of them
	// stands out).
	UserID, Username string
	// OOB, when set, is the message's hx-swap-oob: it replaces the message
	// the page shows ("true").
	OOB string
	// Attachments are the files it links to that still exist.
	Attachments []Attachment
}

// ChannelView is a channel's page.
type ChannelView struct {
	Channel   *kanri.Channel
	Member    *kanri.ChannelMember
	Messages  []MessageView // oldest first
	OlderURL  string        // "" when there are none
	CanManage bool
	// FirstUnread is the number of the first unread message shown (0:
	// none).
	FirstUnread int64
	Search      string
	Composer    ComposerView
	// Paged is an older page of the messages shown as a page of its own
	// (the link followed without scripts): no composer, no live updates,
	// and a link back to the latest.
	Paged bool
}

// ComposerView is the form that posts a message.
type ComposerView struct {
	ChannelID string
	Content   string
	Errors    Errors
	Focus     bool
	// Files are the files that may be attached (none when the person
	// cannot read files); Picked the ones chosen.
	Files  []*kanri.File
	Picked []string
}

// Attachment is a file a message links to, as its page shows it.
type Attachment struct {
	ID, Name string
	// Image says the file is an image with a thumbnail, shown with it.
	Image bool
}

// MemberRow is one member of a channel.
type MemberRow struct {
	UserID, Name, Role string
	JoinedAt           kanri.Time
}

// MembersView is a channel's members page.
type MembersView struct {
	Channel   *kanri.Channel
	Members   []MemberRow
	Paging    Paging
	CanManage bool
	// Candidates are users who may be added.
	Candidates []*kanri.User
	Errors     Errors
}

// NavUnread is what the person has not read in all their channels, for the
// navigation: the number of unread messages, its label ("" for none), and
// how many of those messages mention them.
type NavUnread struct {
	Count    int
	Label    string
	Mentions int
}

// Segment is a piece of a message's text: plain text, a link (URL), or a
// mention of someone by their username (Mention, without its @).
type Segment struct {
	Text    string
	URL     string
	Mention string
}

// mentions cuts plain text into text and mentions (kanri.MentionPattern).
func mentions(s string) []Segment {
	var out []Segment
	last := 0
	for _, m := range kanri.MentionPattern.FindAllStringSubmatchIndex(s, -1) {
		start, end := m[2], m[3]
		name := strings.TrimRight(s[m[4]:m[5]], "._-") // "@bob." ends a sentence
		end = m[4] + len(name)
		if start > last {
			out = append(out, Segment{Text: s[last:start]})
		}
		out = append(out, Segment{Text: s[start:end], Mention: name})
		last = end
	}
	if last < len(s) {
		out = append(out, Segment{Text: s[last:]})
	}
	return out
}

// Mentions says whether the text of seg mentions the person with the
// given username (usernames compare without regard to case).
func (seg Segment) Mentions(username string) bool {
	return seg.Mention != "" && username != "" && strings.EqualFold(seg.Mention, username)
}

// linkPattern finds the web addresses in a message.
var linkPattern = regexp.MustCompile(`https?://[^\s<>"'` + "`" + `]+`)

// Segments cuts a message's text into plain text, links (http and https
// only; trailing punctuation is not part of a link) and mentions. Everything is
// escaped when rendered: nothing a person types becomes markup.
func Segments(s string) []Segment {
	var out []Segment
	last := 0
	for _, m := range linkPattern.FindAllStringIndex(s, -1) {
		end := m[1]
		for end > m[0] && strings.ContainsRune(".,;:!?)]}'\"。、）", rune(s[end-1])) {
			end--
		}
		if _, err := url.Parse(s[m[0]:end]); err != nil {
			continue
		}
		if m[0] > last {
			out = append(out, mentions(s[last:m[0]])...)
		}
		out = append(out, Segment{Text: s[m[0]:end], URL: s[m[0]:end]})
		last = end
	}
	if last < len(s) {
		out = append(out, mentions(s[last:])...)
	}
	return out
}

// ReactionCount is one emoji's reactions to a message.
type ReactionCount struct {
	Emoji string
	Count int
	Mine  bool
}

// Reactions returns a message's reactions in the order of kanri.Reactions.
func (v MessageView) Reactions() []ReactionCount {
	var out []ReactionCount
	for _, e := range kanri.Reactions {
		if who := v.Message.Reactions[e]; len(who) > 0 {
			mine := false
			for _, u := range who {
				mine = mine || u == v.UserID
			}
			out = append(out, ReactionCount{Emoji: e, Count: len(who), Mine: mine})
		}
	}
	return out
}

// Audience returns what of v's rendering depends on who sees it; the
// caller adds the context's language and time zone. Two people with the
// same audience see the same bytes, so a live update is rendered once for
// each audience rather than once for each person. mentioned are the
// message's mentions (MentionNames): a person mentioned sees their
// mentions stand out. TestAudienceIsWhatDiffers keeps it in step with
// MessageItem.
func (v MessageView) Audience(mentioned []string) string {
	var b strings.Builder
	for _, on := range []bool{v.Mine, v.Moderate, v.Member, v.MarkRead} {
		b.WriteByte('0' + boolByte(on))
	}
	b.WriteString("|" + v.OOB + "|" + v.CSRF + "|")
	for _, r := range v.Reactions() {
		if r.Mine {
			b.WriteString(r.Emoji)
		}
	}
	if v.Username != "" && slices.ContainsFunc(mentioned, func(n string) bool { return strings.EqualFold(n, v.Username) }) {
		b.WriteString("|@" + strings.ToLower(v.Username))
	}
	return b.String()
}

// Rev is a digest of what MessageItem shows of v, leaving out its OOB,
// CSRF and MarkRead, and who sees it beyond their Audience (a page has one
// reader). channels.js keeps a message's element when a live
// copy of it has the same rev: a copy of what the page already shows (the
// sender's own message, delivered by the stream after the answer to its
// POST) then never replaces the element under the reader's pointer, where
// it would swallow a click begun on the element it replaced.
// TestRevIsWhatIsShown keeps it in step with MessageItem.
func (v MessageView) Rev() string {
	m := v.Message
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%d\x00%t%t%t\x00",
		m.ID, m.ChannelID, m.ETag, m.Content, m.SenderName, m.System, m.Subject, v.TenantID, m.Seq, v.Mine, v.Moderate, v.Member)
	fmt.Fprintf(h, "%s\x00%s\x00", m.SentAt, m.EditedAt)
	for _, r := range v.Reactions() {
		fmt.Fprintf(h, "%s:%d:%t;", r.Emoji, r.Count, r.Mine)
	}
	for _, a := range v.Attachments {
		fmt.Fprintf(h, "%s:%s:%t;", a.ID, a.Name, a.Image)
	}
	return strconv.FormatUint(h.Sum64(), 36)
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// MentionNames returns the usernames a message's text mentions, as
// MessageItem finds them.
func MentionNames(content string) []string {
	var out []string
	for _, s := range Segments(content) {
		if s.Mention != "" {
			out = append(out, s.Mention)
		}
	}
	return out
}

func seqString(n int64) string { return strconv.FormatInt(n, 10) }
