package httpkit

import (
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
)

// contentPolicy is the Content-Security-Policy of a file's bytes: a
// sandbox without scripts, whatever the file holds, that only Kanri's own
// pages may frame (the file's page shows the preview).
const contentPolicy = "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'self'"

// Content is a file's bytes as the files service reads them: Failed
// reports that they could not all be read, or did not match the file's
// checksum. File, when not nil, is the bytes' local file, sent as it is
// (sendfile), and Sent is told how many bytes went.
type Content interface {
	io.ReadSeekCloser
	Failed() bool
	File() *os.File
	Sent(n int64)
}

// ServeFile streams a file's content as the disposition (attachment or
// inline) of the content type, with http.ServeContent (Range, If-Range,
// If-None-Match against the file's checksum as its ETag). The answer is
// never sniffed or run: nosniff, and a CSP sandbox without scripts. The
// console's download and preview and the API's content send it this one
// way.
func ServeFile(c echo.Context, f *kanri.File, content Content, disposition, contentType string) error {
	w := c.Response()
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", contentPolicy)
	if disposition == "inline" {
		// The file's page frames its preview; no other site may.
		h.Set("X-Frame-Options", "SAMEORIGIN")
	}
	h.Set("Cache-Control", "private, no-cache")
	h.Set(echo.HeaderContentType, contentType)
	h.Set("Content-Disposition", contentDisposition(disposition, f.Name)) // its file name, extension included: a title may have none
	h.Set("ETag", `"`+strings.TrimPrefix(f.Checksum, "sha256:")+`"`)
	// A large file takes as long as it takes: no write deadline, and
	// no place among the requests that use the CPUs.
	_ = http.NewResponseController(w.Writer).SetWriteDeadline(time.Time{})
	Release(c)
	defer content.Close()
	req := c.Request()
	if r, ok := bytesRange(req.Header.Get("Range")); ok {
		req.Header.Set("Range", r)
	} else {
		req.Header.Del("Range") // another unit (items=0-5): ignored, the whole is sent (RFC 9110 §14.2)
	}
	rw := &rangeRefusal{ResponseWriter: w.Writer, size: f.Size}
	if file := content.File(); file != nil {
		http.ServeContent(rw, req, "", f.UploadedAt.Time, file)
		content.Sent(rw.sent)
		return nil
	}
	http.ServeContent(rw, req, "", f.UploadedAt.Time, content)
	if content.Failed() {
		// The answer is shorter than its Content-Length: end the
		// connection so that the recipient sees the download failed.
		panic(http.ErrAbortHandler)
	}
	return nil
}

// bytesRange returns a Range header of the unit bytes with its unit as
// http.ServeContent reads it (lower case: units compare ignoring case),
// and false for a header of another unit, or none, which is ignored.
func bytesRange(h string) (string, bool) {
	unit, set, ok := strings.Cut(h, "=")
	if !ok || !strings.EqualFold(strings.TrimSpace(unit), "bytes") {
		return "", false
	}
	return "bytes=" + set, true
}

// rangeRefusal passes an answer through, and gives a 416 Content-Range:
// bytes */size when it has none (http.ServeContent gives it only to a
// range past the end, not to one it cannot read, RFC 9110 §15.5.17).
type rangeRefusal struct {
	http.ResponseWriter
	size int64
	sent int64 // the body's bytes written
}

func (w *rangeRefusal) WriteHeader(code int) {
	if h := w.Header(); code == http.StatusRequestedRangeNotSatisfiable && h.Get("Content-Range") == "" {
		h.Set("Content-Range", fmt.Sprintf("bytes */%d", w.size))
	}
	w.ResponseWriter.WriteHeader(code)
}

// ReadFrom sends r through the writer underneath when it can (net/http's
// sends a file with sendfile).
func (w *rangeRefusal) ReadFrom(r io.Reader) (int64, error) {
	var n int64
	var err error
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(r)
	} else {
		n, err = io.Copy(struct{ io.Writer }{w.ResponseWriter}, r)
	}
	w.sent += n
	return n, err
}

func (w *rangeRefusal) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.sent += int64(n)
	return n, err
}

// Unwrap returns the writer underneath, for http.ResponseController.
func (w *rangeRefusal) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// contentDisposition returns a Content-Disposition (RFC 6266) naming the
// file: an ASCII fallback and the exact name in UTF-8 (RFC 5987), so that
// Japanese names survive.
func contentDisposition(kind, name string) string {
	fallback := strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' || r == '%' || r == ';' {
			return '_'
		}
		return r
	}, name)
	if v := mime.FormatMediaType(kind, map[string]string{"filename": name}); v != "" && !strings.Contains(v, "filename*") {
		return v
	}
	return fmt.Sprintf(`%s; filename="%s"; filename*=UTF-8''%s`, kind, fallback, pathEscapeAll(name))
}

// pathEscapeAll percent-encodes every byte but RFC 5987's attr-chars.
func pathEscapeAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || strings.IndexByte("!#$&+-.^_`|~", ch) >= 0 {
			b.WriteByte(ch)
		} else {
			fmt.Fprintf(&b, "%%%02X", ch)
		}
	}
	return b.String()
}

// SendImage sends an image Kanri made (a thumbnail, an avatar) from r,
// which it closes: never sniffed as anything else, kept by the browser
// for a day and by no shared cache.
func SendImage(c echo.Context, r io.ReadCloser, contentType string) error {
	defer r.Close()
	h := c.Response().Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "private, max-age=86400")
	return c.Stream(http.StatusOK, contentType, r)
}
