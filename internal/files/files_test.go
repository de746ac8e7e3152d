package files_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/catalog"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/store"
)

// memDriver is an in-memory blob driver: the service layer's tests need a
// blob store that keeps bytes, not the disk or Azure (whose drivers have
// their own contract suite).
type memDriver struct {
	mu     sync.Mutex
	blobs  map[string][]byte
	mod    map[string]time.Time
	staged map[string]map[string][]byte
}

func newMem() *memDriver {
	return &memDriver{blobs: map[string][]byte{}, mod: map[string]time.Time{}, staged: map[string]map[string][]byte{}}
}

func (m *memDriver) Put(ctx context.Context, name string, r io.Reader) (int64, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.blobs[name], m.mod[name] = b, time.Now()
	return int64(len(b)), nil
}

func (m *memDriver) StageBlock(ctx context.Context, name, id string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.staged[name] == nil {
		m.staged[name] = map[string][]byte{}
	}
	m.staged[name][id] = bytes.Clone(data)
	return nil
}

func (m *memDriver) CommitBlocks(ctx context.Context, name string, ids []string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var all []byte
	for _, id := range ids {
		b, ok := m.staged[name][id]
		if !ok {
			return 0, fmt.Errorf("mem: block %s of %s not staged", id, name)
		}
		all = append(all, b...)
	}
	delete(m.staged, name)
	m.blobs[name], m.mod[name] = all, time.Now()
	return int64(len(all)), nil
}

func (m *memDriver) DiscardBlocks(ctx context.Context, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.staged, name)
	return nil
}

func (m *memDriver) NewRangeReader(ctx context.Context, name string, off, n int64) (io.ReadCloser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.blobs[name]
	if !ok {
		return nil, fs.ErrNotExist
	}
	if n < 0 {
		n = int64(len(b)) - off
	}
	return io.NopCloser(bytes.NewReader(b[off : off+n])), nil
}

func (m *memDriver) SyncBlocks(context.Context, string) error { return nil }

func (m *memDriver) SetTier(ctx context.Context, name, _ string) error {
	_, err := m.Stat(ctx, name)
	return err
}

func (m *memDriver) Stat(ctx context.Context, name string) (blob.Info, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.blobs[name]
	if !ok {
		return blob.Info{}, fs.ErrNotExist
	}
	return blob.Info{Name: name, Size: int64(len(b)), ModTime: m.mod[name]}, nil
}

func (m *memDriver) Delete(ctx context.Context, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.blobs[name]; !ok {
		return fs.ErrNotExist
	}
	delete(m.blobs, name)
	delete(m.staged, name)
	return nil
}

func (m *memDriver) List(ctx context.Context, prefix string) iter.Seq2[blob.Info, error] {
	m.mu.Lock()
	var names []string
	for n := range m.blobs {
		if strings.HasPrefix(n, prefix) {
			names = append(names, n)
		}
	}
	m.mu.Unlock()
	slices.Sort(names)
	return func(yield func(blob.Info, error) bool) {
		for _, n := range names {
			info, err := m.Stat(ctx, n)
			if err != nil {
				continue
			}
			if !yield(info, nil) {
				return
			}
		}
	}
}

func (m *memDriver) IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
func (m *memDriver) Close() error              { return nil }

// corrupt flips a byte of a blob.
func (m *memDriver) corrupt(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.blobs[name][0] ^= 0xff
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

const ten = "tenant_acme"

type fixture struct {
	ctx     context.Context
	files   *files.Service
	catalog *catalog.Service
	mem     *memDriver
	clock   *clock
	st      *store.Store
}

// setup opens an embedded store with the file service assigned to the
// tenant with the given config.
func setup(t *testing.T, config map[string]string) *fixture {
	t.Helper()
	ds := bolttest.Open(t)
	clk := &clock{t: time.Date(2026, 6, 10, 10, 30, 0, 0, time.UTC)}
	st := store.New(ds, nil, features.Schema())
	d := app.NewDeps(st, slog.New(slog.DiscardHandler), clk.now)
	ctx := audit.WithActor(t.Context(), audit.Actor{UserID: "user_admin", UserName: "admin", TenantID: ten})
	if _, err := role.New(d, features.Roles()).Seed(ctx); err != nil {
		t.Fatal(err)
	}
	catalog := catalog.New(d, features.Roles())
	if _, _, err := catalog.Assign(ctx, ten, kanri.AssignmentInput{ServiceID: kanri.FileServiceID, Config: config}); err != nil {
		t.Fatal(err)
	}
	mem := newMem()
	return &fixture{ctx: ctx, files: files.New(d, blob.New(mem), catalog), catalog: catalog, mem: mem, clock: clk, st: st}
}

// upload uploads data as name into folder in one write.
func (f *fixture) upload(t *testing.T, folder, name string, data []byte) *kanri.File {
	t.Helper()
	up, err := f.files.CreateUpload(f.ctx, ten, files.UploadInput{Name: name, Size: int64(len(data)), FolderID: folder})
	if err != nil {
		t.Fatalf("create upload of %s: %v", name, err)
	}
	if len(data) == 0 {
		file, err := f.files.File(f.ctx, ten, up.FileID)
		if err != nil {
			t.Fatal(err)
		}
		return file
	}
	_, file, err := f.files.WriteUpload(f.ctx, ten, up.ID, 0, bytes.NewReader(data), nil)
	if err != nil || file == nil {
		t.Fatalf("write upload of %s: %v (file %v)", name, err, file)
	}
	return file
}

func (f *fixture) storage(t *testing.T) *kanri.FileStorage {
	t.Helper()
	st, err := f.files.Storage(f.ctx, ten)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func random(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

// readAll reads a file's content through the service.
func (f *fixture) readAll(t *testing.T, file *kanri.File) ([]byte, error) {
	t.Helper()
	c := f.files.Open(f.ctx, ten, file)
	defer c.Close()
	return io.ReadAll(c)
}

func TestUploadInPartsBecomesAFileWithItsChecksum(t *testing.T) {
	f := setup(t, nil)
	block := f.files.Blobs.BlockSize()
	data := random(block*2 + 12345) // three blocks, the last short
	up, err := f.files.CreateUpload(f.ctx, ten, files.UploadInput{Name: "report.pdf", Size: int64(len(data)), ContentType: "application/pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.storage(t).Reserved, int64(len(data)); got != want {
		t.Fatalf("reserved %d after creation, want %d", got, want)
	}
	// Three parts of odd sizes, the second interrupted midway: what
	// arrived is kept and the client resumes from the offset.
	cut := int64(block + 7)
	up, file, err := f.files.WriteUpload(f.ctx, ten, up.ID, 0, io.MultiReader(bytes.NewReader(data[:cut]), failing{}), nil)
	if err == nil || file != nil {
		t.Fatalf("interrupted part: err %v, file %v", err, file)
	}
	if up.Offset != cut {
		t.Fatalf("offset after the interrupted part = %d, want %d", up.Offset, cut)
	}
	if _, _, err := f.files.WriteUpload(f.ctx, ten, up.ID, 0, bytes.NewReader(data), nil); !kanri.IsCode(err, kanri.ECONFLICT) {
		t.Fatalf("a part at the wrong offset: %v, want a conflict", err)
	}
	up, file, err = f.files.WriteUpload(f.ctx, ten, up.ID, cut, bytes.NewReader(data[cut:]), nil)
	if err != nil || file == nil {
		t.Fatalf("last part: %v, file %v", err, file)
	}
	if got, want := file.Checksum, sum(data); got != want {
		t.Errorf("checksum %s, want %s", got, want)
	}
	if file.Size != int64(len(data)) || file.Name != "report.pdf" || file.FolderID != nil {
		t.Errorf("file = %+v", file)
	}
	got, err := f.readAll(t, file)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes (%v), want the %d uploaded", len(got), err, len(data))
	}
	st := f.storage(t)
	if st.Reserved != 0 || st.Used != int64(len(data)) || st.Files != 1 {
		t.Errorf("storage after completion = %+v", st)
	}
	// A client that missed the last answer asks again: it is told the
	// upload is complete, and its file.
	again, err := f.files.Upload(f.ctx, ten, up.ID)
	if err != nil || again.Offset != again.Size || again.CompletedAt.IsZero() {
		t.Fatalf("completed upload read back: %+v, %v", again, err)
	}
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestContentTypeIsSniffedAndCheckedAgainstTheDeclaredOne(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	for _, c := range []struct {
		name, declared string
		data           []byte
		want           string
	}{
		{"a.txt", "text/plain", []byte("hello"), "text/plain"},
		{"a.html", "text/html", []byte("hello, plain text"), "text/plain"},
		{"fake.pdf", "application/pdf", png, "image/png"},
		{"x.png", "", png, "image/png"},
		{"data.bin", "", random(100), "application/octet-stream"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := setup(t, nil)
			up, err := f.files.CreateUpload(f.ctx, ten, files.UploadInput{Name: c.name, Size: int64(len(c.data)), ContentType: c.declared})
			if err != nil {
				t.Fatal(err)
			}
			_, file, err := f.files.WriteUpload(f.ctx, ten, up.ID, 0, bytes.NewReader(c.data), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := file.ContentType; got != c.want {
				t.Errorf("content type %q, want %q", got, c.want)
			}
		})
	}
}

func TestLimitsAreRefusedBeforeAnyByte(t *testing.T) {
	f := setup(t, map[string]string{"maxStorage": "10KB", "maxFileSize": "4KB"})
	if _, err := f.files.CreateUpload(f.ctx, ten, files.UploadInput{Name: "big.iso", Size: 4097}); !kanri.IsCode(err, kanri.ETOOLARGE) {
		t.Fatalf("over maxFileSize: %v, want too large", err)
	} else if key, _ := kanri.ErrorMessage(err); key != "files.too_large" {
		t.Errorf("message %q", key)
	}
	for i := range 2 {
		f.upload(t, "", fmt.Sprintf("f%d", i), random(4096))
	}
	// 8KB used: a 3KB file does not fit, a 2KB one does.
	if _, err := f.files.CreateUpload(f.ctx, ten, files.UploadInput{Name: "c", Size: 3072}); !kanri.IsCode(err, kanri.ETOOLARGE) {
		t.Fatalf("over the quota: %v, want too large", err)
	} else if key, _ := kanri.ErrorMessage(err); key != "files.quota_exceeded" {
		t.Errorf("message %q", key)
	}
	if st := f.storage(t); st.Reserved != 0 || st.Used != 8192 {
		t.Errorf("a refused upload changed the storage: %+v", st)
	}
	f.upload(t, "", "c", random(2048))
}

func TestParallelUploadsNeverExceedTheQuota(t *testing.T) {
	f := setup(t, map[string]string{"maxStorage": "100KB", "maxFileSize": "10KB"})
	const n, size = 20, 7 * 1024 // 20 × 7KB = 140KB asked, 100KB allowed: 14 fit
	var wg sync.WaitGroup
	var mu sync.Mutex
	created := 0
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			up, err := f.files.CreateUpload(f.ctx, ten, files.UploadInput{Name: fmt.Sprintf("p%02d", i), Size: size})
			if kanri.IsCode(err, kanri.ETOOLARGE) {
				return
			}
			if err != nil {
				t.Errorf("upload %d: %v", i, err)
				return
			}
			mu.Lock()
			created++
			mu.Unlock()
			if _, _, err := f.files.WriteUpload(f.ctx, ten, up.ID, 0, bytes.NewReader(random(size)), nil); err != nil {
				t.Errorf("write %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if got, want := created, 100/7; got != want {
		t.Errorf("%d uploads admitted, want %d", got, want)
	}
	st := f.storage(t)
	if st.Used != int64(created*size) || st.Reserved != 0 || st.Files != created || st.Total() > 100*1024 {
		t.Errorf("storage %+v after %d uploads of %d bytes", st, created, size)
	}
}

func TestAnUploadGivenUpOrExpiredGivesItsReservationBack(t *testing.T) {
	f := setup(t, nil)
	up, err := f.files.CreateUpload(f.ctx, ten, files.UploadInput{Name: "a", Size: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.files.WriteUpload(f.ctx, ten, up.ID, 0, io.MultiReader(bytes.NewReader(random(100)), failing{}), nil); err == nil {
		t.Fatal("an interrupted write reported no error")
	}
	// Listed as its starter's, unfinished; cancelled by another person
	// only with anyone (an administrator).
	starter := audit.ActorFrom(f.ctx).UserID
	for _, c := range []struct {
		who  string
		want int
	}{{starter, 1}, {"", 1}, {"user_other", 0}} {
		if got, err := f.files.Unfinished(f.ctx, ten, c.who, 10); err != nil || len(got) != c.want {
			t.Errorf("Unfinished(%q): %d uploads (%v), want %d", c.who, len(got), err, c.want)
		}
	}
	if _, err := f.files.CancelUpload(f.ctx, ten, up.ID, "user_other", false); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("another person cancelled the upload: %v, want ENOTFOUND", err)
	}
	if _, err := f.files.CancelUpload(f.ctx, ten, up.ID, "user_other", true); err != nil {
		t.Fatal(err)
	}
	if _, err := f.files.Upload(f.ctx, ten, up.ID); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("terminated upload still there: %v", err)
	}
	if st := f.storage(t); st.Reserved != 0 {
		t.Errorf("reserved %d after termination", st.Reserved)
	}
	if _, err := f.files.CreateUpload(f.ctx, ten, files.UploadInput{Name: "b", Size: 7000}); err != nil {
		t.Fatal(err)
	}
	f.clock.add(kanri.UploadLifetime + time.Minute)
	n, err := f.files.ExpireUploads(f.ctx)
	if err != nil || n != 1 {
		t.Fatalf("expired %d uploads (%v), want 1", n, err)
	}
	if st := f.storage(t); st.Reserved != 0 {
		t.Errorf("reserved %d after expiry", st.Reserved)
	}
}

func TestAChecksummedPartIsKeptWholeOrNotAtAll(t *testing.T) {
	f := setup(t, nil)
	data := random(3000)
	up, err := f.files.CreateUpload(f.ctx, ten, files.UploadInput{Name: "a", Size: 3000})
	if err != nil {
		t.Fatal(err)
	}
	wrong := sha256.Sum256([]byte("other"))
	_, _, err = f.files.WriteUpload(f.ctx, ten, up.ID, 0, bytes.NewReader(data[:1000]), &files.Checksum{Hash: sha256.New(), Digest: wrong[:]})
	if !errors.Is(err, files.ErrChecksum) {
		t.Fatalf("bad checksum: %v", err)
	}
	if got, _ := f.files.Upload(f.ctx, ten, up.ID); got.Offset != 0 {
		t.Fatalf("offset %d after a refused part, want 0", got.Offset)
	}
	right := sha256.Sum256(data[:1000])
	if up, _, err = f.files.WriteUpload(f.ctx, ten, up.ID, 0, bytes.NewReader(data[:1000]), &files.Checksum{Hash: sha256.New(), Digest: right[:]}); err != nil || up.Offset != 1000 {
		t.Fatalf("good checksum: offset %d, %v", up.Offset, err)
	}
	_, file, err := f.files.WriteUpload(f.ctx, ten, up.ID, 1000, bytes.NewReader(data[1000:]), nil)
	if err != nil || file.Checksum != sum(data) {
		t.Fatalf("completed with %v, %v", file, err)
	}
}

func TestADamagedFileIsNeverReadWhole(t *testing.T) {
	f := setup(t, nil)
	file := f.upload(t, "", "a.bin", random(10_000))
	f.mem.corrupt(kanri.BlobName(ten, file.ID))
	got, err := f.readAll(t, file)
	if !errors.Is(err, files.ErrDamaged) {
		t.Fatalf("read of a damaged file: %v", err)
	}
	if len(got) >= 10_000 {
		t.Errorf("read %d bytes of a damaged file: the last part must be withheld", len(got))
	}
	marked, _ := f.files.File(f.ctx, ten, file.ID)
	if !marked.Damaged {
		t.Error("the damaged file is not marked")
	}
	// A range is not checked (it cannot be), and is served.
	c := f.files.Open(f.ctx, ten, file)
	defer c.Close()
	if _, err := c.Seek(100, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(io.LimitReader(c, 50)); err != nil || len(b) != 50 {
		t.Errorf("range read: %d bytes, %v", len(b), err)
	}
}

func TestFolders(t *testing.T) {
	f := setup(t, nil)
	docs, err := f.files.CreateFolder(f.ctx, ten, "", "Documents")
	if err != nil {
		t.Fatal(err)
	}
	y2026, err := f.files.CreateFolder(f.ctx, ten, docs.ID, "2026")
	if err != nil {
		t.Fatal(err)
	}
	if y2026.Path != "/Documents/2026" {
		t.Errorf("path %q", y2026.Path)
	}
	for _, c := range []struct{ parent, name, field string }{
		{"", "documents", "name"}, // case-insensitive among siblings
		{"", "ＤＯＣＵＭＥＮＴＳ", "name"}, // and width
		{"", "a/b", "name"},       // no slash
		{"", "..", "name"},        // no dot-dot
		{"", "a\u202eb", "name"},  // no bidi override
		{"", "", "name"},          // required
		{docs.ID, "2026", "name"}, // taken in that folder
	} {
		if _, err := f.files.CreateFolder(f.ctx, ten, c.parent, c.name); kanri.ErrorFields(err)[c.field] == "" {
			t.Errorf("folder %q in %q: %v, want an error on %s", c.name, c.parent, err, c.field)
		}
	}
	if _, err := f.files.CreateFolder(f.ctx, ten, y2026.ID, "Documents"); err != nil {
		t.Errorf("the same name under another parent: %v", err)
	}
	// No cycles: a folder cannot move into itself or below itself.
	for _, target := range []string{docs.ID, y2026.ID} {
		if _, err := f.files.MoveFolder(f.ctx, ten, docs.ID, "", target); kanri.ErrorFields(err)["folderId"] == "" {
			t.Errorf("move into %s: %v, want refused", target, err)
		}
	}
	// Renaming moves the paths below.
	if _, err := f.files.RenameFolder(f.ctx, ten, docs.ID, docs.ETag, "Docs"); err != nil {
		t.Fatal(err)
	}
	moved, _ := f.files.Folder(f.ctx, ten, y2026.ID)
	if moved.Path != "/Docs/2026" {
		t.Errorf("path after the parent's rename %q", moved.Path)
	}
	if _, err := f.files.RenameFolder(f.ctx, ten, docs.ID, docs.ETag, "Again"); !kanri.IsCode(err, kanri.ESTALE) {
		t.Errorf("rename at an old ETag: %v, want stale", err)
	}
	// The old name is free again; the new one is taken.
	if _, err := f.files.CreateFolder(f.ctx, ten, "", "Documents"); err != nil {
		t.Errorf("the old name after a rename: %v", err)
	}
	// Moving to the top level.
	top, err := f.files.MoveFolder(f.ctx, ten, y2026.ID, "", "")
	if err != nil || top.Path != "/2026" || top.ParentFolderID != nil {
		t.Fatalf("move to the top: %+v, %v", top, err)
	}
}

func TestDeletingAFolderWithFilesIsConfirmedByTheirNumber(t *testing.T) {
	f := setup(t, nil)
	docs, _ := f.files.CreateFolder(f.ctx, ten, "", "Docs")
	inner, _ := f.files.CreateFolder(f.ctx, ten, docs.ID, "Inner")
	f.upload(t, docs.ID, "a", random(10))
	f.upload(t, inner.ID, "b", random(20))
	err := f.files.DeleteFolder(f.ctx, ten, docs.ID, "", 0)
	n, ok := files.FolderNotEmpty(err)
	if !ok || n != 2 {
		t.Fatalf("unconfirmed delete: %v (%d files), want refused naming 2", err, n)
	}
	if err := f.files.DeleteFolder(f.ctx, ten, docs.ID, "", 2); err != nil {
		t.Fatal(err)
	}
	if _, err := f.files.Folder(f.ctx, ten, inner.ID); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("inner folder survives: %v", err)
	}
	trash, _, err := f.files.Trash(f.ctx, ten, 10, "")
	if err != nil || len(trash) != 2 {
		t.Fatalf("trash holds %d files (%v), want 2", len(trash), err)
	}
	if st := f.storage(t); st.Trash != 30 || st.Used != 0 {
		t.Errorf("storage %+v", st)
	}
	// The folder's name is free again.
	again, err := f.files.CreateFolder(f.ctx, ten, "", "Docs")
	if err != nil {
		t.Fatalf("the name of a deleted folder: %v", err)
	}
	// Restored, each file goes back to the path it had: a folder of that
	// name there is used, one that is gone is made again, once.
	paths := map[string]string{}
	for _, tf := range trash {
		paths[tf.Name] = tf.TrashedFrom
		back, err := f.files.RestoreFile(f.ctx, ten, tf.ID, kanri.Seen{})
		if err != nil || back.FolderID == nil || back.InTrash() || back.TrashedFrom != "" {
			t.Fatalf("restore %s: %+v, %v", tf.Name, back, err)
		}
		d, err := f.files.Folder(f.ctx, ten, *back.FolderID)
		if err != nil || d.Path != tf.TrashedFrom {
			t.Errorf("%s restored into %+v (%v), want %s", tf.Name, d, err, tf.TrashedFrom)
		}
		if tf.Name == "a" && *back.FolderID != again.ID {
			t.Errorf("a was not restored into the existing /Docs")
		}
	}
	if paths["a"] != "/Docs" || paths["b"] != "/Docs/Inner" {
		t.Errorf("the trash kept the paths %v, want a in /Docs and b in /Docs/Inner", paths)
	}
	inside, _, err := f.files.Folders(f.ctx, ten, again.ID, 10, "")
	if err != nil || len(inside) != 1 || inside[0].Name != "Inner" {
		t.Errorf("/Docs holds %v (%v), want Inner made again once", inside, err)
	}
}

// TestNoFileIsLeftInADeletedFolder races a file arriving in a folder (an
// upload completing, a move) with the folder's deletion, at the two points
// where one cannot see the other: the file survives, at the top level.
func TestNoFileIsLeftInADeletedFolder(t *testing.T) {
	cases := []struct {
		name   string
		arrive func(f *fixture, folderID string) *kanri.File // the file that arrives
		// deleteFirst deletes the folder after the file's folder check and
		// before its write; otherwise the file arrives after the
		// deletion counted the folder's files, before it deleted it.
		deleteFirst bool
	}{
		{"upload completes as the folder goes", func(f *fixture, folderID string) *kanri.File {
			return f.upload(t, folderID, "late", random(10))
		}, true},
		{"upload completes during the deletion", func(f *fixture, folderID string) *kanri.File {
			return f.upload(t, folderID, "late", random(10))
		}, false},
		{"move during the deletion", func(f *fixture, folderID string) *kanri.File {
			top := f.upload(t, "", "late", random(10))
			moved, err := f.files.MoveFile(f.ctx, ten, top.ID, kanri.Seen{}, folderID)
			if err != nil {
				t.Fatal(err)
			}
			return moved
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := setup(t, nil)
			folder, err := f.files.CreateFolder(f.ctx, ten, "", "Going")
			if err != nil {
				t.Fatal(err)
			}
			var arrived *kanri.File
			if c.deleteFirst {
				files.SetHooks(f.files, func() {
					files.SetHooks(f.files, nil, nil)
					if err := f.files.DeleteFolder(f.ctx, ten, folder.ID, "", 0); err != nil {
						t.Errorf("DeleteFolder: %v", err)
					}
				}, nil)
				arrived = c.arrive(f, folder.ID)
			} else {
				files.SetHooks(f.files, nil, func() {
					files.SetHooks(f.files, nil, nil)
					arrived = c.arrive(f, folder.ID)
				})
				if err := f.files.DeleteFolder(f.ctx, ten, folder.ID, "", 0); err != nil {
					t.Fatal(err)
				}
			}
			got, err := f.files.File(f.ctx, ten, arrived.ID)
			if err != nil || got.FolderID != nil || got.InTrash() {
				t.Fatalf("the file that arrived: %+v, %v; want it alive at the top level", got, err)
			}
			top, _, err := f.files.Files(f.ctx, ten, "", files.ListQuery{Limit: 10})
			if err != nil || len(top) != 1 || top[0].ID != arrived.ID {
				t.Errorf("the top level lists %d files (%v), want the one that arrived", len(top), err)
			}
		})
	}
}

func TestTrashPurgeAndRetention(t *testing.T) {
	f := setup(t, nil)
	a := f.upload(t, "", "a", random(100))
	b := f.upload(t, "", "b", random(50))
	if _, err := f.files.TrashFile(f.ctx, ten, a.ID, kanri.Seen{ETag: a.ETag, State: a.State()}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.files.LiveFile(f.ctx, ten, a.ID); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("a trashed file is live: %v", err)
	}
	if st := f.storage(t); st.Used != 50 || st.Trash != 100 || st.Files != 2 {
		t.Errorf("storage %+v", st)
	}
	f.clock.add(10 * 24 * time.Hour)
	if _, err := f.files.TrashFile(f.ctx, ten, b.ID, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	f.clock.add(kanri.TrashRetention - 5*24*time.Hour) // a: 35 days, b: 25 days
	n, err := f.files.EmptyOldTrash(f.ctx)
	if err != nil || n != 1 {
		t.Fatalf("purged %d (%v), want 1", n, err)
	}
	if _, err := f.files.File(f.ctx, ten, a.ID); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("a survives its retention: %v", err)
	}
	if _, err := f.mem.Stat(f.ctx, kanri.BlobName(ten, a.ID)); err == nil {
		t.Error("a's blob survives its purge")
	}
	if st := f.storage(t); st.Used != 0 || st.Trash != 50 || st.Files != 1 {
		t.Errorf("storage %+v", st)
	}
	if n, err := f.files.EmptyTrash(f.ctx, ten); err != nil || n != 1 {
		t.Fatalf("emptied %d (%v), want 1", n, err)
	}
	if st := f.storage(t); st.Total() != 0 || st.Files != 0 {
		t.Errorf("storage after emptying %+v", st)
	}
}

func TestAnEditAfterADownloadIsNotStale(t *testing.T) {
	f := setup(t, nil)
	file := f.upload(t, "", "a", random(10))
	seen := kanri.Seen{ETag: file.ETag, State: file.State()}
	// A download's lastAccessedAt changes the ETag, not what people edit.
	if _, err := f.st.Tenant(ten).Files().Modify(f.ctx, file.ID, nil, func(x *kanri.File) error {
		x.LastAccessedAt = kanri.NewTime(f.clock.now())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got, err := f.files.UpdateFile(f.ctx, ten, file.ID, seen, files.FileInput{DisplayName: "報告書", Tags: "a, b b", Description: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if got.DisplayName != "報告書" || !slices.Equal(got.Metadata.Tags, []string{"a", "b"}) {
		t.Errorf("saved %+v", got)
	}
	if _, err := f.files.UpdateFile(f.ctx, ten, file.ID, seen, files.FileInput{DisplayName: "other"}); !kanri.IsCode(err, kanri.ESTALE) {
		t.Errorf("an edit over another's edit: %v, want stale", err)
	}
	// Saving what is there writes nothing.
	cur, _ := f.files.File(f.ctx, ten, file.ID)
	same, err := f.files.UpdateFile(f.ctx, ten, file.ID, kanri.Seen{ETag: cur.ETag, State: cur.State()}, files.FileInput{DisplayName: "報告書", Tags: "a b", Description: "x"})
	if err != nil || same.ETag != cur.ETag {
		t.Errorf("a save that changes nothing wrote: %v, ETag %s → %s", err, cur.ETag, same.ETag)
	}
}

func TestFolderListsAndSearchAreServedByIndexes(t *testing.T) {
	f := setup(t, nil)
	docs, _ := f.files.CreateFolder(f.ctx, ten, "", "Docs")
	for i, name := range []string{"Beta.txt", "alpha.txt", "Gamma.txt"} {
		f.upload(t, docs.ID, name, random(100*(3-i)))
	}
	f.upload(t, "", "top.txt", random(1))
	for _, c := range []struct {
		sort string
		desc bool
		want []string
	}{
		{files.SortName, false, []string{"alpha.txt", "Beta.txt", "Gamma.txt"}},
		{files.SortSize, false, []string{"Gamma.txt", "alpha.txt", "Beta.txt"}},
		{files.SortName, true, []string{"Gamma.txt", "Beta.txt", "alpha.txt"}},
	} {
		page, _, err := f.files.Files(f.ctx, ten, docs.ID, files.ListQuery{Sort: c.sort, Desc: c.desc, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, x := range page {
			got = append(got, x.Name)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("sort %s desc %t: %v, want %v", c.sort, c.desc, got, c.want)
		}
	}
	found, _, err := f.files.Search(f.ctx, ten, "gam", 10, "")
	if err != nil || len(found) != 1 || found[0].Name != "Gamma.txt" {
		t.Errorf("search: %v, %v", found, err)
	}
}

// TestUnfinishedReadsOpenUploadsOnly: the files page's list of uploads in
// progress reads a range of the index of open uploads, not the uploads
// completed in the last day (a busy tenant has thousands).
func TestUnfinishedReadsOpenUploadsOnly(t *testing.T) {
	ds := bolttest.Open(t)
	plan, err := ds.Container(kanri.ContainerFiles).(docstore.Explainer).Explain(ten, files.UnfinishedQuery(time.Now(), "user_a", 20))
	if err != nil {
		t.Fatal(err)
	}
	if plan.Access != docstore.AccessIndex || len(plan.Ranges) != 1 || !strings.HasPrefix(plan.Ranges[0], "upload_open[") || !slices.ContainsFunc(plan.Served, func(f string) bool { return strings.HasPrefix(f, "completedAt =") }) {
		t.Errorf("plan %+v, want one range of upload_open serving completedAt", plan)
	}
}

// TestTheScrubFindsADamagedFile: the daily scrub reads every file and
// marks the one whose bytes no longer match its checksum damaged, and
// only that one.
func TestTheScrubFindsADamagedFile(t *testing.T) {
	f := setup(t, nil)
	good := f.upload(t, "", "good.bin", random(5_000))
	bad := f.upload(t, "", "bad.bin", random(7_000))
	f.mem.corrupt(kanri.BlobName(ten, bad.ID))
	checked, damaged, err := f.files.Scrub(f.ctx)
	if err != nil || checked != 2 || damaged != 1 {
		t.Fatalf("scrub: checked %d, damaged %d, %v; want 2 and 1", checked, damaged, err)
	}
	for _, c := range []struct {
		file *kanri.File
		want bool
	}{{good, false}, {bad, true}} {
		got, err := f.files.File(f.ctx, ten, c.file.ID)
		if err != nil || got.Damaged != c.want {
			t.Errorf("%s: damaged %v (%v); want %v", c.file.Name, got.Damaged, err, c.want)
		}
	}
	if checked, _, err := f.files.Scrub(f.ctx); err != nil || checked != 1 {
		t.Errorf("a second scrub checked %d (%v); want only the good one", checked, err)
	}
}
