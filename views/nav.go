package views

import (
	"slices"
)

// NavEntry is a page of the side navigation, which the feature that owns
// the page declares (its console Pages' Nav).
type NavEntry struct {
	// Key names the entry: a page whose Nav is Key shows it as the current
	// one, and its test id is nav-<Key>.
	Key string
	// LabelKey is the catalog key of its text.
	LabelKey string
	// Staff puts it in the operator's section (global administrators);
	// else it is in the section of the tenant the navigation is about.
	Staff bool
	// Path is its address, of the navigation's tenant (staff entries get
	// "").
	Path func(tenantID string) string
	// Perm is the permission that shows it; Service, when not empty, the
	// service the tenant must be able to use.
	Perm, Service string
	// Unread shows the count of the person's unread messages beside it.
	Unread bool
	// Order places it in its section: lower first.
	Order int
}

// SortNav returns the entries in the navigation's order.
func SortNav(entries []NavEntry) []NavEntry {
	out := slices.Clone(entries)
	slices.SortStableFunc(out, func(a, b NavEntry) int { return a.Order - b.Order })
	return out
}

// shows reports whether the page's navigation shows n.
func (p Page) shows(n NavEntry) bool {
	return p.Can(n.Perm) && (n.Service == "" || p.Uses(n.Service))
}

// HasTenantPages reports whether the viewer may open any page of the
// tenant's section of the navigation (its services aside).
func HasTenantPages(p Page) bool {
	for _, n := range p.Navigation {
		if !n.Staff && p.Can(n.Perm) {
			return true
		}
	}
	return false
}
