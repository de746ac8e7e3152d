package tus_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/web/httpkit"
	"github.com/kanri/kanri/web/tus"
)

// memStore keeps uploads in memory: the protocol's side of the files
// service, for testing the handler alone.
type memStore struct {
	mu       sync.Mutex
	uploads  map[string]*kanri.Upload // by tenant/id
	data     map[string][]byte
	cancels  []bool // the anyone of each CancelUpload
	maxBytes int64
}

func newMemStore() *memStore {
	return &memStore{uploads: map[string]*kanri.Upload{}, data: map[string][]byte{}, maxBytes: 1 << 20}
}

var errNotFound = kanri.E(kanri.ENOTFOUND, "error.not_found_body")

func (m *memStore) Limits(context.Context, string) (kanri.FileLimits, error) {
	return kanri.FileLimits{MaxFileSize: m.maxBytes}, nil
}

func (m *memStore) CreateUpload(_ context.Context, tenantID string, in files.UploadInput) (*kanri.Upload, error) {
	if in.Name == "" {
		return nil, kanri.Invalid(kanri.Fields{"name": "validation.required"})
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	id := "upload_" + strconv.Itoa(len(m.uploads)+1)
	up := &kanri.Upload{Doc: kanri.Doc{ID: id, TenantID: tenantID}, Name: in.Name, Size: in.Size, Metadata: in.Metadata,
		ExpiresAt: kanri.NewTime(time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC))}
	m.uploads[tenantID+"/"+id] = up
	return up, nil
}

func (m *memStore) Upload(_ context.Context, tenantID, id string) (*kanri.Upload, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	up, ok := m.uploads[tenantID+"/"+id]
	if !ok {
		return nil, errNotFound
	}
	c := *up
	return &c, nil
}

func (m *memStore) WriteUpload(_ context.Context, tenantID, id string, offset int64, body io.Reader, sum *files.Checksum) (*kanri.Upload, *kanri.File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	up, ok := m.uploads[tenantID+"/"+id]
	if !ok {
		return nil, nil, errNotFound
	}
	if offset != up.Offset {
		return up, nil, files.OffsetMismatch(up)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		return up, nil, err
	}
	if sum != nil {
		sum.Hash.Write(b)
		if !bytes.Equal(sum.Hash.Sum(nil), sum.Digest) {
			return up, nil, files.ErrChecksum
		}
	}
	m.data[id] = append(m.data[id], b...)
	up.Offset += int64(len(b))
	if up.Offset == up.Size && up.CompletedAt.IsZero() {
		up.CompletedAt, up.FileID = kanri.NewTime(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)), "file_"+id
		c := *up
		return &c, &kanri.File{Doc: kanri.Doc{ID: up.FileID}}, nil
	}
	c := *up
	return &c, nil, nil
}

func (m *memStore) CancelUpload(_ context.Context, tenantID, id, _ string, anyone bool) (*kanri.Upload, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cancels = append(m.cancels, anyone)
	up, ok := m.uploads[tenantID+"/"+id]
	if !ok {
		return nil, errNotFound
	}
	delete(m.uploads, tenantID+"/"+id)
	return up, nil
}

// refusal is one call of the mount's Refuse.
type refusal struct {
	status int
	msg    string
	err    error
}

// server serves the protocol for the tenant tenant_a at /uploads, as a
// mount that records its refusals and answers them as plain text.
func server(t *testing.T, store *memStore, cancelsAny bool) (*httptest.Server, *[]refusal) {
	t.Helper()
	var refused []refusal
	var mu sync.Mutex
	h := tus.New(store, slog.New(slog.DiscardHandler), tus.Mount{
		Base:       func(echo.Context) string { return "/uploads" },
		CancelsAny: func(echo.Context) bool { return cancelsAny },
		Refuse: func(c echo.Context, status int, msg string, err error) error {
			mu.Lock()
			refused = append(refused, refusal{status, msg, err})
			mu.Unlock()
			return c.String(status, msg)
		},
	})
	e := echo.New()
	tenant := func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.Set(httpkit.KeyTenant, &kanri.Tenant{Doc: kanri.Doc{ID: "tenant_a"}})
			return next(c)
		}
	}
	g := e.Group("/uploads", tenant)
	g.OPTIONS("", h.Options)
	g.OPTIONS("/:upload", h.OptionsAt)
	g.POST("", h.Create)
	g.HEAD("/:upload", h.Head)
	g.PATCH("/:upload", h.Patch)
	g.DELETE("/:upload", h.Delete)
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return srv, &refused
}

// do sends a tus request (Tus-Resumable 1.0.0 unless headers say
// otherwise) and returns the answer.
func do(t *testing.T, srv *httptest.Server, method, path string, body []byte, headers ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Tus-Resumable", tus.Version)
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	resp, err := srv.Client().Do(req) // its own transport: another test's server closing cannot break it
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// create begins an upload of size bytes named name and returns its path.
func create(t *testing.T, srv *httptest.Server, size int) string {
	t.Helper()
	resp := do(t, srv, http.MethodPost, "/uploads", nil, "Upload-Length", strconv.Itoa(size), "Upload-Metadata", "filename "+b64("a.txt")+",filetype "+b64("text/plain"))
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	return resp.Header.Get("Location")
}

func TestOptionsSaysWhatIsSupported(t *testing.T) {
	t.Parallel()
	srv, _ := server(t, newMemStore(), false)
	resp := do(t, srv, http.MethodOptions, "/uploads", nil, "Tus-Resumable", "")
	for header, want := range map[string]string{
		"Tus-Version": tus.Version, "Tus-Extension": tus.Extensions, "Tus-Checksum-Algorithm": tus.Checksums,
		"Tus-Max-Size": strconv.Itoa(1 << 20), "Tus-Resumable": tus.Version,
	} {
		if got := resp.Header.Get(header); got != want {
			t.Errorf("%s: got %q, want %q", header, got, want)
		}
	}
	if got, want := resp.StatusCode, http.StatusNoContent; got != want {
		t.Errorf("status: got %d, want %d", got, want)
	}
	if got, want := do(t, srv, http.MethodOptions, "/uploads/upload_9", nil).StatusCode, http.StatusNotFound; got != want {
		t.Errorf("OPTIONS of an upload that does not exist: got %d, want %d", got, want)
	}
}

func TestCreationAndItsRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		headers    []string
		wantStatus int
		wantErr    bool // the refusal carries the store's error
	}{
		{"another version", []string{"Tus-Resumable", "0.2.2", "Upload-Length", "5"}, http.StatusPreconditionFailed, false},
		{"no length", []string{"Upload-Metadata", "filename " + b64("a")}, http.StatusBadRequest, false},
		{"a negative length", []string{"Upload-Length", "-1"}, http.StatusBadRequest, false},
		{"a deferred length", []string{"Upload-Defer-Length", "1"}, http.StatusBadRequest, false},
		{"metadata that is not base64", []string{"Upload-Length", "5", "Upload-Metadata", "filename ***"}, http.StatusBadRequest, false},
		{"no file name", []string{"Upload-Length", "5"}, http.StatusUnprocessableEntity, true},
		{"created", []string{"Upload-Length", "5", "Upload-Metadata", "name " + b64("a.txt")}, http.StatusCreated, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, refused := server(t, newMemStore(), false)
			resp := do(t, srv, http.MethodPost, "/uploads", nil, tt.headers...)
			if got := resp.StatusCode; got != tt.wantStatus {
				t.Fatalf("status: got %d, want %d", got, tt.wantStatus)
			}
			if resp.StatusCode == http.StatusCreated {
				if loc := resp.Header.Get("Location"); !strings.HasPrefix(loc, "/uploads/upload_") || resp.Header.Get("Upload-Expires") == "" {
					t.Errorf("Location %q, Upload-Expires %q", loc, resp.Header.Get("Upload-Expires"))
				}
				return
			}
			if len(*refused) != 1 {
				t.Fatalf("refusals: got %d, want 1", len(*refused))
			}
			r := (*refused)[0]
			if got := r.err != nil; got != tt.wantErr {
				t.Errorf("the refusal's error: got %v, want one: %v", r.err, tt.wantErr)
			}
			if tt.wantErr && kanri.ErrorFields(r.err)["filename"] == "" {
				t.Errorf("the refusal names the fields %v, want the metadata's key filename", kanri.ErrorFields(r.err))
			}
			if tt.wantStatus == http.StatusPreconditionFailed && resp.Header.Get("Tus-Version") != tus.Version {
				t.Errorf("a refused version does not say the one spoken")
			}
		})
	}
}

func TestPatchWritesAndRefuses(t *testing.T) {
	t.Parallel()
	store := newMemStore()
	srv, refused := server(t, store, false)
	up := create(t, srv, 10)
	patch := func(offset int, body string, headers ...string) *http.Response {
		return do(t, srv, http.MethodPatch, up, []byte(body), append([]string{"Content-Type", tus.OffsetType, "Upload-Offset", strconv.Itoa(offset)}, headers...)...)
	}
	sha := func(s string) string {
		h := sha256.Sum256([]byte(s))
		return "sha256 " + base64.StdEncoding.EncodeToString(h[:])
	}
	steps := []struct {
		name       string
		resp       func() *http.Response
		wantStatus int
		wantOffset string
	}{
		{"not offset bytes", func() *http.Response { return patch(0, "hello", "Content-Type", "text/plain") }, http.StatusUnsupportedMediaType, ""},
		{"no offset", func() *http.Response { return patch(0, "hello", "Upload-Offset", "") }, http.StatusBadRequest, ""},
		{"another offset", func() *http.Response { return patch(3, "hello") }, http.StatusConflict, "0"},
		{"past the length", func() *http.Response { return patch(0, "hello world") }, http.StatusRequestEntityTooLarge, ""},
		{"a checksum that does not match", func() *http.Response { return patch(0, "hello", "Upload-Checksum", sha("other")) }, tus.StatusChecksumMismatch, ""},
		{"an unknown algorithm", func() *http.Response { return patch(0, "hello", "Upload-Checksum", "md5 "+b64("x")) }, http.StatusBadRequest, ""},
		{"the first part, checked", func() *http.Response { return patch(0, "hello", "Upload-Checksum", sha("hello")) }, http.StatusNoContent, "5"},
		{"the first part again", func() *http.Response { return patch(0, "hello") }, http.StatusConflict, "5"},
		{"the last part", func() *http.Response { return patch(5, "world") }, http.StatusNoContent, "10"},
		{"an empty PATCH at the end", func() *http.Response { return patch(10, "") }, http.StatusNoContent, "10"},
	}
	for _, s := range steps {
		resp := s.resp()
		if got := resp.StatusCode; got != s.wantStatus {
			t.Errorf("%s: status %d, want %d", s.name, got, s.wantStatus)
		}
		if got := resp.Header.Get("Upload-Offset"); got != s.wantOffset {
			t.Errorf("%s: Upload-Offset %q, want %q", s.name, got, s.wantOffset)
		}
	}
	if got, want := string(store.data[strings.TrimPrefix(up, "/uploads/")]), "helloworld"; got != want {
		t.Errorf("the upload's bytes: got %q, want %q", got, want)
	}
	head := do(t, srv, http.MethodHead, up, nil)
	for header, want := range map[string]string{"Upload-Offset": "10", "Upload-Length": "10", "Kanri-File-Id": "file_" + strings.TrimPrefix(up, "/uploads/"),
		"Upload-Metadata": "filename " + b64("a.txt") + ",filetype " + b64("text/plain"), "Cache-Control": "no-store"} {
		if got := head.Header.Get(header); got != want {
			t.Errorf("HEAD %s: got %q, want %q", header, got, want)
		}
	}
	for _, r := range *refused {
		if r.status >= 500 {
			t.Errorf("a refusal of a server's error: %+v", r)
		}
	}
}

func TestDeleteAsksTheMountWhoMayCancel(t *testing.T) {
	t.Parallel()
	for _, anyone := range []bool{false, true} {
		store := newMemStore()
		srv, _ := server(t, store, anyone)
		up := create(t, srv, 4)
		if got, want := do(t, srv, http.MethodDelete, up, nil).StatusCode, http.StatusNoContent; got != want {
			t.Errorf("delete: got %d, want %d", got, want)
		}
		if got, want := do(t, srv, http.MethodHead, up, nil).StatusCode, http.StatusNotFound; got != want {
			t.Errorf("HEAD after the delete: got %d, want %d", got, want)
		}
		if len(store.cancels) == 0 || store.cancels[0] != anyone {
			t.Errorf("CancelUpload's anyone: got %v, want %v", store.cancels, anyone)
		}
	}
}
