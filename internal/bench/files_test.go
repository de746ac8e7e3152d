package bench

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/wiring"
)

// fileTenant is the tenant whose files the transfer benchmark moves.
const fileTenant = "tenant_t000"

// BenchmarkFileTransfer uploads and downloads one file through the real
// binary over HTTP (embedded store, local blob directory, both in a
// temporary directory on this disk), for each size KANRI_BENCH_FILE_SIZES
// lists (comma-separated, in Kanri's binary units: "100MB,1GB"; 16MB
// unless set, so that a plain -bench run stays short). For each size it
// runs a fresh server and measures:
//
//   - Cp, CpSync: cp(1) of the same file on the same disk, without and
//     with an fsync of the copy: the ceiling (an upload syncs each block
//     it stages and the file it commits);
//   - Upload/OnePatch: a tus upload in one PATCH, as tus-js-client sends
//     it by default (chunkSize Infinity) and the console uses it;
//   - Upload/Patch=64MB: a tus upload in PATCHes of 64 MiB;
//   - Download: the file's download route, read to the end;
//   - Tusd/Upload/OnePatch, Tusd/Upload/Patch=64MB, Tusd/Download: the
//     same with tusd 2.9.1's handler over its file store
//     (internal/bench/tusdserver, its own process on the same disk), the
//     same client: the peer, side by side in one run (tusd never syncs).
//
// Throughput is in MB/s (10^6 bytes a second, Go's unit). peak_rss_MiB is
// the server process's VmHWM (/proc/<pid>/status) during the run, its
// peak reset just before it (clear_refs 5); base_rss_MiB is its VmRSS
// then; peak_anon_MiB and peak_file_MiB split it (server.measure). With
// -count, the repeats of a size share its server, so base_rss_MiB shows
// what the earlier runs left (heap the Go runtime keeps, not live data).
// Run it with `make bench-files`.
func BenchmarkFileTransfer(b *testing.B) {
	sizes := []int64{16 << 20}
	if v := os.Getenv("KANRI_BENCH_FILE_SIZES"); v != "" {
		sizes = nil
		for _, s := range strings.Split(v, ",") {
			n, err := kanri.ParseSize(s)
			if err != nil || n <= 0 {
				b.Fatalf("KANRI_BENCH_FILE_SIZES: %q: %v", s, err)
			}
			sizes = append(sizes, n)
		}
	}
	bin := benchBinary(b)
	for _, size := range sizes {
		b.Run("Size="+kanri.FormatSize(size), func(b *testing.B) {
			transfer(b, bin, size)
		})
	}
}

// transfer runs the benchmarks of one file size against a fresh server.
func transfer(b *testing.B, bin string, size int64) {
	work := b.TempDir()
	src := filepath.Join(work, "source.bin")
	writeRandomFile(b, src, size)

	copyTo := func(b *testing.B, sync bool) {
		dst := filepath.Join(work, "copy.bin")
		b.SetBytes(size)
		for b.Loop() {
			b.StopTimer()
			os.Remove(dst)
			b.StartTimer()
			if out, err := exec.Command("cp", src, dst).CombinedOutput(); err != nil {
				b.Fatalf("cp: %v\n%s", err, out)
			}
			if sync {
				f, err := os.OpenFile(dst, os.O_RDWR, 0)
				if err != nil {
					b.Fatal(err)
				}
				if err := f.Sync(); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		}
		fi, err := os.Stat(dst)
		if err != nil || fi.Size() != size {
			b.Fatalf("copy: %v, %v bytes; want %d", err, fi, size)
		}
		os.Remove(dst)
	}
	b.Run("Cp", func(b *testing.B) { copyTo(b, false) })
	b.Run("CpSync", func(b *testing.B) { copyTo(b, true) })

	dataDir := filepath.Join(work, "data")
	seedFiles(b, dataDir)
	srv := startServer(b, bin, dataDir)
	c := srv.signIn(b)

	var fileID string
	upload := func(b *testing.B, patch int64) {
		b.SetBytes(size)
		srv.measure(b, func() {
			for b.Loop() {
				fileID = c.upload(b, src, size, patch)
			}
		})
	}
	b.Run("Upload/OnePatch", func(b *testing.B) { upload(b, size) })
	b.Run("Upload/Patch=64MB", func(b *testing.B) { upload(b, 64<<20) })
	b.Run("Download", func(b *testing.B) {
		if fileID == "" {
			fileID = c.upload(b, src, size, size)
		}
		b.SetBytes(size)
		srv.measure(b, func() {
			for b.Loop() {
				c.download(b, c.base+"/t/"+fileTenant+"/files/"+fileID+"/download", size)
			}
		})
	})

	tusd := startTusd(b, filepath.Join(work, "tusd"))
	tc := &fileClient{http: &http.Client{Transport: &http.Transport{DisableCompression: true}}, base: tusd.base, create: "/files/"}
	var location string
	tusdUpload := func(b *testing.B, patch int64) {
		b.SetBytes(size)
		tusd.measure(b, func() {
			for b.Loop() {
				location = tc.upload(b, src, size, patch)
			}
		})
	}
	b.Run("Tusd/Upload/OnePatch", func(b *testing.B) { tusdUpload(b, size) })
	b.Run("Tusd/Upload/Patch=64MB", func(b *testing.B) { tusdUpload(b, 64<<20) })
	b.Run("Tusd/Download", func(b *testing.B) {
		if location == "" {
			location = tc.upload(b, src, size, size)
		}
		b.SetBytes(size)
		tusd.measure(b, func() {
			for b.Loop() {
				tc.download(b, tusd.base+location, size)
			}
		})
	})
}

// startTusd builds and runs internal/bench/tusdserver over dir, until the
// benchmark ends.
func startTusd(b *testing.B, dir string) *server {
	bin := filepath.Join(b.TempDir(), "tusdserver")
	if out, err := exec.Command("go", "build", "-o", bin, "./tusdserver").CombinedOutput(); err != nil {
		b.Fatalf("go build tusdserver: %v\n%s", err, out)
	}
	return runServer(b, exec.Command(bin, "-dir", dir), "tusd listening")
}

// writeRandomFile writes size pseudo-random bytes (incompressible, and
// fast to make) to path, and syncs them, so that no write-back of them
// runs during the measurements (they stay in the page cache, from which
// cp and the uploads read alike).
func writeRandomFile(b *testing.B, path string, size int64) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	rng := rand.NewChaCha8([32]byte{1})
	if _, err := io.CopyN(f, rng, size); err != nil {
		b.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
}

// benchBinary builds cmd/kanri, or returns KANRI_BENCH_BIN.
func benchBinary(b *testing.B) string {
	if bin := os.Getenv("KANRI_BENCH_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(b.TempDir(), "kanri")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/kanri").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// seedFiles writes the operator with its administrator and tenant
// fileTenant, whose file service allows files and storage far larger
// than any benchmarked file.
func seedFiles(b *testing.B, dir string) {
	ds, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ds.Close()
	svcs := wiring.New(store.New(ds, nil, features.Schema()), nil, nil, wiring.Options{Roles: features.Roles(), Hasher: auth.Hasher{Cost: bcrypt.MinCost}})
	if _, err := svcs.Roles.Seed(context.Background()); err != nil {
		b.Fatal(err)
	}
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", GlobalAdmin: true})
	if _, _, err := auth.Bootstrap(ctx, svcs.Tenants, svcs.Users, svcs.Roles, "admin@example.com", loadPassword); err != nil {
		b.Fatal(err)
	}
	t, err := svcs.Tenants.Create(ctx, kanri.TenantInput{Name: "t000", DisplayName: "Tenant 0", Plan: kanri.PlanStandard, MaxUsers: 10})
	if err != nil {
		b.Fatal(err)
	}
	if t.ID != fileTenant {
		b.Fatalf("tenant id %s, want %s", t.ID, fileTenant)
	}
	if _, _, err := svcs.Catalog.Assign(ctx, t.ID, kanri.AssignmentInput{ServiceID: kanri.FileServiceID, Config: map[string]string{"maxFileSize": "64GB", "maxStorage": "1TB"}}); err != nil {
		b.Fatal(err)
	}
}

// server is the real binary, running.
type server struct {
	cmd  *exec.Cmd
	base string
}

// startServer runs bin on the store in dir (its blobs in dir/blobs) on a
// free port, until the benchmark ends.
func startServer(b *testing.B, bin, dir string) *server {
	return runServer(b, exec.Command(bin, "-addr", "127.0.0.1:0", "-data-dir", dir, "-bcrypt-cost", "4"), "kanri listening")
}

// runServer starts cmd, a server that logs listening (a JSON line with its
// addr) once it accepts, until the benchmark ends.
func runServer(b *testing.B, cmd *exec.Cmd, listening string) *server {
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(stderr)
	addr := ""
	for addr == "" && lines.Scan() {
		var rec struct{ Msg, Addr string }
		if json.Unmarshal(lines.Bytes(), &rec) == nil && rec.Msg == listening {
			addr = rec.Addr
		}
	}
	go io.Copy(io.Discard, stderr)
	if addr == "" {
		b.Fatal("the server did not start")
	}
	return &server{cmd: cmd, base: "http://" + addr}
}

// measure runs run (a benchmark's loop) and reports the server's memory
// meanwhile: its resident set size when it began (base_rss_MiB), its
// peak (VmHWM, reset just before by clear_refs: peak_rss_MiB), and the
// peaks of its anonymous memory (heap, stacks: peak_anon_MiB) and of its
// mapped files (the store's memory map: peak_file_MiB) sampled every 10 ms.
func (s *server) measure(b *testing.B, run func()) {
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", s.cmd.Process.Pid), []byte("5"), 0); err != nil {
		b.Fatalf("reset the server's peak RSS: %v", err)
	}
	base := s.memory(b)
	stop, done := make(chan struct{}), make(chan struct{})
	var anon, file int64
	go func() {
		defer close(done)
		for {
			m := s.memory(b)
			anon, file = max(anon, m["RssAnon"]), max(file, m["RssFile"])
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	run()
	close(stop)
	<-done
	end := s.memory(b)
	b.ReportMetric(float64(base["VmRSS"])/(1<<20), "base_rss_MiB")
	b.ReportMetric(float64(end["VmHWM"])/(1<<20), "peak_rss_MiB")
	b.ReportMetric(float64(anon)/(1<<20), "peak_anon_MiB")
	b.ReportMetric(float64(file)/(1<<20), "peak_file_MiB")
}

// memory returns the server's VmHWM, VmRSS, RssAnon and RssFile
// (/proc/<pid>/status) in bytes.
func (s *server) memory(b *testing.B) map[string]int64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		b.Error(err)
		return nil
	}
	m := map[string]int64{}
	for line := range strings.Lines(string(status)) {
		key, v, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(key, "VmHWM") && !strings.HasPrefix(key, "VmRSS") && !strings.HasPrefix(key, "Rss") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			b.Errorf("%s: %q", key, v)
			return nil
		}
		m[key] = kb << 10
	}
	if m["VmHWM"] == 0 || m["VmRSS"] == 0 {
		b.Errorf("no VmHWM or VmRSS in /proc/%d/status", s.cmd.Process.Pid)
	}
	return m
}

// fileClient is a signed-in session of the operator's administrator on
// Kanri (token), or a client of tusd (create is its creation path).
type fileClient struct {
	http   *http.Client
	base   string
	token  string
	create string
}

// signIn signs the operator's administrator in, with no client timeout
// (a transfer takes as long as it takes).
func (s *server) signIn(b *testing.B) *fileClient {
	c, token := signInHTTP(b, s.base, &http.Transport{DisableCompression: true})
	c.Timeout = 0
	return &fileClient{http: c, base: s.base, token: token, create: "/t/" + fileTenant + "/uploads"}
}

// upload sends the size bytes of src as a new file through tus, in
// PATCHes of at most patch bytes, and returns the file's id on Kanri, its
// upload's location on tusd.
func (c *fileClient) upload(b *testing.B, src string, size, patch int64) string {
	f, err := os.Open(src)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	req, _ := http.NewRequest(http.MethodPost, c.base+c.create, nil)
	req.Header.Set("Tus-Resumable", "1.0.0")
	req.Header.Set("X-CSRF-Token", c.token)
	req.Header.Set("Upload-Length", strconv.FormatInt(size, 10))
	req.Header.Set("Upload-Metadata", "filename "+base64.StdEncoding.EncodeToString([]byte("bench.bin"))+",filetype "+base64.StdEncoding.EncodeToString([]byte("application/octet-stream")))
	resp := c.do(b, req, http.StatusCreated)
	location := strings.TrimPrefix(resp.Header.Get("Location"), c.base)
	if location == "" {
		b.Fatal("upload created without a Location")
	}
	fileID := ""
	for off := int64(0); off < size; {
		n := min(patch, size-off)
		req, _ := http.NewRequest(http.MethodPatch, c.base+location, io.NewSectionReader(f, off, n))
		req.ContentLength = n
		req.Header.Set("Tus-Resumable", "1.0.0")
		req.Header.Set("X-CSRF-Token", c.token)
		req.Header.Set("Content-Type", "application/offset+octet-stream")
		req.Header.Set("Upload-Offset", strconv.FormatInt(off, 10))
		resp := c.do(b, req, http.StatusNoContent)
		if got, want := resp.Header.Get("Upload-Offset"), strconv.FormatInt(off+n, 10); got != want {
			b.Fatalf("Upload-Offset after a PATCH = %q, want %s", got, want)
		}
		off += n
		fileID = resp.Header.Get("Kanri-File-Id")
	}
	if c.token == "" {
		return location // tusd
	}
	if fileID == "" {
		b.Fatal("the last PATCH named no file")
	}
	return fileID
}

// download reads url to the end and checks its length.
func (c *fileClient) download(b *testing.B, url string, size int64) {
	resp, err := c.http.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		b.Fatalf("download: status %d: %s", resp.StatusCode, body)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil || n != size {
		b.Fatalf("downloaded %d bytes (%v), want %d", n, err, size)
	}
}

// do sends req and fails unless the answer has status want; the body is
// read and closed.
func (c *fileClient) do(b *testing.B, req *http.Request, want int) *http.Response {
	resp, err := c.http.Do(req)
	if err != nil {
		b.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != want {
		b.Fatalf("%s %s: status %d, want %d: %s", req.Method, req.URL.Path, resp.StatusCode, want, body)
	}
	return resp
}

// listPageSize is the folder page's page size (web/console/filepages).
const listPageSize = 50

// BenchmarkFolderList measures the file service's folder list (the
// query behind a folder's page, 50 files a page) in a folder of 100 files
// and in one of KANRI_BENCH_FOLDER_FILES files (100,000 unless set), both
// in one tenant of one embedded store: the first page and the last page
// of the small folder, the first page and page 50 (by its continuation
// token) of the large one, sorted by name, size and date. Every page read
// is checked to be the right one. Besides ns/op it reports cpu-ns/op, the
// process's CPU time per page (steadier than the wall time on a shared
// machine), and logs the plan of each deep page. The files' documents are written
// directly in batches; listing needs no bytes.
func BenchmarkFolderList(b *testing.B) {
	big := 100_000
	if v, err := strconv.Atoi(os.Getenv("KANRI_BENCH_FOLDER_FILES")); err == nil && v > 0 {
		big = v
	}
	dir := b.TempDir()
	ds, err := bolt.Open(filepath.Join(dir, "data"), features.Specs(), bolt.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ds.Close()
	drv, err := disk.New(filepath.Join(dir, "blobs"))
	if err != nil {
		b.Fatal(err)
	}
	st := store.New(ds, nil, features.Schema())
	svcs := wiring.New(st, nil, nil, wiring.Options{Roles: features.Roles(), Blobs: blob.New(drv)})
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "user_admin", TenantID: fileTenant})
	svc := svcs.Files
	type folder struct {
		n     int
		id    string
		pages []int // the pages measured
	}
	small := (100 + listPageSize - 1) / listPageSize
	folders := []*folder{{n: 100, pages: []int{1, small}}, {n: big, pages: []int{1, min(50, (big+listPageSize-1)/listPageSize)}}}
	for _, f := range folders {
		fo, err := svc.CreateFolder(ctx, fileTenant, "", fmt.Sprintf("Folder of %d", f.n))
		if err != nil {
			b.Fatal(err)
		}
		f.id = fo.ID
		loadFolder(b, st, fo.ID, f.n)
	}
	sorts := []struct {
		name string
		// at returns the name, size or date of the file of rank r in a
		// folder of n, which the page must start with.
		at   func(f *kanri.File) string
		want func(rank int) string
	}{
		{files.SortName, func(f *kanri.File) string { return f.Name }, func(r int) string { return fileName(r) }},
		{files.SortSize, func(f *kanri.File) string { return strconv.FormatInt(f.Size, 10) }, func(r int) string { return strconv.FormatInt(fileSize(r), 10) }},
		{files.SortDate, func(f *kanri.File) string { return f.UploadedAt.String() }, func(r int) string { return kanri.NewTime(fileDate(r)).String() }},
	}
	for _, f := range folders {
		for _, s := range sorts {
			for _, page := range f.pages {
				// The token of the page, found by paging there.
				q := files.ListQuery{Sort: s.name, Limit: listPageSize}
				for range page - 1 {
					_, next, err := svc.Files(ctx, fileTenant, f.id, q)
					if err != nil || next == "" {
						b.Fatalf("paging to page %d: %q, %v", page, next, err)
					}
					q.Next = next
				}
				rank := (page - 1) * listPageSize
				want := min(listPageSize, f.n-rank)
				b.Run(fmt.Sprintf("Files=%d/Sort=%s/Page=%d", f.n, s.name, page), func(b *testing.B) {
					b.ReportAllocs()
					cpu0 := cpuTime(b)
					for b.Loop() {
						got, _, err := svc.Files(ctx, fileTenant, f.id, q)
						if err != nil || len(got) != want {
							b.Fatalf("got %d files (%v), want %d", len(got), err, want)
						}
						if got, want := s.at(got[0]), s.want(rank); got != want {
							b.Fatalf("page %d starts with %s, want %s", page, got, want)
						}
					}
					b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
				})
				if ex, ok := ds.Container(kanri.ContainerFiles).(docstore.Explainer); ok && page > 1 && f.n == big {
					plan, err := ex.Explain(fileTenant, docstore.Query{
						Type:    kanri.TypeFile,
						Where:   []docstore.Filter{docstore.Eq("folderId", f.id), docstore.Eq("deletedAt", nil)},
						OrderBy: map[string]string{files.SortName: "nameKey", files.SortSize: "size", files.SortDate: "uploadedAt"}[s.name], Limit: listPageSize, Continuation: q.Next,
					})
					b.Logf("plan of page %d by %s: %+v (%v)", page, s.name, plan, err)
				}
			}
		}
	}
}

// cpuTime returns the CPU time this process has used (user and system,
// all threads): on a shared machine, a steadier measure of a query's work
// than the wall time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// The file of rank r by name, by size and by date in a folder: three
// different orders (7919 and 104729 are primes, prime to any folder size
// that is a power of ten, so that each maps the ranks one to one).
func fileName(r int) string { return fmt.Sprintf("file-%07d.dat", r) }
func fileSize(r int) int64  { return int64(r)*1000 + 1 }
func fileDate(r int) time.Time {
	return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r) * time.Second)
}

// loadFolder writes n files into folder, 1,000 to a batch: file i has
// the name of rank i, the size of rank i·7919 mod n and the date of rank
// i·104729 mod n.
func loadFolder(b *testing.B, st *store.Store, folderID string, n int) {
	start := time.Now()
	ten := st.Tenant(fileTenant)
	repo := ten.Files()
	for chunk := 0; chunk < n; chunk += 1000 {
		var ops []docstore.Op
		for i := chunk; i < min(n, chunk+1000); i++ {
			at := kanri.NewTime(fileDate(i * 104729 % n))
			f := &kanri.File{
				Doc:  kanri.Doc{ID: fmt.Sprintf("file_%s%08d", folderID[len("folder_"):][:8], i)},
				Name: fileName(i), NameKey: kanri.FoldName(fileName(i)), Size: fileSize(i * 7919 % n),
				ContentType: "application/octet-stream", FolderID: &folderID, Checksum: "sha256:00",
				UploadedBy: "user_admin", UploadedAt: at, UpdatedAt: at,
			}
			f.StorageURL = "blob:" + kanri.BlobName(fileTenant, f.ID)
			op, err := repo.Op(docstore.OpCreate, f)
			if err != nil {
				b.Fatal(err)
			}
			ops = append(ops, op)
		}
		if _, err := ten.Batch(context.Background(), kanri.ContainerFiles, ops); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("wrote %d files in %v", n, time.Since(start).Round(time.Millisecond))
}
