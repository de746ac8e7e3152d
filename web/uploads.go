package web

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"hash"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
)

// Resumable uploads speak the tus 1.0 protocol (https://tus.io/protocols/
// resumable-upload): the core, and the creation, termination, expiration
// and checksum extensions. The console's uploads (tus-js-client) and the
// API's share these handlers; only the tenant and the address of an
// upload differ.
const (
	tusVersion    = "1.0.0"
	tusExtensions = "creation,termination,expiration,checksum"
	tusChecksums  = "sha1,sha256"
	// tusOffsetType is the content type of a PATCH's bytes.
	tusOffsetType = "application/offset+octet-stream"
	// statusChecksumMismatch is tus's status for a part whose checksum
	// did not match.
	statusChecksumMismatch = 460
	// uploadIdle is how long an upload's body may send nothing before the
	// request is ended (the server's read and write timeouts are lifted
	// for uploads, which may take hours).
	uploadIdle = time.Minute
)

// maxTusMetadata is the longest Upload-Metadata kept with an upload (the
// file's name, type and folder take far less).
const maxTusMetadata = 4 << 10

// tusRoute is where an upload's requests go: its tenant and the address
// of its uploads.
type tusRoute struct {
	tenantID string
	base     string // the uploads' collection, e.g. /t/tenant_acme/uploads
}

// tusHeaders sets the headers every tus answer has.
func tusHeaders(c echo.Context) {
	h := c.Response().Header()
	h.Set("Tus-Resumable", tusVersion)
	h.Set("Cache-Control", "no-store")
}

// tusCheck refuses a request of another protocol version (412, naming the
// version spoken).
func tusCheck(c echo.Context) error {
	tusHeaders(c)
	if c.Request().Header.Get("Tus-Resumable") != tusVersion {
		c.Response().Header().Set("Tus-Version", tusVersion)
		if isAPI(c) {
			return apiProblem(c, http.StatusPreconditionFailed, "")
		}
		return c.NoContent(http.StatusPreconditionFailed)
	}
	return nil
}

// tusOptions answers what the server supports.
func (s *Server) tusOptions(c echo.Context, tenantID string) error {
	tusHeaders(c)
	h := c.Response().Header()
	h.Set("Tus-Version", tusVersion)
	h.Set("Tus-Extension", tusExtensions)
	h.Set("Tus-Checksum-Algorithm", tusChecksums)
	if limits, err := s.Files.Limits(c.Request().Context(), tenantID); err == nil {
		h.Set("Tus-Max-Size", strconv.FormatInt(limits.MaxFileSize, 10))
	}
	return c.NoContent(http.StatusNoContent)
}

// tusCreate begins an upload (the creation extension). Its metadata names
// the file (filename or name), its type (filetype or type) and the folder
// it goes to (folderId).
func (s *Server) tusCreate(c echo.Context, r tusRoute) error {
	if err := tusCheck(c); err != nil || c.Response().Committed {
		return err
	}
	req := c.Request()
	if req.Header.Get("Upload-Defer-Length") != "" {
		return tusError(c, http.StatusBadRequest, i18n.T(req.Context(), "files.defer_length"))
	}
	size, err := strconv.ParseInt(req.Header.Get("Upload-Length"), 10, 64)
	if err != nil || size < 0 {
		return tusError(c, http.StatusBadRequest, i18n.T(req.Context(), "files.bad_length"))
	}
	raw := strings.TrimSpace(req.Header.Get("Upload-Metadata"))
	meta, ok := tusMetadata(raw)
	if !ok || len(raw) > maxTusMetadata {
		return tusError(c, http.StatusBadRequest, i18n.T(req.Context(), "files.bad_metadata"))
	}
	in := files.UploadInput{Name: first(meta["filename"], meta["name"]), Size: size, FolderID: meta["folderId"], ContentType: first(meta["filetype"], meta["type"]), Metadata: raw}
	up, err := s.Files.CreateUpload(req.Context(), r.tenantID, in)
	if err != nil {
		return s.tusFailure(c, renamedField(err, "name", "filename")) // the metadata's key
	}
	h := c.Response().Header()
	h.Set(echo.HeaderLocation, r.base+"/"+up.ID)
	h.Set("Upload-Expires", up.ExpiresAt.UTC().Format(http.TimeFormat))
	return c.NoContent(http.StatusCreated)
}

// first returns the first of vs that is not empty.
func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// tusMetadata reads Upload-Metadata: comma-separated pairs of a key and a
// base64 value (a key alone has the empty value).
func tusMetadata(h string) (map[string]string, bool) {
	out := map[string]string{}
	if strings.TrimSpace(h) == "" {
		return out, true
	}
	for _, pair := range strings.Split(h, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(pair), " ")
		if k == "" {
			return nil, false
		}
		b, err := base64.StdEncoding.DecodeString(v)
		if err != nil {
			return nil, false
		}
		out[k] = string(b)
	}
	return out, true
}

// tusHead says how far an upload got.
func (s *Server) tusHead(c echo.Context, r tusRoute) error {
	if err := tusCheck(c); err != nil || c.Response().Committed {
		return err
	}
	ctx := c.Request().Context()
	up, err := s.Files.Upload(ctx, r.tenantID, c.Param("upload"))
	if err != nil {
		return s.tusFailure(c, err)
	}
	if up.Offset == up.Size && up.CompletedAt.IsZero() {
		// Every byte arrived, but the server stopped before the upload
		// became a file: a client told the offset would take it as done,
		// so it is finished now.
		if _, _, err := s.Files.WriteUpload(ctx, r.tenantID, up.ID, up.Offset, http.NoBody, nil); err != nil {
			return s.tusFailure(c, err)
		}
		if up, err = s.Files.Upload(ctx, r.tenantID, up.ID); err != nil {
			return s.tusFailure(c, err)
		}
	}
	tusProgress(c, up)
	h := c.Response().Header()
	h.Set("Upload-Length", strconv.FormatInt(up.Size, 10))
	if up.Metadata != "" {
		h.Set("Upload-Metadata", up.Metadata) // as given at creation (tus 1.0, creation)
	}
	return c.NoContent(http.StatusOK)
}

// tusProgress sets the headers of an upload's progress, and its file once
// it completed.
func tusProgress(c echo.Context, up *kanri.Upload) {
	h := c.Response().Header()
	h.Set("Upload-Offset", strconv.FormatInt(up.Offset, 10))
	h.Set("Upload-Expires", up.ExpiresAt.UTC().Format(http.TimeFormat))
	if !up.CompletedAt.IsZero() {
		h.Set("Kanri-File-Id", up.FileID)
	}
}

// tusPatch appends a request's bytes to an upload. The body streams into
// the blob store in blocks; the server's read and write timeouts are
// lifted for it, and a body idle for uploadIdle ends the request (what
// arrived is kept).
func (s *Server) tusPatch(c echo.Context, r tusRoute) error {
	if err := tusCheck(c); err != nil || c.Response().Committed {
		return err
	}
	req := c.Request()
	ctx := req.Context()
	if ct, _, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType)); ct != tusOffsetType {
		return tusError(c, http.StatusUnsupportedMediaType, i18n.T(ctx, "files.bad_patch_type"))
	}
	offset, err := strconv.ParseInt(req.Header.Get("Upload-Offset"), 10, 64)
	if err != nil || offset < 0 {
		return tusError(c, http.StatusBadRequest, i18n.T(ctx, "files.bad_offset"))
	}
	var sum *files.Checksum
	if v := req.Header.Get("Upload-Checksum"); v != "" {
		if sum, err = tusChecksum(v); err != nil {
			return tusError(c, http.StatusBadRequest, i18n.T(ctx, "files.bad_checksum"))
		}
	}
	up, err := s.Files.Upload(ctx, r.tenantID, c.Param("upload"))
	if err != nil {
		return s.tusFailure(c, err)
	}
	// As tusd: the offset first (409, saying where the upload stands),
	// then the length (413).
	if offset != up.Offset {
		return s.tusFailure(c, files.OffsetMismatch(up))
	}
	remaining := up.Size - offset
	if req.ContentLength > remaining {
		return tusError(c, http.StatusRequestEntityTooLarge, i18n.T(ctx, "files.past_length"))
	}
	rc := http.NewResponseController(c.Response().Writer)
	body := &idleBody{rc: rc, r: http.MaxBytesReader(c.Response(), req.Body, remaining)}
	body.extend()
	var file *kanri.File
	if !up.CompletedAt.IsZero() {
		// Complete: a byte more would overrun it (413), which a body of
		// unknown length shows only once read; an empty PATCH, a
		// client's retry of its last, changes nothing (204, as tusd's).
		_, err = io.Copy(io.Discard, body)
	}
	if err == nil {
		up, file, err = s.Files.WriteUpload(ctx, r.tenantID, up.ID, offset, body, sum)
	}
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			return tusError(c, http.StatusRequestEntityTooLarge, i18n.T(ctx, "files.past_length"))
		case errors.Is(err, files.ErrChecksum):
			return tusError(c, statusChecksumMismatch, i18n.T(ctx, "files.checksum_mismatch"))
		case body.failed != nil || errors.Is(err, io.ErrUnexpectedEOF):
			// The client went away or stalled: what arrived is kept, and
			// the client resumes from Upload-Offset.
			s.Logger.Info("upload interrupted", "upload", up.ID, "err", err, "request_id", reqID(c))
			if up != nil {
				tusProgress(c, up)
			}
			return c.NoContent(http.StatusNoContent)
		}
		return s.tusFailure(c, err)
	}
	tusProgress(c, up)
	if file != nil {
		c.Response().Header().Set("Kanri-File-Id", file.ID)
	}
	return c.NoContent(http.StatusNoContent)
}

// tusChecksum reads Upload-Checksum: an algorithm and the base64 digest.
func tusChecksum(v string) (*files.Checksum, error) {
	algo, digest, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok {
		return nil, errors.New("tus: checksum without a digest")
	}
	want, err := base64.StdEncoding.DecodeString(digest)
	if err != nil {
		return nil, err
	}
	var h hash.Hash
	switch algo {
	case "sha1":
		h = sha1.New()
	case "sha256":
		h = sha256.New()
	default:
		return nil, errors.New("tus: unsupported checksum algorithm " + algo)
	}
	return &files.Checksum{Hash: h, Digest: want}, nil
}

// tusDelete gives an upload up (the termination extension).
func (s *Server) tusDelete(c echo.Context, r tusRoute) error {
	if err := tusCheck(c); err != nil || c.Response().Committed {
		return err
	}
	// In the console, one's own upload, or anyone's for an administrator
	// (as the files page's Cancel); a key acts for the tenant's uploads.
	ctx := c.Request().Context()
	anyone := isAPI(c) || can(c, role.FilesDelete)
	if _, err := s.Files.CancelUpload(ctx, r.tenantID, c.Param("upload"), audit.ActorFrom(ctx).UserID, anyone); err != nil {
		return s.tusFailure(c, err)
	}
	return c.NoContent(http.StatusNoContent)
}

// tusFailure answers a domain error to a tus client: the status of the
// error, with the message in the caller's language as the body (which
// tus-js-client hands to the page).
func (s *Server) tusFailure(c echo.Context, err error) error {
	st := status(err)
	if st == http.StatusInternalServerError || clientGone(err) {
		return err // logged and answered by the error handler
	}
	if kanri.IsCode(err, kanri.ECONFLICT) {
		if key, args := kanri.ErrorMessage(err); key == "files.upload_offset" && len(args) == 1 {
			if n, ok := args[0].(int64); ok {
				c.Response().Header().Set("Upload-Offset", strconv.FormatInt(n, 10))
			}
		}
	}
	ctx := c.Request().Context()
	key, args := kanri.ErrorMessage(err)
	msg := i18n.T(ctx, key, args...)
	if isAPI(c) {
		// A problem like any of the API's: an invalid input names its
		// fields in errors.
		tusHeaders(c)
		errs, detail := fieldErrors(ctx, err, msg)
		return apiFieldProblem(c, st, detail, errs)
	}
	if fields := kanri.ErrorFields(err); len(fields) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(fields)) {
			parts = append(parts, i18n.T(ctx, fields[k]))
		}
		msg = strings.Join(parts, " ")
	}
	return tusError(c, st, msg)
}

// tusError answers a status with a message as plain text, or to an API
// key as a problem document whose detail is the message.
func tusError(c echo.Context, status int, msg string) error {
	tusHeaders(c)
	if isAPI(c) {
		return apiProblem(c, status, msg)
	}
	return c.String(status, msg)
}

// idleBody is an upload's body: each read pushes the connection's read
// deadline uploadIdle ahead, so a body may take as long as it needs but
// never stall for long. failed keeps a read's error.
type idleBody struct {
	rc     *http.ResponseController
	r      io.Reader
	failed error
}

func (b *idleBody) extend() {
	_ = b.rc.SetReadDeadline(time.Now().Add(uploadIdle))
	_ = b.rc.SetWriteDeadline(time.Now().Add(uploadIdle))
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.extend()
	if err != nil && !errors.Is(err, io.EOF) {
		var tooLarge *http.MaxBytesError
		if !errors.As(err, &tooLarge) {
			b.failed = err
		}
	}
	return n, err
}
