package httpkit

import (
	"bytes"
	"strconv"
	"sync"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/views"
)

// Render writes a templ component with the given status. The page is
// rendered into a buffer first and sent in one write with its length, so
// a failed render becomes an error page instead of half a page, and a
// page costs one system call instead of one per 4 KB.
func Render(c echo.Context, status int, comp templ.Component) error {
	buf := pages.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledPage {
			buf.Reset()
			pages.Put(buf)
		}
	}()
	if err := comp.Render(c.Request().Context(), buf); err != nil {
		return err
	}
	if IsHTMX(c) && Reads(c) && status < 300 && c.Request().Header.Get(views.LiveRefresh) == "" {
		// A part of a page replaced in place at the person's request: the
		// message of the action before goes.
		if err := views.FlashCleared().Render(c.Request().Context(), buf); err != nil {
			return err
		}
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	h.Set(echo.HeaderContentLength, strconv.Itoa(buf.Len()))
	c.Response().WriteHeader(status)
	_, err := c.Response().Write(buf.Bytes())
	return err
}

// pages holds the buffers pages are rendered into; buffers that grew past
// maxPooledPage (a rare huge page) are left to the garbage collector.
var pages = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledPage = 1 << 20

// IsHTMX reports whether the request came from htmx for a part of a page:
// not a boosted navigation, nor the restore of a history entry (the Back
// button), which want a full page.
func IsHTMX(c echo.Context) bool {
	h := c.Request().Header
	return h.Get("HX-Request") == "true" && h.Get("HX-Boosted") != "true" && h.Get("HX-History-Restore-Request") != "true"
}
