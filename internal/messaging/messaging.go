// Package messaging is the messaging service of a tenant
// (docs/messaging.md): channels, their members, messages and reactions, and
// the unread counts derived from them.
//
// A channel numbers its messages: posting a message and advancing the
// channel's number (with its window of the latest messages, see
// kanri.ChannelSeq) is one transaction, and so is joining or leaving and
// the channel's memberCount. A member keeps the number it has read up to,
// so an unread count is a difference, never a count of messages.
//
// Every change is published on the events port (package events) under the
// topic of its channel, for the open pages that show it; who may receive
// which event is the web layer's decision, made with Visible.
package messaging

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/events"
	"github.com/kanri/kanri/internal/kanri"
)

// Files is what the messaging service needs of the file service: whether a
// file an attachment names is one of the tenant's.
type Files interface {
	LiveFile(ctx context.Context, tenantID, id string) (*kanri.File, error)
}

// Service manages a tenant's channels and messages.
type Service struct {
	app.Deps
	Bus   events.Bus
	Files Files
	// cleanups counts the removals of deleted channels under way.
	cleanups sync.WaitGroup
}

// New returns a messaging service publishing its changes on bus.
func New(d app.Deps, bus events.Bus, files Files) *Service {
	return &Service{Deps: d, Bus: bus, Files: files}
}

// Person is who acts: the signed-in user or the creator of an API key, with
// the rights that go beyond their own messages and channels.
type Person struct {
	UserID string
	Name   string
	// Username is the person's username, by which others mention them.
	Username string
	// ManageChannels (channels.update) edits and archives any public
	// channel; ModerateMessages (messages.delete) deletes anyone's message
	// in a channel the person can read.
	ManageChannels   bool
	ModerateMessages bool
}

// Event kinds published by the service.
const (
	KindMessageCreated = "message.created"
	KindMessageUpdated = "message.updated"
	KindMessageDeleted = "message.deleted"
	KindReaction       = "reaction.changed"
	KindChannelUpdated = "channel.updated"
	KindChannelDeleted = "channel.deleted"
	KindMemberJoined   = "member.joined"
	KindMemberLeft     = "member.left"
	KindMemberRead     = "member.read"
)

// Payload is the data of every event of the service.
type Payload struct {
	ChannelID string `json:"channelId"`
	// Private says the channel is private: only its members may receive
	// the event.
	Private bool `json:"private"`
	// Message is the message created, updated or reacted to (with its
	// reactions), or the one deleted (its id and seq).
	Message *kanri.Message `json:"message,omitempty"`
	// MessageETag is the message's version, for the edit form of a page
	// that shows it.
	MessageETag string `json:"messageEtag,omitempty"`
	// Counted says whether a created or deleted message counts as unread.
	Counted bool `json:"counted,omitempty"`
	// UserID is the member who joined, left or read; ReadSeq what it read
	// up to.
	UserID  string `json:"userId,omitempty"`
	ReadSeq int64  `json:"readSeq,omitempty"`
	// Name is the channel's name, and MemberCount its number of members
	// after the change, in the events of memberships.
	Name        string `json:"name,omitempty"`
	MemberCount int    `json:"memberCount,omitempty"`
	// mentions are the usernames (kanri.UsernameID) the message mentions,
	// found once for every tracker of the event (Prepare); nil when not
	// yet found.
	mentions []string
}

// Prepare finds once what every tracker of the event asks of it: the
// usernames its message mentions. A payload shared by many streams is
// prepared before they read it.
func (p *Payload) Prepare() {
	if p.Message == nil || p.mentions != nil {
		return
	}
	p.mentions = []string{}
	for _, n := range kanri.MentionedNames(p.Message.Content, maxMentions) {
		p.mentions = append(p.mentions, kanri.UsernameID(n))
	}
}

// Topic returns the events topic of a channel.
func Topic(channelID string) string { return "channel:" + channelID }

// publish sends an event of the channel; a failure is logged, never
// returned: the change is made, and pages that missed it catch up with
// their next snapshot.
func (s *Service) publish(ctx context.Context, tenantID, kind string, p Payload) {
	if s.Bus == nil {
		return
	}
	if p.Message != nil { // what a page shows, not the store's bookkeeping
		m := *p.Message
		m.SearchTerms, m.TTL = nil, 0
		p.Message, p.MessageETag = &m, m.ETag
	}
	data, err := json.Marshal(p)
	if err == nil {
		_, err = s.Bus.Publish(context.WithoutCancel(ctx), events.Event{
			TenantID: tenantID, Topic: Topic(p.ChannelID), Kind: kind, Data: data,
		})
	}
	if err != nil {
		s.Logger.Error("messaging: publishing an event", "tenant", tenantID, "kind", kind, "err", err)
	}
}

// newID returns a new document id with the given prefix.
func newID(prefix string) string { return prefix + strings.ReplaceAll(uuid.NewString(), "-", "") }

// checkID refuses an id that cannot be one of the tenant's documents of
// the given prefix, as not found.
func checkID(tenantID, id, prefix string) error {
	if !strings.HasPrefix(id, prefix) || docstore.CheckKey(tenantID, id) != nil {
		return kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return nil
}
