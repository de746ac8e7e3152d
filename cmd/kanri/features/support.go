package features

import (
	supportsvc "github.com/kanri/kanri/internal/support"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/console/support"
	"github.com/kanri/kanri/web/live"
)

// supportFeature is support access: the operator's staff open a tenant
// as one of its users, with guardrails, where the tenant approves each
// session when it wants to. Its sessions are session documents (people's)
// and its permission is the auth service's (role.SupportAccess).
var supportFeature = Feature{
	Name:  "support",
	Docs:  "security.md",
	Types: supportsvc.DocTypes,
	Start: func(s *wiring.Set) Parts {
		return Parts{HTTP: web.Feature{Pages: func(c *console.Console, _ *live.Streams) console.Pages { return support.New(c) }}}
	},
}
