package features

import (
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/catalog"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/console/operator"
	"github.com/kanri/kanri/web/live"
)

// operatorFeature is what the operator runs: the tenants, the service
// catalog and each tenant's services.
var operatorFeature = Feature{
	Name:       "operator",
	Docs:       "settings.md",
	Containers: []doctype.Container{tenant.Container, catalog.Container},
	Types:      slicesOf(tenant.DocTypes, catalog.DocTypes),
	Offers:     []role.Offer{tenant.Offer, catalog.Offer},
	Start: func(s *wiring.Set) Parts {
		return Parts{
			Work: []app.Feature{s.Tenants.Feature(), s.Catalog.Feature()},
			HTTP: web.Feature{Pages: func(c *console.Console, _ *live.Streams) console.Pages { return operator.New(c) }},
		}
	},
}
