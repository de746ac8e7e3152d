package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
)

// render writes a templ component with the given status.
func render(c echo.Context, status int, comp templ.Component) error {
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	c.Response().WriteHeader(status)
	return comp.Render(c.Request().Context(), c.Response())
}

// page returns the layout data of the current request.
func (s *Server) page(c echo.Context, title, nav string) views.Page {
	ctx := c.Request().Context()
	p := views.Page{
		Title: i18n.T(ctx, title),
		CSRF:  s.csrfToken(c),
		Lang:  i18n.Lang(ctx),
		Path:  c.Request().URL.RequestURI(),
		Nav:   nav,
		Staff: isStaff(c),
		Now:   s.now(),
	}
	p.User, _ = c.Get(ctxUser).(*kanri.User)
	p.Home, _ = c.Get(ctxHome).(*kanri.Tenant)
	p.Tenant, _ = c.Get(ctxTenant).(*kanri.Tenant)
	p.Flash.Kind, p.Flash.Message = s.takeFlash(c)
	p.Perms, _ = c.Get(ctxPerms).(role.Set)
	p.GlobalAdmin = isGlobalAdmin(c)
	if p.Staff {
		p.Switcher = s.switcher(ctx)
	}
	return p
}

// switcher lists the first tenants by name for the staff's tenant switcher.
func (s *Server) switcher(ctx context.Context) []*kanri.TenantListing {
	list, _, err := s.tenants.List(ctx, tenantListFilter(url.Values{"status": {"active"}}, 100))
	if err != nil {
		s.log.Warn("tenant switcher", "err", err)
	}
	return list
}

func reqID(c echo.Context) string { id, _ := c.Get(ctxReqID).(string); return id }

// isHTMX reports whether the request came from htmx (and was not a boosted
// navigation, which wants a full page).
func isHTMX(c echo.Context) bool {
	h := c.Request().Header
	return h.Get("HX-Request") == "true" && h.Get("HX-Boosted") != "true"
}

// redirect sends the browser to path after a POST: 303 for forms,
// HX-Redirect for htmx.
func redirect(c echo.Context, path string) error {
	if isHTMX(c) {
		c.Response().Header().Set("HX-Redirect", path)
		return c.NoContent(http.StatusNoContent)
	}
	return c.Redirect(http.StatusSeeOther, path)
}

// backTo returns the local path the request came from, or fallback. Only
// same-host paths are used, so a Referer cannot redirect elsewhere.
func backTo(c echo.Context, fallback string) string {
	for _, h := range []string{"HX-Current-URL", "Referer"} {
		u, err := url.Parse(c.Request().Header.Get(h))
		if err == nil && u.Host == c.Request().Host && strings.HasPrefix(u.Path, "/") && !strings.HasPrefix(u.Path, "//") {
			return u.RequestURI()
		}
	}
	return fallback
}

// safeNext returns next if it is a local path, else "/".
func safeNext(next string) string {
	if strings.HasPrefix(next, "/") && !strings.HasPrefix(next, "//") &&
		!strings.ContainsFunc(next, func(r rune) bool { return r == '\\' || r < 0x20 || r == 0x7f }) {
		return next
	}
	return "/"
}

// handleError is the one place where errors become HTTP responses.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	ctx := c.Request().Context()
	var he *echo.HTTPError
	switch {
	case errors.Is(err, errCSRF):
		s.errorPage(c, http.StatusForbidden, "error.forbidden", i18n.T(ctx, "error.csrf"))
		return
	case errors.As(err, &he):
		switch he.Code {
		case http.StatusNotFound, http.StatusMethodNotAllowed:
			s.errorPage(c, http.StatusNotFound, "error.not_found", i18n.T(ctx, "error.not_found_body"))
		case http.StatusForbidden:
			s.errorPage(c, http.StatusForbidden, "error.forbidden", i18n.T(ctx, "error.forbidden_body"))
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			s.errorPage(c, he.Code, "error.title", kanri.ErrorMessage(nil))
		default:
			s.internalError(c, err)
		}
		return
	}
	switch kanri.ErrorCode(err) {
	case kanri.EUNAUTHENTICATED:
		if c.Request().Method == http.MethodGet && !isHTMX(c) {
			s.flash(c, "info", i18n.T(ctx, "login.expired"))
		}
		redirect(c, "/login")
	case kanri.ENOTFOUND:
		s.errorPage(c, http.StatusNotFound, "error.not_found", i18n.T(ctx, "error.not_found_body"))
	case kanri.EFORBIDDEN:
		s.errorPage(c, http.StatusForbidden, "error.forbidden", i18n.T(ctx, userMessage(err, "error.forbidden_body")))
	case kanri.ECONFLICT, kanri.ESTALE, kanri.EINVALID:
		msg := i18n.T(ctx, userMessage(err, "error.title"))
		if c.Request().Method == http.MethodGet {
			status := http.StatusConflict
			if kanri.IsCode(err, kanri.EINVALID) {
				status = http.StatusBadRequest
			}
			s.errorPage(c, status, "error.title", msg)
			return
		}
		// An action that could not be done: say why on the page it came from.
		s.flash(c, "error", msg)
		redirect(c, backTo(c, "/"))
	default:
		s.internalError(c, err)
	}
}

// firstPageOnBadToken runs a list query; when its continuation token is
// not valid (an old link, a tampered URL) it runs it again from the first
// page and returns the notice to show.
func firstPageOnBadToken[T any](cursor *string, list func() (T, string, error)) (T, string, string, error) {
	items, next, err := list()
	if kanri.IsCode(err, kanri.EINVALID) && *cursor != "" {
		*cursor = ""
		items, next, err = list()
		return items, next, "validation.continuation", err
	}
	return items, next, "", err
}

// userMessage returns the translation key of err's message, or fallback
// when the message is not one written for people (a store's internal
// message, say).
func userMessage(err error, fallback string) string {
	if msg := kanri.ErrorMessage(err); i18n.Has(msg) {
		return msg
	}
	return fallback
}

func (s *Server) internalError(c echo.Context, err error) {
	s.log.Error("internal error", "err", err, "request_id", reqID(c), "path", c.Request().URL.Path)
	s.errorPage(c, http.StatusInternalServerError, "error.internal", i18n.T(c.Request().Context(), "error.internal_body", reqID(c)))
}

func (s *Server) errorPage(c echo.Context, status int, title, body string) {
	if err := render(c, status, views.ErrorPage(s.page(c, title, ""), status, i18n.T(c.Request().Context(), title), body)); err != nil {
		s.log.Error("render error page", "err", err)
	}
}
