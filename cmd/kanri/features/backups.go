package features

import (
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/backup"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/console/backups"
	"github.com/kanri/kanri/web/live"
)

// backupsFeature is a tenant's backup jobs, archives and restores.
var backupsFeature = Feature{
	Name:       "backups",
	Docs:       "backups.md",
	Containers: []doctype.Container{backup.Container},
	Types:      backup.DocTypes,
	Offers:     []role.Offer{backup.Offer},
	Start: func(s *wiring.Set) Parts {
		return Parts{
			Work: []app.Feature{s.Backups.Feature()},
			HTTP: web.Feature{Pages: func(c *console.Console, l *live.Streams) console.Pages { return backups.New(c, l) }},
		}
	},
}
