package features

import (
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/userimport"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/console/transfer"
	"github.com/kanri/kanri/web/live"
)

// transferFeature is the import of a tenant's users from CSV files, and
// the exports of its lists as CSV and JSON. Its permissions are the
// users' (an import creates users), the roles' and the files'.
var transferFeature = Feature{
	Name:  "transfer",
	Docs:  "import-export.md",
	Types: userimport.DocTypes,
	Start: func(s *wiring.Set) Parts {
		return Parts{
			Work: []app.Feature{{Name: "imports", Work: []app.Work{{Name: "imports", Run: s.Imports.Run}}}},
			HTTP: web.Feature{Pages: func(c *console.Console, _ *live.Streams) console.Pages { return transfer.New(c) }},
		}
	},
}
