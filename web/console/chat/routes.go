package chat

import (
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// Routes are the pages of a tenant's channels and messages.
func (s *Pages) Routes(g console.Groups) []console.Route {
	ch := g.Tenant.Group("/channels", httpkit.Usable(s.Catalog, kanri.MessagingServiceID))
	return []console.Route{
		console.Get(ch, "", role.ChannelsRead, s.listChannels),
		console.Get(ch, "/new", role.ChannelsCreate, s.newChannel),
		console.Post(ch, "", role.ChannelsCreate, s.createChannel),
		console.Get(ch, "/:id", role.ChannelsRead, s.showChannel),
		console.Get(ch, "/:id/messages", role.ChannelsRead, s.olderMessages),
		console.Get(ch, "/:id/edit", role.ChannelsCreate, s.editChannel), // owners; channels.update for any public one
		console.Post(ch, "/:id", role.ChannelsCreate, s.updateChannel),
		console.Post(ch, "/:id/archive", role.ChannelsCreate, s.archiveChannel),
		console.Post(ch, "/:id/unarchive", role.ChannelsCreate, s.unarchiveChannel),
		console.Post(ch, "/:id/delete", role.ChannelsDelete, s.deleteChannel),
		console.Post(ch, "/:id/join", role.MessagesCreate, s.joinChannel),
		console.Post(ch, "/:id/leave", role.ChannelsRead, s.leaveChannel),
		console.Get(ch, "/:id/members", role.ChannelsRead, s.showMembers),
		console.Post(ch, "/:id/members", role.ChannelsCreate, s.addMember),
		console.Post(ch, "/:id/members/:user/remove", role.ChannelsCreate, s.removeMember),
		console.Post(ch, "/:id/members/:user/role", role.ChannelsCreate, s.setMemberRole),
		console.Post(ch, "/:id/read", role.ChannelsRead, s.markRead),
		console.Post(ch, "/:id/messages", role.MessagesCreate, s.postMessage),
		console.Post(ch, "/:id/messages/:msg", role.MessagesCreate, s.editMessage),
		console.Post(ch, "/:id/messages/:msg/delete", role.MessagesCreate, s.deleteMessage),
		console.Post(ch, "/:id/messages/:msg/react", role.MessagesCreate, s.reactToMessage),
	}
}

// Nav are the feature's entries of the side navigation.
func (s *Pages) Nav() []views.NavEntry {
	return []views.NavEntry{
		{Key: "channels", LabelKey: "nav.channels", Path: views.ChannelsPath, Perm: role.ChannelsRead, Service: kanri.MessagingServiceID, Unread: true, Order: 60},
	}
}
