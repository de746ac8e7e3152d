package features

import (
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/webhook"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/console/webhooks"
	"github.com/kanri/kanri/web/live"
)

// webhooksFeature is outbound webhooks: a tenant's administrators
// register endpoints that are sent the tenant's audit records they
// select, signed, in order, once across the instances. Its permissions
// are the settings' (role.SettingsRead, role.SettingsUpdate).
var webhooksFeature = Feature{
	Name:  "webhooks",
	Docs:  "webhooks.md",
	Types: webhook.DocTypes,
	Start: func(s *wiring.Set) Parts {
		return Parts{
			Work: []app.Feature{s.Webhooks.Feature()},
			HTTP: web.Feature{Pages: func(c *console.Console, _ *live.Streams) console.Pages { return webhooks.New(c) }},
		}
	},
}
