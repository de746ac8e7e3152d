package features

import (
	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/emaildomain"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/console/organisation"
	"github.com/kanri/kanri/web/live"
)

// organisationFeature is a tenant's own settings: its e-mail domains, its
// API keys and their usage, its audit log and its settings.
var organisationFeature = Feature{
	Name:       "organisation",
	Docs:       "api.md",
	Containers: []doctype.Container{apikey.Container},
	Types:      slicesOf(emaildomain.DocTypes, apikey.DocTypes),
	Offers:     []role.Offer{apikey.Offer},
	Start: func(s *wiring.Set) Parts {
		return Parts{
			Work: []app.Feature{s.Keys.Feature(), s.Domains.Feature(), s.Usage.Feature()},
			HTTP: web.Feature{Pages: func(c *console.Console, _ *live.Streams) console.Pages { return organisation.New(c) }},
		}
	},
}
