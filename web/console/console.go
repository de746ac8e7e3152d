// Package console serves what the console's pages share: the layout of a
// page and its messages, the answers to errors, the sign-in and tenant
// middleware, and the helpers of lists and forms.
package console

import (
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web/httpkit"
)

// Console holds what the console's handlers share.
type Console struct {
	app.Deps
	wiring.Set
	*httpkit.Sessions
	origin        httpkit.Origin
	switcherCache switcherCache
}

// New returns the console of the services, reached at origin, whose
// sessions are sessions.
func New(deps app.Deps, services wiring.Set, sessions *httpkit.Sessions, origin httpkit.Origin) *Console {
	s := &Console{Deps: deps, Set: services, Sessions: sessions, origin: origin}
	if s.Audit != nil {
		// Every change is audited: forget what it touched.
		s.Audit.Observe(s.switcherCache.heard)
	}
	return s
}
