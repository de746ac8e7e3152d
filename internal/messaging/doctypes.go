package messaging

import (
	"time"

	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// DocTypes are the document types of messaging (docs/architecture.md,
// "Document types").
var DocTypes = []doctype.Type{
	{
		Name: kanri.TypeChannel, Container: kanri.ContainerMessaging, Of: &kanri.Channel{},
		Indexes: []doctype.Index{
			{Name: "channel_name", Fields: []string{"name"}},
			{Name: "channel_browse", Fields: []string{"isPrivate", "archived", "name"}},
			{Name: "channel_search", Fields: []string{"searchTerms[]", "name"}},
		},
		Backup:   doctype.InPart(kanri.PartChannels),
		Personal: doctype.Personal{Owner: "createdBy", Data: []string{"createdBy"}},
		Erasure:  doctype.KeepFor("the organisation's channel; its creator is named by id only, and the user is pseudonymised"),
	},
	{
		Name: kanri.TypeMessage, Container: kanri.ContainerMessaging, Of: &kanri.Message{},
		// A channel's messages and reactions are only ever read by the
		// channel's id: their indexes key it by a hash (43 bytes less in
		// each of a message's 8 or so entries).
		Indexes: []doctype.Index{
			{Name: "message_channel_seq", Fields: []string{"channelId", "seq"}, Hashed: []string{"channelId"}},
			{Name: "message_search", Fields: []string{"channelId", "searchTerms[]", "seq"}, Hashed: []string{"channelId"}},
		},
		Backup:   doctype.InPart(kanri.PartChannels),
		Personal: doctype.Personal{Owner: "senderId", Data: []string{"senderId", "senderName", "content", "attachments"}},
		// The conversation stays whole for the others in it; the sender's
		// name goes, as it does from the user.
		Erasure:   doctype.PseudonymiseFields("senderName"),
		Export:    []string{"channelId", "content", "attachments", "sentAt"},
		Retention: doctype.Retention{TTL: kanri.TTLMessage * time.Second, Archive: doctype.ArchiveOnRequest, Since: "sentAt"},
	},
	{
		Name: kanri.TypeChannelMember, Container: kanri.ContainerMessaging, Of: &kanri.ChannelMember{},
		Indexes: []doctype.Index{
			{Name: "member_user", Fields: []string{"userId", "channelId"}},
			{Name: "member_channel", Fields: []string{"channelId", "userId"}},
			{Name: "member_channel_role", Fields: []string{"channelId", "role", "userId"}},
		},
		Backup:   doctype.InPart(kanri.PartChannels),
		Personal: doctype.Personal{Owner: "userId", Data: []string{"userId", "role", "joinedAt", "lastReadAt", "readSeq", "mentionSeqs"}},
		Erasure:  doctype.Erase(),
		Export:   []string{"channelId", "role", "joinedAt"},
	},
	{
		Name: kanri.TypeChannelName, Container: kanri.ContainerMessaging, Of: &kanri.ChannelName{},
		Backup: doctype.InPart(kanri.PartChannels),
	},
	{
		Name: kanri.TypeReaction, Container: kanri.ContainerMessaging, Of: &kanri.Reaction{},
		Indexes: []doctype.Index{
			{Name: "reaction_channel_message", Fields: []string{"channelId", "messageSentAt"}, Hashed: []string{"channelId"}},
			{Name: "reaction_message", Fields: []string{"messageId"}},
		},
		Backup:    doctype.InPart(kanri.PartChannels),
		Personal:  doctype.Personal{Owner: "userId", Data: []string{"userId", "emoji", "createdAt"}},
		Erasure:   doctype.Erase(),
		Export:    []string{"channelId", "messageId", "emoji", "createdAt"},
		Retention: doctype.Retention{PerDocument: "ttl: its message's"},
	},
	{
		Name: kanri.TypeChannelDeletion, Container: kanri.ContainerMessaging, Of: &kanri.ChannelDeletion{},
		Backup: doctype.InPart(kanri.PartChannels),
	},
	{
		Name: kanri.TypeLimitGuard, Container: kanri.ContainerMessaging, Of: &kanri.LimitGuard{},
		Backup: doctype.NotBackedUp("a version counter that serialises the creation of channels under the plan's limit; made again on first use"),
	},
}

// Container is the messaging container: channels, members and
// messages.
var Container = doctype.Container{Name: kanri.ContainerMessaging, Indexing: doctype.DefaultIndexing(), Appends: true}
