package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/disk"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/wiring"
)

// Quota of the crash test's tenant: room for about half of what the
// uploaders try.
const (
	crashMaxStorage = 1 << 20
	crashPart       = 64 << 10
)

// TestUploadQuotaHoldsAcrossCrashes runs eight tus uploads in parallel
// against a quota that holds about half of them, while the server is killed
// (SIGKILL) and restarted again and again; the uploads resume where the
// server recorded them. After a last restart the tenant's storage account
// must equal what exists: used = the sizes of its files, reserved = the
// sizes of its open uploads, never more than the quota; every file's bytes
// and checksum are those uploaded; and expiring the open uploads gives
// every reservation back.
func TestUploadQuotaHoldsAcrossCrashes(t *testing.T) {
	dir := t.TempDir()
	tid := seedCrashTenants(t, dir)[0]
	withServices(t, dir, time.Now, func(ctx context.Context, svcs *wiring.Set) {
		if _, _, err := svcs.Catalog.Assign(ctx, tid, kanri.AssignmentInput{ServiceID: kanri.FileServiceID,
			Config: map[string]string{"maxStorage": "1MB", "maxFileSize": "256KB"}}); err != nil {
			t.Fatal(err)
		}
	})

	var mu sync.Mutex
	addr, gen := "", 0
	setAddr := func(a string) { mu.Lock(); addr = a; gen++; mu.Unlock() }
	getAddr := func() (string, int) { mu.Lock(); defer mu.Unlock(); return addr, gen }
	srv, a := startServer(t, dir, "2m")
	setAddr(a)

	c := newTusClient(t, getAddr, tid)
	type result struct {
		data   []byte
		fileID string // "" when the quota refused it
	}
	results := make([]result, 8)
	progress := make(chan int, 1024) // the server generation of each answered PATCH
	var wg sync.WaitGroup
	for i := range results {
		data := make([]byte, 150<<10+mrand.IntN(100<<10))
		rand.Read(data)
		wg.Go(func() {
			results[i] = result{data, c.upload(fmt.Sprintf("crash-%d.bin", i), data, progress)}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	// Kill the server after a few of its PATCHes were answered, five times,
	// or until every upload ended.
	for kill := 0; kill < 5; kill++ {
		_, current := getAddr()
		want, timeout := 1+mrand.IntN(4), time.After(crashHangTimeout)
	wait:
		for want > 0 {
			select {
			case g := <-progress:
				if g == current {
					want--
				}
			case <-done:
				break wait
			case <-timeout:
				t.Fatalf("server %d answered no upload within %s", current, crashHangTimeout)
			}
		}
		_ = srv.Process.Signal(syscall.SIGKILL)
		_ = srv.Wait()
		srv, a = startServer(t, dir, "2m")
		setAddr(a)
	}
	select {
	case <-done:
	case <-time.After(crashHangTimeout):
		t.Fatal("the uploads did not end after the last restart")
	}
	_ = srv.Process.Signal(syscall.SIGKILL)
	_ = srv.Wait()
	t.Logf("%d requests got no answer (cut by a kill or sent while the server started)", c.cut.Load())

	var accepted int64
	for _, r := range results {
		if r.fileID != "" {
			accepted += int64(len(r.data))
		}
	}
	if accepted == 0 || accepted > crashMaxStorage {
		t.Errorf("uploads accepted: %d bytes, want some and at most %d", accepted, crashMaxStorage)
	}
	now := time.Now()
	withServices(t, dir, func() time.Time { return now }, func(ctx context.Context, svcs *wiring.Set) {
		list, _, err := svcs.Files.Files(ctx, tid, "", files.ListQuery{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var used int64
		for _, f := range list {
			used += f.Size
		}
		ups, err := svcs.Deps.Store.Tenant(tid).Uploads().All(ctx, docstore.Query{})
		if err != nil {
			t.Fatal(err)
		}
		var reserved int64
		for _, up := range ups {
			if up.CompletedAt.IsZero() {
				reserved += up.Size
			}
		}
		st, err := svcs.Files.Storage(ctx, tid)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := [3]int64{st.Used, st.Reserved, int64(st.Files)}, [3]int64{used, reserved, int64(len(list))}; got != want {
			t.Errorf("storage account (used, reserved, files) = %v, want %v as the documents say", got, want)
		}
		if used != accepted || st.Used+st.Reserved > crashMaxStorage {
			t.Errorf("used %d + reserved %d; the uploads that answered a file hold %d; quota %d", st.Used, st.Reserved, accepted, crashMaxStorage)
		}
		for i, r := range results {
			if r.fileID == "" {
				continue
			}
			f, err := svcs.Files.File(ctx, tid, r.fileID)
			if err != nil {
				t.Errorf("upload %d: its file: %v", i, err)
				continue
			}
			sum := sha256.Sum256(r.data)
			if got, want := f.Checksum, "sha256:"+hex.EncodeToString(sum[:]); got != want {
				t.Errorf("upload %d: checksum %s, want %s", i, got, want)
			}
			got, err := io.ReadAll(svcs.Files.Open(ctx, tid, f))
			if err != nil || !bytes.Equal(got, r.data) {
				t.Errorf("upload %d: read back %d bytes (%v), want the %d uploaded", i, len(got), err, len(r.data))
			}
		}
		t.Logf("%d uploads, %d became files (%d bytes); %d uploads left open after the crashes holding %d bytes",
			len(results), len(list), used, len(ups)-len(list), reserved)
	})
	// A day later every open upload has expired and given its bytes back.
	later := now.Add(25 * time.Hour)
	withServices(t, dir, func() time.Time { return later }, func(ctx context.Context, svcs *wiring.Set) {
		if _, err := svcs.Files.ExpireUploads(ctx); err != nil {
			t.Fatal(err)
		}
		st, err := svcs.Files.Storage(ctx, tid)
		if err != nil {
			t.Fatal(err)
		}
		if st.Reserved != 0 || st.Used != accepted {
			t.Errorf("after the uploads expired: used %d, reserved %d; want %d and 0", st.Used, st.Reserved, accepted)
		}
	})
}

// withServices opens the store and blobs in dir (no server may be running
// on them) and calls fn with the services over them, as the system.
func withServices(t *testing.T, dir string, now func() time.Time, fn func(context.Context, *wiring.Set)) {
	t.Helper()
	ds, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	d, err := disk.New(filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := archiveKeys(Config{DataDir: dir}) // the server's, which sealed its archives
	if err != nil {
		t.Fatal(err)
	}
	svcs := wiring.New(store.New(ds, nil, features.Schema()), nil, now, wiring.Options{Roles: features.Roles(), Hasher: auth.Hasher{Cost: bcrypt.MinCost}, Blobs: blob.New(d), ArchiveKeys: keys})
	fn(audit.WithActor(t.Context(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true}), svcs)
}

// tusClient uploads with tus through the console's upload route as the
// tenant's administrator, surviving server restarts.
type tusClient struct {
	t        *testing.T
	server   func() (string, int)
	tenantID string
	http     *http.Client

	mu    sync.Mutex
	token string // the session's CSRF token

	// cut counts the requests that got no answer: a kill landed on them
	// or the server was starting.
	cut atomic.Int64
}

func newTusClient(t *testing.T, server func() (string, int), tenantID string) *tusClient {
	jar, _ := cookiejar.New(nil)
	return &tusClient{t: t, server: server, tenantID: tenantID,
		http: &http.Client{Jar: jar, Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// csrf returns the session's CSRF token, signing in first when needed; ""
// when the server did not answer.
func (c *tusClient) csrf(base string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token != "" {
		return c.token
	}
	page := func(path string) (string, int) {
		resp, err := c.http.Get(base + path)
		if err != nil {
			return "", 0
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b), resp.StatusCode
	}
	body, status := page("/t/" + c.tenantID + "/users")
	if status != http.StatusOK {
		login, _ := page("/login")
		m := csrfField.FindStringSubmatch(login)
		if m == nil {
			return ""
		}
		form := url.Values{"tenant": {"crash-a"}, "username": {"admin"}, "password": {crashPassword}, "_csrf": {m[1]}}
		if resp, err := c.http.PostForm(base+"/login", form); err == nil {
			resp.Body.Close()
		}
		if body, status = page("/t/" + c.tenantID + "/users"); status != http.StatusOK {
			return ""
		}
	}
	if m := csrfField.FindStringSubmatch(body); m != nil {
		c.token = m[1]
	}
	return c.token
}

// send makes one tus request to the current server; status 0 means no
// answer (the server was killed, or is starting).
func (c *tusClient) send(method, path string, body []byte, h http.Header) (int, http.Header, int) {
	addr, gen := c.server()
	base := "http://" + addr
	token := c.csrf(base)
	if token == "" {
		return 0, nil, gen
	}
	req, _ := http.NewRequest(method, base+path, bytes.NewReader(body))
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("Tus-Resumable", "1.0.0")
	req.Header.Set("X-CSRF-Token", token)
	resp, err := c.http.Do(req)
	if err != nil {
		c.cut.Add(1)
		return 0, nil, gen
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header, gen
}

// upload sends data as a new file and returns the file's id, or "" when
// the quota refused it. An upload whose creation got no answer is created
// again (the first one then holds its reservation until it expires).
func (c *tusClient) upload(name string, data []byte, progress chan<- int) string {
	uploads := "/t/" + c.tenantID + "/uploads"
	var location string
	for location == "" {
		status, h, _ := c.send(http.MethodPost, uploads, nil, http.Header{
			"Upload-Length":   {strconv.Itoa(len(data))},
			"Upload-Metadata": {"filename " + base64.StdEncoding.EncodeToString([]byte(name))},
		})
		switch status {
		case http.StatusCreated:
			location = h.Get("Location")
		case http.StatusRequestEntityTooLarge:
			return ""
		case 0, http.StatusServiceUnavailable:
			pause()
		default:
			c.t.Errorf("%s: creation answered %d", name, status)
			return ""
		}
	}
	if u, err := url.Parse(location); err == nil {
		location = u.Path
	}
	for {
		status, h, _ := c.send(http.MethodHead, location, nil, nil)
		if status == 0 {
			pause()
			continue
		}
		if status != http.StatusOK {
			c.t.Errorf("%s: HEAD answered %d", name, status)
			return ""
		}
		if id := h.Get("Kanri-File-Id"); id != "" {
			return id
		}
		offset, _ := strconv.Atoi(h.Get("Upload-Offset"))
		if offset >= len(data) {
			c.t.Errorf("%s: every byte arrived but the upload is not a file", name)
			return ""
		}
		part := data[offset:min(len(data), offset+crashPart)]
		status, h, gen := c.send(http.MethodPatch, location, part, http.Header{
			"Upload-Offset": {strconv.Itoa(offset)},
			"Content-Type":  {"application/offset+octet-stream"},
		})
		switch status {
		case http.StatusNoContent:
			select {
			case progress <- gen:
			default:
			}
			if id := h.Get("Kanri-File-Id"); id != "" {
				return id
			}
		case 0, http.StatusConflict:
			pause() // no answer, or the server recorded less than was sent: HEAD again
		default:
			c.t.Errorf("%s: PATCH answered %d", name, status)
			return ""
		}
	}
}

// pause waits a moment before a request is tried again on a server that is
// restarting; correctness never depends on its length.
func pause() { time.Sleep(20 * time.Millisecond) }
