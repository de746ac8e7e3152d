package main

import (
	"archive/tar"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
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
	"github.com/kanri/kanri/internal/docstore/docstoretest"
	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/wiring"
)

// The backed-up tenant of TestBackupSurvivesKill: enough audit records
// that its parts stream for a while, and enough files that copying their
// contents takes a while, on a fast machine too (each content is a
// temporary file written, then all are synced and put in place).
const (
	backupCrashTenant = "tenant_acme"
	backupCrashAudit  = 1_500
	backupCrashFiles  = 200
)

// TestBackupSurvivesKill kills the server (SIGKILL) during a backup at
// three moments: while its parts stream, once its parts are stored, and
// while the file contents are copied. After each kill the server starts
// again on the same data: the run is marked failed as interrupted, nothing
// of its archive remains (no manifest, no part, no half-written blob), its
// archive is refused, and the job can run again at once. A last run
// succeeds, and its archive verifies and downloads whole.
func TestBackupSurvivesKill(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	jobID := seedBackupCrash(t, dir)
	t.Logf("seeded %d audit records and %d files in %v", backupCrashAudit, backupCrashFiles, time.Since(start).Round(time.Millisecond))
	b := backupBlobs(filepath.Join(dir, "blobs")) // the local blob store: no KANRI_BLOB_DIR

	srv, addr := startServer(t, dir, "2m")
	t.Cleanup(func() {
		if srv != nil {
			srv.Process.Kill()
			srv.Wait()
		}
	})
	c := signInBackups(t, addr)

	moments := []struct {
		name string
		// ready says when the run has reached the moment; at the kill.
		ready func(w written) bool
		// landed checks what the run had written when it was killed.
		landed func(w written) error
	}{{
		name:  "while the parts stream",
		ready: func(w written) bool { return w.streaming > 0 },
		landed: func(w written) error {
			if len(w.parts) > 0 || w.streaming == 0 {
				return fmt.Errorf("want parts being written and none stored; %v", w)
			}
			return nil
		},
	}, {
		name:  "once the parts are stored",
		ready: func(w written) bool { return len(w.parts) > 0 },
		landed: func(w written) error {
			if len(w.parts) == 0 {
				return fmt.Errorf("want stored parts; %v", w)
			}
			return nil
		},
	}, {
		name: "while the file contents are copied",
		// Half of the contents are written to temporary files, to be made
		// durable and put in place together (blob.Batch): more wait.
		ready: func(w written) bool {
			return len(w.parts) == len(kanri.AllBackupParts) && w.streaming >= backupCrashFiles/2
		},
		landed: func(w written) error {
			if len(w.parts) != len(kanri.AllBackupParts) || w.streaming == 0 || w.contents != w.contentsBefore {
				return fmt.Errorf("want every part stored, contents being written and none in place of the %d; %v", backupCrashFiles, w)
			}
			return nil
		},
	}}
	var killed []string
	for _, m := range moments {
		before := b.look("")
		took := time.Now()
		hid := c.runJob(jobID)
		for deadline, asked := time.Now().Add(crashHangTimeout), time.Now(); ; {
			at := b.look(hid)
			at.contentsBefore = before.contents
			if m.ready(at) {
				break
			}
			if at.manifest {
				t.Fatalf("%s: the run wrote its manifest before it could be killed (%v): the tenant is too small to back up on this machine", m.name, at)
			}
			if time.Since(asked) > 100*time.Millisecond {
				if status, msg := c.runStatus(hid); status != kanri.BackupRunning {
					t.Fatalf("%s: the run ended %s %q before it was killed: %v", m.name, status, msg, at)
				}
				asked = time.Now()
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the run did not get there in %v: %v", m.name, crashHangTimeout, at)
			}
			time.Sleep(200 * time.Microsecond)
		}
		srv.Process.Signal(syscall.SIGKILL)
		srv.Wait()
		srv = nil
		// What the run had written when the kill landed, before the
		// restart cleans up.
		after := b.look(hid)
		after.contentsBefore = before.contents
		if after.manifest {
			t.Fatalf("%s: the run was complete when it was killed: %v", m.name, after)
		}
		if err := m.landed(after); err != nil {
			t.Fatalf("%s: the kill landed elsewhere: %v", m.name, err)
		}
		if status := historyStatus(t, dir, hid); status != kanri.BackupRunning {
			t.Fatalf("%s: the run was %s when it was killed, want running", m.name, status)
		}
		t.Logf("killed %v after the run started %s: %v", time.Since(took).Round(time.Millisecond), m.name, after)
		killed = append(killed, hid)

		srv, addr = startServer(t, dir, "2m")
		c = signInBackups(t, addr)
		checkInterrupted(t, c, b, hid, m.name)
	}

	// The next run works, on the server started after the last kill.
	took := time.Now()
	hid := c.runJob(jobID)
	for deadline := time.Now().Add(crashHangTimeout); ; {
		status, msg := c.runStatus(hid)
		if status == kanri.BackupSuccess {
			break
		}
		if status != kanri.BackupRunning || time.Now().After(deadline) {
			t.Fatalf("the run after the kills: %s %q", status, msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("the run after the kills succeeded in %v", time.Since(took).Round(time.Millisecond))
	names := c.download(hid)
	contents := 0
	for _, n := range names {
		if strings.HasPrefix(n, "files/") {
			contents++
		}
	}
	if !slices.Contains(names, "manifest.json") || contents != backupCrashFiles || len(names) != 1+len(kanri.AllBackupParts)+backupCrashFiles {
		t.Errorf("the download holds %d entries, %d of them file contents, manifest.json: %v; want the manifest, %d parts and %d contents",
			len(names), contents, slices.Contains(names, "manifest.json"), len(kanri.AllBackupParts), backupCrashFiles)
	}
	srv.Process.Signal(syscall.SIGTERM)
	if err := srv.Wait(); err != nil {
		t.Fatalf("the server did not stop cleanly: %v", err)
	}
	srv = nil

	// In the store: every killed run failed as interrupted and its archive
	// is refused; the last one verifies; the kept contents are exactly the
	// files' (those the killed runs copied are the last archive's too).
	withServices(t, dir, time.Now, func(ctx context.Context, svcs *wiring.Set) {
		for _, id := range killed {
			h, err := svcs.Backups.History(ctx, backupCrashTenant, id)
			if err != nil {
				t.Fatal(err)
			}
			if h.Status != kanri.BackupFailed || h.ErrorMessage == nil || !strings.Contains(*h.ErrorMessage, "interrupted") {
				t.Errorf("killed run %s: %s %v, want failed as interrupted", id, h.Status, h.ErrorMessage)
			}
			if _, err := svcs.Backups.Archive(ctx, backupCrashTenant, id); err == nil {
				t.Errorf("killed run %s: its archive is offered", id)
			}
			if _, err := svcs.Backups.Verify(ctx, backupCrashTenant, id); err == nil {
				t.Errorf("killed run %s: its archive verifies", id)
			}
		}
		m, err := svcs.Backups.Verify(ctx, backupCrashTenant, hid)
		if err != nil {
			t.Fatalf("the run after the kills: %v", err)
		}
		if p, _ := m.Part(kanri.PartAudit); m.Files.Count != backupCrashFiles || p.Documents < backupCrashAudit {
			t.Errorf("the run after the kills archived %d files and %d audit records, want %d and at least %d", m.Files.Count, p.Documents, backupCrashFiles, backupCrashAudit)
		}
		j, err := svcs.Backups.Job(ctx, backupCrashTenant, jobID)
		if err != nil {
			t.Fatal(err)
		}
		if j.LastStatus != kanri.BackupSuccess {
			t.Errorf("the job's last status is %q after its last run succeeded", j.LastStatus)
		}
	})
	if w := b.look(hid); !w.manifest || len(w.parts) != len(kanri.AllBackupParts) || w.contents != backupCrashFiles || len(w.archives) != 1 {
		t.Errorf("blobs at the end: %v; want the last run's archive alone and %d contents", w, backupCrashFiles)
	}
}

// checkInterrupted checks, on the server started after a kill, the run
// the kill interrupted.
func checkInterrupted(t *testing.T, c *backupsConsole, b backupBlobs, hid, moment string) {
	t.Helper()
	if status, msg := c.runStatus(hid); status != kanri.BackupFailed || !strings.Contains(msg, "interrupted") {
		t.Errorf("%s: after the restart the run is %s %q, want failed as interrupted", moment, status, msg)
	}
	if body := c.page("/t/" + backupCrashTenant + "/backups"); !strings.Contains(body, `data-testid="backup-alert-failed"`) {
		t.Errorf("%s: the backups page shows no alert of the failed job", moment)
	}
	if status, _ := c.get("/t/" + backupCrashTenant + "/backups/history/" + hid + "/download"); status == http.StatusOK {
		t.Errorf("%s: the interrupted run's archive downloads", moment)
	}
	if w := b.look(hid); w.manifest || len(w.parts) > 0 || w.streaming > 0 || w.staged > 0 {
		t.Errorf("%s: after the restart the run left %v", moment, w)
	}
}

// backupBlobs is the local blob store's directory (see internal/disk:
// blobs/ holds the blobs, tmp/ the files being written).
type backupBlobs string

// written is what a run wrote to the blob store.
type written struct {
	// parts are the part blobs of the run's archive.
	parts    []string
	manifest bool
	// streaming counts the blobs being written that hold bytes: a part
	// streams into one until it is complete.
	streaming int
	// staged counts the other blobs being written (empty yet).
	staged int
	// contents counts the tenant's kept file contents, contentsBefore
	// those kept before the run.
	contents, contentsBefore int
	// archives are the tenant's archive folders.
	archives []string
}

func (w written) String() string {
	return fmt.Sprintf("parts %v, manifest %v, %d blobs streaming and %d empty in tmp/, file contents %d (%d before), archives %d",
		w.parts, w.manifest, w.streaming, w.staged, w.contents, w.contentsBefore, len(w.archives))
}

// look reads what run hid wrote ("" for none) and what the tenant keeps.
func (b backupBlobs) look(hid string) written {
	var w written
	tenant := filepath.Join(string(b), "blobs", "backups", backupCrashTenant)
	if hid != "" {
		names, _ := os.ReadDir(filepath.Join(tenant, "archives", hid))
		for _, e := range names {
			if e.Name() == "manifest.json" {
				w.manifest = true
			} else {
				w.parts = append(w.parts, e.Name())
			}
		}
	}
	archives, _ := os.ReadDir(filepath.Join(tenant, "archives"))
	for _, e := range archives {
		w.archives = append(w.archives, e.Name())
	}
	contents, _ := os.ReadDir(filepath.Join(tenant, "files"))
	w.contents = len(contents)
	tmp, _ := os.ReadDir(filepath.Join(string(b), "tmp"))
	for _, e := range tmp {
		if info, err := e.Info(); err == nil && info.Size() > 0 {
			w.streaming++
		} else if !errors.Is(err, fs.ErrNotExist) {
			w.staged++
		}
	}
	return w
}

// historyStatus reads a run's status in the store in dir (no server may
// be running on it).
func historyStatus(t *testing.T, dir, hid string) string {
	t.Helper()
	ds, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	h, err := store.New(ds, nil, features.Schema()).Tenant(backupCrashTenant).BackupHistory().Get(t.Context(), hid)
	if err != nil {
		t.Fatal(err)
	}
	return h.Status
}

// seedBackupCrash creates in dir the store and blobs of a Kanri whose
// tenant acme has its administrator, the file and backup services,
// backupCrashFiles files with content, backupCrashAudit audit records
// and a paused backup job of every part, and returns the job's id.
func seedBackupCrash(t *testing.T, dir string) string {
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
	svcs := wiring.New(store.New(ds, nil, features.Schema()), nil, nil, wiring.Options{Roles: features.Roles(), Hasher: auth.Hasher{Cost: bcrypt.MinCost}, Blobs: blob.New(d)})
	if _, err := svcs.Roles.Seed(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx := audit.WithActor(t.Context(), audit.Actor{UserID: "system", GlobalAdmin: true})
	if _, _, err := auth.Bootstrap(ctx, svcs.Tenants, svcs.Users, svcs.Roles, "admin@example.com", crashPassword); err != nil {
		t.Fatal(err)
	}
	ten, err := svcs.Tenants.Create(ctx, kanri.TenantInput{Name: "acme", DisplayName: "Acme", Plan: kanri.PlanStandard, MaxUsers: 100})
	if err != nil {
		t.Fatal(err)
	}
	if ten.ID != backupCrashTenant {
		t.Fatalf("tenant acme has the id %s", ten.ID)
	}
	admin, err := svcs.Users.Create(ctx, ten.ID, kanri.UserInput{Username: "admin", Email: "admin@acme.test", DisplayName: "Admin", Password: crashPassword})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []kanri.AssignmentInput{
		{ServiceID: kanri.FileServiceID, Config: map[string]string{"maxStorage": "1GB"}},
		{ServiceID: kanri.BackupServiceID},
	} {
		if _, _, err := svcs.Catalog.Assign(ctx, ten.ID, in); err != nil {
			t.Fatal(err)
		}
	}
	ctx = audit.WithActor(t.Context(), audit.Actor{UserID: admin.ID, UserName: "admin", TenantID: ten.ID})
	for i := range backupCrashFiles {
		data := make([]byte, 1024+i)
		rand.Read(data)
		up, err := svcs.Files.CreateUpload(ctx, ten.ID, files.UploadInput{Name: fmt.Sprintf("file-%03d.bin", i), Size: int64(len(data))})
		if err != nil {
			t.Fatal(err)
		}
		if _, f, err := svcs.Files.WriteUpload(ctx, ten.ID, up.ID, 0, strings.NewReader(string(data)), nil); err != nil || f == nil {
			t.Fatalf("upload %d: %v", i, err)
		}
	}
	// The audit records are written in batches: one transaction each.
	now := time.Now().UTC()
	reason := make([]byte, 2048) // 4 KB of hex per record: it compresses little
	for chunk := 0; chunk < backupCrashAudit; chunk += 1000 {
		ops := make([]docstore.Op, 0, 1000)
		for i := chunk; i < min(chunk+1000, backupCrashAudit); i++ {
			rand.Read(reason)
			body, err := json.Marshal(kanri.AuditLog{
				Doc:       kanri.Doc{ID: fmt.Sprintf("audit_crash_%06d", i), TenantID: ten.ID, Type: kanri.TypeAuditLog, SchemaVersion: "1.0"},
				Timestamp: kanri.NewTime(now.Add(-time.Duration(backupCrashAudit-i) * time.Second)),
				UserID:    admin.ID, UserName: "admin", Action: "user.update",
				Resource: kanri.AuditResource{Type: kanri.AuditUser, ID: fmt.Sprintf("user_%d", i%500), Name: "someone"},
				Details:  kanri.AuditDetails{Reason: hex.EncodeToString(reason)},
				Metadata: kanri.AuditMetadata{IPAddress: "192.0.2.1", UserAgent: "Mozilla/5.0 (X11; Linux x86_64)", RequestID: fmt.Sprintf("req_%d", i)},
				Status:   kanri.AuditSuccess,
			})
			if err != nil {
				t.Fatal(err)
			}
			ops = append(ops, docstore.Op{Kind: docstore.OpCreate, Body: body})
		}
		if err := docstoretest.Chunked(ops, func(b []docstore.Op) error {
			_, err := ds.Container(kanri.ContainerAudit).Batch(t.Context(), ten.ID, b)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	j, err := svcs.Backups.CreateJob(ctx, ten.ID, kanri.BackupJobInput{
		Name: "nightly", Schedule: "0 3 * * *", Parts: kanri.AllBackupParts, RetentionDays: 30,
	})
	if err != nil {
		t.Fatal(err)
	}
	return j.ID
}

// backupsConsole is the console signed in as acme's administrator.
type backupsConsole struct {
	t     *testing.T
	base  string
	http  *http.Client
	token string // the session's CSRF token
}

func signInBackups(t *testing.T, addr string) *backupsConsole {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &backupsConsole{t: t, base: "http://" + addr,
		http: &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	m := csrfField.FindStringSubmatch(c.page("/login"))
	if m == nil {
		t.Fatal("the sign-in page has no CSRF token")
	}
	if status, _ := c.post("/login", url.Values{"tenant": {"acme"}, "username": {"admin"}, "password": {crashPassword}, "_csrf": {m[1]}}); status != http.StatusSeeOther {
		t.Fatalf("sign-in answered %d", status)
	}
	if m = csrfField.FindStringSubmatch(c.page("/t/" + backupCrashTenant + "/backups")); m == nil {
		t.Fatal("the backups page has no CSRF token")
	}
	c.token = m[1]
	return c
}

func (c *backupsConsole) get(path string) (int, string) {
	c.t.Helper()
	resp, err := c.http.Get(c.base + path)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// page returns a page that must answer 200.
func (c *backupsConsole) page(path string) string {
	c.t.Helper()
	status, body := c.get(path)
	if status != http.StatusOK {
		c.t.Fatalf("GET %s answered %d", path, status)
	}
	return body
}

func (c *backupsConsole) post(path string, form url.Values) (int, string) {
	c.t.Helper()
	resp, err := c.http.PostForm(c.base+path, form)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var (
	backupRunRow   = regexp.MustCompile(`data-status="([a-z]+)" data-id="(history_[0-9a-z_]+)"`)
	backupRunError = regexp.MustCompile(`data-testid="backup-run-error">([^<]*)<`)
	flashMessage   = regexp.MustCompile(`class="flash ([a-z]+)" role="status" data-testid="flash">([^<]*)<`)
)

// runJob runs the job now and returns its run's id.
func (c *backupsConsole) runJob(jobID string) string {
	c.t.Helper()
	backups := c.base + "/t/" + backupCrashTenant + "/backups"
	req, _ := http.NewRequest(http.MethodPost, backups+"/jobs/"+jobID+"/run", strings.NewReader(url.Values{"_csrf": {c.token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Referer", backups) // an error is told on the page the form was on
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		c.t.Fatalf("run now answered %d", resp.StatusCode)
	}
	// The page it leads to says whether the run started.
	if m := flashMessage.FindStringSubmatch(c.page(resp.Header.Get("Location"))); m == nil || m[1] != "success" {
		c.t.Fatalf("run now did not start a run: %q", m)
	}
	var running []string
	for _, m := range backupRunRow.FindAllStringSubmatch(c.page("/t/"+backupCrashTenant+"/backups/history?status=running"), -1) {
		if m[1] == kanri.BackupRunning {
			running = append(running, m[2])
		}
	}
	if len(running) != 1 {
		c.t.Fatalf("runs shown running after run now: %v, want one", running)
	}
	return running[0]
}

// runStatus returns a run's status and error as the history shows them.
func (c *backupsConsole) runStatus(hid string) (string, string) {
	c.t.Helper()
	body := c.page("/t/" + backupCrashTenant + "/backups/history")
	for _, m := range backupRunRow.FindAllStringSubmatchIndex(body, -1) {
		if body[m[4]:m[5]] != hid {
			continue
		}
		row := body[m[0]:]
		row = row[:strings.Index(row, "</tr>")]
		msg := ""
		if e := backupRunError.FindStringSubmatch(row); e != nil {
			msg = e[1]
		}
		return body[m[2]:m[3]], msg
	}
	c.t.Fatalf("the history does not show run %s", hid)
	return "", ""
}

// download downloads a run's archive and returns the names in the tar.
func (c *backupsConsole) download(hid string) []string {
	c.t.Helper()
	resp, err := c.http.Get(c.base + "/t/" + backupCrashTenant + "/backups/history/" + hid + "/download")
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("the download answered %d", resp.StatusCode)
	}
	var names []string
	tr := tar.NewReader(resp.Body)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return names
		}
		if err != nil {
			c.t.Fatalf("the download: %v", err)
		}
		names = append(names, h.Name)
	}
}

// excerptOf returns the part of body around the first mention of s, or
// its start.
func excerptOf(body, s string) string {
	i := max(strings.Index(body, s)-100, 0)
	return body[i:min(len(body), i+400)]
}
