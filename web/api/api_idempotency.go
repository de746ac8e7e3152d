package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/web/httpkit"
)

// The headers of idempotent POSTs.
const (
	hdrIdempotencyKey     = "Idempotency-Key"
	hdrIdempotentReplayed = "Idempotent-Replayed"
)

// maxIdempotencyKey is the longest Idempotency-Key taken, in bytes.
const maxIdempotencyKey = 255

// replayedHeaders are the headers of an answer that its replays repeat:
// a JSON answer's, and a tus creation's.
var replayedHeaders = []string{echo.HeaderContentType, HdrLocation, HdrETag, HdrTusResumable, HdrUploadExpires}

// apiIdempotent makes a POST sent with an Idempotency-Key happen once: the
// first request with the key claims it (in the store, before it is
// served) and its answer is recorded; the same request sent again with
// the key within 24 hours gets that answer again (status, Location, ETag
// and body, with Idempotent-Replayed: true) without being served again.
// The key sent with another request (method, path with its query, body)
// is 422; sent while its first request is still being served, 409. An
// answer of 5xx is not recorded: the key is free again. Keys are the API
// key's own.
//
// headers are the request headers that say what the request asks beside
// its body (a tus creation's Upload-Length and Upload-Metadata): the
// same key sent with other values of them is another request, 422.
func (s *Server) apiIdempotent(headers []string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error { return s.idempotent(c, next, headers) }
	}
}

// idempotent serves a request of an apiIdempotent route.
func (s *Server) idempotent(c echo.Context, next echo.HandlerFunc, headers []string) error {
	req := c.Request()
	keys := req.Header.Values(hdrIdempotencyKey)
	if len(keys) == 0 {
		return next(c)
	}
	if len(keys) > 1 || !validIdempotencyKey(keys[0]) {
		return kanri.Invalid(kanri.Fields{hdrIdempotencyKey: "validation.idempotency_key"})
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return err // over the body limit: 413
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	h := sha256.New()
	io.WriteString(h, req.Method+" "+req.URL.RequestURI()+"\n")
	for _, name := range headers {
		io.WriteString(h, name+": "+strings.Join(req.Header.Values(name), ", ")+"\n")
	}
	h.Write(body)
	ctx := req.Context()
	rec, err := s.Keys.ClaimIdempotency(ctx, KeyOf(c), keys[0], hex.EncodeToString(h.Sum(nil)))
	if err != nil {
		return err
	}
	if rec.Done {
		return replay(c, rec)
	}
	res := c.Response()
	w := &teeWriter{ResponseWriter: res.Writer}
	res.Writer = w
	if err := next(c); err != nil {
		c.Error(err) // answer now, so that the answer is known
	}
	res.Writer = w.ResponseWriter
	done := context.WithoutCancel(ctx) // the answer is given: record it even if the client has gone
	if res.Status >= http.StatusInternalServerError || !res.Committed {
		if err := s.Keys.ReleaseIdempotency(done, rec); err != nil {
			s.Logger.WarnContext(c.Request().Context(), "idempotency key not released", "err", err, "request_id", httpkit.RequestID(c))
		}
		return nil
	}
	header := map[string]string{}
	for _, name := range replayedHeaders {
		if v := res.Header().Get(name); v != "" {
			header[name] = v
		}
	}
	if err := s.Keys.FinishIdempotency(done, rec, res.Status, header, w.body.Bytes()); err != nil {
		// The claim stays until its lease ends: a repeat meanwhile is
		// 409, never served twice.
		s.Logger.WarnContext(c.Request().Context(), "idempotent answer not recorded", "err", err, "request_id", httpkit.RequestID(c))
	}
	return nil
}

// validIdempotencyKey reports whether an Idempotency-Key is 1 to 255
// printable ASCII characters.
func validIdempotencyKey(k string) bool {
	if k == "" || len(k) > maxIdempotencyKey {
		return false
	}
	for i := range len(k) {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// replay gives a recorded answer again.
func replay(c echo.Context, rec *kanri.IdempotencyRecord) error {
	h := c.Response().Header()
	for name, v := range rec.Header {
		h.Set(name, v)
	}
	h.Set(hdrIdempotentReplayed, "true")
	if len(rec.Body) == 0 {
		return c.NoContent(rec.Status)
	}
	return c.Blob(rec.Status, rec.Header[echo.HeaderContentType], rec.Body)
}

// teeWriter keeps a copy of the body written through it.
type teeWriter struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (w *teeWriter) Write(b []byte) (int, error) {
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

// Unwrap returns the writer underneath, for http.ResponseController.
func (w *teeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
