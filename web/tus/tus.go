// Package tus serves resumable uploads by the tus 1.0 protocol
// (https://tus.io/protocols/resumable-upload): the core, and the creation,
// termination, expiration and checksum extensions. As tusd separates its
// handler from its data stores, a Handler speaks the protocol over a Store
// (the files service) and answers refusals in the format of where it is
// mounted: the console's uploads (tus-js-client) and the API's share it,
// and differ only in the address of their uploads and their errors.
package tus

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"hash"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/telemetry"
	"github.com/kanri/kanri/web/httpkit"
)

// What the server speaks.
const (
	// Version is the protocol's version, the only one spoken.
	Version = "1.0.0"
	// Extensions are the extensions supported (Tus-Extension).
	Extensions = "creation,termination,expiration,checksum"
	// Checksums are the algorithms Upload-Checksum takes.
	Checksums = "sha1,sha256"
	// OffsetType is the content type of a PATCH's bytes.
	OffsetType = "application/offset+octet-stream"
	// StatusChecksumMismatch is tus's status for a part whose checksum
	// did not match.
	StatusChecksumMismatch = 460
	// idle is how long an upload's body may send nothing before the
	// request is ended (the server's read and write timeouts are lifted
	// for uploads, which may take hours).
	idle = time.Minute
)

// maxMetadata is the longest Upload-Metadata kept with an upload (the
// file's name, type and folder take far less).
const maxMetadata = 4 << 10

// Store keeps the uploads: what the protocol asks of the files service,
// which satisfies it. Every call names the tenant whose uploads it acts
// on; an upload of another tenant is not found.
type Store interface {
	// Limits says how large a file of the tenant may be.
	Limits(ctx context.Context, tenantID string) (kanri.FileLimits, error)
	// CreateUpload begins an upload.
	CreateUpload(ctx context.Context, tenantID string, in files.UploadInput) (*kanri.Upload, error)
	// Upload returns an upload.
	Upload(ctx context.Context, tenantID, id string) (*kanri.Upload, error)
	// WriteUpload appends body at offset (files.OffsetMismatch when the
	// upload stands elsewhere), checking sum when it is not nil; the
	// file is returned once the upload completes.
	WriteUpload(ctx context.Context, tenantID, id string, offset int64, body io.Reader, sum *files.Checksum) (*kanri.Upload, *kanri.File, error)
	// CancelUpload gives an upload up: userID's own, or anyone's.
	CancelUpload(ctx context.Context, tenantID, id, userID string, anyone bool) (*kanri.Upload, error)
}

// Mount is what differs between where the protocol is served.
type Mount struct {
	// Base returns the address of the uploads of the request's tenant
	// (httpkit.Tenant), to which a new upload's id is appended.
	Base func(c echo.Context) string
	// CancelsAny reports whether the caller may give up anyone's upload,
	// not only their own.
	CancelsAny func(c echo.Context) bool
	// Refuse answers a refusal: its status, the message in the caller's
	// language (empty for a refusal of the protocol's version), and the
	// domain error behind it, whose invalid fields it may name (nil for
	// a refusal of the protocol's own). The tus headers are set.
	Refuse func(c echo.Context, status int, msg string, err error) error
	// Metrics count the uploads in progress and the bytes they receive
	// (none when nil).
	Metrics *telemetry.Metrics
}

// Handler serves the protocol's requests of one mount.
type Handler struct {
	store  Store
	logger *slog.Logger
	mount  Mount
}

// New returns a handler of m's uploads kept in store.
func New(store Store, logger *slog.Logger, m Mount) *Handler {
	return &Handler{store: store, logger: logger, mount: m}
}

// headers sets the headers every tus answer has.
func headers(c echo.Context) {
	h := c.Response().Header()
	h.Set("Tus-Resumable", Version)
	h.Set("Cache-Control", "no-store")
}

// check refuses a request of another protocol version (412, naming the
// version spoken).
func (h *Handler) check(c echo.Context) error {
	headers(c)
	if c.Request().Header.Get("Tus-Resumable") != Version {
		c.Response().Header().Set("Tus-Version", Version)
		return h.mount.Refuse(c, http.StatusPreconditionFailed, "", nil)
	}
	return nil
}

// Options answers what the server supports.
func (h *Handler) Options(c echo.Context) error {
	headers(c)
	hd := c.Response().Header()
	hd.Set("Tus-Version", Version)
	hd.Set("Tus-Extension", Extensions)
	hd.Set("Tus-Checksum-Algorithm", Checksums)
	if limits, err := h.store.Limits(c.Request().Context(), httpkit.Tenant(c).ID); err == nil {
		hd.Set("Tus-Max-Size", strconv.FormatInt(limits.MaxFileSize, 10))
	}
	return c.NoContent(http.StatusNoContent)
}

// OptionsAt answers OPTIONS at an upload's address as at the uploads'
// own, for an upload of the request's tenant; another's is not found.
func (h *Handler) OptionsAt(c echo.Context) error {
	if _, err := h.store.Upload(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("upload")); err != nil {
		headers(c)
		return h.failure(c, err)
	}
	return h.Options(c)
}

// Create begins an upload (the creation extension). Its metadata names
// the file (filename or name), its type (filetype or type) and the folder
// it goes to (folderId).
func (h *Handler) Create(c echo.Context) error {
	if err := h.check(c); err != nil || c.Response().Committed {
		return err
	}
	req := c.Request()
	if req.Header.Get("Upload-Defer-Length") != "" {
		return h.refuse(c, http.StatusBadRequest, i18n.T(req.Context(), "files.defer_length"))
	}
	size, err := strconv.ParseInt(req.Header.Get("Upload-Length"), 10, 64)
	if err != nil || size < 0 {
		return h.refuse(c, http.StatusBadRequest, i18n.T(req.Context(), "files.bad_length"))
	}
	raw := strings.TrimSpace(req.Header.Get("Upload-Metadata"))
	meta, ok := metadata(raw)
	if !ok || len(raw) > maxMetadata {
		return h.refuse(c, http.StatusBadRequest, i18n.T(req.Context(), "files.bad_metadata"))
	}
	in := files.UploadInput{Name: first(meta["filename"], meta["name"]), Size: size, FolderID: meta["folderId"], ContentType: first(meta["filetype"], meta["type"]), Metadata: raw}
	up, err := h.store.CreateUpload(req.Context(), httpkit.Tenant(c).ID, in)
	if err != nil {
		return h.failure(c, kanri.RenamedField(err, "name", "filename")) // the metadata's key
	}
	hd := c.Response().Header()
	hd.Set(echo.HeaderLocation, h.mount.Base(c)+"/"+up.ID)
	hd.Set("Upload-Expires", up.ExpiresAt.UTC().Format(http.TimeFormat))
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

// metadata reads Upload-Metadata: comma-separated pairs of a key and a
// base64 value (a key alone has the empty value).
func metadata(h string) (map[string]string, bool) {
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

// Head says how far an upload got.
func (h *Handler) Head(c echo.Context) error {
	if err := h.check(c); err != nil || c.Response().Committed {
		return err
	}
	ctx := c.Request().Context()
	tenantID := httpkit.Tenant(c).ID
	up, err := h.store.Upload(ctx, tenantID, c.Param("upload"))
	if err != nil {
		return h.failure(c, err)
	}
	if up.Offset == up.Size && up.CompletedAt.IsZero() {
		// Every byte arrived, but the server stopped before the upload
		// became a file: a client told the offset would take it as done,
		// so it is finished now.
		if _, _, err := h.store.WriteUpload(ctx, tenantID, up.ID, up.Offset, http.NoBody, nil); err != nil {
			return h.failure(c, err)
		}
		if up, err = h.store.Upload(ctx, tenantID, up.ID); err != nil {
			return h.failure(c, err)
		}
	}
	progress(c, up)
	hd := c.Response().Header()
	hd.Set("Upload-Length", strconv.FormatInt(up.Size, 10))
	if up.Metadata != "" {
		hd.Set("Upload-Metadata", up.Metadata) // as given at creation (tus 1.0, creation)
	}
	return c.NoContent(http.StatusOK)
}

// progress sets the headers of an upload's progress, and its file once
// it completed.
func progress(c echo.Context, up *kanri.Upload) {
	h := c.Response().Header()
	h.Set("Upload-Offset", strconv.FormatInt(up.Offset, 10))
	h.Set("Upload-Expires", up.ExpiresAt.UTC().Format(http.TimeFormat))
	if !up.CompletedAt.IsZero() {
		h.Set("Kanri-File-Id", up.FileID)
	}
}

// Patch appends a request's bytes to an upload. The body streams into
// the blob store in blocks; the server's read and write timeouts are
// lifted for it, and a body idle for idle ends the request (what
// arrived is kept).
func (h *Handler) Patch(c echo.Context) error {
	if err := h.check(c); err != nil || c.Response().Committed {
		return err
	}
	req := c.Request()
	ctx := req.Context()
	if ct, _, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType)); ct != OffsetType {
		return h.refuse(c, http.StatusUnsupportedMediaType, i18n.T(ctx, "files.bad_patch_type"))
	}
	offset, err := strconv.ParseInt(req.Header.Get("Upload-Offset"), 10, 64)
	if err != nil || offset < 0 {
		return h.refuse(c, http.StatusBadRequest, i18n.T(ctx, "files.bad_offset"))
	}
	var sum *files.Checksum
	if v := req.Header.Get("Upload-Checksum"); v != "" {
		if sum, err = checksum(v); err != nil {
			return h.refuse(c, http.StatusBadRequest, i18n.T(ctx, "files.bad_checksum"))
		}
	}
	tenantID := httpkit.Tenant(c).ID
	up, err := h.store.Upload(ctx, tenantID, c.Param("upload"))
	if err != nil {
		return h.failure(c, err)
	}
	// As tusd: the offset first (409, saying where the upload stands),
	// then the length (413).
	if offset != up.Offset {
		return h.failure(c, files.OffsetMismatch(up))
	}
	remaining := up.Size - offset
	if req.ContentLength > remaining {
		return h.refuse(c, http.StatusRequestEntityTooLarge, i18n.T(ctx, "files.past_length"))
	}
	httpkit.Release(c) // the body takes as long as the network does
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
		up, file, err = h.write(ctx, tenantID, up.ID, offset, body, sum)
	}
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			return h.refuse(c, http.StatusRequestEntityTooLarge, i18n.T(ctx, "files.past_length"))
		case errors.Is(err, files.ErrChecksum):
			return h.refuse(c, StatusChecksumMismatch, i18n.T(ctx, "files.checksum_mismatch"))
		case body.failed != nil || errors.Is(err, io.ErrUnexpectedEOF):
			// The client went away or stalled: what arrived is kept, and
			// the client resumes from Upload-Offset.
			h.logger.InfoContext(c.Request().Context(), "upload interrupted", "upload", up.ID, "err", err, "request_id", httpkit.RequestID(c))
			if up != nil {
				progress(c, up)
			}
			return c.NoContent(http.StatusNoContent)
		}
		return h.failure(c, err)
	}
	progress(c, up)
	if file != nil {
		c.Response().Header().Set("Kanri-File-Id", file.ID)
	}
	return c.NoContent(http.StatusNoContent)
}

// write appends body to the upload, counted in the metrics while it runs.
func (h *Handler) write(ctx context.Context, tenantID, id string, offset int64, body *idleBody, sum *files.Checksum) (*kanri.Upload, *kanri.File, error) {
	ended := h.mount.Metrics.UploadStarted()
	defer func() { ended(body.n) }()
	return h.store.WriteUpload(ctx, tenantID, id, offset, body, sum)
}

// checksum reads Upload-Checksum: an algorithm and the base64 digest.
func checksum(v string) (*files.Checksum, error) {
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

// Delete gives an upload up (the termination extension): the caller's
// own, or anyone's when the mount says the caller may.
func (h *Handler) Delete(c echo.Context) error {
	if err := h.check(c); err != nil || c.Response().Committed {
		return err
	}
	ctx := c.Request().Context()
	if _, err := h.store.CancelUpload(ctx, httpkit.Tenant(c).ID, c.Param("upload"), audit.ActorFrom(ctx).UserID, h.mount.CancelsAny(c)); err != nil {
		return h.failure(c, err)
	}
	return c.NoContent(http.StatusNoContent)
}

// failure answers a domain error to a tus client: the status of the
// error, with the message in the caller's language. A server's error
// goes to the error handler, which logs it.
func (h *Handler) failure(c echo.Context, err error) error {
	st := httpkit.Status(err)
	if st == http.StatusInternalServerError || httpkit.ClientGone(err) {
		return err
	}
	if kanri.IsCode(err, kanri.ECONFLICT) {
		if key, args := kanri.ErrorMessage(err); key == "files.upload_offset" && len(args) == 1 {
			if n, ok := args[0].(int64); ok {
				c.Response().Header().Set("Upload-Offset", strconv.FormatInt(n, 10))
			}
		}
	}
	key, args := kanri.ErrorMessage(err)
	headers(c)
	return h.mount.Refuse(c, st, i18n.T(c.Request().Context(), key, args...), err)
}

// refuse answers a refusal of the protocol's own.
func (h *Handler) refuse(c echo.Context, status int, msg string) error {
	headers(c)
	return h.mount.Refuse(c, status, msg, nil)
}

// idleBody is an upload's body: each read pushes the connection's read
// deadline idle ahead, so a body may take as long as it needs but
// never stall for long. failed keeps a read's error.
type idleBody struct {
	rc     *http.ResponseController
	r      io.Reader
	failed error
	n      int64 // bytes read
}

func (b *idleBody) extend() {
	_ = b.rc.SetReadDeadline(time.Now().Add(idle))
	_ = b.rc.SetWriteDeadline(time.Now().Add(idle))
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.n += int64(n)
	b.extend()
	if err != nil && !errors.Is(err, io.EOF) {
		var tooLarge *http.MaxBytesError
		if !errors.As(err, &tooLarge) {
			b.failed = err
		}
	}
	return n, err
}
