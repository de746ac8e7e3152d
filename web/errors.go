package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/views"
)

// statusOf is the one table from domain error codes to HTTP statuses, for
// pages and JSON responses alike.
var statusOf = map[string]int{
	kanri.EINVALID:         http.StatusUnprocessableEntity,
	kanri.ECONFLICT:        http.StatusConflict,
	kanri.ESTALE:           http.StatusPreconditionFailed,
	kanri.ENOTFOUND:        http.StatusNotFound,
	kanri.EFORBIDDEN:       http.StatusForbidden,
	kanri.EUNAUTHENTICATED: http.StatusUnauthorized,
	kanri.EINTERNAL:        http.StatusInternalServerError,
	kanri.EBUSY:            http.StatusServiceUnavailable,
	kanri.EMALFORMED:       http.StatusBadRequest,
	kanri.ETOOLARGE:        http.StatusRequestEntityTooLarge,
}

// retryAfter is the Retry-After (seconds) of a 503: other writes kept
// winning the race for what the request changes (EBUSY), which a second
// later they have most likely stopped doing.
const retryAfter = "1"

// status returns the HTTP status of err.
func status(err error) int {
	if code, ok := statusOf[kanri.ErrorCode(err)]; ok {
		return code
	}
	return http.StatusInternalServerError
}

// errCSRF is the error of a state-changing request without the session's
// CSRF token.
var errCSRF = kanri.E(kanri.EFORBIDDEN, "error.csrf")

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

// malformed reports the status of a request Echo could not read (a body
// over the limit, a bad form), or 0.
func malformed(err error) int {
	var he *echo.HTTPError
	if errors.As(err, &he) && (he.Code == http.StatusBadRequest || he.Code == http.StatusRequestEntityTooLarge || he.Code == http.StatusRequestTimeout) {
		return he.Code
	}
	return 0
}

// clientGone reports whether err is only that the request's context
// ended: the client went away (or the server is stopping), which is no
// fault of the server's to log as an error.
func clientGone(err error) bool {
	return errors.Is(err, context.Canceled) && kanri.ErrorCode(err) != kanri.EBUSY
}

// ErrStopping is the cause with which the composition root cancels the
// requests still running when the server stops (context.WithCancelCause):
// their clients are still there, and are answered 503.
var ErrStopping = errors.New("the server is stopping")

// statusClientClosed is the status the request log and the API's usage
// log give a request whose client went away before its answer (nginx's
// 499): never sent, and no fault of the server's (not a 5xx).
const statusClientClosed = 499

// ctxGone marks a request whose client went away (an echo.Context value).
const ctxGone = "clientGone"

// markGone records that the request's client went away, when err says so
// and the request's context was not ended by the server stopping.
func markGone(c echo.Context, err error) {
	if clientGone(err) && !errors.Is(context.Cause(c.Request().Context()), ErrStopping) {
		c.Set(ctxGone, true)
	}
}

// loggedStatus returns the status the logs give the request's answer:
// statusClientClosed when its client went away, else the status sent.
func loggedStatus(c echo.Context) int {
	if gone, _ := c.Get(ctxGone).(bool); gone {
		return statusClientClosed
	}
	return c.Response().Status
}

// message translates err's message key for the request, or fallback when
// err carries none of its own.
func message(ctx context.Context, err error, fallback string) string {
	key, args := messageOf(err, fallback)
	return i18n.T(ctx, key, args...)
}

// messageOf returns the message key of err, with its arguments, or
// fallback when err carries none of its own.
func messageOf(err error, fallback string) (string, []any) {
	key, args := kanri.ErrorMessage(err)
	if fields := kanri.ErrorFields(err); key == "error.invalid" && len(fields) == 1 {
		// An action with one thing wrong (a refused avatar, say) says
		// what, not only that something was.
		for _, msg := range fields {
			if i18n.Has(msg) {
				return msg, nil
			}
		}
	}
	if key == "error.internal" || key == "error.invalid" || !i18n.Has(key) {
		return fallback, nil
	}
	return key, args
}

// visiting returns, on a page of a tenant that an operator visits from
// another tenant, the variant of a message that names the tenant where the
// catalog has one (key + ".visiting", with the tenant's display name as
// its first argument: "This service is suspended for Acme." rather than
// "…for your organisation."); else key and args as they are.
func visiting(c echo.Context, key string, args []any) (string, []any) {
	t, _ := c.Get(ctxTenant).(*kanri.Tenant)
	home, _ := c.Get(ctxHome).(*kanri.Tenant)
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

// handleError is the one place where errors become HTTP responses. A
// change that cannot be made (a conflict, a stale or invalid action) is
// reported on the page it came from; everything else gets an error page
// with the status of statusOf.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	markGone(c, err)
	if c.Request().Context().Err() != nil {
		// A body that stalled or ended early ends the request's context
		// too, yet its client waits for the answer: render it regardless.
		c.SetRequest(c.Request().WithContext(context.WithoutCancel(c.Request().Context())))
	}
	if strings.HasPrefix(c.Request().URL.Path, "/api/") {
		s.apiError(c, err)
		return
	}
	ctx := c.Request().Context()
	if code := malformed(err); code != 0 {
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
		if reads(c) && !isHTMX(c) {
			key, args := messageOf(err, "login.required")
			s.flash(c, "info", key, args...)
			if next := nextPath(c.Request().URL.RequestURI()); next != "" {
				login += "?next=" + url.QueryEscape(next)
			}
		}
		s.respondRedirect(c, login)
	case clientGone(err):
		// The client went away (or the server is stopping): nobody to tell.
		s.abandoned(c, err)
		c.Response().Header().Set("Retry-After", retryAfter)
		s.errorPage(c, http.StatusServiceUnavailable, "error.title", i18n.T(ctx, "input.abandoned"))
	case code == kanri.EINTERNAL:
		s.Logger.Error("internal error", "err", err, "request_id", reqID(c), "path", c.Request().URL.Path)
		s.errorPage(c, http.StatusInternalServerError, "error.internal", i18n.T(ctx, "error.internal_body", reqID(c)))
	case !reads(c) && (code == kanri.ECONFLICT || code == kanri.ESTALE || code == kanri.EINVALID || code == kanri.EBUSY):
		// An action that could not be done: say why on the page it came from.
		key, args := messageOf(err, "error.title")
		key, args = visiting(c, key, args)
		s.flash(c, "error", key, args...)
		s.respondRedirect(c, backTo(c, "/"))
	default:
		title, ok := titles[code]
		if !ok {
			title = "error.title"
		}
		fallback := "error.title"
		if code == kanri.EFORBIDDEN {
			fallback = "error.forbidden_body"
		}
		key, args := messageOf(err, fallback)
		key, args = visiting(c, key, args)
		body := i18n.T(ctx, key, args...)
		if code == kanri.ENOTFOUND {
			body = i18n.T(ctx, "error.not_found_body") // never which thing is missing
		}
		s.errorPage(c, status(err), title, body)
	}
}

// abandoned logs a request that ended with its context: at info level,
// as a client that went away, or as cut by the server stopping.
func (s *Server) abandoned(c echo.Context, err error) {
	what := "request abandoned: the client went away"
	if gone, _ := c.Get(ctxGone).(bool); !gone {
		what = "request cut short: the server is stopping"
	}
	s.Logger.Info(what, "err", err, "request_id", reqID(c), "path", c.Request().URL.Path)
}

// respondRedirect redirects from the error handler, logging what cannot be
// sent.
func (s *Server) respondRedirect(c echo.Context, path string) {
	if err := redirect(c, path); err != nil {
		s.Logger.Warn("error redirect not sent", "err", err, "request_id", reqID(c))
	}
}

// errorPage renders an error page. A visitor without a session gets one,
// so that the page's forms (the language and theme switches) carry a CSRF
// token the next request knows.
func (s *Server) errorPage(c echo.Context, status int, title, body string) {
	if s.session(c).IsNew {
		if err := s.saveSession(c); err != nil {
			s.Logger.Warn("save the session of an error page", "err", err, "request_id", reqID(c))
		}
	}
	if err := render(c, status, views.ErrorPage(s.page(c, title, ""), status, i18n.T(c.Request().Context(), title), body)); err != nil {
		s.Logger.Error("render error page", "err", err, "request_id", reqID(c))
	}
}
