package web_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/audit"
)

const (
	// tusInteropScript drives the uploads with tus-js-client under Node.
	tusInteropScript = "web/testdata/tus-interop.cjs"
	// tusClientModule is the npm package the script uses (pinned in
	// package.json, installed by `make deps`).
	tusClientModule = "node_modules/tus-js-client/package.json"
	// tusInteropSize is the size of each uploaded file, and
	// tusInteropChunk the bytes of one PATCH: ten PATCHes a file.
	tusInteropSize  = 10 << 20
	tusInteropChunk = 1 << 20
	// tusInteropTimeout bounds one run of the script, so a hung upload
	// fails the test instead of stalling it.
	tusInteropTimeout = 2 * time.Minute
)

// tusExchange is one response tus-js-client received, as the script logs
// it: phase 1 is the upload before an abort, phase 2 its resume.
type tusExchange struct {
	Phase      int    `json:"phase"`
	Method     string `json:"method"`
	URL        string `json:"url"`
	SentOffset *int64 `json:"sentOffset"` // the request's Upload-Offset
	Status     int    `json:"status"`
	Offset     *int64 `json:"offset"` // the response's Upload-Offset
	FileID     string `json:"fileId"`
}

// tusInteropResult is what the script prints.
type tusInteropResult struct {
	Mode            string        `json:"mode"`
	Size            int64         `json:"size"`
	UploadURL       string        `json:"uploadUrl"`
	SentAtAbort     int64         `json:"sentAtAbort"`
	AcceptedAtAbort int64         `json:"acceptedAtAbort"`
	ResumeURL       string        `json:"resumeUrl"`
	ResumeOffset    *int64        `json:"resumeOffset"`
	FileID          string        `json:"fileId"`
	Log             []tusExchange `json:"log"`
	Error           string        `json:"error"`
}

// phase returns the exchanges of one phase.
func (r *tusInteropResult) phase(n int) []tusExchange {
	var out []tusExchange
	for _, x := range r.Log {
		if x.Phase == n {
			out = append(out, x)
		}
	}
	return out
}

// count returns how many exchanges have the method and status.
func count(xs []tusExchange, method string, status int) int {
	n := 0
	for _, x := range xs {
		if x.Method == method && x.Status == status {
			n++
		}
	}
	return n
}

// tusClient returns the node binary and the repository's root, failing
// the test when node or tus-js-client is missing (never skipping it: the
// console's uploads depend on this client).
func tusClient(t *testing.T) (node, root string) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	node, err = exec.LookPath("node")
	if err != nil {
		t.Fatalf("tus interop: node is not on PATH: run `make test` or `npm ci` first (apt-get install -y nodejs npm)")
	}
	if _, err := os.Stat(filepath.Join(root, tusClientModule)); err != nil {
		t.Fatalf("tus interop: %s is missing in %s: run `make test` or `npm ci` first", filepath.Dir(tusClientModule), root)
	}
	return node, root
}

// runTusInterop runs the script with cfg and returns what it printed,
// failing the test if it did not exit 0.
func runTusInterop(t *testing.T, node, root string, cfg map[string]any) *tusInteropResult {
	t.Helper()
	arg, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), tusInteropTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(root, tusInteropScript), string(arg))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(root, "node_modules"))
	cmd.WaitDelay = 5 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	var res tusInteropResult
	if jerr := json.Unmarshal(stdout, &res); jerr != nil {
		t.Fatalf("tus interop: %v; output %q (%v); stderr:\n%s", err, stdout, jerr, stderr.String())
	}
	if err != nil || res.Error != "" {
		t.Fatalf("tus interop (%s): exit %v: %s\nresponses: %+v\nstderr:\n%s", cfg["mode"], err, res.Error, res.Log, stderr.String())
	}
	return &res
}

// TestTusInterop uploads files to the console's tus endpoint with the real
// tus-js-client (pinned in package.json) under Node: once aborted during a
// PATCH and resumed by a new Upload from the first one's URL, and once
// with creation-with-upload when the server offers it (else with the
// client's defaults). Each file must then be whole: its stored checksum
// and its download are those of the bytes sent.
func TestTusInterop(t *testing.T) {
	t.Parallel()
	node, root := tusClient(t)
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	c := e.client(t).signIn("acme", "admin")
	base := "/t/" + e.acme.ID
	c.get(base + "/files") // the session's CSRF token
	var cookies []string
	for _, ck := range c.http.Jar.Cookies(mustURL(e.srv.URL)) {
		cookies = append(cookies, ck.Name+"="+ck.Value)
	}
	if len(cookies) == 0 || c.csrf == "" {
		t.Fatalf("no session: cookies %q, CSRF token %q", cookies, c.csrf)
	}

	resp, _ := c.send(http.MethodOptions, base+"/uploads", nil, nil)
	wantStatus(t, "OPTIONS", resp, http.StatusNoContent)
	extensions := resp.Header.Get("Tus-Extension")
	creationMode := "plain"
	if slices.Contains(strings.Split(extensions, ","), "creation-with-upload") {
		creationMode = "creation-with-upload"
	}

	tests := []struct {
		name string
		file string
		mode string
	}{
		{name: "aborted and resumed", file: "interop-resumed.bin", mode: "resume"},
		{name: creationMode, file: "interop-created.bin", mode: creationMode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := make([]byte, tusInteropSize)
			rand.Read(data)
			sum := sha256.Sum256(data)
			path := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			res := runTusInterop(t, node, root, map[string]any{
				"endpoint": e.srv.URL + base + "/uploads", "cookie": strings.Join(cookies, "; "), "csrf": c.csrf,
				"file": path, "name": tt.file, "type": "application/octet-stream",
				"chunkSize": tusInteropChunk, "mode": tt.mode, "abortAt": 0.3,
			})
			if got, want := res.Size, int64(len(data)); got != want {
				t.Fatalf("the script saw %d bytes, want %d", got, want)
			}
			if !strings.HasPrefix(res.UploadURL, e.srv.URL+base+"/uploads/upload_") {
				t.Errorf("upload URL %q, want one under %s", res.UploadURL, base+"/uploads/")
			}
			if got := count(res.Log, http.MethodPost, http.StatusCreated); got != 1 {
				t.Errorf("%d uploads created, want 1; responses %+v", got, res.Log)
			}

			switch tt.mode {
			case "resume":
				checkResumed(t, res)
			case "creation-with-upload":
				post := res.Log[0]
				if post.Method != http.MethodPost || post.Offset == nil || *post.Offset <= 0 {
					t.Errorf("creation with upload: the POST's answer %+v, want an Upload-Offset past 0", post)
				}
			default:
				t.Logf("the server does not offer creation-with-upload (Tus-Extension %q): uploaded with tus-js-client's defaults", extensions)
			}

			// The file: whole, under its name, with the checksum of the
			// bytes sent, and downloaded byte for byte.
			if res.FileID == "" {
				t.Fatalf("no Kanri-File-Id in the last response; responses %+v", res.Log)
			}
			ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: e.acme.ID})
			f, err := e.files.File(ctx, e.acme.ID, res.FileID)
			if err != nil {
				t.Fatalf("file %s: %v", res.FileID, err)
			}
			if got, want := f.Checksum, "sha256:"+hex.EncodeToString(sum[:]); got != want {
				t.Errorf("stored checksum %s, want %s", got, want)
			}
			if f.Size != int64(len(data)) || f.Name != tt.file {
				t.Errorf("file %q of %d bytes, want %q of %d", f.Name, f.Size, tt.file, len(data))
			}
			resp, body := c.get(base + "/files/" + res.FileID + "/download")
			wantStatus(t, "download", resp, http.StatusOK)
			if got := sha256.Sum256([]byte(body)); got != sum {
				t.Errorf("downloaded %d bytes with SHA-256 %x, want the %d uploaded (%x)", len(body), got, len(data), sum)
			}
			resp, _ = c.tus(http.MethodHead, strings.TrimPrefix(res.UploadURL, e.srv.URL), nil, nil)
			if got := resp.Header.Get("Kanri-File-Id"); resp.StatusCode != http.StatusOK || got != res.FileID {
				t.Errorf("HEAD of the completed upload: %d, Kanri-File-Id %q, want 200 and %q", resp.StatusCode, got, res.FileID)
			}
		})
	}
}

// checkResumed checks that an aborted upload really resumed: several
// PATCHes before the abort, which came during a PATCH; then a new Upload
// at the same URL that asked the offset (HEAD), started there, past what
// the server had confirmed and before the end, and created nothing.
func checkResumed(t *testing.T, res *tusInteropResult) {
	t.Helper()
	before, after := res.phase(1), res.phase(2)
	if got := count(before, http.MethodPatch, http.StatusNoContent); got < 2 {
		t.Errorf("%d PATCHes before the abort, want at least 2; responses %+v", got, before)
	}
	if res.AcceptedAtAbort <= 0 || res.SentAtAbort <= res.AcceptedAtAbort || res.SentAtAbort%tusInteropChunk == 0 {
		t.Errorf("aborted at %d bytes sent, %d confirmed: want an abort during a PATCH, after one confirmed", res.SentAtAbort, res.AcceptedAtAbort)
	}
	if res.ResumeURL != res.UploadURL {
		t.Errorf("resumed at %q, want the first upload's %q", res.ResumeURL, res.UploadURL)
	}
	if len(after) == 0 || after[0].Method != http.MethodHead || after[0].Status != http.StatusOK || res.ResumeOffset == nil {
		t.Fatalf("the resume did not begin with a HEAD answered 200; responses %+v", after)
	}
	resumed := *res.ResumeOffset
	if resumed < res.AcceptedAtAbort || resumed >= res.Size {
		t.Errorf("resumed at offset %d, want from %d (confirmed before the abort) to below %d", resumed, res.AcceptedAtAbort, res.Size)
	}
	if count(after, http.MethodPost, http.StatusCreated) != 0 {
		t.Errorf("the resume created a new upload; responses %+v", after)
	}
	var firstPatch *tusExchange
	for i := range after {
		if after[i].Method == http.MethodPatch {
			firstPatch = &after[i]
			break
		}
	}
	if firstPatch == nil || firstPatch.SentOffset == nil || *firstPatch.SentOffset != resumed {
		t.Errorf("the resume's first PATCH %+v, want one at offset %d", firstPatch, resumed)
	}
	patches := 0
	var refused []string
	for _, x := range after {
		if x.Method == http.MethodPatch {
			patches++
		}
		if x.Status >= 300 {
			r := fmt.Sprintf("%s at %s: %d", x.Method, offsetText(x.SentOffset), x.Status)
			if x.Offset != nil {
				r += ", Upload-Offset " + offsetText(x.Offset)
			}
			refused = append(refused, r)
		}
	}
	t.Logf("aborted at %d bytes sent (%d confirmed, %d PATCHes); resumed at %d with %d PATCHes; answers refused and retried: %q",
		res.SentAtAbort, res.AcceptedAtAbort, count(before, http.MethodPatch, http.StatusNoContent), resumed,
		patches, refused)
}

// offsetText shows an Upload-Offset, or "none".
func offsetText(p *int64) string {
	if p == nil {
		return "none"
	}
	return strconv.FormatInt(*p, 10)
}
