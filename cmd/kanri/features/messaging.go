package features

import (
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/messaging"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web"
	"github.com/kanri/kanri/web/api/chatapi"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/console/chat"
	"github.com/kanri/kanri/web/live"
)

// messagingFeature is a tenant's channels and their messages.
var messagingFeature = Feature{
	Name:       "messaging",
	Docs:       "messaging.md",
	Containers: []doctype.Container{messaging.Container},
	Types:      messaging.DocTypes,
	Offers:     []role.Offer{messaging.Offer},
	Start: func(s *wiring.Set) Parts {
		return Parts{
			Work: []app.Feature{s.Messaging.Feature()},
			HTTP: web.Feature{
				Pages: func(c *console.Console, _ *live.Streams) console.Pages { return chat.New(c) },
				API:   chatapi.New,
			},
		}
	},
}
