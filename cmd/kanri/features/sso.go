package features

import (
	ssosvc "github.com/kanri/kanri/internal/sso"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/console/sso"
	"github.com/kanri/kanri/web/live"
)

// ssoFeature is single sign-on: a tenant's users sign in with the
// tenant's own OpenID Connect providers, their identities linked to
// users through verified e-mail domains. Its permissions are the
// settings' (role.SettingsRead, role.SettingsUpdate).
var ssoFeature = Feature{
	Name:  "sso",
	Docs:  "sso.md",
	Types: ssosvc.DocTypes,
	Start: func(s *wiring.Set) Parts {
		return Parts{HTTP: web.Feature{Pages: func(c *console.Console, _ *live.Streams) console.Pages { return sso.New(c) }}}
	},
}
