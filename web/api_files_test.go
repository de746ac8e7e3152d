package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/kanri"
)

// apiFileDoc is a file as the API answers it.
type apiFileDoc struct {
	ID, Name, DisplayName, Description, ContentType, Checksum string
	Size                                                      int64
	FolderID                                                  *string
	Tags                                                      []string
	DeletedAt                                                 *string
}

// apiFolderDoc is a folder as the API answers it.
type apiFolderDoc struct {
	ID, Name, Path string
	ParentFolderID *string
}

// apiHead sends a tus HEAD with a key, checked against the document as
// every call is. GET at the same address is no operation: 405, with the
// tus methods in Allow.
func (e *env) apiHead(t *testing.T, path, secret string) apiCall {
	t.Helper()
	get := e.api(t, http.MethodGet, path, secret, nil, tusHeaders()...)
	if got, want := get.resp.Header.Get("Allow"), "HEAD, PATCH, DELETE, OPTIONS"; get.status != http.StatusMethodNotAllowed || got != want {
		t.Errorf("GET %s: %d, Allow %q; want 405, Allow %q", path, get.status, got, want)
	}
	return e.api(t, http.MethodHead, path, secret, nil, tusHeaders()...)
}

// tusHeaders are the headers of a tus request of the API, beside the key.
func tusHeaders(kv ...string) []string { return append([]string{"Tus-Resumable", "1.0.0"}, kv...) }

// part is the headers of a tus PATCH at an offset.
func part(offset int) []string {
	return tusHeaders("Content-Type", "application/offset+octet-stream", "Upload-Offset", strconv.Itoa(offset))
}

func fileNames(fs []apiFileDoc) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

func TestAPIFolders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")

	a := e.api(t, http.MethodPost, "/api/v1/folders", rw, map[string]any{"name": "Reports"})
	var reports apiFolderDoc
	a.decode(&reports)
	if a.status != http.StatusCreated || a.resp.Header.Get("Location") != "/api/v1/folders/"+reports.ID || reports.Path != "/Reports" || reports.ParentFolderID != nil {
		t.Fatalf("create a folder: %d %s %s", a.status, a.resp.Header.Get("Location"), a.body)
	}
	a = e.api(t, http.MethodPost, "/api/v1/folders", rw, map[string]any{"name": "2026", "parentId": reports.ID})
	var y2026 apiFolderDoc
	a.decode(&y2026)
	if a.status != http.StatusCreated || y2026.Path != "/Reports/2026" {
		t.Fatalf("create a subfolder: %d %s", a.status, a.body)
	}
	for _, tc := range []struct {
		name string
		body map[string]any
		want int
	}{
		{"a name taken, in another case", map[string]any{"name": "reports"}, http.StatusUnprocessableEntity},
		{"a parent that does not exist", map[string]any{"name": "x", "parentId": "folder_missing"}, http.StatusUnprocessableEntity},
		{"a name with a slash", map[string]any{"name": "a/b"}, http.StatusUnprocessableEntity},
	} {
		if a := e.api(t, http.MethodPost, "/api/v1/folders", rw, tc.body); a.status != tc.want {
			t.Errorf("%s: got %d, want %d: %s", tc.name, a.status, tc.want, a.body)
		}
	}

	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/api/v1/folders", []string{"Reports"}},
		{"/api/v1/folders?parent=" + reports.ID, []string{"2026"}},
		{"/api/v1/folders?parent=" + y2026.ID, nil},
	} {
		var list struct{ Items []apiFolderDoc }
		a := e.api(t, http.MethodGet, tc.path, rw, nil)
		a.decode(&list)
		var got []string
		for _, f := range list.Items {
			got = append(got, f.Name)
		}
		if a.status != http.StatusOK || !slices.Equal(got, tc.want) {
			t.Errorf("GET %s: %d %q, want %q", tc.path, a.status, got, tc.want)
		}
	}
	if a := e.api(t, http.MethodGet, "/api/v1/folders?parent=folder_missing", rw, nil); a.status != http.StatusUnprocessableEntity {
		t.Errorf("subfolders of a folder that does not exist: %d", a.status)
	}

	// Read, rename and move with If-Match.
	a = e.api(t, http.MethodGet, "/api/v1/folders/"+y2026.ID, rw, nil)
	tag := a.resp.Header.Get("ETag")
	if a.status != http.StatusOK || tag == "" {
		t.Fatalf("read a folder: %d, ETag %q", a.status, tag)
	}
	a = e.api(t, http.MethodPatch, "/api/v1/folders/"+y2026.ID, rw, map[string]any{"name": "2026-Q1"}, "If-Match", tag)
	var got apiFolderDoc
	a.decode(&got)
	if a.status != http.StatusOK || got.Path != "/Reports/2026-Q1" {
		t.Fatalf("rename: %d %s", a.status, a.body)
	}
	a = e.api(t, http.MethodPatch, "/api/v1/folders/"+y2026.ID, rw, map[string]any{"parentId": nil}, "If-Match", tag)
	wantProblem(t, "a move at the ETag before the rename", a, http.StatusPreconditionFailed, "stale")
	cur := e.api(t, http.MethodGet, "/api/v1/folders/"+y2026.ID, rw, nil).resp.Header.Get("ETag")
	a = e.api(t, http.MethodPatch, "/api/v1/folders/"+y2026.ID, rw, map[string]any{"parentId": nil, "name": "Q1"}, "If-Match", cur)
	a.decode(&got)
	if a.status != http.StatusOK || got.Path != "/Q1" || got.ParentFolderID != nil {
		t.Fatalf("rename and move to the top level: %d %s", a.status, a.body)
	}
	a = e.api(t, http.MethodPatch, "/api/v1/folders/"+y2026.ID, rw, map[string]any{"parentId": reports.ID})
	if a.status != http.StatusOK {
		t.Fatalf("move Q1 into Reports: %d %s", a.status, a.body)
	}
	a = e.api(t, http.MethodPatch, "/api/v1/folders/"+reports.ID, rw, map[string]any{"name": "Renamed", "parentId": y2026.ID})
	if p := wantProblem(t, "a folder moved into a folder inside it", a, http.StatusUnprocessableEntity, "invalid"); p != nil {
		if errs, _ := p["errors"].(map[string]any); errs["parentId"] == nil {
			t.Errorf("the refusal does not name parentId: %v", p)
		}
	}

	// Delete: a folder holding files only once their number is confirmed.
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: e.acme.ID})
	inner := e.uploadFile(t, e.acme.ID, y2026.ID, "inner.txt", []byte("inner"))
	e.uploadFile(t, e.acme.ID, reports.ID, "outer.txt", []byte("outer"))
	for _, tc := range []struct {
		query string
		want  int
	}{{"", http.StatusConflict}, {"?files=1", http.StatusConflict}, {"?files=-1", http.StatusBadRequest}, {"?files=x", http.StatusBadRequest}} {
		a := e.api(t, http.MethodDelete, "/api/v1/folders/"+reports.ID+tc.query, rw, nil)
		if a.status != tc.want {
			t.Errorf("DELETE %s: got %d, want %d: %s", tc.query, a.status, tc.want, a.body)
		}
		if tc.want == http.StatusConflict {
			if p := a.problem(); !strings.Contains(p["detail"].(string), "/Reports and the folders inside it hold 2 files") {
				t.Errorf("DELETE %s: detail %q does not say how many files", tc.query, p["detail"])
			}
		}
	}
	a = e.api(t, http.MethodDelete, "/api/v1/folders/"+reports.ID+"?files=2", rw, nil, "If-Match", `"stale"`)
	wantProblem(t, "DELETE with a stale If-Match", a, http.StatusPreconditionFailed, "stale")
	a = e.api(t, http.MethodDelete, "/api/v1/folders/"+reports.ID+"?files=2", rw, nil)
	if a.status != http.StatusNoContent {
		t.Fatalf("DELETE confirmed: %d %s", a.status, a.body)
	}
	for _, id := range []string{reports.ID, y2026.ID} {
		if a := e.api(t, http.MethodGet, "/api/v1/folders/"+id, rw, nil); a.status != http.StatusNotFound {
			t.Errorf("a deleted folder: %d", a.status)
		}
	}
	if f, err := e.files.File(ctx, e.acme.ID, inner.ID); err != nil || !f.InTrash() {
		t.Errorf("a file of a deleted folder is not in the trash: %+v %v", f, err)
	}
}

func TestAPIFiles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: e.acme.ID})
	folder, err := e.files.CreateFolder(ctx, e.acme.ID, "", "Docs")
	if err != nil {
		t.Fatal(err)
	}
	b := e.uploadFile(t, e.acme.ID, folder.ID, "b.txt", []byte("bbb"))
	e.uploadFile(t, e.acme.ID, folder.ID, "a.txt", []byte("aaaaaaaaaa"))
	e.clock.Advance(time.Minute)
	e.uploadFile(t, e.acme.ID, folder.ID, "c 見積.txt", []byte("c"))
	e.uploadFile(t, e.acme.ID, "", "top.txt", []byte("top"))

	in := "&folder=" + folder.ID
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"?sort=name" + in, []string{"a.txt", "b.txt", "c 見積.txt"}},
		{"?sort=name&desc=true" + in, []string{"c 見積.txt", "b.txt", "a.txt"}},
		{"?sort=size" + in, []string{"c 見積.txt", "b.txt", "a.txt"}},
		{"?sort=size&desc=true" + in, []string{"a.txt", "b.txt", "c 見積.txt"}},
		{"?sort=date&desc=true" + in, []string{"c 見積.txt"}}, // the last uploaded first
		{"", []string{"top.txt"}},
		{"?q=見積", []string{"c 見積.txt"}},
		{"?q=b" + in, []string{"b.txt"}}, // a search covers every folder
		{"?q=txt", []string{"a.txt", "b.txt", "c 見積.txt", "top.txt"}},
	} {
		var list struct{ Items []apiFileDoc }
		a := e.api(t, http.MethodGet, "/api/v1/files"+tc.query, rw, nil)
		a.decode(&list)
		got := fileNames(list.Items)
		if strings.Contains(tc.query, "sort=date") && len(got) > 0 {
			got = got[:1]
		}
		if a.status != http.StatusOK || !slices.Equal(got, tc.want) {
			t.Errorf("GET /files%s: %d %q, want %q", tc.query, a.status, got, tc.want)
		}
	}
	// Pages: limit and next, as the other lists.
	var page1, page2 struct {
		Items   []apiFileDoc
		Next    string
		HasMore bool
	}
	e.api(t, http.MethodGet, "/api/v1/files?limit=2"+in, rw, nil).decode(&page1)
	e.api(t, http.MethodGet, "/api/v1/files?limit=2"+in+"&next="+page1.Next, rw, nil).decode(&page2)
	if got := fileNames(append(page1.Items, page2.Items...)); !page1.HasMore || page2.HasMore || !slices.Equal(got, []string{"a.txt", "b.txt", "c 見積.txt"}) {
		t.Errorf("two pages: %q (more %v, %v)", got, page1.HasMore, page2.HasMore)
	}
	for _, tc := range []struct {
		query string
		want  int
	}{
		{"?folder=folder_missing", http.StatusUnprocessableEntity},
		{"?sort=colour", http.StatusBadRequest},
		{"?next=garbage", http.StatusUnprocessableEntity},
	} {
		if a := e.api(t, http.MethodGet, "/api/v1/files"+tc.query, rw, nil); a.status != tc.want {
			t.Errorf("GET /files%s: %d, want %d", tc.query, a.status, tc.want)
		}
	}

	// Metadata, changed with If-Match; a download does not change the ETag.
	path := "/api/v1/files/" + b.ID
	a := e.api(t, http.MethodGet, path, rw, nil)
	tag := a.resp.Header.Get("ETag")
	var f apiFileDoc
	a.decode(&f)
	if a.status != http.StatusOK || tag == "" || f.Size != 3 || f.Checksum != b.Checksum || f.FolderID == nil || *f.FolderID != folder.ID {
		t.Fatalf("read a file: %d %q %s", a.status, tag, a.body)
	}
	if a := e.api(t, http.MethodGet, path, rw, nil, "If-None-Match", tag); a.status != http.StatusNotModified {
		t.Errorf("If-None-Match of the current ETag: %d", a.status)
	}
	if a := e.api(t, http.MethodGet, path+"/content", rw, nil); a.status != http.StatusOK {
		t.Fatalf("download: %d", a.status)
	}
	e.clock.Advance(2 * time.Minute)
	a = e.api(t, http.MethodPatch, path, rw, map[string]any{"displayName": "Bee", "tags": []string{"x", "日本"}, "description": "the b file"}, "If-Match", tag)
	a.decode(&f)
	if a.status != http.StatusOK || f.DisplayName != "Bee" || !slices.Equal(f.Tags, []string{"x", "日本"}) || f.Description != "the b file" || f.Name != "b.txt" {
		t.Fatalf("PATCH at the ETag read before a download: %d %s", a.status, a.body)
	}
	newTag := a.resp.Header.Get("ETag")
	if newTag == tag {
		t.Error("the ETag did not change with the metadata")
	}
	a = e.api(t, http.MethodPatch, path, rw, map[string]any{"displayName": "Lost"}, "If-Match", tag)
	wantProblem(t, "PATCH at the old ETag", a, http.StatusPreconditionFailed, "stale")
	if cur, _ := e.files.File(ctx, e.acme.ID, b.ID); cur.DisplayName != "Bee" {
		t.Errorf("a refused PATCH changed the file: %q", cur.DisplayName)
	}
	for _, tc := range []struct {
		name string
		body map[string]any
		want int
	}{
		{"a tag with a comma", map[string]any{"tags": []string{"a,b"}}, http.StatusUnprocessableEntity},
		{"a folder that does not exist", map[string]any{"folderId": "folder_missing"}, http.StatusUnprocessableEntity},
		{"an unknown field", map[string]any{"size": 1}, http.StatusBadRequest},
		{"tags not a list", map[string]any{"tags": "a b"}, http.StatusBadRequest},
		{"an empty name", map[string]any{"name": " "}, http.StatusUnprocessableEntity},
		{"a name with a slash", map[string]any{"name": "a/b.txt"}, http.StatusUnprocessableEntity},
	} {
		if a := e.api(t, http.MethodPatch, path, rw, tc.body); a.status != tc.want {
			t.Errorf("PATCH %s: got %d, want %d: %s", tc.name, a.status, tc.want, a.body)
		}
	}
	a = e.api(t, http.MethodPatch, path, rw, map[string]any{"folderId": nil}, "If-Match", newTag)
	a.decode(&f)
	if a.status != http.StatusOK || f.FolderID != nil || f.DisplayName != "Bee" {
		t.Fatalf("move to the top level: %d %s", a.status, a.body)
	}
	// Renamed, it downloads with its new name.
	a = e.api(t, http.MethodPatch, path, rw, map[string]any{"name": "bee.txt"}, "If-Match", a.resp.Header.Get("ETag"))
	a.decode(&f)
	if a.status != http.StatusOK || f.Name != "bee.txt" || f.DisplayName != "Bee" {
		t.Fatalf("rename: %d %s", a.status, a.body)
	}
	if a := e.api(t, http.MethodGet, path+"/content", rw, nil); !strings.Contains(a.resp.Header.Get("Content-Disposition"), "bee.txt") {
		t.Errorf("the renamed file downloads as %q", a.resp.Header.Get("Content-Disposition"))
	}

	// Trash and restore.
	tag = a.resp.Header.Get("ETag")
	if a := e.api(t, http.MethodDelete, path, rw, nil, "If-Match", `"old"`); a.status != http.StatusPreconditionFailed {
		t.Errorf("DELETE at another ETag: %d", a.status)
	}
	if a := e.api(t, http.MethodDelete, path, rw, nil, "If-Match", tag); a.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", a.status, a.body)
	}
	a = e.api(t, http.MethodGet, path, rw, nil)
	a.decode(&f)
	if a.status != http.StatusOK || f.DeletedAt == nil {
		t.Errorf("a file in the trash: %d %s", a.status, a.body)
	}
	for _, tc := range []struct{ method, path string }{{http.MethodGet, path + "/content"}, {http.MethodPatch, path}, {http.MethodDelete, path}} {
		var body any
		if tc.method == http.MethodPatch {
			body = map[string]any{"displayName": "x"}
		}
		if a := e.api(t, tc.method, tc.path, rw, body); a.status != http.StatusNotFound {
			t.Errorf("%s %s of a file in the trash: %d, want 404", tc.method, tc.path, a.status)
		}
	}
	a = e.api(t, http.MethodPost, path+"/restore", rw, nil, "If-Match", a.resp.Header.Get("ETag"))
	a.decode(&f)
	if a.status != http.StatusOK || f.DeletedAt != nil || f.DisplayName != "Bee" {
		t.Fatalf("restore: %d %s", a.status, a.body)
	}
	if a := e.api(t, http.MethodPost, path+"/restore", rw, nil); a.status != http.StatusConflict {
		t.Errorf("restore of a file not in the trash: %d", a.status)
	}
}

func TestAPIFileContent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	k, read := e.apiKey(t, e.acme.ID, "read")
	data := bytes.Repeat([]byte("0123456789"), 3000)
	f := e.uploadFile(t, e.acme.ID, "", "報告書.bin", data)
	path := "/api/v1/files/" + f.ID + "/content"

	a := e.api(t, http.MethodGet, path, read, nil)
	h := a.resp.Header
	if a.status != http.StatusOK || !bytes.Equal(a.body, data) {
		t.Fatalf("whole: %d, %d bytes, want the %d uploaded", a.status, len(a.body), len(data))
	}
	if cd := h.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment;") || !strings.Contains(cd, "filename*=UTF-8''%E5%A0%B1%E5%91%8A%E6%9B%B8.bin") {
		t.Errorf("Content-Disposition %q", cd)
	}
	if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Content-Type") != "application/octet-stream" {
		t.Errorf("headers %v", h)
	}
	etag := h.Get("ETag")
	if want := `"` + strings.TrimPrefix(f.Checksum, "sha256:") + `"`; etag != want {
		t.Errorf("ETag %q, want the checksum %q", etag, want)
	}
	statuses := []int{a.status}
	for _, tc := range []struct {
		name    string
		headers []string
		status  int
		body    []byte
	}{
		{"a range", []string{"Range", "bytes=12345-12399"}, http.StatusPartialContent, data[12345:12400]},
		{"the last bytes", []string{"Range", "bytes=-7"}, http.StatusPartialContent, data[len(data)-7:]},
		{"a range while the ETag holds", []string{"Range", "bytes=0-9", "If-Range", etag}, http.StatusPartialContent, data[:10]},
		{"a range once the ETag no longer holds", []string{"Range", "bytes=0-9", "If-Range", `"other"`}, http.StatusOK, data},
		{"the bytes held", []string{"If-None-Match", etag}, http.StatusNotModified, nil},
		{"a range past the end", []string{"Range", "bytes=40000-"}, http.StatusRequestedRangeNotSatisfiable, nil},
		{"a range of another unit, ignored", []string{"Range", "items=0-5"}, http.StatusOK, data},
		{"no unit, ignored", []string{"Range", "0-5"}, http.StatusOK, data},
		{"the unit in capitals", []string{"Range", "Bytes=0-9"}, http.StatusPartialContent, data[:10]},
		{"a malformed range", []string{"Range", "bytes=abc"}, http.StatusRequestedRangeNotSatisfiable, nil},
		{"a range backwards", []string{"Range", "bytes=9-0"}, http.StatusRequestedRangeNotSatisfiable, nil},
	} {
		a := e.api(t, http.MethodGet, path, read, nil, tc.headers...)
		statuses = append(statuses, a.status)
		if a.status != tc.status {
			t.Errorf("%s: got %d, want %d: %.200s", tc.name, a.status, tc.status, a.body)
			continue
		}
		if tc.status == http.StatusRequestedRangeNotSatisfiable {
			a.problem()
			if got := a.resp.Header.Get("Content-Range"); got != "bytes */30000" {
				t.Errorf("%s: Content-Range %q", tc.name, got)
			}
			continue
		}
		if !bytes.Equal(a.body, tc.body) {
			t.Errorf("%s: got %d bytes %.20q, want %d %.20q", tc.name, len(a.body), a.body, len(tc.body), tc.body)
		}
	}
	// Two ranges: one answer of two parts (multipart/byteranges), each
	// with its Content-Range, as the document says.
	a = e.api(t, http.MethodGet, path, read, nil, "Range", "bytes=0-1,12345-12349")
	statuses = append(statuses, a.status)
	if got := byteRanges(t, a); a.status != http.StatusPartialContent || !slices.Equal(got, []string{"bytes 0-1/30000 01", "bytes 12345-12349/30000 56789"}) {
		t.Errorf("two ranges: %d, parts %q", a.status, got)
	}
	// The usage log has each download's status, although the bytes went
	// around Echo's writer.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := e.usage.Run(ctx); err != nil {
		t.Fatal(err)
	}
	calls, _, err := e.keys.Calls(context.Background(), e.acme.ID, apikey.CallFilter{KeyID: k.ID})
	if err != nil {
		t.Fatal(err)
	}
	var logged []int
	for _, c := range calls {
		logged = append(logged, c.StatusCode)
	}
	slices.Sort(logged)
	slices.Sort(statuses)
	if !slices.Equal(logged, statuses) {
		t.Errorf("logged statuses %v, want %v", logged, statuses)
	}
}

func TestAPITusUpload(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: e.acme.ID})
	folder, err := e.files.CreateFolder(ctx, e.acme.ID, "", "Inbox")
	if err != nil {
		t.Fatal(err)
	}

	a := e.api(t, http.MethodOptions, "/api/v1/uploads", rw, nil)
	if a.status != http.StatusNoContent || a.resp.Header.Get("Tus-Version") != "1.0.0" || a.resp.Header.Get("Tus-Max-Size") == "" {
		t.Fatalf("OPTIONS: %d %v", a.status, a.resp.Header)
	}
	// 200 KB: more than the API's body limit of 64 KiB, in two parts.
	data := make([]byte, 200_000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	a = e.api(t, http.MethodPost, "/api/v1/uploads", rw, nil)
	wantProblem(t, "a creation without Tus-Resumable", a, http.StatusPreconditionFailed, "stale")
	if a.resp.Header.Get("Tus-Version") != "1.0.0" {
		t.Errorf("412 without Tus-Version: %v", a.resp.Header)
	}
	// An invalid creation names its fields in errors, as every 422 does.
	for _, tc := range []struct {
		what     string
		metadata []string
		fields   []string
	}{
		{"no name", []string{"filetype", "text/plain"}, []string{"filename"}},
		{"a name of ..", []string{"filename", ".."}, []string{"filename"}},
		{"no such folder", []string{"filename", "a.txt", "folderId", "folder_missing"}, []string{"folderId"}},
		{"both", []string{"folderId", "folder_missing"}, []string{"filename", "folderId"}},
	} {
		a := e.api(t, http.MethodPost, "/api/v1/uploads", rw, nil, tusHeaders("Upload-Length", "10", "Upload-Metadata", meta(tc.metadata...))...)
		p := wantProblem(t, tc.what, a, http.StatusUnprocessableEntity, "invalid")
		if p == nil {
			continue
		}
		errs, _ := p["errors"].(map[string]any)
		if got := slices.Sorted(maps.Keys(errs)); !slices.Equal(got, tc.fields) {
			t.Errorf("%s: errors %v, want the fields %v", tc.what, p["errors"], tc.fields)
		}
		if a.resp.Header.Get("Tus-Resumable") != "1.0.0" {
			t.Errorf("%s: no Tus-Resumable", tc.what)
		}
	}
	a = e.api(t, http.MethodPost, "/api/v1/uploads", rw, nil, tusHeaders("Upload-Length", strconv.Itoa(len(data)), "Upload-Metadata", meta("filename", "データ.bin", "folderId", folder.ID))...)
	loc := a.resp.Header.Get("Location")
	if a.status != http.StatusCreated || !strings.HasPrefix(loc, "/api/v1/uploads/upload_") || a.resp.Header.Get("Upload-Expires") == "" {
		t.Fatalf("create: %d, Location %q: %s", a.status, loc, a.body)
	}
	if a := e.apiHead(t, loc, rw); a.status != http.StatusOK || a.resp.Header.Get("Upload-Offset") != "0" || a.resp.Header.Get("Upload-Length") != "200000" {
		t.Fatalf("HEAD: %d %v", a.status, a.resp.Header)
	}
	if a := e.api(t, http.MethodOptions, loc, rw, nil); a.status != http.StatusNoContent || a.resp.Header.Get("Tus-Version") != "1.0.0" {
		t.Errorf("OPTIONS at the upload's address: %d %v", a.status, a.resp.Header)
	}
	// The document says so too: HEAD, not GET, at an upload's address.
	var doc struct{ Paths map[string]map[string]any }
	if err := json.Unmarshal(servedDocument.doc, &doc); err != nil {
		t.Fatal(err)
	}
	if ops := doc.Paths["/uploads/{upload}"]; ops["head"] == nil || ops["get"] != nil || ops["options"] == nil {
		t.Errorf("the document's operations at /uploads/{upload}: %v, want head and options, no get", slices.Sorted(maps.Keys(ops)))
	}
	a = e.api(t, http.MethodPatch, loc, rw, string(data[:120_000]), part(0)...)
	if a.status != http.StatusNoContent || a.resp.Header.Get("Upload-Offset") != "120000" || a.resp.Header.Get("Kanri-File-Id") != "" {
		t.Fatalf("first part: %d %v %s", a.status, a.resp.Header, a.body)
	}
	a = e.api(t, http.MethodPatch, loc, rw, string(data[:10]), part(0)...)
	if a.status != http.StatusConflict || a.resp.Header.Get("Upload-Offset") != "120000" {
		t.Errorf("a part at the wrong offset: %d %v", a.status, a.resp.Header)
	}
	a.problem()
	a = e.api(t, http.MethodPatch, loc, rw, string(data[120_000:]), part(120_000)...)
	fileID := a.resp.Header.Get("Kanri-File-Id")
	if a.status != http.StatusNoContent || a.resp.Header.Get("Upload-Offset") != "200000" || fileID == "" {
		t.Fatalf("last part: %d %v %s", a.status, a.resp.Header, a.body)
	}
	if a := e.apiHead(t, loc, rw); a.resp.Header.Get("Kanri-File-Id") != fileID {
		t.Errorf("HEAD of the completed upload: %v", a.resp.Header)
	}
	a = e.api(t, http.MethodDelete, loc, rw, nil, tusHeaders()...)
	wantProblem(t, "DELETE of a completed upload", a, http.StatusConflict, "conflict")

	var f apiFileDoc
	a = e.api(t, http.MethodGet, "/api/v1/files/"+fileID, rw, nil)
	a.decode(&f)
	if a.status != http.StatusOK || f.Name != "データ.bin" || f.Size != int64(len(data)) || f.FolderID == nil || *f.FolderID != folder.ID {
		t.Errorf("the uploaded file: %d %s", a.status, a.body)
	}
	if a := e.api(t, http.MethodGet, "/api/v1/files/"+fileID+"/content", rw, nil); a.status != http.StatusOK || !bytes.Equal(a.body, data) {
		t.Errorf("its content: %d, %d bytes, not the %d uploaded", a.status, len(a.body), len(data))
	}

	// An upload given up.
	a = e.api(t, http.MethodPost, "/api/v1/uploads", rw, nil, tusHeaders("Upload-Length", "10", "Upload-Metadata", meta("filename", "x.txt"))...)
	gone := a.resp.Header.Get("Location")
	if a := e.api(t, http.MethodDelete, gone, rw, nil, tusHeaders()...); a.status != http.StatusNoContent {
		t.Errorf("DELETE of an upload: %d %s", a.status, a.body)
	}
	if a := e.apiHead(t, gone, rw); a.status != http.StatusNotFound {
		t.Errorf("HEAD of an upload given up: %d", a.status)
	}

	// Over the largest file: refused before any byte, with the message.
	sys := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID})
	as, _ := e.catalog.Assignment(sys, e.acme.ID, kanri.FileServiceID)
	if _, err := e.catalog.UpdateAssignment(sys, e.acme.ID, kanri.FileServiceID, as.ETag, kanri.AssignmentInput{ServiceID: kanri.FileServiceID, Config: map[string]string{"maxFileSize": "5KB", "maxStorage": "1MB"}}); err != nil {
		t.Fatal(err)
	}
	a = e.api(t, http.MethodPost, "/api/v1/uploads", rw, nil, tusHeaders("Upload-Length", "6000", "Upload-Metadata", meta("filename", "big.bin"))...)
	if p := wantProblem(t, "an upload over the largest file", a, http.StatusRequestEntityTooLarge, "too-large"); p != nil {
		if d, _ := p["detail"].(string); !strings.Contains(d, "big.bin is 5.9 KiB, larger than the largest file allowed (5 KiB)") {
			t.Errorf("detail %q", d)
		}
	}
	st, err := e.files.Storage(ctx, e.acme.ID)
	if err != nil || st.Reserved != 0 {
		t.Errorf("storage after the refusal: %+v %v", st, err)
	}
}

// TestAPIFilesOfAnotherTenantAnswer404 calls every files operation that
// takes an id with globex's ids under an acme key: each is 404, and
// nothing of globex's changes.
func TestAPIFilesOfAnotherTenantAnswer404(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")
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
	checked := 0
	for _, r := range e.routes() {
		if !strings.HasPrefix(r.Name, "api:") || !strings.ContainsAny(r.Path, ":") || !strings.Contains(r.Path, "/files/") && !strings.Contains(r.Path, "/folders/") && !strings.Contains(r.Path, "/uploads/") {
			continue
		}
		fileID := file.ID
		if strings.HasSuffix(r.Path, "/restore") {
			fileID = gone.ID
		}
		path := strings.NewReplacer(":file", fileID, ":folder", folder.ID, ":upload", up.ID).Replace(r.Path)
		var a apiCall
		switch {
		case strings.Contains(r.Path, "/uploads/") && (r.Method == http.MethodHead || r.Method == http.MethodOptions):
			a = e.api(t, r.Method, path, rw, nil, tusHeaders()...)
		case strings.Contains(r.Path, "/uploads/"):
			a = e.api(t, r.Method, path, rw, "0123456789", part(0)...)
		case r.Method == http.MethodPatch:
			a = e.api(t, r.Method, path, rw, map[string]any{"name": "hacked"})
			if strings.Contains(r.Path, "/files/") {
				a = e.api(t, r.Method, path, rw, map[string]any{"displayName": "hacked", "folderId": nil})
			}
		case r.Method == http.MethodDelete && strings.Contains(r.Path, "/folders/"):
			a = e.api(t, r.Method, path+"?files=1", rw, nil)
		default:
			a = e.api(t, r.Method, path, rw, nil)
		}
		if a.status != http.StatusNotFound {
			t.Errorf("%s %s with globex's ids under acme's key: %d, want 404", r.Method, path, a.status)
		}
		checked++
	}
	if checked < 11 {
		t.Errorf("checked %d operations; the files operations look incomplete", checked)
	}
	// A globex folder as the target of acme's changes is not one either.
	mine := e.uploadFile(t, e.acme.ID, "", "mine.txt", []byte("mine"))
	if a := e.api(t, http.MethodPatch, "/api/v1/files/"+mine.ID, rw, map[string]any{"folderId": folder.ID}); a.status != http.StatusUnprocessableEntity {
		t.Errorf("a move into globex's folder: %d", a.status)
	}
	for _, path := range []string{"/api/v1/files?folder=" + folder.ID, "/api/v1/folders?parent=" + folder.ID} {
		if a := e.api(t, http.MethodGet, path, rw, nil); a.status != http.StatusUnprocessableEntity {
			t.Errorf("GET %s: %d, want 422", path, a.status)
		}
	}
	var list struct{ Items []apiFileDoc }
	e.api(t, http.MethodGet, "/api/v1/files?q=plan", rw, nil).decode(&list)
	if len(list.Items) != 0 {
		t.Errorf("acme's search found globex's files: %+v", list.Items)
	}

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

// TestAPIFilesRefusals checks the refusals before any handler: a key
// without the write scope on every write, and a tenant whose file service
// is not usable on every operation.
func TestAPIFilesRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	_, read := e.apiKey(t, e.acme.ID, "read")
	_, globex := e.apiKey(t, e.globex.ID, "read", "write") // globex has no file service
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: e.acme.ID})
	folder, err := e.files.CreateFolder(ctx, e.acme.ID, "", "Keep")
	if err != nil {
		t.Fatal(err)
	}
	file := e.uploadFile(t, e.acme.ID, folder.ID, "keep.txt", []byte("keep"))
	up, err := e.files.CreateUpload(ctx, e.acme.ID, files.UploadInput{Name: "u.txt", Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	writes, all := 0, 0
	for _, r := range e.routes() {
		if !strings.HasPrefix(r.Name, "api:") || !strings.HasPrefix(r.Path, "/api/v1/files") && !strings.HasPrefix(r.Path, "/api/v1/folders") && !strings.HasPrefix(r.Path, "/api/v1/uploads") {
			continue
		}
		path := strings.NewReplacer(":file", file.ID, ":folder", folder.ID, ":upload", up.ID).Replace(r.Path)
		call := func(secret string) apiCall {
			switch {
			case strings.HasPrefix(r.Path, "/api/v1/uploads") && (r.Method == http.MethodHead || r.Method == http.MethodOptions):
				return e.api(t, r.Method, path, secret, nil, tusHeaders()...)
			case strings.HasPrefix(r.Path, "/api/v1/uploads"):
				return e.api(t, r.Method, path, secret, "0123456789", part(0)...)
			case r.Method == http.MethodPost || r.Method == http.MethodPatch:
				return e.api(t, r.Method, path+"?files=1", secret, map[string]any{"name": "changed"})
			}
			return e.api(t, r.Method, path+"?files=1", secret, nil)
		}
		// forbidden checks a refusal, and that its detail holds says
		// (a HEAD's answer has no body to read it from).
		forbidden := func(what string, a apiCall, says string) {
			t.Helper()
			what = r.Method + " " + r.Path + " " + what
			if r.Method == http.MethodHead {
				if a.status != http.StatusForbidden {
					t.Errorf("%s: got %d, want 403", what, a.status)
				}
				return
			}
			if p := wantProblem(t, what, a, http.StatusForbidden, "forbidden"); p != nil && !strings.Contains(p["detail"].(string), says) {
				t.Errorf("%s: detail %q, want it to say %q", what, p["detail"], says)
			}
		}
		if r.Name == "api:write" {
			writes++
			forbidden("with a read-only key", call(read), "write")
		}
		all++
		forbidden("without the file service", call(globex), "This service is not assigned to your organisation.")
	}
	if writes < 10 || all < 16 {
		t.Errorf("checked %d writes of %d operations; the files operations look incomplete", writes, all)
	}
	// Nothing changed.
	if fo, err := e.files.Folder(ctx, e.acme.ID, folder.ID); err != nil || fo.Name != "Keep" {
		t.Errorf("the folder changed: %+v %v", fo, err)
	}
	if f, err := e.files.File(ctx, e.acme.ID, file.ID); err != nil || f.InTrash() || f.DisplayName != "" {
		t.Errorf("the file changed: %+v %v", f, err)
	}
	if u, err := e.files.Upload(ctx, e.acme.ID, up.ID); err != nil || u.Offset != 0 {
		t.Errorf("the upload changed: %+v %v", u, err)
	}
}

// TestAPIPatchesWithoutIfMatchKeepEachOther: PATCHes without If-Match sent
// at once to one file, one folder and one message are each made to the
// document as it is when written: none is refused (412) and none undoes
// another's field.
func TestAPIPatchesWithoutIfMatchKeepEachOther(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	e.assignMessaging(t, e.acme.ID)
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")
	file := e.uploadFile(t, e.acme.ID, "", "busy.txt", []byte("busy"))
	var parent, folder apiFolderDoc
	e.api(t, http.MethodPost, "/api/v1/folders", rw, map[string]any{"name": "Parent"}).decode(&parent)
	e.api(t, http.MethodPost, "/api/v1/folders", rw, map[string]any{"name": "Busy"}).decode(&folder)
	ch := e.createChannel(t, rw, map[string]any{"name": "busy"})
	msg := e.postMessage(t, rw, ch.ID, "first")
	const n = 8
	for _, tc := range []struct {
		name   string
		path   string
		fields map[string]func(i int) any // a field each writer changes
		check  func(t *testing.T)
	}{
		{"file", "/api/v1/files/" + file.ID, map[string]func(int) any{
			"displayName": func(i int) any { return fmt.Sprintf("name %d", i) },
			"description": func(i int) any { return fmt.Sprintf("description %d", i) },
		}, func(t *testing.T) {
			var got apiFileDoc
			e.api(t, http.MethodGet, "/api/v1/files/"+file.ID, rw, nil).decode(&got)
			if want := fmt.Sprintf("name %d/description %d", n-1, n-1); got.DisplayName+"/"+got.Description != want {
				t.Errorf("got %s/%s, want %s", got.DisplayName, got.Description, want)
			}
		}},
		{"folder", "/api/v1/folders/" + folder.ID, map[string]func(int) any{
			"name":     func(i int) any { return fmt.Sprintf("Busy %d", i) },
			"parentId": func(i int) any { return []any{parent.ID, nil}[i%2] },
		}, func(t *testing.T) {
			var got apiFolderDoc
			e.api(t, http.MethodGet, "/api/v1/folders/"+folder.ID, rw, nil).decode(&got)
			if got.Name != fmt.Sprintf("Busy %d", n-1) || got.ParentFolderID != nil {
				t.Errorf("got %s in %v, want Busy %d at the top", got.Name, got.ParentFolderID, n-1)
			}
		}},
		{"message", "/api/v1/channels/" + ch.ID + "/messages/" + msg.ID, map[string]func(int) any{
			"content": func(i int) any { return fmt.Sprintf("edit %d", i) },
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var wg sync.WaitGroup
			for field, value := range tc.fields {
				for range 2 { // two writers of each field
					wg.Go(func() {
						for i := range n {
							if a := e.api(t, http.MethodPatch, tc.path, rw, map[string]any{field: value(i)}); a.status != http.StatusOK {
								t.Errorf("PATCH %s %d: got %d, want 200: %s", field, i, a.status, a.body)
							}
						}
					})
				}
			}
			// Reactions change the message beside the edits.
			if tc.name == "message" {
				wg.Go(func() {
					for i := range n {
						method := []string{http.MethodPost, http.MethodDelete}[i%2]
						path := tc.path + "/reactions"
						var body any = map[string]any{"emoji": "👍"}
						if method == http.MethodDelete {
							path, body = path+"/"+url.PathEscape("👍"), nil
						}
						e.api(t, method, path, rw, body)
					}
				})
			}
			wg.Wait()
			if tc.check != nil {
				tc.check(t)
			}
		})
	}
}

// TestAPITusPatchChecksTheOffsetFirst sends PATCHes that are wrong in
// one way or two to an upload of 10 bytes: as tusd, a wrong offset is
// 409 whatever the length, and bytes past the end 413; a complete upload
// takes no byte more, and an empty PATCH at its end changes nothing.
func TestAPITusPatchChecksTheOffsetFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")
	a := e.api(t, http.MethodPost, "/api/v1/uploads", rw, nil, tusHeaders("Upload-Length", "10", "Upload-Metadata", meta("filename", "ten.bin"))...)
	loc := a.resp.Header.Get("Location")
	if a.status != http.StatusCreated {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	// chunked sends a PATCH whose length is not told (Transfer-Encoding:
	// chunked), as a stream is sent.
	chunked := func(offset int, body string) int {
		req, _ := http.NewRequest(http.MethodPatch, e.srv.URL+loc, io.MultiReader(strings.NewReader(body)))
		for kv := part(offset); len(kv) > 1; kv = kv[2:] {
			req.Header.Set(kv[0], kv[1])
		}
		req.Header.Set("Authorization", "Bearer "+rw)
		resp, err := e.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tc := range []struct {
		what    string
		offset  int
		body    string
		chunked bool
		want    int
		offsets string // the answer's Upload-Offset
	}{
		{"the first part", 0, "01234", false, http.StatusNoContent, "5"},
		{"a wrong offset", 3, "34", false, http.StatusConflict, "5"},
		{"a wrong offset that overruns", 8, "89abc", false, http.StatusConflict, "5"},
		{"past the end", 5, "56789ab", false, http.StatusRequestEntityTooLarge, ""},
		{"the last part", 5, "56789", false, http.StatusNoContent, "10"},
		{"a byte more", 10, "x", false, http.StatusRequestEntityTooLarge, ""},
		{"a byte more, of a length not told", 10, "x", true, http.StatusRequestEntityTooLarge, ""},
		{"a wrong offset once complete", 5, "56789", false, http.StatusConflict, "10"},
		{"an empty PATCH at the end", 10, "", false, http.StatusNoContent, "10"},
	} {
		if tc.chunked {
			if got := chunked(tc.offset, tc.body); got != tc.want {
				t.Errorf("%s: got %d, want %d", tc.what, got, tc.want)
			}
			continue
		}
		a := e.api(t, http.MethodPatch, loc, rw, tc.body, part(tc.offset)...)
		if a.status != tc.want {
			t.Errorf("%s: got %d, want %d: %s", tc.what, a.status, tc.want, a.body)
			continue
		}
		if got := a.resp.Header.Get("Upload-Offset"); got != tc.offsets {
			t.Errorf("%s: Upload-Offset %q, want %q", tc.what, got, tc.offsets)
		}
	}
	up, err := e.files.Upload(t.Context(), e.acme.ID, strings.TrimPrefix(loc, "/api/v1/uploads/"))
	if err != nil || up.Offset != 10 || up.CompletedAt.IsZero() {
		t.Fatalf("the upload: %+v %v", up, err)
	}
	f, err := e.files.File(t.Context(), e.acme.ID, up.FileID)
	if err != nil || f.Size != 10 {
		t.Errorf("its file: %+v %v", f, err)
	}
}

// byteRanges returns the parts of a multipart/byteranges answer, each as
// its Content-Range, a space and its bytes.
func byteRanges(t *testing.T, a apiCall) []string {
	t.Helper()
	ct, params, err := mime.ParseMediaType(a.resp.Header.Get("Content-Type"))
	if err != nil || ct != "multipart/byteranges" {
		t.Errorf("content type %q, want multipart/byteranges", a.resp.Header.Get("Content-Type"))
		return nil
	}
	var out []string
	r := multipart.NewReader(bytes.NewReader(a.body), params["boundary"])
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p)
		out = append(out, p.Header.Get("Content-Range")+" "+string(b))
	}
}

// TestAPITusCreationIsIdempotent retries an upload's creation with its
// Idempotency-Key: the retry is the same upload, its size reserved once;
// the key with another length is refused, and another key is another
// upload.
func TestAPITusCreationIsIdempotent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")
	create := func(key, length string) apiCall {
		return e.api(t, http.MethodPost, "/api/v1/uploads", rw, nil, tusHeaders("Upload-Length", length, "Upload-Metadata", meta("filename", "once.bin"), "Idempotency-Key", key)...)
	}
	reserved := func() int64 {
		t.Helper()
		st, err := e.files.Storage(t.Context(), e.acme.ID)
		if err != nil {
			t.Fatal(err)
		}
		return st.Reserved
	}
	first := create("retry-1", "1000")
	loc := first.resp.Header.Get("Location")
	if first.status != http.StatusCreated || loc == "" {
		t.Fatalf("create: %d %s", first.status, first.body)
	}
	for _, tc := range []struct {
		what, key, length string
		status            int
		sameUpload        bool
		reserved          int64
	}{
		{"a retry", "retry-1", "1000", http.StatusCreated, true, 1000},
		{"a second retry", "retry-1", "1000", http.StatusCreated, true, 1000},
		{"the key with another length", "retry-1", "2000", http.StatusUnprocessableEntity, false, 1000},
		{"another key", "retry-2", "1000", http.StatusCreated, false, 2000},
	} {
		a := create(tc.key, tc.length)
		if a.status != tc.status {
			t.Errorf("%s: got %d, want %d: %s", tc.what, a.status, tc.status, a.body)
		}
		if got := a.resp.Header.Get("Location") == loc; got != tc.sameUpload {
			t.Errorf("%s: Location %q, first %q", tc.what, a.resp.Header.Get("Location"), loc)
		}
		if tc.sameUpload && (a.resp.Header.Get("Idempotent-Replayed") != "true" || a.resp.Header.Get("Upload-Expires") != first.resp.Header.Get("Upload-Expires") || a.resp.Header.Get("Tus-Resumable") != "1.0.0") {
			t.Errorf("%s: headers %v, want the first answer's, replayed", tc.what, a.resp.Header)
		}
		if got := reserved(); got != tc.reserved {
			t.Errorf("%s: %d bytes reserved, want %d", tc.what, got, tc.reserved)
		}
	}
}
