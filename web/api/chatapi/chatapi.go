// Package chatapi serves the API's operations on a tenant's channels, their members and messages.
package chatapi

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/messaging"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/web/api"
	"github.com/kanri/kanri/web/httpkit"
)

// The channels and messages of the API, through the messaging service as
// the console's routes use it, with the same permissions, and only while
// the tenant's messaging service is usable. The key acts as its creator:
// it reads the channels its creator can see, posts as its creator, and
// its creator's rights to manage any public channel (channels.update) and
// to delete anyone's message (messages.delete) are the key's too. A
// private channel its creator is not a member of does not exist for the
// key: every operation on it answers 404.

// The limits of a channel's texts as messaging.ChannelInput checks them,
// for the document.
const (
	channelNameMax        = 80
	channelDisplayNameMax = 100
	channelDescriptionMax = 1000
)

// The query parameters of the channels' and messages' operations.
var (
	paramChannelBrowse = api.Param{Name: "browse", Kind: api.BooleanParam,
		Doc: "true: the tenant's public channels, by name, whether the key's creator is a member or not (q and archived choose which). false (the default): the channels the key's creator is a member of, by id, archived ones included, each with the creator's membership and unread count."}
	paramChannelSearch = api.Param{Name: "q",
		Doc: "With browse=true: words that begin words of the channels' names or display names. Without browse=true it is refused (400)."}
	paramChannelArchived = api.Param{Name: "archived", Kind: api.BooleanParam,
		Doc: "With browse=true: true for the archived public channels, false (the default) for the others. Without browse=true it is refused (400)."}
	paramMessageSearch = api.Param{Name: "q",
		Doc: "Words that begin words of the messages: the messages holding them, newest first."}
)

// Routes are the API's operations on channels, their members
// and their messages.
//
// Reactions are a sub-collection of a message, added to with POST and
// taken from with DELETE on the reaction's own path, as a user's roles
// are (POST /users/{id}/roles, DELETE /users/{id}/roles/{service}/{role}):
// the POST takes an Idempotency-Key as every POST of the API does, answers
// 200 when the reaction was there already (so adding one twice is adding
// it once), and its Location is the path that takes the reaction back;
// the DELETE is idempotent (a reaction that is not there is taken back
// already). PUT, which the API uses nowhere, is not among the methods
// listed origins may send.
func (s *Handlers) Routes() []api.Route {
	msvc := kanri.MessagingServiceID
	notFound := "No such channel in the key's tenant, or a private one the key's creator is not a member of."
	msgNotFound := "No such channel or message in the key's tenant, a private channel the key's creator is not a member of, or a message that expired."
	memberNotFound := "No such channel in the key's tenant, a private one the key's creator is not a member of, or the user is not a member of it."
	notOwner := "The key's creator is not an owner of the channel (nor, for a public channel, holds channels.update)."
	archived := "The channel is archived: it is read-only."
	channelInvalid := "The name is missing, not lower-case letters, digits, hyphens and underscores (starting with a letter or digit, at most 80), or taken by another channel; or the display name or description is too long or holds control or direction characters. errors names the field."
	return []api.Route{
		{Method: http.MethodGet, Path: "/channels", Scope: kanri.ScopeRead, Perm: role.ChannelsRead, Service: msvc, Handler: s.apiListChannels, Op: "listChannels",
			Doc:   "Without browse: the channels the key's creator is a member of, each with membership (their role, the number of the last message they read, and how many messages they have not read; unreadAtLeast says there may be more). With browse=true: the tenant's public channels by name, without membership.",
			Query: []api.Param{paramChannelBrowse, paramChannelSearch, paramChannelArchived, api.ParamLimit, api.ParamNext}, Response: "ChannelList", Status: 200, ETag: true},
		{Method: http.MethodPost, Path: "/channels", Scope: kanri.ScopeWrite, Perm: role.ChannelsCreate, Service: msvc, Handler: s.apiCreateChannel, Op: "createChannel",
			Doc:     "The key's creator becomes its owner and first member. Names are unique in the tenant.",
			Request: "ChannelCreate", Response: "Channel", Status: 201, ETag: true, Location: true,
			Statuses: map[int]string{http.StatusUnprocessableEntity: channelInvalid}},
		{Method: http.MethodGet, Path: "/channels/:channel", Scope: kanri.ScopeRead, Perm: role.ChannelsRead, Service: msvc, Handler: s.apiGetChannel, Op: "getChannel",
			Doc: "The ETag changes with what the answer shows: a change of the channel, or a member joining or leaving (memberCount).", Response: "Channel", Status: 200, ETag: true,
			Statuses: map[int]string{http.StatusNotFound: notFound}},
		{Method: http.MethodPatch, Path: "/channels/:channel", Scope: kanri.ScopeWrite, Perm: role.ChannelsCreate, Service: msvc, Handler: s.apiUpdateChannel, Op: "updateChannel",
			Doc:     "Only the fields sent change. The channel's owners may change it, and for a public channel whoever holds channels.update. Send the ETag read in If-Match so that a change made since is not overwritten (412); a message posted since does not change the ETag (a member joining or leaving does).",
			Request: "ChannelUpdate", Response: "Channel", Status: 200, IfMatch: true, ETag: true,
			Statuses: map[int]string{http.StatusForbidden: notOwner, http.StatusNotFound: notFound, http.StatusConflict: archived, http.StatusUnprocessableEntity: channelInvalid}},
		{Method: http.MethodDelete, Path: "/channels/:channel", Scope: kanri.ScopeWrite, Perm: role.ChannelsDelete, Service: msvc, Handler: s.apiDeleteChannel, Op: "deleteChannel",
			Doc:    "At once for everyone, its name free again; its messages, memberships and reactions are removed in the background. Its owners may delete it, and for a public channel whoever holds channels.update.",
			Status: 204, IfMatch: true,
			Statuses: map[int]string{http.StatusForbidden: notOwner, http.StatusNotFound: notFound}},
		{Method: http.MethodPost, Path: "/channels/:channel/archive", Scope: kanri.ScopeWrite, Perm: role.ChannelsCreate, Service: msvc, Handler: s.apiArchiveChannel, Op: "archiveChannel",
			Doc: "An archived channel is read-only: its messages can be read, but nothing can be posted, and it leaves the list of public channels (browse with archived=true finds it). Archiving an archived channel changes nothing.", Response: "Channel", Status: 200, IfMatch: true, ETag: true,
			Statuses: map[int]string{http.StatusForbidden: notOwner, http.StatusNotFound: notFound}},
		{Method: http.MethodPost, Path: "/channels/:channel/unarchive", Scope: kanri.ScopeWrite, Perm: role.ChannelsCreate, Service: msvc, Handler: s.apiUnarchiveChannel, Op: "unarchiveChannel",
			Response: "Channel", Status: 200, IfMatch: true, ETag: true,
			Statuses: map[int]string{http.StatusForbidden: notOwner, http.StatusNotFound: notFound}},
		{Method: http.MethodPost, Path: "/channels/:channel/join", Scope: kanri.ScopeWrite, Perm: role.MessagesCreate, Service: msvc, Handler: s.apiJoinChannel, Op: "joinChannel",
			Doc: "The key's creator becomes a member, its messages so far read. Joining a channel one is a member of changes nothing. A private channel is joined only by being added by an owner.", Response: "Channel", Status: 200, ETag: true,
			Statuses: map[int]string{http.StatusNotFound: notFound, http.StatusConflict: archived}},
		{Method: http.MethodPost, Path: "/channels/:channel/leave", Scope: kanri.ScopeWrite, Perm: role.ChannelsRead, Service: msvc, Handler: s.apiLeaveChannel, Op: "leaveChannel",
			Doc: "Leaving a channel one is not a member of changes nothing. The last owner must make another member an owner first (409).", Status: 204,
			Statuses: map[int]string{http.StatusNotFound: notFound, http.StatusConflict: archived + " Or: the key's creator is the channel's last owner."}},
		{Method: http.MethodPost, Path: "/channels/:channel/read", Scope: kanri.ScopeWrite, Perm: role.ChannelsRead, Service: msvc, Handler: s.apiMarkRead, Op: "markChannelRead",
			Doc:     "The key creator's read mark moves to seq (a message's seq), never back and never past the channel's latest message: a number larger than any marks everything read. For a channel the creator is not a member of, nothing is remembered.",
			Request: "ReadMark", Status: 204,
			Statuses: map[int]string{http.StatusNotFound: notFound, http.StatusUnprocessableEntity: "seq is missing or negative; errors names it."}},

		{Method: http.MethodGet, Path: "/channels/:channel/members", Scope: kanri.ScopeRead, Perm: role.ChannelsRead, Service: msvc, Handler: s.apiListMembers, Op: "listChannelMembers",
			Query: []api.Param{api.ParamLimit, api.ParamNext}, Response: "MemberList", Status: 200, ETag: true,
			Statuses: map[int]string{http.StatusNotFound: notFound}},
		{Method: http.MethodPost, Path: "/channels/:channel/members", Scope: kanri.ScopeWrite, Perm: role.ChannelsCreate, Service: msvc, Handler: s.apiAddMember, Op: "addChannelMember",
			Doc:     "An owner adds an active user of the tenant, as a member. A user who is a member already is answered 200 with their membership. Location is the member's path: GET reads the membership.",
			Request: "MemberAdd", Response: "Member", Status: 201, Unchanged: 200, Location: true,
			Statuses: map[int]string{http.StatusForbidden: notOwner, http.StatusNotFound: notFound, http.StatusConflict: archived,
				http.StatusUnprocessableEntity: "userId names no active user of the tenant; errors names it."}},
		{Method: http.MethodGet, Path: "/channels/:channel/members/:user", Scope: kanri.ScopeRead, Perm: role.ChannelsRead, Service: msvc, Handler: s.apiGetMember, Op: "getChannelMember",
			Response: "Member", Status: 200, ETag: true,
			Statuses: map[int]string{http.StatusNotFound: memberNotFound}},
		{Method: http.MethodPatch, Path: "/channels/:channel/members/:user", Scope: kanri.ScopeWrite, Perm: role.ChannelsCreate, Service: msvc, Handler: s.apiUpdateMember, Op: "updateChannelMember",
			Doc:     "The last owner stays one (409) until another member is made an owner.",
			Request: "MemberUpdate", Response: "Member", Status: 200,
			Statuses: map[int]string{http.StatusForbidden: notOwner, http.StatusNotFound: memberNotFound, http.StatusConflict: "The member is the channel's last owner.",
				http.StatusUnprocessableEntity: "role is neither owner nor member; errors names it."}},
		{Method: http.MethodDelete, Path: "/channels/:channel/members/:user", Scope: kanri.ScopeWrite, Perm: role.ChannelsCreate, Service: msvc, Handler: s.apiRemoveMember, Op: "removeChannelMember",
			Doc:      "Removing a user who is not a member changes nothing. The last owner cannot be removed (409).",
			Status:   204,
			Statuses: map[int]string{http.StatusForbidden: notOwner, http.StatusNotFound: notFound, http.StatusConflict: archived + " Or: the member is the channel's last owner."}},

		{Method: http.MethodGet, Path: "/channels/:channel/messages", Scope: kanri.ScopeRead, Perm: role.ChannelsRead, Service: msvc, Handler: s.apiListMessages, Op: "listMessages",
			Doc:   "Each with its reactions. The messages of a year ago and more have expired and are not listed. next gets the older messages.",
			Query: []api.Param{paramMessageSearch, api.ParamLimit, api.ParamNext}, Response: "MessageList", Status: 200, ETag: true,
			Statuses: map[int]string{http.StatusNotFound: notFound}},
		{Method: http.MethodPost, Path: "/channels/:channel/messages", Scope: kanri.ScopeWrite, Perm: role.MessagesCreate, Service: msvc, Handler: s.apiPostMessage, Op: "postMessage",
			Doc:     "As the key's creator, who must be a member of the channel; their read mark moves past the message. attachments are ids of the tenant's files.",
			Request: "MessageCreate", Response: "Message", Status: 201, ETag: true, Location: true,
			Statuses: map[int]string{http.StatusForbidden: "The key's creator is not a member of the channel: join it first.", http.StatusNotFound: notFound, http.StatusConflict: archived,
				http.StatusUnprocessableEntity: fmt.Sprintf("The content is empty, longer than %d characters or not valid text (control or direction characters included), or an attachment is not a file of the tenant (or there are more than %d); errors names the field.", kanri.MaxMessageLength, kanri.MaxAttachments)}},
		{Method: http.MethodGet, Path: "/channels/:channel/messages/:message", Scope: kanri.ScopeRead, Perm: role.ChannelsRead, Service: msvc, Handler: s.apiGetMessage, Op: "getMessage",
			Doc: "With its reactions: the ETag changes with them too.", Response: "Message", Status: 200, ETag: true,
			Statuses: map[int]string{http.StatusNotFound: msgNotFound}},
		{Method: http.MethodPatch, Path: "/channels/:channel/messages/:message", Scope: kanri.ScopeWrite, Perm: role.MessagesCreate, Service: msvc, Handler: s.apiEditMessage, Op: "editMessage",
			Doc:     "Only its sender may, while a member of the channel. Send the ETag read in If-Match so that an edit made since is not overwritten (412).",
			Request: "MessageUpdate", Response: "Message", Status: 200, IfMatch: true, ETag: true,
			Statuses: map[int]string{http.StatusForbidden: "The key's creator did not send the message, or is not a member of the channel.", http.StatusNotFound: msgNotFound, http.StatusConflict: archived,
				http.StatusUnprocessableEntity: fmt.Sprintf("The content is empty, longer than %d characters or not valid text (control or direction characters included); errors names it.", kanri.MaxMessageLength)}},
		{Method: http.MethodDelete, Path: "/channels/:channel/messages/:message", Scope: kanri.ScopeWrite, Perm: role.MessagesCreate, Service: msvc, Handler: s.apiDeleteMessage, Op: "deleteMessage",
			Doc:    "Its sender may, and whoever holds messages.delete may delete anyone's (which is audited). Send the ETag read in If-Match so that a message edited or reacted to since is not deleted (412).",
			Status: 204, IfMatch: true,
			Statuses: map[int]string{http.StatusForbidden: "The key's creator did not send the message and does not hold messages.delete.", http.StatusNotFound: msgNotFound}},
		{Method: http.MethodPost, Path: "/channels/:channel/messages/:message/reactions", Scope: kanri.ScopeWrite, Perm: role.MessagesCreate, Service: msvc, Handler: s.apiAddReaction, Op: "addReaction", Tag: "Messages",
			Doc:     "The answer is the message with its reactions. A reaction the key's creator has already made is answered 200: reacting twice is reacting once. Location is the reaction's path: GET reads who reacted with the emoji, DELETE takes the key creator's reaction back.",
			Request: "ReactionCreate", Response: "Message", Status: 201, Unchanged: 200, Location: true,
			Statuses: map[int]string{http.StatusForbidden: "The key's creator is not a member of the channel, or the message tells of a membership (system messages take no reactions).",
				http.StatusNotFound: msgNotFound, http.StatusConflict: archived, http.StatusUnprocessableEntity: "The emoji is not one of those offered; errors names it."}},
		{Method: http.MethodGet, Path: "/channels/:channel/messages/:message/reactions/:emoji", Scope: kanri.ScopeRead, Perm: role.ChannelsRead, Service: msvc, Handler: s.apiGetReaction, Op: "getReaction", Tag: "Messages",
			Response: "Reaction", Status: 200, ETag: true,
			Statuses: map[int]string{http.StatusNotFound: msgNotFound + " Or: nobody reacted to it with the emoji."}},
		{Method: http.MethodDelete, Path: "/channels/:channel/messages/:message/reactions/:emoji", Scope: kanri.ScopeWrite, Perm: role.MessagesCreate, Service: msvc, Handler: s.apiRemoveReaction, Op: "removeReaction", Tag: "Messages",
			Doc:    "Taking back a reaction that is not there changes nothing.",
			Status: 204,
			Statuses: map[int]string{http.StatusForbidden: "The key's creator is not a member of the channel, or the message tells of a membership.",
				http.StatusNotFound: msgNotFound, http.StatusConflict: archived, http.StatusUnprocessableEntity: "The emoji is not one of those offered; errors names it."}},
	}
}

// apiPerson returns who acts in the messaging service for an API call:
// the key's creator, with the rights the key holds of theirs, as person
// builds it for the console's signed-in user.
func apiPerson(c echo.Context) messaging.Person {
	k, g := api.KeyOf(c), api.GrantOf(c)
	return messaging.Person{
		UserID: k.CreatedBy, Name: g.CreatorName,
		ManageChannels: g.Perms.Has(role.ChannelsUpdate), ModerateMessages: g.Perms.Has(role.MessagesDelete),
	}
}

// apiChannel is a channel as the API shows it: never its window of unread
// counts or its search terms.
type apiChannel struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	DisplayName string     `json:"displayName"`
	Description string     `json:"description"`
	IsPrivate   bool       `json:"isPrivate"`
	Archived    bool       `json:"archived"`
	ArchivedAt  kanri.Time `json:"archivedAt"`
	MemberCount int        `json:"memberCount"`
	CreatedBy   string     `json:"createdBy"`
	CreatedAt   kanri.Time `json:"createdAt"`
	UpdatedAt   kanri.Time `json:"updatedAt"`
	// Membership is the key creator's, in the list of their channels.
	Membership *apiMembership `json:"membership,omitempty"`
}

// apiMembership is the key creator's membership of a channel with its
// unread count.
type apiMembership struct {
	Role          string     `json:"role"`
	JoinedAt      kanri.Time `json:"joinedAt"`
	ReadSeq       int64      `json:"readSeq"`
	Unread        int        `json:"unread"`
	UnreadAtLeast bool       `json:"unreadAtLeast"`
}

func apiChannelOf(c *kanri.Channel) apiChannel {
	return apiChannel{
		ID: c.ID, Name: c.Name, DisplayName: c.DisplayName, Description: c.Description, IsPrivate: c.IsPrivate,
		Archived: c.Archived, ArchivedAt: c.ArchivedAt, MemberCount: c.MemberCount, CreatedBy: c.CreatedBy,
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
	}
}

// apiChannelTag returns the ETag of a channel as the API shows it: of what
// people change (kanri.Channel.State), when they last changed it, and its
// memberCount, so that a message posted, which rewrites the channel's
// document to number it, changes neither the answer nor its ETag, and a
// client's If-Match does not fail for it (as the console's form is not
// stale for it).
func apiChannelTag(c *kanri.Channel) string {
	sum := sha256.Sum256([]byte(c.State() + "\x00" + c.UpdatedAt.String() + "\x00" + strconv.Itoa(c.MemberCount)))
	return base64.RawURLEncoding.EncodeToString(sum[:18])
}

// channelPrecondition is the request's If-Match as a precondition of a
// change of a channel: conditional when the header names a version, which
// must be the channel's (412 when it changed since).
func channelPrecondition(c echo.Context) kanri.Precondition[*kanri.Channel] {
	return func(ch *kanri.Channel) (bool, error) {
		tag, err := api.Precondition(c, apiChannelTag(ch))
		return tag != "", err
	}
}

// channelSeen checks the request's If-Match against a channel's ETag: the
// channel as seen, for the service to change only that version of it (412
// when it changed since); nothing to check without the header.
func channelSeen(c echo.Context, ch *kanri.Channel) (kanri.Seen, error) {
	tag, err := api.Precondition(c, apiChannelTag(ch))
	if err != nil || tag == "" {
		return kanri.Seen{}, err
	}
	return kanri.Seen{ETag: ch.ETag, State: ch.State()}, nil
}

// apiMember is a member of a channel as the API shows it.
type apiMember struct {
	UserID   string     `json:"userId"`
	Name     string     `json:"name"`
	Role     string     `json:"role"`
	JoinedAt kanri.Time `json:"joinedAt"`
}

func apiMemberOf(m messaging.Member) apiMember {
	return apiMember{UserID: m.UserID, Name: m.Name, Role: m.Role, JoinedAt: m.JoinedAt}
}

// apiMessage is a message as the API shows it, with its reactions in the
// data model's shape (emoji → the ids of who reacted;
// docs/data-model.md, "Messaging").
type apiMessage struct {
	ID          string              `json:"id"`
	ChannelID   string              `json:"channelId"`
	Seq         int64               `json:"seq"`
	Content     string              `json:"content"`
	SenderID    string              `json:"senderId"`
	SenderName  string              `json:"senderName"`
	SentAt      kanri.Time          `json:"sentAt"`
	EditedAt    kanri.Time          `json:"editedAt"`
	Reactions   map[string][]string `json:"reactions"`
	Attachments []string            `json:"attachments"`
	// System names what a system message tells (joined, left, added,
	// removed), and Subject whom it is about; both null for a person's.
	System  *string `json:"system"`
	Subject *string `json:"subject"`
}

func apiMessageOf(m *kanri.Message) apiMessage {
	out := apiMessage{
		ID: m.ID, ChannelID: m.ChannelID, Seq: m.Seq, Content: m.Content, SenderID: m.SenderID, SenderName: m.SenderName,
		SentAt: m.SentAt, EditedAt: m.EditedAt, Reactions: map[string][]string{}, Attachments: m.Attachments,
	}
	for emoji, users := range m.Reactions {
		out.Reactions[emoji] = slices.Sorted(slices.Values(users))
	}
	if out.Attachments == nil {
		out.Attachments = []string{}
	}
	if m.System != "" {
		system, subject := m.System, m.Subject
		out.System, out.Subject = &system, &subject
	}
	return out
}

// apiMessageTag returns the ETag of a message as the API shows it: of its
// content, its edit and its reactions.
func apiMessageTag(m *kanri.Message) string {
	reactions, _ := json.Marshal(apiMessageOf(m).Reactions) // sorted: map keys by encoding/json, users by apiMessageOf
	sum := sha256.Sum256([]byte(m.ID + "\x00" + m.Content + "\x00" + m.EditedAt.String() + "\x00" + string(reactions)))
	return base64.RawURLEncoding.EncodeToString(sum[:18])
}

// apiChannelPath returns the API path of a channel.
func apiChannelPath(channelID string) string {
	return api.Prefix + "/channels/" + url.PathEscape(channelID)
}

// apiListChannels lists the key creator's channels with their unread
// counts, or with browse=true a page of the tenant's public channels.
func (s *Handlers) apiListChannels(c echo.Context) error {
	limit, err := api.ParamLimit.Int(c)
	if err != nil {
		return err
	}
	ctx, t, me := c.Request().Context(), httpkit.Tenant(c), apiPerson(c)
	if paramChannelBrowse.Bool(c) {
		list, next, err := s.Messaging.Browse(ctx, t.ID, messaging.BrowseQuery{
			Search: paramChannelSearch.Str(c), Archived: paramChannelArchived.Bool(c), Limit: limit, Next: api.ParamNext.Str(c),
		})
		if err != nil {
			return api.BadNext(err)
		}
		out := make([]apiChannel, len(list))
		for i, ch := range list {
			out[i] = apiChannelOf(ch)
		}
		return api.SendList(c, out, next)
	}
	for _, p := range []api.Param{paramChannelSearch, paramChannelArchived} {
		if c.QueryParams().Has(p.Name) {
			return kanri.E(kanri.EMALFORMED, "channels.param_browse_only", p.Name)
		}
	}
	mine, next, err := s.Messaging.Mine(ctx, t.ID, me.UserID, limit, api.ParamNext.Str(c))
	if err != nil {
		return api.BadNext(err)
	}
	out := make([]apiChannel, len(mine))
	for i, m := range mine {
		out[i] = apiChannelOf(m.Channel)
		out[i].Membership = &apiMembership{Role: m.Member.Role, JoinedAt: m.Member.JoinedAt, ReadSeq: m.Member.ReadSeq, Unread: m.Unread, UnreadAtLeast: m.AtLeast}
	}
	return api.SendList(c, out, next)
}

// apiChannelCreate is the body of POST /channels.
type apiChannelCreate struct {
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
	Description string `json:"description"`
	IsPrivate   bool   `json:"isPrivate"`
}

func (s *Handlers) apiCreateChannel(c echo.Context) error {
	var in apiChannelCreate
	if err := api.ReadJSON(c, &in); err != nil {
		return err
	}
	ch, err := s.Messaging.CreateChannel(c.Request().Context(), httpkit.Tenant(c).ID, apiPerson(c), messaging.ChannelInput(in))
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, apiChannelPath(ch.ID))
	return api.SendDoc(c, http.StatusCreated, apiChannelTag(ch), apiChannelOf(ch))
}

func (s *Handlers) apiGetChannel(c echo.Context) error {
	ch, _, err := s.Messaging.Channel(c.Request().Context(), httpkit.Tenant(c).ID, apiPerson(c).UserID, c.Param("channel"))
	if err != nil {
		return err
	}
	return api.SendDoc(c, http.StatusOK, apiChannelTag(ch), apiChannelOf(ch))
}

// apiChannelUpdate is the body of PATCH /channels/{channel}: the fields to
// change.
type apiChannelUpdate struct {
	Name        *string `json:"name"`
	DisplayName *string `json:"displayName"`
	Description *string `json:"description"`
	IsPrivate   *bool   `json:"isPrivate"`
}

// Patch returns the channel's fields with the body's changed, as the
// console's form sends them all.
func (in apiChannelUpdate) Patch(ch *kanri.Channel) messaging.ChannelInput {
	out := messaging.ChannelInput{Name: ch.Name, DisplayName: ch.DisplayName, Description: ch.Description, IsPrivate: ch.IsPrivate}
	if in.Name != nil {
		out.Name = *in.Name
	}
	if in.DisplayName != nil {
		out.DisplayName = *in.DisplayName
	}
	if in.Description != nil {
		out.Description = *in.Description
	}
	if in.IsPrivate != nil {
		out.IsPrivate = *in.IsPrivate
	}
	return out
}

// apiUpdateChannel changes the fields sent. With If-Match, the change is
// made to the version read only; without it, to the current version: the
// fields not sent are those of the channel as it is when it is written
// (a change of another field made meanwhile is read again, not undone).
func (s *Handlers) apiUpdateChannel(c echo.Context) error {
	var in apiChannelUpdate
	if err := api.ReadJSON(c, &in); err != nil {
		return err
	}
	ctx, t, me := c.Request().Context(), httpkit.Tenant(c), apiPerson(c)
	ch, err := s.Messaging.PatchChannel(ctx, t.ID, me, c.Param("channel"), channelPrecondition(c), in.Patch)
	if err != nil {
		return err
	}
	return api.SendDoc(c, http.StatusOK, apiChannelTag(ch), apiChannelOf(ch))
}

// apiDeleteChannel deletes a channel. A message posted between the read
// and the delete makes the delete read the channel again, not fail: only
// a change If-Match no longer matches is 412.
func (s *Handlers) apiDeleteChannel(c echo.Context) error {
	ctx, t, me := c.Request().Context(), httpkit.Tenant(c), apiPerson(c)
	if err := s.Messaging.DeleteChannelIf(ctx, t.ID, me, c.Param("channel"), channelPrecondition(c)); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *Handlers) apiArchiveChannel(c echo.Context) error   { return s.apiSetArchived(c, true) }
func (s *Handlers) apiUnarchiveChannel(c echo.Context) error { return s.apiSetArchived(c, false) }

func (s *Handlers) apiSetArchived(c echo.Context, archived bool) error {
	ctx, t, me := c.Request().Context(), httpkit.Tenant(c), apiPerson(c)
	ch, _, err := s.Messaging.Channel(ctx, t.ID, me.UserID, c.Param("channel"))
	if err != nil {
		return err
	}
	seen, err := channelSeen(c, ch)
	if err != nil {
		return err
	}
	if ch, err = s.Messaging.ArchiveChannel(ctx, t.ID, me, ch.ID, seen, archived); err != nil {
		return err
	}
	return api.SendDoc(c, http.StatusOK, apiChannelTag(ch), apiChannelOf(ch))
}

func (s *Handlers) apiJoinChannel(c echo.Context) error {
	ctx, t, me := c.Request().Context(), httpkit.Tenant(c), apiPerson(c)
	if err := s.Messaging.Join(ctx, t.ID, me, c.Param("channel")); err != nil {
		return err
	}
	ch, _, err := s.Messaging.Channel(ctx, t.ID, me.UserID, c.Param("channel"))
	if err != nil {
		return err
	}
	return api.SendDoc(c, http.StatusOK, apiChannelTag(ch), apiChannelOf(ch))
}

func (s *Handlers) apiLeaveChannel(c echo.Context) error {
	if err := s.Messaging.Leave(c.Request().Context(), httpkit.Tenant(c).ID, apiPerson(c), c.Param("channel")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// apiReadMark is the body of POST /channels/{channel}/read.
type apiReadMark struct {
	Seq *int64 `json:"seq"`
}

// apiMarkRead moves the key creator's read mark in a channel.
func (s *Handlers) apiMarkRead(c echo.Context) error {
	var in apiReadMark
	if err := api.ReadJSON(c, &in); err != nil {
		return err
	}
	if in.Seq == nil || *in.Seq < 0 {
		return kanri.Invalid(kanri.Fields{"seq": "messages.bad_seq"})
	}
	if err := s.Messaging.MarkRead(c.Request().Context(), httpkit.Tenant(c).ID, apiPerson(c).UserID, c.Param("channel"), *in.Seq); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *Handlers) apiListMembers(c echo.Context) error {
	limit, err := api.ParamLimit.Int(c)
	if err != nil {
		return err
	}
	list, next, err := s.Messaging.Members(c.Request().Context(), httpkit.Tenant(c).ID, apiPerson(c).UserID, c.Param("channel"), limit, api.ParamNext.Str(c))
	if err != nil {
		return api.BadNext(err)
	}
	out := make([]apiMember, len(list))
	for i, m := range list {
		out[i] = apiMemberOf(m)
	}
	return api.SendList(c, out, next)
}

// apiMemberAdd is the body of POST /channels/{channel}/members.
type apiMemberAdd struct {
	UserID string `json:"userId"`
}

// apiAddMember adds a user to a channel: 201, or 200 when they were a
// member already.
func (s *Handlers) apiAddMember(c echo.Context) error {
	var in apiMemberAdd
	if err := api.ReadJSON(c, &in); err != nil {
		return err
	}
	ctx, t, me := c.Request().Context(), httpkit.Tenant(c), apiPerson(c)
	channelID := c.Param("channel")
	// Whether they were a member already only chooses the status:
	// AddMember decides what may be done, and a failed read says nothing.
	_, err := s.Messaging.Member(ctx, t.ID, me.UserID, channelID, in.UserID)
	had := err == nil
	if err := s.Messaging.AddMember(ctx, t.ID, me, channelID, in.UserID); err != nil {
		return err
	}
	m, err := s.Messaging.Member(ctx, t.ID, me.UserID, channelID, in.UserID)
	if err != nil {
		return err
	}
	if had {
		return c.JSON(http.StatusOK, apiMemberOf(m))
	}
	c.Response().Header().Set(echo.HeaderLocation, apiChannelPath(channelID)+"/members/"+url.PathEscape(m.UserID))
	return c.JSON(http.StatusCreated, apiMemberOf(m))
}

// apiGetMember answers a member of a channel the key's creator can see.
func (s *Handlers) apiGetMember(c echo.Context) error {
	m, err := s.Messaging.Member(c.Request().Context(), httpkit.Tenant(c).ID, apiPerson(c).UserID, c.Param("channel"), c.Param("user"))
	if err != nil {
		return err
	}
	return api.SendTagged(c, apiMemberOf(m))
}

// apiMemberUpdate is the body of PATCH /channels/{channel}/members/{user}.
type apiMemberUpdate struct {
	Role string `json:"role"`
}

func (s *Handlers) apiUpdateMember(c echo.Context) error {
	var in apiMemberUpdate
	if err := api.ReadJSON(c, &in); err != nil {
		return err
	}
	ctx, t, me := c.Request().Context(), httpkit.Tenant(c), apiPerson(c)
	if err := s.Messaging.SetRole(ctx, t.ID, me, c.Param("channel"), c.Param("user"), in.Role); err != nil {
		return err
	}
	m, err := s.Messaging.Member(ctx, t.ID, me.UserID, c.Param("channel"), c.Param("user"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, apiMemberOf(m))
}

func (s *Handlers) apiRemoveMember(c echo.Context) error {
	if err := s.Messaging.RemoveMember(c.Request().Context(), httpkit.Tenant(c).ID, apiPerson(c), c.Param("channel"), c.Param("user")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *Handlers) apiListMessages(c echo.Context) error {
	limit, err := api.ParamLimit.Int(c)
	if err != nil {
		return err
	}
	list, next, err := s.Messaging.Messages(c.Request().Context(), httpkit.Tenant(c).ID, apiPerson(c).UserID, c.Param("channel"),
		messaging.MessageQuery{Search: paramMessageSearch.Str(c), Limit: limit, Next: api.ParamNext.Str(c)})
	if err != nil {
		return api.BadNext(err)
	}
	out := make([]apiMessage, len(list))
	for i, m := range list {
		out[i] = apiMessageOf(m)
	}
	return api.SendList(c, out, next)
}

// apiMessageCreate is the body of POST /channels/{channel}/messages.
type apiMessageCreate struct {
	Content     string   `json:"content"`
	Attachments []string `json:"attachments"`
}

func (s *Handlers) apiPostMessage(c echo.Context) error {
	var in apiMessageCreate
	if err := api.ReadJSON(c, &in); err != nil {
		return err
	}
	m, err := s.Messaging.Post(c.Request().Context(), httpkit.Tenant(c).ID, apiPerson(c), c.Param("channel"), in.Content, in.Attachments)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, apiChannelPath(m.ChannelID)+"/messages/"+url.PathEscape(m.ID))
	return api.SendDoc(c, http.StatusCreated, apiMessageTag(m), apiMessageOf(m))
}

func (s *Handlers) apiGetMessage(c echo.Context) error {
	m, err := s.Messaging.Message(c.Request().Context(), httpkit.Tenant(c).ID, apiPerson(c).UserID, c.Param("channel"), c.Param("message"))
	if err != nil {
		return err
	}
	return api.SendDoc(c, http.StatusOK, apiMessageTag(m), apiMessageOf(m))
}

// apiMessageUpdate is the body of PATCH /channels/{channel}/messages/{message}.
type apiMessageUpdate struct {
	Content string `json:"content"`
}

func (s *Handlers) apiEditMessage(c echo.Context) error {
	var in apiMessageUpdate
	if err := api.ReadJSON(c, &in); err != nil {
		return err
	}
	ctx, t, me := c.Request().Context(), httpkit.Tenant(c), apiPerson(c)
	m, err := s.Messaging.Message(ctx, t.ID, me.UserID, c.Param("channel"), c.Param("message"))
	if err != nil {
		return err
	}
	tag, err := api.Precondition(c, apiMessageTag(m))
	if err != nil {
		return err
	}
	seen := kanri.Seen{}
	if tag != "" {
		seen = kanri.Seen{ETag: m.ETag, State: m.Content}
	}
	if m, err = s.Messaging.EditMessage(ctx, t.ID, me, m.ChannelID, m.ID, seen, in.Content); err != nil {
		return err
	}
	return api.SendDoc(c, http.StatusOK, apiMessageTag(m), apiMessageOf(m))
}

// apiDeleteMessage deletes a message; with If-Match, only the version
// read (a message edited or reacted to since is 412).
func (s *Handlers) apiDeleteMessage(c echo.Context) error {
	ctx, t, me := c.Request().Context(), httpkit.Tenant(c), apiPerson(c)
	m, err := s.Messaging.Message(ctx, t.ID, me.UserID, c.Param("channel"), c.Param("message"))
	if err != nil {
		return err
	}
	if _, err := api.Precondition(c, apiMessageTag(m)); err != nil {
		return err
	}
	if err := s.Messaging.DeleteMessage(ctx, t.ID, me, m.ChannelID, m.ID); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// apiReactionCreate is the body of POST …/messages/{message}/reactions.
type apiReactionCreate struct {
	Emoji string `json:"emoji"`
}

// apiAddReaction adds the key creator's reaction to a message: 201, or
// 200 when it was there already.
func (s *Handlers) apiAddReaction(c echo.Context) error {
	var in apiReactionCreate
	if err := api.ReadJSON(c, &in); err != nil {
		return err
	}
	ctx, t, me := c.Request().Context(), httpkit.Tenant(c), apiPerson(c)
	channelID, messageID := c.Param("channel"), c.Param("message")
	// Whether it was there already only chooses the status: React decides
	// what may be done, and a failed read says nothing.
	before, err := s.Messaging.Message(ctx, t.ID, me.UserID, channelID, messageID)
	had := err == nil && slices.Contains(before.Reactions[in.Emoji], me.UserID)
	m, err := s.Messaging.React(ctx, t.ID, me, channelID, messageID, in.Emoji, true)
	if err != nil {
		return err
	}
	if had {
		return c.JSON(http.StatusOK, apiMessageOf(m))
	}
	c.Response().Header().Set(echo.HeaderLocation, apiChannelPath(channelID)+"/messages/"+url.PathEscape(m.ID)+"/reactions/"+url.PathEscape(in.Emoji))
	return c.JSON(http.StatusCreated, apiMessageOf(m))
}

// apiReaction is the reaction to a message with one emoji, as the API
// shows it: who reacted.
type apiReaction struct {
	Emoji   string   `json:"emoji"`
	UserIDs []string `json:"userIds"`
}

// apiGetReaction answers who reacted with an emoji to a message the key's
// creator can read: not found when nobody did.
func (s *Handlers) apiGetReaction(c echo.Context) error {
	emoji, err := url.PathUnescape(c.Param("emoji"))
	if err != nil {
		return kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	m, err := s.Messaging.Message(c.Request().Context(), httpkit.Tenant(c).ID, apiPerson(c).UserID, c.Param("channel"), c.Param("message"))
	if err != nil {
		return err
	}
	users := apiMessageOf(m).Reactions[emoji] // sorted
	if len(users) == 0 {
		return kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return api.SendTagged(c, apiReaction{Emoji: emoji, UserIDs: users})
}

// apiRemoveReaction takes back the key creator's reaction to a message.
// The emoji arrives path-escaped, or unescaped when Echo routed the
// request by its decoded path.
func (s *Handlers) apiRemoveReaction(c echo.Context) error {
	emoji, err := url.PathUnescape(c.Param("emoji"))
	if err != nil {
		return kanri.Invalid(kanri.Fields{"emoji": "messages.bad_emoji"})
	}
	if _, err := s.Messaging.React(c.Request().Context(), httpkit.Tenant(c).ID, apiPerson(c), c.Param("channel"), c.Param("message"), emoji, false); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// reactionNames name the reactions (kanri.Reactions) by their Unicode
// names, so that a generated client has ReactionTHUMBS_UP, not a
// constant named after the emoji's bytes.
var reactionNames = map[any]api.EnumName{
	"👍":  {Name: "THUMBS_UP", Doc: "👍 thumbs up"},
	"❤️": {Name: "HEART", Doc: "❤️ red heart"},
	"😂":  {Name: "TEARS_OF_JOY", Doc: "😂 face with tears of joy"},
	"🎉":  {Name: "PARTY_POPPER", Doc: "🎉 party popper"},
	"😮":  {Name: "OPEN_MOUTH", Doc: "😮 face with open mouth"},
	"🙏":  {Name: "FOLDED_HANDS", Doc: "🙏 folded hands"},
	"👀":  {Name: "EYES", Doc: "👀 eyes"},
	"✅":  {Name: "CHECK_MARK", Doc: "✅ check mark button"},
}

// systemNames name the kinds of system messages, and null, a person's
// message.
var systemNames = map[any]api.EnumName{
	kanri.SystemJoined:  {Name: "JOINED", Doc: "A user joined the channel."},
	kanri.SystemLeft:    {Name: "LEFT", Doc: "A user left the channel."},
	kanri.SystemAdded:   {Name: "ADDED", Doc: "A user was added to the channel."},
	kanri.SystemRemoved: {Name: "REMOVED", Doc: "A user was removed from the channel."},
	nil:                 {Name: "NONE", Doc: "A person's message, not a system message."},
}

// Schemas returns the schemas of the channels' and messages'
// operations, made with the document's obj and list.
func (*Handlers) Schemas(obj func([]string, map[string]any) map[string]any, list func(string) map[string]any) map[string]any {
	str := map[string]any{"type": "string"}
	boolean := map[string]any{"type": "boolean"}
	when := map[string]any{"type": []string{"string", "null"}, "format": "date-time"}
	memberRole := map[string]any{"type": "string", "enum": []string{kanri.RoleOwner, kanri.RoleMember},
		"description": "owner: manages the channel and its members; member: reads and posts."}
	name := map[string]any{"type": "string", "minLength": 1,
		"description": fmt.Sprintf("Unique in the tenant: lower-case letters, digits, hyphens and underscores, starting with a letter or digit, at most %d; spaces around it are trimmed.", channelNameMax)}
	displayName := map[string]any{"type": "string", "maxLength": channelDisplayNameMax, "description": "The name to show; empty for the name."}
	description := map[string]any{"type": "string", "maxLength": channelDescriptionMax}
	isPrivate := map[string]any{"type": "boolean", "description": "Private: only its members can see it (to anyone else it is not found); public: anyone with channels.read can read and join it."}
	content := map[string]any{"type": "string", "minLength": 1, "maxLength": kanri.MaxMessageLength,
		"description": fmt.Sprintf("The text: at most %d characters; newlines are kept, spaces and blank lines around it trimmed.", kanri.MaxMessageLength)}
	emoji := api.NamedEnum(map[string]any{"type": "string", "enum": kanri.Reactions, "description": "One of the reactions offered."}, reactionNames)
	return map[string]any{
		"Channel": obj([]string{"id", "name", "displayName", "description", "isPrivate", "archived", "archivedAt", "memberCount", "createdBy", "createdAt", "updatedAt"}, map[string]any{
			"id": str, "name": str, "displayName": str, "description": str, "isPrivate": boolean,
			"archived":    map[string]any{"type": "boolean", "description": "Archived channels are read-only."},
			"archivedAt":  when,
			"memberCount": api.Count(0, ""),
			"createdBy":   map[string]any{"type": "string", "description": "The id of the user who created it."},
			"createdAt":   when, "updatedAt": when,
			"membership": obj([]string{"role", "joinedAt", "readSeq", "unread", "unreadAtLeast"}, map[string]any{
				"role": memberRole, "joinedAt": when,
				"readSeq":       api.Count(0, "The seq of the last message the key's creator read."),
				"unread":        api.Count(0, "How many messages of others the key's creator has not read."),
				"unreadAtLeast": map[string]any{"type": "boolean", "description": "true when there may be more unread messages than unread says."},
			}),
		}),
		"ChannelList": list("Channel"),
		"ChannelCreate": obj([]string{"name"}, map[string]any{
			"name": name, "displayName": displayName, "description": description, "isPrivate": isPrivate,
		}),
		"ChannelUpdate": obj(nil, map[string]any{
			"name": name, "displayName": displayName, "description": description, "isPrivate": isPrivate,
		}),
		"ReadMark": obj([]string{"seq"}, map[string]any{
			"seq": api.Count(0, "The seq of the last message read."),
		}),
		"Member": obj([]string{"userId", "name", "role", "joinedAt"}, map[string]any{
			"userId": str, "name": map[string]any{"type": "string", "description": "The user's display name, else their username; empty for a user who is gone."},
			"role": memberRole, "joinedAt": when,
		}),
		"MemberList": list("Member"),
		"MemberAdd": obj([]string{"userId"}, map[string]any{
			"userId": map[string]any{"type": "string", "minLength": 1, "description": "The id of an active user of the tenant."},
		}),
		"MemberUpdate": obj([]string{"role"}, map[string]any{"role": memberRole}),
		"Message": obj([]string{"id", "channelId", "seq", "content", "senderId", "senderName", "sentAt", "editedAt", "reactions", "attachments", "system", "subject"}, map[string]any{
			"id": str, "channelId": str,
			"seq":      api.Count(1, "The message's number in its channel: later messages have larger ones."),
			"content":  map[string]any{"type": "string", "description": "The text; empty for a system message."},
			"senderId": str, "senderName": str, "sentAt": when,
			"editedAt": map[string]any{"type": []string{"string", "null"}, "format": "date-time", "description": "When its sender last changed it; null when never."},
			"reactions": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "array", "items": str},
				"description": "Each emoji reacted with, and the ids of the users who did."},
			"attachments": map[string]any{"type": "array", "items": str, "description": "The ids of the tenant's files the message links to."},
			"system": api.NamedEnum(map[string]any{"type": []string{"string", "null"}, "enum": []any{kanri.SystemJoined, kanri.SystemLeft, kanri.SystemAdded, kanri.SystemRemoved, nil},
				"description": "What a system message tells of the channel's members; null for a person's message."}, systemNames),
			"subject": map[string]any{"type": []string{"string", "null"}, "description": "The name of whom a system message is about; null for a person's message."},
		}),
		"MessageList": list("Message"),
		"MessageCreate": obj([]string{"content"}, map[string]any{
			"content":     content,
			"attachments": map[string]any{"type": "array", "maxItems": kanri.MaxAttachments, "items": str, "description": "Ids of the tenant's files to link to."},
		}),
		"MessageUpdate":  obj([]string{"content"}, map[string]any{"content": content}),
		"ReactionCreate": obj([]string{"emoji"}, map[string]any{"emoji": emoji}),
		"Reaction": obj([]string{"emoji", "userIds"}, map[string]any{
			"emoji":   emoji,
			"userIds": map[string]any{"type": "array", "minItems": 1, "items": str, "description": "The ids of the users who reacted with the emoji, in order."},
		}),
	}
}

// Examples returns examples of the channels' and messages'
// schemas, at the time at.
func (*Handlers) Examples(at string) map[string]any {
	channel := map[string]any{"id": api.ExampleChannelID, "name": "general", "displayName": "General", "description": "Everyone's channel.", "isPrivate": false,
		"archived": false, "archivedAt": nil, "memberCount": 12, "createdBy": api.ExampleUserID, "createdAt": at, "updatedAt": at}
	mine := maps.Clone(channel)
	mine["membership"] = map[string]any{"role": kanri.RoleMember, "joinedAt": at, "readSeq": 41, "unread": 3, "unreadAtLeast": false}
	member := map[string]any{"userId": api.ExampleUserID, "name": "Hanako Yamada", "role": kanri.RoleOwner, "joinedAt": at}
	message := map[string]any{"id": api.ExampleMessageID, "channelId": api.ExampleChannelID, "seq": 44, "content": "The report is in the Reports folder.",
		"senderId": api.ExampleUserID, "senderName": "Hanako Yamada", "sentAt": at, "editedAt": nil,
		"reactions": map[string]any{"👍": []any{api.ExampleUserID}}, "attachments": []any{api.ExampleFileID}, "system": nil, "subject": nil}
	return map[string]any{
		"Channel":        channel,
		"ChannelList":    map[string]any{"items": []any{mine}, "hasMore": false},
		"ChannelCreate":  map[string]any{"name": "general", "displayName": "General", "description": "Everyone's channel.", "isPrivate": false},
		"ChannelUpdate":  map[string]any{"description": "Announcements and questions."},
		"ReadMark":       map[string]any{"seq": 44},
		"Member":         member,
		"MemberList":     map[string]any{"items": []any{member}, "hasMore": false},
		"MemberAdd":      map[string]any{"userId": api.ExampleUserID},
		"MemberUpdate":   map[string]any{"role": kanri.RoleOwner},
		"Message":        message,
		"MessageList":    map[string]any{"items": []any{message}, "next": "eyJrIjoiMjAyNiJ9", "hasMore": true},
		"MessageCreate":  map[string]any{"content": "The report is in the Reports folder.", "attachments": []any{api.ExampleFileID}},
		"MessageUpdate":  map[string]any{"content": "The report is in the Reports folder now."},
		"ReactionCreate": map[string]any{"emoji": "👍"},
		"Reaction":       map[string]any{"emoji": "👍", "userIds": []any{api.ExampleUserID}},
	}
}

// Handlers serve the feature's operations, with what every operation of
// the API shares.
type Handlers struct {
	*api.Server
}

// New returns the feature of the API s.
func New(s *api.Server) api.Feature { return &Handlers{Server: s} }

// Tags group the feature's operations.
func (*Handlers) Tags() []api.Tag {
	return []api.Tag{
		{Name: "Channels", Doc: "The tenant's channels: list the key creator's channels with their unread counts and browse the public ones, create, change, archive and delete them, join and leave them, mark them read and manage their members. They need the tenant's messaging service; the key acts as its creator, and a private channel its creator is not a member of is not found."},
		{Name: "Messages", Doc: "The messages of a channel: list and search them (newest first), read, post, edit and delete them, and react to them."},
	}
}

// PathParams describe the path parameters of the feature's operations.
func (*Handlers) PathParams() map[string]api.PathParam {
	return map[string]api.PathParam{
		"channel": {Doc: "The channel's id.", Example: api.ExampleChannelID},
		"message": {Doc: "The message's id.", Example: api.ExampleMessageID},
		"user":    {Doc: "The member's user id.", Example: api.ExampleUserID},
		"emoji":   {Doc: "The reaction's emoji, path-escaped (%F0%9F%91%8D for 👍): one of " + strings.Join(kanri.Reactions, " ") + ".", Example: "%F0%9F%91%8D"},
	}
}
