package features

import (
	"slices"

	scimsvc "github.com/kanri/kanri/internal/scim"
	ssosvc "github.com/kanri/kanri/internal/sso"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/console/sso"
	"github.com/kanri/kanri/web/live"
)

// ssoFeature is single sign-on and provisioning: a tenant's users sign
// in with the tenant's own OpenID Connect providers, their identities
// linked to users through verified e-mail domains, and its provider
// creates, changes and deprovisions them by SCIM (web/scim). Its permissions are the
// settings' (role.SettingsRead, role.SettingsUpdate).
var ssoFeature = Feature{
	Name:  "sso",
	Docs:  "sso.md",
	Types: slices.Concat(ssosvc.DocTypes, scimsvc.DocTypes),
	Start: func(s *wiring.Set) Parts {
		return Parts{HTTP: web.Feature{Pages: func(c *console.Console, _ *live.Streams) console.Pages { return sso.New(c) }}}
	},
}
