package features

import (
	"github.com/kanri/kanri/internal/erasure"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/console/privacy"
	"github.com/kanri/kanri/web/live"
)

// privacyFeature is a person's data: its export and its erasure, by the
// declarations of every feature's types. Its service is a core one: every
// restore applies the erasure list.
var privacyFeature = Feature{
	Name:  "privacy",
	Docs:  "security.md",
	Types: erasure.DocTypes,
	Start: func(s *wiring.Set) Parts {
		return Parts{HTTP: web.Feature{Pages: func(c *console.Console, _ *live.Streams) console.Pages { return privacy.New(c) }}}
	},
}
