package features

import (
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web"
	"github.com/kanri/kanri/web/api/fileapi"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/console/filepages"
	"github.com/kanri/kanri/web/live"
)

// filesFeature is a tenant's files and folders.
var filesFeature = Feature{
	Name:       "files",
	Docs:       "files.md",
	Containers: []doctype.Container{files.Container},
	Types:      files.DocTypes,
	Offers:     []role.Offer{files.Offer},
	Start: func(s *wiring.Set) Parts {
		return Parts{
			Work: []app.Feature{s.Files.Feature()},
			HTTP: web.Feature{
				Pages: func(c *console.Console, _ *live.Streams) console.Pages { return filepages.New(c) },
				API:   fileapi.New,
			},
		}
	},
}
