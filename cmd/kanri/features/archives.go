package features

import (
	"time"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/archive"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/console/archives"
	"github.com/kanri/kanri/web/live"
)

// archiveEvery is how often the archive pass runs, once across instances.
const archiveEvery = time.Hour

// archivesFeature moves each tenant's records to the blob store's archive
// tier before they expire, as the tenant chose: the pass, and the
// tenant's page of its archives.
var archivesFeature = Feature{
	Name:  "archives",
	Docs:  "backups.md",
	Types: archive.DocTypes,
	Start: func(s *wiring.Set) Parts {
		return Parts{
			Work: []app.Feature{{Name: "archives", Work: []app.Work{{Name: "archive records before they expire", Periodic: s.Archives.Pass, Every: archiveEvery}}}},
			HTTP: web.Feature{Pages: func(c *console.Console, _ *live.Streams) console.Pages { return archives.New(c, s.Archives) }},
		}
	},
}
