package httpkit

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
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

// RetryAfter is the Retry-After (seconds) of a 503: other writes kept
// winning the race for what the request changes (EBUSY), which a second
// later they have most likely stopped doing.
const RetryAfter = "1"

// Status returns the HTTP status of err.
func Status(err error) int {
	if code, ok := statusOf[kanri.ErrorCode(err)]; ok {
		return code
	}
	return http.StatusInternalServerError
}

// Malformed reports the status of a request Echo could not read (a body
// over the limit, a bad form), or 0.
func Malformed(err error) int {
	var he *echo.HTTPError
	if errors.As(err, &he) && (he.Code == http.StatusBadRequest || he.Code == http.StatusRequestEntityTooLarge || he.Code == http.StatusRequestTimeout) {
		return he.Code
	}
	return 0
}

// ClientGone reports whether err is only that the request's context
// ended: the client went away (or the server is stopping), which is no
// fault of the server's to log as an error.
func ClientGone(err error) bool {
	return errors.Is(err, context.Canceled) && kanri.ErrorCode(err) != kanri.EBUSY
}

// ErrStopping is the cause with which the composition root cancels the
// requests still running when the server stops (context.WithCancelCause):
// their clients are still there, and are answered 503.
var ErrStopping = errors.New("the server is stopping")

// StatusClientClosed is the status the request log and the API's usage
// log give a request whose client went away before its answer (nginx's
// 499): never sent, and no fault of the server's (not a 5xx).
const StatusClientClosed = 499

// ctxGone marks a request whose client went away (an echo.Context value).
const ctxGone = "clientGone"

// MarkGone records that the request's client went away, when err says so
// and the request's context was not ended by the server stopping.
func MarkGone(c echo.Context, err error) {
	if ClientGone(err) && !errors.Is(context.Cause(c.Request().Context()), ErrStopping) {
		c.Set(ctxGone, true)
	}
}

// LoggedStatus returns the status the logs give the request's answer:
// statusClientClosed when its client went away, else the status sent.
func LoggedStatus(c echo.Context) int {
	if Gone(c) {
		return StatusClientClosed
	}
	return c.Response().Status
}

// Gone reports whether MarkGone marked the request: its client went away.
func Gone(c echo.Context) bool {
	gone, _ := c.Get(ctxGone).(bool)
	return gone
}

// Message translates err's message key for the request, or fallback when
// err carries none of its own.
func Message(ctx context.Context, err error, fallback string) string {
	key, args := MessageOf(err, fallback)
	return i18n.T(ctx, key, args...)
}

// MessageOf returns the message key of err, with its arguments, or
// fallback when err carries none of its own.
func MessageOf(err error, fallback string) (string, []any) {
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

// Abandoned logs a request that ended with its context: at info level,
// as a client that went away, or as cut by the server stopping.
func Abandoned(logger *slog.Logger, c echo.Context, err error) {
	what := "request abandoned: the client went away"
	if !Gone(c) {
		what = "request cut short: the server is stopping"
	}
	logger.InfoContext(c.Request().Context(), what, "err", err, "request_id", RequestID(c), "path", c.Request().URL.Path)
}

// Unanswered reports whether the request's error still needs an answer
// (nothing was sent yet), marking a client that went away (MarkGone). A
// body that stalled or ended early ends the request's context too, yet
// its client waits for the answer: the request's context is detached
// from its end, so that the answer can still be rendered.
func Unanswered(c echo.Context, err error) bool {
	if c.Response().Committed {
		return false
	}
	MarkGone(c, err)
	if c.Request().Context().Err() != nil {
		c.SetRequest(c.Request().WithContext(context.WithoutCancel(c.Request().Context())))
	}
	return true
}
