package messaging

import (
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
)

// Feature is what messaging gives the composition root: the removal of
// deleted channels, on every instance.
func (s *Service) Feature() app.Feature {
	return app.Feature{Name: "messaging", Work: []app.Work{{Name: "channel deletions", Run: s.Run}}}
}

// Offer is the messaging service of the catalog. A member posts,
// reacts and creates channels.
var Offer = role.Offer{
	ID: kanri.MessagingServiceID, Name: "メッセージングサービス", Description: "チャネルとメッセージ", Category: "communication",
	Read:   []string{role.ChannelsRead},
	Write:  []string{role.ChannelsCreate, role.MessagesCreate, role.ChannelsUpdate, role.ChannelsDelete, role.MessagesDelete},
	Member: []string{role.ChannelsCreate, role.MessagesCreate},
	Config: []kanri.ConfigField{{Key: "maxChannels", Kind: kanri.KindCount}},
}
