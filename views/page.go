// Package views renders the console's HTML with templ. Components take
// domain types and small view models; they never reach the store or Echo.
package views

import (
	"context"
	"time"

	"github.com/a-h/templ"
	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
)

// Page is what the layout needs on every page.
type Page struct {
	Title string
	CSRF  string
	Lang  string
	Path  string // the current URL, for the language switch to return to
	Nav   string // the active navigation item: tenants, users, audit
	User  *kanri.User
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
	// Now is the request's time, for statuses such as "locked".
	Now time.Time
	// Theme is the chosen theme, "light" or "dark", or "" to follow the
	// system's.
	Theme string
}

// Can reports whether the signed-in user holds perm.
func (p Page) Can(perm string) bool { return p.Perms[perm] }

// Flash is a one-time message shown at the top of a page.
type Flash struct {
	Kind    string // success, error or info
	Message string
}

// TenantID returns the id of the tenant the page works in.
func (p Page) TenantID() string {
	if p.Tenant != nil {
		return p.Tenant.ID
	}
	if p.Home != nil {
		return p.Home.ID
	}
	return ""
}

// Paging is the paging of a list page.
type Paging struct {
	FirstURL string
	NextURL  string // "" on the last page
	OnFirst  bool
	// Notice is a message key to show above the list, such as the notice
	// that an old page link started over at the first page.
	Notice string
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

// When formats an instant for tables, or a dash for the zero time.
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
