package features

import (
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/user"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web"
	"github.com/kanri/kanri/web/api/accountapi"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/console/people"
	"github.com/kanri/kanri/web/live"
)

// peopleFeature is a tenant's users, their roles, sign-in and two-factor
// sign-in, and each user's own account.
var peopleFeature = Feature{
	Name:       "people",
	Docs:       "security.md",
	Containers: []doctype.Container{user.Container},
	Types:      slicesOf(user.DocTypes, role.DocTypes, auth.DocTypes),
	Offers:     []role.Offer{role.AuthOffer},
	Start: func(s *wiring.Set) Parts {
		return Parts{
			Work: []app.Feature{s.Users.Feature()},
			HTTP: web.Feature{
				Pages: func(c *console.Console, _ *live.Streams) console.Pages { return people.New(c) },
				API:   accountapi.New,
			},
		}
	},
}
