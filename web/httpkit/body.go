package httpkit

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
)

// DefaultBodyTimeout is how long a request's body may take to arrive when
// Config.BodyTimeout is not set: a client that sends less than it
// announced, and then nothing, is answered 408 after it.
const DefaultBodyTimeout = 10 * time.Second

// ConsoleBodyLimit is the largest body a console form may send.
const ConsoleBodyLimit = 2 << 20

// Errors of a body that could not be read.
var (
	errBodyTooLarge = echo.NewHTTPError(http.StatusRequestEntityTooLarge)
	errBodyStalled  = echo.NewHTTPError(http.StatusRequestTimeout)
	errBodyShort    = kanri.E(kanri.EMALFORMED, "input.body_short")
)

// Bodies limits the request bodies of a route group to limit bytes
// (exactly: limit bytes are read, one more is 413) and gives each body
// timeout to arrive, from its first read. A console
// form (parseForm) is read here, so that a body that cannot be read is
// answered as such rather than read by the handler as empty fields.
func Bodies(timeout time.Duration, limit int64, parseForm bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if req.ContentLength > limit {
				return errBodyTooLarge
			}
			if req.Body == nil || req.Body == http.NoBody {
				return next(c)
			}
			b := &deadlineBody{rc: http.NewResponseController(c.Response()), timeout: timeout, body: http.MaxBytesReader(c.Response(), req.Body, limit)}
			defer b.clear()
			req.Body = b
			if parseForm && req.Method == http.MethodPost {
				if err := readForm(req); err != nil {
					return err
				}
			}
			return next(c)
		}
	}
}

// readForm parses a form body, mapping what cannot be read to its status.
func readForm(req *http.Request) error {
	ct, _, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType))
	var err error
	switch ct {
	case "application/x-www-form-urlencoded":
		err = req.ParseForm()
	case "multipart/form-data":
		err = req.ParseMultipartForm(ConsoleBodyLimit)
	default:
		return nil
	}
	if err == nil {
		return nil
	}
	if e := BodyError(err); e != nil {
		return e
	}
	return echo.NewHTTPError(http.StatusBadRequest)
}

// BodyError returns the error to answer for an error reading a body: 413
// over the limit, 408 when it stalled, 400 when it ended early, or nil when
// err is none of these.
func BodyError(err error) error {
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge) || errors.Is(err, errBodyTooLarge):
		return errBodyTooLarge
	case errors.Is(err, os.ErrDeadlineExceeded):
		return errBodyStalled
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errBodyShort
	}
	return nil
}

// deadlineBody is a request body with a read deadline: from its first
// read the body has timeout to arrive. The deadline is cleared once the
// body is read (or the handler is done), so that it never ends the
// request's context while the handler works; once it has passed it stays,
// so that the server, which reads what is left of a body before it
// answers, gives up on the stalled rest at once too.
type deadlineBody struct {
	rc      *http.ResponseController
	timeout time.Duration
	body    io.ReadCloser
	set     bool
	expired bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	if !b.set && !b.expired {
		b.set = true
		_ = b.rc.SetReadDeadline(time.Now().Add(b.timeout)) // a writer without deadlines has none
	}
	n, err := b.body.Read(p)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		b.set, b.expired = false, true
	case err != nil:
		b.clear()
	}
	return n, err
}

func (b *deadlineBody) Close() error { return b.body.Close() }

// clear takes the body's read deadline off the connection, unless it has
// passed.
func (b *deadlineBody) clear() {
	if b.set {
		b.set = false
		_ = b.rc.SetReadDeadline(time.Time{})
	}
}
