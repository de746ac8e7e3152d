// Package console serves what the console's pages share: the layout of a
// page and its messages, the answers to errors, the sign-in and tenant
// middleware, and the helpers of lists and forms.
package console

import (
	"sync"
	"time"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/httpkit"
)

// Console holds what the console's handlers share.
type Console struct {
	app.Deps
	wiring.Set
	*httpkit.Sessions
	origin        httpkit.Origin
	switcherCache switcherCache
	navigation    []views.NavEntry
}

// SetNavigation sets the entries of the side navigation: the features'
// pages, in any order.
func (s *Console) SetNavigation(entries []views.NavEntry) { s.navigation = views.SortNav(entries) }

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

// switcherTTL is how long the switcher's list of tenants is reused: every
// page of a global administrator shows it, and a tenant created, renamed,
// suspended, reactivated or deleted on another instance shows so in it
// this much later at most (on this instance, at once: see heard).
const switcherTTL = 2 * time.Second

// switcherCache holds the switcher's list between pages.
type switcherCache struct {
	mu   sync.Mutex
	at   time.Time
	list []*kanri.TenantListing
}

// heard forgets the list when this instance changes a tenant (every
// change is audited), so that its next page shows the change.
func (c *switcherCache) heard(e audit.Entry) {
	if e.Resource.Type != "Tenant" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list = nil
}
