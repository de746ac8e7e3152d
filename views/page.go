// Package views renders the console's HTML with templ. Components take
// domain types and small view models; they never reach the store or Echo.
package views

import (
	"context"
	"net/url"
	"time"

	"github.com/a-h/templ"
	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
)

// Page is what the layout needs on every page.
type Page struct {
	Title string
	CSRF  string
	Lang  string
	Path  string // the current URL, for the language switch to return to
	Nav   string // the active navigation item: tenants, users, audit
	// Navigation are the entries of the side navigation, in its order.
	Navigation []NavEntry
	User       *kanri.User
	// Tenant is the tenant the page is about (nil on operator pages). Home
	// is the signed-in user's own tenant.
	Tenant *kanri.Tenant
	Home   *kanri.Tenant
	Staff  bool
	// Switcher lists the tenants privileged staff can switch to.
	Switcher []*kanri.TenantListing
	Flash    Flash
	// Perms are the signed-in user's permissions; the UI shows only what
	// they allow. GlobalAdmin says the user is a global administrator.
	Perms       map[string]bool
	GlobalAdmin bool
	// Services are the services the navigation's tenant may use now (nil
	// when not read: a part of a page); the navigation links only to their
	// pages.
	Services map[string]bool
	// Unread is what the person has not read in their channels, beside the
	// navigation's link to them (zero when not read).
	Unread NavUnread
	// Now is the request's time, for statuses such as "locked".
	Now time.Time
	// Live is the URL of the page's stream of live updates (one per tab,
	// for every live part of the page), or "" for a page without any.
	Live string
	// Theme is the chosen theme, "light" or "dark", or "" to follow the
	// system's.
	Theme string
	// Support is the support session the page is seen in (nil: the
	// user's own): every page says so, with a button that ends it.
	Support *kanri.SessionSupport
}

// LiveRefresh is the request header of a part of a page reloaded because
// its live stream said something changed, not because the person did
// anything: the page's message of their last action stays.
const LiveRefresh = "Kanri-Live-Refresh"

// liveRefreshHeaders are the hx-headers of such a reload.
var liveRefreshHeaders = `{"` + LiveRefresh + `": "1"}`

// Can reports whether the signed-in user holds perm.
func (p Page) Can(perm string) bool { return p.Perms[perm] }

// NavTenant is the tenant whose pages the navigation lists: the page's,
// else the viewer's own.
func (p Page) NavTenant() *kanri.Tenant {
	if p.Tenant != nil {
		return p.Tenant
	}
	return p.Home
}

// Uses reports whether the navigation's tenant may use the service now.
func (p Page) Uses(serviceID string) bool { return p.Services == nil || p.Services[serviceID] }

// Flash is a one-time message shown at the top of a page.
type Flash struct {
	Kind    string // success, error or info
	Message string
}

// TenantID returns the id of the tenant the page works in.
func (p Page) TenantID() string {
	if t := p.NavTenant(); t != nil {
		return t.ID
	}
	return ""
}

// Visiting reports whether the page is about a tenant other than the
// viewer's own: an operator's staff working in a customer's tenant, to
// whom "your organisation" is not that tenant.
func (p Page) Visiting() bool {
	return p.Tenant != nil && p.Home != nil && p.Tenant.ID != p.Home.ID
}

// OfTenant says a message about the page's tenant: key ("your
// organisation…") to the tenant's own users, visiting to a visitor from
// another tenant (Page.Visiting), with the tenant's display name as its
// first argument, before args ("Acme's settings").
func OfTenant(ctx context.Context, p Page, key, visiting string, args ...any) string {
	if !p.Visiting() {
		return T(ctx, key, args...)
	}
	return T(ctx, visiting, append([]any{p.Tenant.DisplayName}, args...)...)
}

// Paging is the paging, page size and sorting of a list page.
type Paging struct {
	FirstURL string
	PrevURL  string // "" on the first page
	NextURL  string // "" on the last page
	OnFirst  bool
	// Notice is a message key to show above the list, such as the notice
	// that an old page link started over at the first page.
	Notice string
	// Size is the page size; Sizes link to the list in the other sizes.
	Size  int
	Sizes []SizeLink
	// Total is the number of items when the store knows it cheaply (the
	// tenant's user count, say), else -1.
	Total int
	// Path and Query are the list's URL without its paging, for the links
	// of sortable column headers.
	Path  string
	Query url.Values
}

// SizeLink links to a list in another page size.
type SizeLink struct {
	Size int
	URL  string
}

// SortURL returns the URL of the list sorted by field: ascending, or
// descending when it is already sorted ascending by field. def is the
// field the list is sorted by when the URL names none.
func (p Paging) SortURL(field, def string) string {
	v := url.Values{}
	for k, vs := range p.Query {
		if k != "sort" && k != "desc" && k != "cursor" && k != "trail" && len(vs) > 0 && vs[0] != "" {
			v.Set(k, vs[0])
		}
	}
	v.Set("sort", field)
	if p.sortedBy(def) == field && p.Query.Get("desc") != "1" {
		v.Set("desc", "1")
	}
	return p.Path + "?" + v.Encode()
}

// AriaSort returns the aria-sort value of the column of field.
func (p Paging) AriaSort(field, def string) string {
	switch {
	case p.sortedBy(def) != field:
		return "none"
	case p.Query.Get("desc") == "1":
		return "descending"
	}
	return "ascending"
}

func (p Paging) sortedBy(def string) string {
	if s := p.Query.Get("sort"); s != "" {
		return s
	}
	return def
}

// Edit is the state of an edit form: the document's ETag and the edited
// fields as the form was opened (Base: a save is stale only if they changed
// since), the input, its errors, and after a stale save the stored version
// (Current).
type Edit[In any, D any] struct {
	ETag    string
	Input   In
	Base    In
	Errors  Errors
	Current D
}

// truncated shortens s to at most n characters, with an ellipsis, for
// places that cannot end it in CSS (a select's options).
func truncated(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Errors are per-field messages (translation keys) of a form.
type Errors map[string]string

// T translates key in the language of ctx.
func T(ctx context.Context, key string, args ...any) string { return i18n.T(ctx, key, args...) }

// Reporting reports whether the page's tenant has its usage analytics
// (the advancedReporting feature: its setting and its plan).
func (p Page) Reporting() bool {
	return p.Tenant != nil && role.FeatureOn(p.Tenant, kanri.FeatureAdvancedReporting)
}

type zoneKey struct{}

// WithZone returns a context whose pages show times in loc: the web layer
// gives every request of a tenant's pages (/t/{tenant}/…) its time zone.
func WithZone(ctx context.Context, loc *time.Location) context.Context {
	return context.WithValue(ctx, zoneKey{}, loc)
}

// ZoneOf returns the time zone of ctx's pages: the tenant's, else UTC.
func ZoneOf(ctx context.Context) *time.Location {
	if loc, ok := ctx.Value(zoneKey{}).(*time.Location); ok && loc != nil {
		return loc
	}
	return time.UTC
}

// Local formats an instant for the pages of a tenant: in the tenant's time
// zone (ZoneOf ctx) with the zone's abbreviation, "2026-11-26 21:04 JST",
// or a dash for the zero time.
func Local(ctx context.Context, t kanri.Time) string { return WhenIn(t.Time, ZoneOf(ctx)) }

// LocalDate formats the date of an instant in the tenant's time zone
// (ZoneOf ctx), or a dash for the zero time: the day an expiry set as a
// date ends, in the zone the form read it in (kanri.DayEndIn).
func LocalDate(ctx context.Context, t kanri.Time) string {
	if t.IsZero() {
		return "—"
	}
	return kanri.DateOf(t, ZoneOf(ctx))
}

// LocalSeconds is Local to the second, for the audit log.
func LocalSeconds(ctx context.Context, t kanri.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.In(ZoneOf(ctx)).Format("2006-01-02 15:04:05 MST")
}

// When formats an instant for tables in UTC, or a dash for the zero time:
// the operator's pages across tenants show times in UTC; a tenant's pages
// use Local.
func When(t kanri.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

// Aria returns the accessibility attributes of a form field: its help text
// and error message describe it, and an error marks it invalid.
func Aria(name string, errs Errors) templ.Attributes {
	a := templ.Attributes{"aria-describedby": "h-" + name}
	if errs[name] != "" {
		a["aria-invalid"] = "true"
		a["aria-describedby"] = "e-" + name + " h-" + name
	}
	return a
}
