package features

import (
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/migrate"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/console/migrations"
	"github.com/kanri/kanri/web/live"
)

// migrationsFeature is the batch migration of every tenant's documents to
// their types' current schema versions: the operator's page, and the
// worker that runs what the page starts (the command, kanri migrate,
// runs the same runner).
var migrationsFeature = Feature{
	Name:  "migrations",
	Docs:  "operations.md",
	Types: migrate.DocTypes,
	Start: func(s *wiring.Set) Parts {
		r := migrate.New(s.Deps, s.Tenants, s.Backups, s.Scheduler)
		return Parts{
			Work: []app.Feature{{Name: "migrations", Work: []app.Work{r.Work()}}},
			HTTP: web.Feature{Pages: func(c *console.Console, _ *live.Streams) console.Pages { return migrations.New(c, r) }},
		}
	},
}
