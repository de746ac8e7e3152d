package web_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
)

// assignFiles assigns the file service to a tenant (once).
func (e *env) assignFiles(t testing.TB, tenantID string) { e.assign(t, tenantID, kanri.FileServiceID) }

// assign assigns a service to a tenant, unless it is assigned already.
func (e *env) assign(t testing.TB, tenantID, serviceID string) {
	t.Helper()
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID})
	if _, err := e.catalog.Assignment(ctx, tenantID, serviceID); err == nil {
		return
	}
	if _, _, err := e.catalog.Assign(ctx, tenantID, kanri.AssignmentInput{ServiceID: serviceID}); err != nil {
		t.Fatal(err)
	}
}

// uploadFile stores a file through the service, as an upload.
func (e *env) uploadFile(t testing.TB, tenantID, folderID, name string, data []byte) *kanri.File {
	t.Helper()
	e.assignFiles(t, tenantID)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: tenantID})
	up, err := e.files.CreateUpload(ctx, tenantID, files.UploadInput{Name: name, Size: int64(len(data)), FolderID: folderID})
	if err != nil {
		t.Fatal(err)
	}
	_, f, err := e.files.WriteUpload(ctx, tenantID, up.ID, 0, bytes.NewReader(data), nil)
	if err != nil || f == nil {
		t.Fatalf("upload %s: %v", name, err)
	}
	return f
}

// pngImage returns a w×h PNG image.
func pngImage(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		for y := range h {
			img.Set(x, y, color.RGBA{uint8(x * 40), uint8(y * 40), 200, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// tus sends a tus request as the client (with the CSRF header).
func (c *client) tus(method, path string, body []byte, h http.Header) (*http.Response, string) {
	c.t.Helper()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Tus-Resumable", "1.0.0")
	return c.send(method, path, bytes.NewReader(body), h)
}

func meta(kv ...string) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		parts = append(parts, kv[i]+" "+base64.StdEncoding.EncodeToString([]byte(kv[i+1])))
	}
	return strings.Join(parts, ",")
}

func TestUploadsSpeakTusAndDownloadsAreSafe(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	c := e.client(t).signIn("acme", "admin")
	base := "/t/" + e.acme.ID
	c.get(base + "/files")

	resp, _ := c.send(http.MethodOptions, base+"/uploads", nil, nil)
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Tus-Version") != "1.0.0" || !strings.Contains(resp.Header.Get("Tus-Extension"), "creation") || resp.Header.Get("Tus-Max-Size") == "" {
		t.Fatalf("OPTIONS: %d %v", resp.StatusCode, resp.Header)
	}
	resp, _ = c.send(http.MethodPost, base+"/uploads", nil, http.Header{"Upload-Length": {"10"}})
	wantStatus(t, "a request without Tus-Resumable", resp, http.StatusPreconditionFailed)

	data := bytes.Repeat([]byte("kanri-"), 1000) // 6000 bytes
	name := "報告書 2026.txt"
	resp, _ = c.tus(http.MethodPost, base+"/uploads", nil, http.Header{"Upload-Length": {strconv.Itoa(len(data))}, "Upload-Metadata": {meta("filename", name, "filetype", "text/plain")}})
	wantStatus(t, "create", resp, http.StatusCreated)
	loc := resp.Header.Get("Location")
	if !strings.HasPrefix(loc, base+"/uploads/upload_") || resp.Header.Get("Upload-Expires") == "" {
		t.Fatalf("Location %q, Upload-Expires %q", loc, resp.Header.Get("Upload-Expires"))
	}
	resp, _ = c.tus(http.MethodHead, loc, nil, nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Upload-Offset") != "0" || resp.Header.Get("Upload-Length") != "6000" || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("HEAD: %d %v", resp.StatusCode, resp.Header)
	}
	if got, want := resp.Header.Get("Upload-Metadata"), meta("filename", name, "filetype", "text/plain"); got != want {
		t.Errorf("HEAD's Upload-Metadata: got %q, want %q as given at creation", got, want)
	}
	resp, _ = c.tus(http.MethodGet, loc, nil, nil)
	wantStatus(t, "GET of an upload (tus asks with HEAD)", resp, http.StatusNotFound)
	resp, _ = c.tus(http.MethodPost, base+"/uploads", nil, http.Header{"Upload-Length": {"1"}, "Upload-Metadata": {meta("filename", strings.Repeat("x", 4000))}})
	wantStatus(t, "metadata over 4 KB", resp, http.StatusBadRequest)
	part := http.Header{"Content-Type": {"application/offset+octet-stream"}, "Upload-Offset": {"0"}}
	resp, _ = c.tus(http.MethodPatch, loc, data[:2500], http.Header{"Content-Type": {"text/plain"}, "Upload-Offset": {"0"}})
	wantStatus(t, "PATCH of another type", resp, http.StatusUnsupportedMediaType)
	resp, _ = c.tus(http.MethodPatch, loc, data[:2500], part)
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Upload-Offset") != "2500" {
		t.Fatalf("first part: %d, offset %q", resp.StatusCode, resp.Header.Get("Upload-Offset"))
	}
	resp, _ = c.tus(http.MethodPatch, loc, data[:100], part) // offset 0 again
	if resp.StatusCode != http.StatusConflict || resp.Header.Get("Upload-Offset") != "2500" {
		t.Errorf("a part at the wrong offset: %d, offset %q", resp.StatusCode, resp.Header.Get("Upload-Offset"))
	}
	sum := sha256.Sum256([]byte("not these bytes"))
	resp, _ = c.tus(http.MethodPatch, loc, data[2500:], http.Header{"Content-Type": {"application/offset+octet-stream"}, "Upload-Offset": {"2500"}, "Upload-Checksum": {"sha256 " + base64.StdEncoding.EncodeToString(sum[:])}})
	wantStatus(t, "a part with a wrong checksum", resp, 460)
	resp, _ = c.tus(http.MethodPatch, loc, data[2500:], http.Header{"Content-Type": {"application/offset+octet-stream"}, "Upload-Offset": {"2500"}})
	fileID := resp.Header.Get("Kanri-File-Id")
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Upload-Offset") != "6000" || fileID == "" {
		t.Fatalf("last part: %d %v", resp.StatusCode, resp.Header)
	}
	resp, _ = c.tus(http.MethodHead, loc, nil, nil)
	if resp.Header.Get("Upload-Offset") != "6000" || resp.Header.Get("Kanri-File-Id") != fileID {
		t.Errorf("HEAD of a completed upload: %v", resp.Header)
	}
	resp, _ = c.tus(http.MethodDelete, loc, nil, nil)
	wantStatus(t, "DELETE of a completed upload", resp, http.StatusConflict)

	// The download: whole, with its name kept, never sniffed or run.
	resp, body := c.get(base + "/files/" + fileID + "/download")
	wantStatus(t, "download", resp, http.StatusOK)
	if body != string(data) {
		t.Fatalf("downloaded %d bytes, not the %d uploaded", len(body), len(data))
	}
	h := resp.Header
	if cd := h.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment;") || !strings.Contains(cd, "filename*=UTF-8''%E5%A0%B1%E5%91%8A%E6%9B%B8%202026.txt") {
		t.Errorf("Content-Disposition %q", cd)
	}
	if h.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(h.Get("Content-Security-Policy"), "sandbox") {
		t.Errorf("download headers %v", h)
	}
	etag := h.Get("ETag")
	// HEAD tells the length without the bytes, and the connection stays
	// usable for the next request (it once looked cut short to the server,
	// which closed it under the client).
	for range 3 {
		resp, body = c.send(http.MethodHead, base+"/files/"+fileID+"/download", nil, nil)
		if resp.StatusCode != http.StatusOK || resp.ContentLength != int64(len(data)) || body != "" {
			t.Fatalf("HEAD of a download: %d, length %d, %d bytes", resp.StatusCode, resp.ContentLength, len(body))
		}
		resp, _ = c.post(base+"/files/folders", url.Values{"name": {"after-head-" + strconv.Itoa(rand.IntN(1e9))}})
		wantStatus(t, "a POST after a HEAD", resp, http.StatusSeeOther)
	}
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+base+"/files/"+fileID+"/download", nil)
	req.Header.Set("Range", "bytes=6-11")
	rr, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rr.Body)
	rr.Body.Close()
	if rr.StatusCode != http.StatusPartialContent || string(got) != "kanri-" {
		t.Errorf("range: %d %q", rr.StatusCode, got)
	}
	// A range of another unit is ignored; one of bytes that cannot be
	// read is refused, saying the length.
	for _, tc := range []struct {
		rng    string
		status int
		cr     string
	}{{"items=0-5", http.StatusOK, ""}, {"bytes=x-y", http.StatusRequestedRangeNotSatisfiable, "bytes */6000"}} {
		req, _ = http.NewRequest(http.MethodGet, e.srv.URL+base+"/files/"+fileID+"/download", nil)
		req.Header.Set("Range", tc.rng)
		rr, err = c.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		rr.Body.Close()
		if rr.StatusCode != tc.status || rr.Header.Get("Content-Range") != tc.cr {
			t.Errorf("Range: %s: %d, Content-Range %q; want %d, %q", tc.rng, rr.StatusCode, rr.Header.Get("Content-Range"), tc.status, tc.cr)
		}
	}
	req, _ = http.NewRequest(http.MethodGet, e.srv.URL+base+"/files/"+fileID+"/download", nil)
	req.Header.Set("If-None-Match", etag)
	rr, err = c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	rr.Body.Close()
	wantStatus(t, "a download the client has", rr, http.StatusNotModified)

	// The quota: refused before any byte, with the message.
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID})
	a, _ := e.catalog.Assignment(ctx, e.acme.ID, kanri.FileServiceID)
	if _, err := e.catalog.UpdateAssignment(ctx, e.acme.ID, kanri.FileServiceID, a.ETag, kanri.AssignmentInput{ServiceID: kanri.FileServiceID, Config: map[string]string{"maxFileSize": "5KB", "maxStorage": "1MB"}}); err != nil {
		t.Fatal(err)
	}
	resp, body = c.tus(http.MethodPost, base+"/uploads", nil, http.Header{"Upload-Length": {"6000"}, "Upload-Metadata": {meta("filename", "big.bin")}})
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "big.bin is 5.9 KiB, larger than the largest file allowed (5 KiB)") {
		t.Errorf("over the largest size: %d %q", resp.StatusCode, body)
	}

	// A thumbnail of an image; no preview of what is not previewable.
	img := e.uploadFile(t, e.acme.ID, "", "pic.png", pngImage(t, 600, 300))
	resp, body = c.get(base + "/files/" + img.ID + "/thumbnail")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("thumbnail: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if cfg, err := png.DecodeConfig(strings.NewReader(body)); err != nil || cfg.Width != 256 || cfg.Height != 128 {
		t.Errorf("thumbnail %dx%d (%v), want 256x128", cfg.Width, cfg.Height, err)
	}
	// A tall image's thumbnail is bounded by its height.
	tall := e.uploadFile(t, e.acme.ID, "", "tall.png", pngImage(t, 100, 900))
	_, body = c.get(base + "/files/" + tall.ID + "/thumbnail")
	if cfg, err := png.DecodeConfig(strings.NewReader(body)); err != nil || cfg.Width != 28 || cfg.Height != 256 {
		t.Errorf("thumbnail of 100x900: %dx%d (%v), want 28x256", cfg.Width, cfg.Height, err)
	}
	// The list shows images small, and a file's page links to the image
	// at full size.
	_, body = c.get(base + "/files")
	if want := `src="` + base + "/files/" + tall.ID + `/thumbnail"`; !strings.Contains(body, want) || !strings.Contains(body, `data-testid="file-list-thumb-tall.png"`) {
		t.Errorf("the list shows no thumbnail of tall.png: %s", excerpt(body, "file-row-tall.png"))
	}
	if strings.Contains(body, `data-testid="file-list-thumb-x.bin"`) {
		t.Error("the list shows a thumbnail of a file that is no image")
	}
	_, body = c.get(base + "/files/" + tall.ID)
	if want := `href="` + base + "/files/" + tall.ID + `/preview" data-testid="file-full-size"`; !strings.Contains(body, want) {
		t.Errorf("the file's page does not link to the full-size image: %s", excerpt(body, "file-preview"))
	}
	bin := e.uploadFile(t, e.acme.ID, "", "x.bin", []byte{0, 1, 2, 3})
	resp, _ = c.get(base + "/files/" + bin.ID + "/preview")
	wantStatus(t, "preview of a binary file", resp, http.StatusNotFound)

	// A preview is framed by the file's page, and by no other site; it
	// runs no script whatever it holds.
	resp, body = c.get(base + "/files/" + fileID + "/preview")
	wantStatus(t, "preview of a text file", resp, http.StatusOK)
	if body != string(data) {
		t.Errorf("preview body %q, want the file's", body)
	}
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"sandbox;", "frame-ancestors 'self'", "default-src 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("preview CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "allow-scripts") || strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("preview CSP %q", csp)
	}
	if got, want := resp.Header.Get("X-Frame-Options"), "SAMEORIGIN"; got != want {
		t.Errorf("preview X-Frame-Options: got %q, want %q", got, want)
	}
}

func TestAnotherTenantsFilesAnswer404(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: e.globex.ID})
	folder, err := e.files.CreateFolder(ctx, e.globex.ID, "", "Secret")
	if err != nil {
		t.Fatal(err)
	}
	file := e.uploadFile(t, e.globex.ID, folder.ID, "plan.txt", []byte("globex's plan"))
	gone := e.uploadFile(t, e.globex.ID, "", "old.txt", []byte("old"))
	if _, err := e.files.TrashFile(ctx, e.globex.ID, gone.ID, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	up, err := e.files.CreateUpload(ctx, e.globex.ID, files.UploadInput{Name: "u.txt", Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	c := e.client(t).signIn("acme", "admin")
	c.get("/t/" + e.acme.ID + "/files")
	checked := 0
	for _, r := range e.routes() {
		if !strings.HasPrefix(r.Path, "/t/:tenant/files/") && !strings.HasPrefix(r.Path, "/t/:tenant/uploads/") {
			continue
		}
		id := file.ID
		switch {
		case strings.Contains(r.Path, "/folders/:id"):
			id = folder.ID
		case strings.HasSuffix(r.Path, "/restore") || strings.HasSuffix(r.Path, "/purge"):
			id = gone.ID
		}
		if !strings.Contains(r.Path, ":id") && !strings.Contains(r.Path, ":upload") {
			continue
		}
		// Globex's ids, under acme's path and under globex's.
		for _, tenantID := range []string{e.acme.ID, e.globex.ID} {
			path := strings.NewReplacer(":tenant", tenantID, ":id", id, ":upload", up.ID).Replace(r.Path)
			var resp *http.Response
			switch r.Method {
			case http.MethodGet:
				resp, _ = c.get(path)
				if strings.HasPrefix(r.Path, "/t/:tenant/uploads/") {
					resp, _ = c.tus(http.MethodHead, path, nil, nil)
				}
			case http.MethodPost:
				resp, _ = c.post(path, url.Values{"name": {"hacked"}, "displayName": {"hacked"}, "files": {"1"}, "target": {""}})
			default:
				resp, _ = c.tus(r.Method, path, []byte("0123456789"), http.Header{"Content-Type": {"application/offset+octet-stream"}, "Upload-Offset": {"0"}})
			}
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("%s %s as acme's admin: %d, want 404", r.Method, path, resp.StatusCode)
			}
			checked++
		}
	}
	if checked < 30 {
		t.Errorf("checked %d requests; the files routes look incomplete", checked)
	}
	// Nothing of globex's changed.
	f, err := e.files.File(ctx, e.globex.ID, file.ID)
	if err != nil || f.DisplayName != "" || f.InTrash() || deref(f.FolderID) != folder.ID {
		t.Errorf("globex's file changed: %+v, %v", f, err)
	}
	if g, err := e.files.File(ctx, e.globex.ID, gone.ID); err != nil || !g.InTrash() {
		t.Errorf("globex's trashed file changed: %+v, %v", g, err)
	}
	if fo, err := e.files.Folder(ctx, e.globex.ID, folder.ID); err != nil || fo.Name != "Secret" {
		t.Errorf("globex's folder changed: %+v, %v", fo, err)
	}
	if u, err := e.files.Upload(ctx, e.globex.ID, up.ID); err != nil || u.Offset != 0 {
		t.Errorf("globex's upload changed: %+v, %v", u, err)
	}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// TestOperatorsSeeEachTenantsStorage checks the storage column of the
// operator's tenant list: what each tenant stores, the trash included,
// and nothing for a tenant that stores nothing.
func TestOperatorsSeeEachTenantsStorage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.uploadFile(t, e.acme.ID, "", "a.bin", make([]byte, 3000))
	f := e.uploadFile(t, e.acme.ID, "", "b.bin", make([]byte, 2000))
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: e.acme.ID})
	if _, err := e.files.TrashFile(ctx, e.acme.ID, f.ID, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	staff := e.client(t).signIn("privileged", adminEmail)
	_, body := staff.get("/tenants")
	cell := regexp.MustCompile(`data-testid="tenant-row-(\w+)"[\s\S]*?data-testid="tenant-storage" title="([^"]*)">([^<]*)<`)
	got := map[string][2]string{}
	for _, m := range cell.FindAllStringSubmatch(body, -1) {
		got[m[1]] = [2]string{m[3], html.UnescapeString(m[2])}
	}
	for name, want := range map[string][2]string{
		"acme":   {"4.9 KiB", "2.9 KiB in files and 2 KiB in the trash (file count 2); 0 B reserved by uploads in progress"},
		"globex": {"0 B", "0 B in files and 0 B in the trash (file count 0); 0 B reserved by uploads in progress"},
	} {
		if got[name] != want {
			t.Errorf("%s: storage %q, want %q", name, got[name], want)
		}
	}
}

// TestAFolderOfManyFoldersIsPaged checks that every subfolder of a folder
// with more than a page of them can be reached, and that a continuation
// that is not one shows the first ones.
func TestAFolderOfManyFoldersIsPaged(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: e.acme.ID})
	const n = 205
	for i := range n {
		if _, err := e.files.CreateFolder(ctx, e.acme.ID, "", fmt.Sprintf("f%03d", i)); err != nil {
			t.Fatal(err)
		}
	}
	c := e.client(t).signIn("acme", "admin")
	rows := regexp.MustCompile(`data-testid="folder-row-(f\d+)"`)
	more := regexp.MustCompile(`href="([^"]*\?folders=[^"]*)" data-testid="folders-more"`)
	seen := map[string]bool{}
	path := "/t/" + e.acme.ID + "/files"
	for page := 0; path != "" && page < 5; page++ {
		_, body := c.get(path)
		for _, m := range rows.FindAllStringSubmatch(body, -1) {
			if seen[m[1]] {
				t.Errorf("%s is listed twice", m[1])
			}
			seen[m[1]] = true
		}
		path = ""
		if m := more.FindStringSubmatch(body); m != nil {
			path = html.UnescapeString(m[1])
		}
	}
	if len(seen) != n {
		t.Errorf("%d folders reachable, want %d", len(seen), n)
	}
	_, body := c.get("/t/" + e.acme.ID + "/files?folders=not-a-token")
	if got := len(rows.FindAllString(body, -1)); got != 200 || !strings.Contains(body, `data-testid="folder-row-f000"`) {
		t.Errorf("a bad continuation lists %d folders, want the first 200", got)
	}
}

// TestANewFolderLeavesThePersonWhereTheyWere: creating a folder answers
// with the page of the folder it was made in, so that folders made one
// after another are side by side, not nested.
func TestANewFolderLeavesThePersonWhereTheyWere(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	c := e.client(t).signIn("acme", "admin")
	base := "/t/" + e.acme.ID + "/files"
	resp, _ := c.post(base+"/folders", url.Values{"name": {"Top"}})
	if got, want := resp.Header.Get("Location"), base; resp.StatusCode != http.StatusSeeOther || got != want {
		t.Fatalf("a folder at the top: %d to %q, want 303 to %q", resp.StatusCode, got, want)
	}
	_, body := c.get(base)
	top := regexp.MustCompile(`/folders/(folder_[0-9a-f]+)"[^>]*data-testid="folder-open-Top"`).FindStringSubmatch(body)
	if top == nil {
		t.Fatalf("the top level does not list the new folder")
	}
	for _, name := range []string{"One", "Two"} {
		resp, _ := c.post(base+"/folders", url.Values{"name": {name}, "parent": {top[1]}})
		if got, want := resp.Header.Get("Location"), base+"/folders/"+top[1]; got != want {
			t.Errorf("folder %s made in Top: redirected to %q, want %q", name, got, want)
		}
	}
	_, body = c.get(base + "/folders/" + top[1])
	for _, name := range []string{"One", "Two"} {
		if !strings.Contains(body, `data-testid="folder-row-`+name+`"`) {
			t.Errorf("Top does not list %s", name)
		}
	}
}

// TestUploadsInProgressAreListedAndCancelled: an upload that stopped is
// listed on the files page with its progress; the quota's refusal says
// what holds the space; Cancel frees it at once; another tenant cannot
// cancel it.
func TestUploadsInProgressAreListedAndCancelled(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID})
	a, _ := e.catalog.Assignment(ctx, e.acme.ID, kanri.FileServiceID)
	if _, err := e.catalog.UpdateAssignment(ctx, e.acme.ID, kanri.FileServiceID, a.ETag, kanri.AssignmentInput{ServiceID: kanri.FileServiceID, Config: map[string]string{"maxFileSize": "1MB", "maxStorage": "1MB"}}); err != nil {
		t.Fatal(err)
	}
	c := e.client(t).signIn("acme", "admin")
	base := "/t/" + e.acme.ID
	resp, _ := c.tus(http.MethodPost, base+"/uploads", nil, http.Header{"Upload-Length": {"800000"}, "Upload-Metadata": {meta("filename", "half.bin")}})
	loc := resp.Header.Get("Location")
	resp, _ = c.tus(http.MethodPatch, loc, make([]byte, 200000), http.Header{"Content-Type": {"application/offset+octet-stream"}, "Upload-Offset": {"0"}})
	wantStatus(t, "the first part", resp, http.StatusNoContent)
	upload := strings.TrimPrefix(loc, base+"/uploads/")

	_, page := c.get(base + "/files")
	for _, want := range []string{`data-testid="unfinished-upload" data-name="half.bin" data-size="800000" data-upload-url="` + loc + `"`, "195.3 KiB of 781.2 KiB", `/files/uploads/` + upload + `/cancel`} {
		if !strings.Contains(page, want) {
			t.Errorf("the files page lacks %s", want)
		}
	}
	resp, body := c.tus(http.MethodPost, base+"/uploads", nil, http.Header{"Upload-Length": {"500000"}, "Upload-Metadata": {meta("filename", "more.bin")}})
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "Uploads in progress hold 781.2 KiB") {
		t.Errorf("over the quota with an upload in progress: %d %q", resp.StatusCode, body)
	}

	g := e.client(t).signIn("globex", "admin")
	resp, _ = g.post("/t/"+e.acme.ID+"/files/uploads/"+upload+"/cancel", nil)
	wantStatus(t, "globex cancels acme's upload", resp, http.StatusNotFound)
	resp, _ = c.post(base+"/files/uploads/"+upload+"/cancel", nil)
	wantStatus(t, "cancel", resp, http.StatusSeeOther)
	if st, _ := e.files.Storage(context.Background(), e.acme.ID); st.Reserved != 0 {
		t.Errorf("reserved %d after the cancel", st.Reserved)
	}
	if _, page := c.get(base + "/files"); strings.Contains(page, "unfinished-upload") {
		t.Error("the cancelled upload is still listed")
	}
	resp, _ = c.tus(http.MethodPost, base+"/uploads", nil, http.Header{"Upload-Length": {"500000"}, "Upload-Metadata": {meta("filename", "more.bin")}})
	wantStatus(t, "an upload once the space is free", resp, http.StatusCreated)
}

// TestAFilesMemberChangesOnlyTheirOwnFiles: the files service's member
// role uploads, and edits, moves, trashes and restores the files they
// uploaded, in the console and through a key of theirs; another person's
// file is theirs to read only (403), and its page offers no change.
func TestAFilesMemberChangesOnlyTheirOwnFiles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	ctx := system()
	if _, _, err := e.roles.Assign(ctx, role.Grant{Tenant: e.acme, UserID: e.acmeBob.ID, ServiceID: kanri.FileServiceID, RoleName: role.Member}); err != nil {
		t.Fatal(err)
	}
	theirs := e.uploadFile(t, e.acme.ID, "", "theirs.txt", []byte("the admin's"))
	bob := e.client(t).signIn("acme", "bob")
	base := "/t/" + e.acme.ID + "/files/"
	resp, _ := bob.tus(http.MethodPost, "/t/"+e.acme.ID+"/uploads", nil, http.Header{"Upload-Length": {"5"}, "Upload-Metadata": {meta("filename", "mine.txt")}})
	wantStatus(t, "a member's upload", resp, http.StatusCreated)
	resp, _ = bob.tus(http.MethodPatch, resp.Header.Get("Location"), []byte("bob's"), http.Header{"Content-Type": {"application/offset+octet-stream"}, "Upload-Offset": {"0"}})
	mine := resp.Header.Get("Kanri-File-Id")
	if resp.StatusCode != http.StatusNoContent || mine == "" {
		t.Fatalf("a member's upload: %d %v", resp.StatusCode, resp.Header)
	}
	_, page := bob.get(base + mine)
	if !strings.Contains(page, `data-testid="file-edit-form"`) || !strings.Contains(page, `data-testid="file-trash"`) {
		t.Error("the member's own file offers no edit or trash")
	}
	_, page = bob.get(base + theirs.ID)
	if strings.Contains(page, `data-testid="file-edit-form"`) || strings.Contains(page, `data-testid="file-trash"`) {
		t.Error("another person's file offers the member edit or trash")
	}
	for _, c := range []struct {
		action string
		form   url.Values
	}{
		{"", url.Values{"displayName": {"renamed"}}},
		{"/move", url.Values{"target": {""}}},
		{"/delete", nil},
		{"/restore", nil},
	} {
		resp, _ := bob.post(base+theirs.ID+c.action, c.form)
		wantStatus(t, "the member changes another's file: POST "+c.action, resp, http.StatusForbidden)
		resp, _ = bob.post(base+mine+c.action, c.form)
		wantStatus(t, "the member changes their own file: POST "+c.action, resp, http.StatusSeeOther)
	}
	if f, _ := e.files.File(context.Background(), e.acme.ID, theirs.ID); f.DisplayName != "" || f.InTrash() {
		t.Errorf("the other file changed: %+v", f)
	}
	if f, _ := e.files.File(context.Background(), e.acme.ID, mine); f.DisplayName != "renamed" || f.InTrash() {
		t.Errorf("the member's file: %q, in the trash %t; want renamed and restored", f.DisplayName, f.InTrash())
	}
	// The same through a key bob made.
	e.assign(t, e.acme.ID, kanri.APIServiceID)
	k, secret, err := e.keys.Create(audit.WithActor(context.Background(), audit.Actor{UserID: e.acmeBob.ID, TenantID: e.acme.ID}), e.acme.ID, apikey.Input{Name: "bob's", Scopes: []string{"read", "write"}})
	if err != nil || k == nil {
		t.Fatal(err)
	}
	if a := e.api(t, http.MethodPatch, "/api/v1/files/"+theirs.ID, secret, map[string]any{"description": "no"}); a.status != http.StatusForbidden || !strings.Contains(string(a.body), "uploaded") {
		t.Errorf("the member's key changes another's file: %d %s, want 403", a.status, a.body)
	}
	if a := e.api(t, http.MethodPatch, "/api/v1/files/"+mine, secret, map[string]any{"description": "mine"}); a.status != http.StatusOK {
		t.Errorf("the member's key changes their own file: %d %s, want 200", a.status, a.body)
	}
}

// TestAFolderWithFilesIsDeletedWithOneConfirmation: the delete button of
// an empty folder asks in the browser; one holding files does not, since
// the page it leads to says how many files go to the trash (one: "1
// file"), and confirming there deletes it.
func TestAFolderWithFilesIsDeletedWithOneConfirmation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	c := e.client(t).signIn("acme", "admin")
	base := "/t/" + e.acme.ID + "/files"
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: e.acmeAdmin.ID, TenantID: e.acme.ID})
	empty, err := e.config.Services.Files.CreateFolder(ctx, e.acme.ID, "", "Empty")
	if err != nil {
		t.Fatal(err)
	}
	full, err := e.config.Services.Files.CreateFolder(ctx, e.acme.ID, "", "Full")
	if err != nil {
		t.Fatal(err)
	}
	e.uploadFile(t, e.acme.ID, full.ID, "one.txt", []byte("one"))
	for _, c2 := range []struct {
		folder *kanri.Folder
		asks   bool
	}{{empty, true}, {full, false}} {
		_, body := c.get(base + "/folders/" + c2.folder.ID)
		end := strings.Index(body, `data-testid="folder-delete-form"`)
		if end < 0 {
			t.Fatalf("%s: no delete form", c2.folder.Name)
		}
		form := body[strings.LastIndex(body[:end], "<form"):end] // the form's tag
		if got := strings.Contains(form, "data-confirm="); got != c2.asks {
			t.Errorf("%s: the delete button asks first: %v, want %v (%s)", c2.folder.Name, got, c2.asks, form)
		}
	}
	_, page := c.get(base + "/folders/" + full.ID)
	resp, body := c.post(base+"/folders/"+full.ID+"/delete", url.Values{"etag": {formETag(page)}})
	wantStatus(t, "delete a folder with a file", resp, http.StatusConflict)
	for _, want := range []string{"hold 1 file.", "move 1 file to the trash", `name="files" value="1"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the confirmation lacks %q: %s", want, excerpt(body, "folder-delete-count"))
		}
	}
	resp, _ = c.post(base+"/folders/"+full.ID+"/delete", url.Values{"etag": {formETag(page)}, "files": {"1"}})
	wantStatus(t, "confirmed", resp, http.StatusSeeOther)
	if _, err := e.config.Services.Files.Folder(ctx, e.acme.ID, full.ID); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("the confirmed folder is still there: %v", err)
	}

	// The trash says where each file was.
	for _, f := range []*kanri.File{e.uploadFile(t, e.acme.ID, empty.ID, "kept.txt", []byte("k")), e.uploadFile(t, e.acme.ID, "", "top.txt", []byte("t"))} {
		if _, err := e.config.Services.Files.TrashFile(ctx, e.acme.ID, f.ID, kanri.Seen{}); err != nil {
			t.Fatal(err)
		}
	}
	_, body = c.get(base + "/trash")
	for name, want := range map[string]string{
		"one.txt":  "/Full (deleted since: a restore makes it again)",
		"kept.txt": `<a href="` + base + "/folders/" + empty.ID + `">/Empty</a>`,
		"top.txt":  "Top level",
	} {
		if cell := excerpt(body, `data-testid="trash-origin-`+name+`"`); !strings.Contains(cell[300:min(len(cell), 500)], want) {
			t.Errorf("the trash's origin of %s: want %q in %s", name, want, cell[300:])
		}
	}
}

// TestAFileIsRenamedOnItsPage: the file's page renames it (the name it
// downloads with), beside its display name; an emptied name is refused
// with the input kept and nothing changed.
func TestAFileIsRenamedOnItsPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	c := e.client(t).signIn("acme", "admin")
	f := e.uploadFile(t, e.acme.ID, "", "draft.txt", []byte("d"))
	path := "/t/" + e.acme.ID + "/files/" + f.ID
	_, page := c.get(path)
	if !strings.Contains(page, `value="draft.txt" data-testid="file-name-input"`) {
		t.Fatalf("the file's page has no name field: %s", excerpt(page, "file-edit-form"))
	}
	resp, body := c.post(path, url.Values{"etag": {formETag(page)}, "name": {" "}, "displayName": {"Kept title"}})
	wantStatus(t, "an emptied name", resp, http.StatusUnprocessableEntity)
	if !strings.Contains(body, `data-testid="field-error-name"`) || !strings.Contains(body, `value="Kept title"`) {
		t.Errorf("an emptied name is not explained with the input kept: %s", excerpt(body, "file-edit-form"))
	}
	resp, _ = c.post(path, url.Values{"etag": {formETag(page)}, "name": {"final.txt"}, "displayName": {""}})
	wantStatus(t, "rename", resp, http.StatusSeeOther)
	got, err := e.files.File(context.Background(), e.acme.ID, f.ID)
	if err != nil || got.Name != "final.txt" || got.NameKey != kanri.FoldName("final.txt") {
		t.Fatalf("after the rename: %+v %v", got, err)
	}
	resp, _ = c.get(path + "/download")
	if cd := resp.Header.Get("Content-Disposition"); !strings.Contains(cd, "final.txt") {
		t.Errorf("the renamed file downloads as %q", cd)
	}
}
