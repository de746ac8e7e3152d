package console

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/httpkit"
)

// domainError turns Echo's routing errors into domain errors, so that one
// mapping handles everything.
func domainError(err error) error {
	var he *echo.HTTPError
	if !errors.As(err, &he) {
		return err
	}
	switch he.Code {
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		return kanri.E(kanri.ENOTFOUND, "error.not_found_body")
	case http.StatusForbidden:
		return kanri.E(kanri.EFORBIDDEN, "error.forbidden_body")
	}
	return err
}

// visiting returns, on a page of a tenant that an operator visits from
// another tenant, the variant of a message that names the tenant where the
// catalog has one (key + ".visiting", with the tenant's display name as
// its first argument: "This service is suspended for Acme." rather than
// "…for your organisation."); else key and args as they are.
func visiting(c echo.Context, key string, args []any) (string, []any) {
	t, _ := c.Get(httpkit.KeyTenant).(*kanri.Tenant)
	home, _ := c.Get(httpkit.KeyHome).(*kanri.Tenant)
	if t == nil || home == nil || t.ID == home.ID || !i18n.Has(key+".visiting") {
		return key, args
	}
	return key + ".visiting", append([]any{t.DisplayName}, args...)
}

// titles are the headings of the error pages of each code.
var titles = map[string]string{
	kanri.ENOTFOUND:  "error.not_found",
	kanri.EFORBIDDEN: "error.forbidden",
	kanri.EINTERNAL:  "error.internal",
}

// HandleError is the one place where the console's errors become HTTP
// responses (once httpkit.Unanswered said one is due). A change that
// cannot be made (a conflict, a stale or invalid action) is reported on
// the page it came from; everything else gets an error page with the
// status of httpkit.Status.
func (s *Console) HandleError(err error, c echo.Context) {
	ctx := c.Request().Context()
	if code := httpkit.Malformed(err); code != 0 {
		s.errorPage(c, code, "error.title", i18n.T(ctx, "error.invalid_request"))
		return
	}
	err = domainError(err)
	code := kanri.ErrorCode(err)
	switch {
	case code == kanri.EUNAUTHENTICATED:
		// "Please sign in", or "your session has ended" to someone whose
		// session did; a page asked for is where sign-in leads.
		login := "/login"
		if httpkit.Reads(c) && !httpkit.IsHTMX(c) {
			key, args := httpkit.MessageOf(err, "login.required")
			s.Flash(c, "info", key, args...)
			if next := NextPath(c.Request().URL.RequestURI()); next != "" {
				login += "?next=" + url.QueryEscape(next)
			}
		}
		s.respondRedirect(c, login)
	case httpkit.ClientGone(err):
		// The client went away (or the server is stopping): nobody to tell.
		httpkit.Abandoned(s.Logger, c, err)
		c.Response().Header().Set("Retry-After", httpkit.RetryAfter)
		s.errorPage(c, http.StatusServiceUnavailable, "error.title", i18n.T(ctx, "input.abandoned"))
	case code == kanri.EINTERNAL:
		s.Logger.ErrorContext(c.Request().Context(), "internal error", "err", err, "request_id", httpkit.RequestID(c), "path", c.Request().URL.Path)
		s.errorPage(c, http.StatusInternalServerError, "error.internal", i18n.T(ctx, "error.internal_body", httpkit.RequestID(c)))
	case !httpkit.Reads(c) && (code == kanri.ECONFLICT || code == kanri.ESTALE || code == kanri.EINVALID || code == kanri.EBUSY):
		// An action that could not be done: say why on the page it came from.
		key, args := httpkit.MessageOf(err, "error.title")
		key, args = visiting(c, key, args)
		s.Flash(c, "error", key, args...)
		s.respondRedirect(c, BackTo(c, "/"))
	default:
		title, ok := titles[code]
		if !ok {
			title = "error.title"
		}
		fallback := "error.title"
		if code == kanri.EFORBIDDEN {
			fallback = "error.forbidden_body"
		}
		key, args := httpkit.MessageOf(err, fallback)
		key, args = visiting(c, key, args)
		body := i18n.T(ctx, key, args...)
		if code == kanri.ENOTFOUND {
			body = i18n.T(ctx, "error.not_found_body") // never which thing is missing
		}
		s.errorPage(c, httpkit.Status(err), title, body)
	}
}

// respondRedirect redirects from the error handler, logging what cannot be
// sent.
func (s *Console) respondRedirect(c echo.Context, path string) {
	if err := Redirect(c, path); err != nil {
		s.Logger.WarnContext(c.Request().Context(), "error redirect not sent", "err", err, "request_id", httpkit.RequestID(c))
	}
}

// errorPage renders an error page. A visitor without a session gets one,
// so that the page's forms (the language and theme switches) carry a CSRF
// token the next request knows.
func (s *Console) errorPage(c echo.Context, status int, title, body string) {
	if s.Session(c).IsNew {
		if err := s.SaveSession(c); err != nil {
			s.Logger.WarnContext(c.Request().Context(), "save the session of an error page", "err", err, "request_id", httpkit.RequestID(c))
		}
	}
	if err := httpkit.Render(c, status, views.ErrorPage(s.Page(c, title, ""), status, i18n.T(c.Request().Context(), title), body)); err != nil {
		s.Logger.ErrorContext(c.Request().Context(), "render error page", "err", err, "request_id", httpkit.RequestID(c))
	}
}

// NotFound answers the page not found.
func (s *Console) NotFound(c echo.Context) error {
	s.errorPage(c, http.StatusNotFound, titles[kanri.ENOTFOUND], i18n.T(c.Request().Context(), "error.not_found_body"))
	return nil
}
