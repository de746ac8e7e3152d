package console

import (
	"context"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/chatview"
	"github.com/kanri/kanri/web/httpkit"
)

// Page returns the layout data of the current request.
func (s *Console) Page(c echo.Context, title, nav string) views.Page {
	ctx := c.Request().Context()
	p := views.Page{
		Title:      i18n.T(ctx, title),
		CSRF:       s.CSRFToken(c),
		Lang:       i18n.Lang(ctx),
		Path:       shownAt(c),
		Nav:        nav,
		Navigation: s.navigation,
		Staff:      httpkit.IsGlobalAdmin(c),
		Now:        s.Now(),
		Theme:      httpkit.Theme(c),
	}
	p.User, _ = c.Get(httpkit.KeyUser).(*kanri.User)
	p.Home, _ = c.Get(httpkit.KeyHome).(*kanri.Tenant)
	p.Tenant, _ = c.Get(httpkit.KeyTenant).(*kanri.Tenant)
	p.Support, _ = c.Get(httpkit.KeySupport).(*kanri.SessionSupport)
	// A part of a page reloaded by its live stream leaves the message of
	// the person's last action for the page that shows it: the reload may
	// race the redirect after that action.
	if c.Request().Header.Get(views.LiveRefresh) == "" {
		p.Flash.Kind, p.Flash.Message = s.TakeFlash(c)
	}
	p.Perms, _ = c.Get(httpkit.KeyPerms).(role.Set)
	p.GlobalAdmin = httpkit.IsGlobalAdmin(c)
	if p.Staff {
		p.Switcher = s.switcher(ctx, p.Tenant)
	}
	if t := p.NavTenant(); t != nil && !httpkit.IsHTMX(c) {
		p.Services, _ = s.Catalog.UsableServices(ctx, t) // unread, the navigation shows every page the person may open
		if p.User != nil && p.Can(role.ChannelsRead) && p.Uses(kanri.MessagingServiceID) {
			if tr, err := s.Messaging.Track(ctx, t.ID, chatview.Person(c)); err == nil { // unread, no count
				p.Unread = chatview.NavUnread(tr.Total())
			}
		}
	}
	return p
}

// switcher lists the first tenants by name (suspended ones too) for the
// global administrators' tenant switcher, and always the current one.
func (s *Console) switcher(ctx context.Context, current *kanri.Tenant) []*kanri.TenantListing {
	list := s.switcherList(ctx)
	if current != nil && !slices.ContainsFunc(list, func(l *kanri.TenantListing) bool { return l.ID == current.ID }) {
		list = append([]*kanri.TenantListing{{
			Doc: kanri.Doc{ID: current.ID}, Name: current.Name, DisplayName: current.DisplayName, Status: current.Status,
		}}, list...)
	}
	return list
}

// Redirect sends the browser to path after a POST: 303 for forms,
// HX-Redirect for htmx.
func Redirect(c echo.Context, path string) error {
	if httpkit.IsHTMX(c) {
		c.Response().Header().Set("HX-Redirect", path)
		return c.NoContent(http.StatusNoContent)
	}
	return c.Redirect(http.StatusSeeOther, path)
}

// BackTo returns the local path the request came from, or fallback. Only
// same-host paths that a GET can open are used: a Referer cannot redirect
// elsewhere, and a form shown again after a failed POST (its URL answers
// POST only) is not returned to.
func BackTo(c echo.Context, fallback string) string {
	for _, h := range []string{"HX-Current-URL", "Referer"} {
		u, err := url.Parse(c.Request().Header.Get(h))
		if err == nil && u.Host == c.Request().Host && strings.HasPrefix(u.Path, "/") && !strings.HasPrefix(u.Path, "//") && httpkit.Gettable(c.Echo(), u.Path) {
			return u.RequestURI()
		}
	}
	return fallback
}

// shownAt returns the URL a GET opens to show what the request's page
// shows, for the language and theme switches to return to. A page that
// answers a POST (a form shown again with its errors, say) is at its
// form's page: the path with /new or /edit, the path itself if a GET
// opens it, or else the nearest parent path a GET opens.
func shownAt(c echo.Context) string {
	u := c.Request().URL
	if c.Request().Method == http.MethodGet || c.Request().Method == http.MethodHead {
		return u.RequestURI()
	}
	e := c.Echo()
	for _, p := range []string{u.Path + "/new", u.Path + "/edit"} {
		if httpkit.Gettable(e, p) {
			return p
		}
	}
	return NearestGettable(e, u.Path)
}

// NearestGettable returns p, or the nearest parent of p, that a GET
// opens; "/" when none does.
func NearestGettable(e *echo.Echo, p string) string {
	for ; p != "" && p != "/"; p = path.Dir(p) {
		if httpkit.Gettable(e, p) {
			return p
		}
	}
	return "/"
}

// SafeNext returns next if it is a local path, else "/".
func SafeNext(next string) string {
	if strings.HasPrefix(next, "/") && !strings.HasPrefix(next, "//") &&
		!strings.ContainsFunc(next, func(r rune) bool { return r == '\\' || r < 0x20 || r == 0x7f }) {
		return next
	}
	return "/"
}

// switcherList returns the first 100 tenants by name, from the cache when
// it is fresh. The list is shared: callers must not change it.
func (s *Console) switcherList(ctx context.Context) []*kanri.TenantListing {
	c := &s.switcherCache
	c.mu.Lock()
	defer c.mu.Unlock()
	if now := s.Now(); c.list == nil || now.Sub(c.at) > switcherTTL || now.Before(c.at) {
		list, _, err := s.Tenants.List(ctx, tenant.ListFilter{Limit: 100})
		if err != nil {
			s.Logger.Warn("tenant switcher", "err", err)
			return c.list
		}
		c.list, c.at = list, now
	}
	return c.list
}

// NextPath returns next if it is a path of the console to return to after
// sign-in, else "".
func NextPath(next string) string {
	if next == "" || SafeNext(next) != next || next == "/" || strings.HasPrefix(next, "/login") {
		return ""
	}
	return next
}
