// Package disk is the blob store driver over a local directory, the
// default: nothing to install, crash-safe by writing every blob to a
// temporary file that is synced and then renamed into place.
//
// Layout under the root: blobs/<name> holds the blobs; staging/<hash of
// name>/<block id> the staged blocks of resumable writes; tmp/ the files
// being written. Only blobs/ is ever listed, so a half-written file or a
// staged block is never mistaken for a blob.
package disk

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kanri/kanri/internal/blob"
)

// Driver stores blobs in a directory.
type Driver struct {
	root string
	// staging serialises the appends to a blob's staged data (by a hash
	// of the blob's name): an append learns its offset and writes there.
	staging [64]sync.Mutex
}

var _ blob.Driver = (*Driver)(nil)

// New opens (creating it if needed) the blob directory root. Temporary
// files a crash left behind are removed.
func New(root string) (*Driver, error) {
	d := &Driver{root: root}
	for _, dir := range []string{d.dir("blobs"), d.dir("staging"), d.dir("tmp")} {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("disk: %w", err)
		}
	}
	left, err := os.ReadDir(d.dir("tmp"))
	if err != nil {
		return nil, fmt.Errorf("disk: %w", err)
	}
	for _, e := range left {
		_ = os.Remove(filepath.Join(d.dir("tmp"), e.Name()))
	}
	return d, nil
}

func (d *Driver) dir(part string) string { return filepath.Join(d.root, part) }

// path returns the file of a blob; names are validated by blob.Bucket.
func (d *Driver) path(name string) string {
	return filepath.Join(d.dir("blobs"), filepath.FromSlash(name))
}

// fnv32 is the FNV-1a hash of s.
func fnv32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// stagingDir returns the directory of a blob's staged blocks.
func (d *Driver) stagingDir(name string) string {
	h := sha256.Sum256([]byte(name))
	return filepath.Join(d.dir("staging"), hex.EncodeToString(h[:16]))
}

// Put implements blob.Driver.
func (d *Driver) Put(ctx context.Context, name string, r io.Reader) (int64, error) {
	return d.write(name, func(w *os.File) (int64, error) { return copyInto(ctx, w, r) })
}

// copyInto copies r's bytes into w, writeChunk at a time (io.Copy into a
// file would take 32 KiB).
func copyInto(ctx context.Context, w *os.File, r io.Reader) (int64, error) {
	bufp := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(bufp)
	return io.CopyBuffer(struct{ io.Writer }{w}, ctxReader{ctx, r}, *bufp)
}

// copyBuffers are Put's buffers.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, writeChunk); return &b }}

// write writes a blob through a temporary file that is synced, then
// renamed into place (and the directory synced), so that the blob appears
// whole or not at all.
func (d *Driver) write(name string, fill func(*os.File) (int64, error)) (int64, error) {
	tmp, err := os.CreateTemp(d.dir("tmp"), "put-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name()) // gone already once renamed
	if _, err := fill(tmp); err != nil {
		tmp.Close()
		return 0, err
	}
	return d.install(tmp, name)
}

// install makes the file f the blob name: synced, closed, renamed into
// place, the directory synced. It returns the blob's size.
func (d *Driver) install(f *os.File, name string) (int64, error) {
	fi, err := f.Stat()
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	dst := d.path(name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return 0, err
	}
	if err := os.Rename(f.Name(), dst); err != nil {
		return 0, err
	}
	return fi.Size(), syncDir(filepath.Dir(dst))
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// A blob's staged blocks are appended, as they come, to one file of its
// staging directory ("data"), and each block's place in it to another
// ("index", a line "id offset length" each; the last line of an id wins,
// so that staging an id again replaces its data). Nothing is synced until
// SyncBlocks. A commit of the blocks as they lie in the file, in order
// and with nothing else in it (an upload's case), renames the file into
// place: each byte is written once. Any other commit copies the listed
// blocks into a new file.
const (
	stagedData  = "data"
	stagedIndex = "index"
)

// writeChunk is the most bytes one write to a staging file takes: on this
// project's test machine (Linux, ext4) writes of 4 MiB ran at a tenth of
// the speed of writes of 256 KiB.
const writeChunk = 256 << 10

// BlockSize implements blob.BlockSizer. Staged blocks are appended to
// one file, so a block's size is only what an upload holds in memory: 1
// MiB rather than Azure's 4 keeps a server receiving an upload under 32
// MiB of memory (BenchmarkFileTransfer), at the same speed.
func (d *Driver) BlockSize() int { return 1 << 20 }

// StageBlock implements blob.Driver.
func (d *Driver) StageBlock(ctx context.Context, name, id string, data []byte) error {
	dir := d.stagingDir(name)
	mu := &d.staging[fnv32(name)%uint32(len(d.staging))]
	mu.Lock()
	defer mu.Unlock()
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, stagedData), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	off, err := f.Seek(0, io.SeekEnd)
	for rest := data; err == nil && len(rest) > 0; {
		n := min(len(rest), writeChunk)
		_, err = f.Write(rest[:n])
		rest = rest[n:]
	}
	if err == nil {
		startWriteback(f, off, int64(len(data)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	ix, err := os.OpenFile(filepath.Join(dir, stagedIndex), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(ix, "%s %d %d\n", id, off, len(data))
	if cerr := ix.Close(); err == nil {
		err = cerr
	}
	return err
}

// SyncBlocks implements blob.Driver: the staged data, then its index.
func (d *Driver) SyncBlocks(ctx context.Context, name string) error {
	dir := d.stagingDir(name)
	for _, file := range []string{stagedData, stagedIndex} {
		f, err := os.OpenFile(filepath.Join(dir, file), os.O_RDWR, 0)
		if errors.Is(err, fs.ErrNotExist) {
			continue // nothing staged
		}
		if err != nil {
			return err
		}
		err = f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// segment is a staged block's place in the staged data.
type segment struct{ off, n int64 }

// stagedIndexOf reads a staging directory's index.
func stagedIndexOf(dir string) (map[string]segment, error) {
	b, err := os.ReadFile(filepath.Join(dir, stagedIndex))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]segment{}, nil
	}
	if err != nil {
		return nil, err
	}
	ix := map[string]segment{}
	for _, line := range strings.Split(string(b), "\n") {
		var id string
		var sg segment
		if _, err := fmt.Sscanf(line, "%s %d %d", &id, &sg.off, &sg.n); err == nil {
			ix[id] = sg // a torn last line (a crash) does not parse
		}
	}
	return ix, nil
}

// CommitBlocks implements blob.Driver: the staged data file itself when
// it holds exactly the listed blocks in order (synced, then renamed into
// place), else a copy of the listed blocks (file to file, which Linux
// does in the kernel) renamed into place; then the staging directory goes.
func (d *Driver) CommitBlocks(ctx context.Context, name string, ids []string) (int64, error) {
	dir := d.stagingDir(name)
	ix, err := stagedIndexOf(dir)
	if err != nil {
		return 0, err
	}
	var total int64
	inPlace := true
	for _, id := range ids {
		sg, ok := ix[id]
		if !ok {
			return 0, fmt.Errorf("disk: block %s of %s: %w", id, name, errUnknownBlock)
		}
		inPlace = inPlace && sg.off == total
		total += sg.n
	}
	data := filepath.Join(dir, stagedData)
	if fi, err := os.Stat(data); err != nil || fi.Size() != total {
		inPlace = false
	}
	var n int64
	if inPlace && total > 0 {
		n, err = d.place(name, data)
	} else {
		n, err = d.write(name, func(w *os.File) (int64, error) {
			src, err := os.Open(data)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return 0, err
			}
			if src != nil {
				defer src.Close()
			}
			var written int64
			for _, id := range ids {
				if err := ctx.Err(); err != nil {
					return written, err
				}
				sg := ix[id]
				m, err := io.Copy(w, io.NewSectionReader(src, sg.off, sg.n))
				written += m
				if err != nil {
					return written, err
				}
			}
			return written, nil
		})
	}
	if err != nil {
		return 0, err
	}
	return n, os.RemoveAll(dir)
}

// place makes the file src the blob name (install).
func (d *Driver) place(name, src string) (int64, error) {
	f, err := os.OpenFile(src, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	return d.install(f, name)
}

// errUnknownBlock marks a commit naming a block that was not staged: an
// error, but not a missing blob.
var errUnknownBlock = errors.New("block not staged")

// DiscardBlocks implements blob.Driver.
func (d *Driver) DiscardBlocks(ctx context.Context, name string) error {
	return os.RemoveAll(d.stagingDir(name))
}

// File implements blob.Filer.
func (d *Driver) File(name string) (*os.File, error) {
	f, err := os.Open(d.path(name))
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || fi.IsDir() {
		f.Close()
		return nil, fs.ErrNotExist
	}
	return f, nil
}

// NewRangeReader implements blob.Driver.
func (d *Driver) NewRangeReader(ctx context.Context, name string, offset, length int64) (io.ReadCloser, error) {
	f, err := os.Open(d.path(name))
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{ctxReader{ctx, io.LimitReader(f, length)}, f}, nil
}

// Stat implements blob.Driver.
func (d *Driver) Stat(ctx context.Context, name string) (blob.Info, error) {
	fi, err := os.Stat(d.path(name))
	if err != nil {
		return blob.Info{}, err
	}
	if fi.IsDir() {
		return blob.Info{}, fs.ErrNotExist
	}
	return blob.Info{Name: name, Size: fi.Size(), ModTime: fi.ModTime().UTC()}, nil
}

// SetTier implements blob.Driver: a directory has no tiers, so the blob
// stays as it is, readable.
func (d *Driver) SetTier(ctx context.Context, name, tier string) error {
	_, err := d.Stat(ctx, name)
	return err
}

// Delete implements blob.Driver. The directories a blob leaves empty are
// removed too, up to blobs/.
func (d *Driver) Delete(ctx context.Context, name string) error {
	_ = os.RemoveAll(d.stagingDir(name))
	p := d.path(name)
	if err := os.Remove(p); err != nil {
		return err
	}
	for dir := filepath.Dir(p); dir != d.dir("blobs") && strings.HasPrefix(dir, d.dir("blobs")); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			break // not empty
		}
	}
	return nil
}

// List implements blob.Driver: it walks blobs/ in name order.
func (d *Driver) List(ctx context.Context, prefix string) iter.Seq2[blob.Info, error] {
	return func(yield func(blob.Info, error) bool) {
		// Walk only the directory the prefix reaches into.
		start := d.dir("blobs")
		if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
			start = filepath.Join(start, filepath.FromSlash(prefix[:i]))
		}
		var names []string
		err := filepath.WalkDir(start, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if e.IsDir() {
				return nil
			}
			rel, err := filepath.Rel(d.dir("blobs"), p)
			if err != nil {
				return err
			}
			if name := filepath.ToSlash(rel); strings.HasPrefix(name, prefix) {
				names = append(names, name)
			}
			return ctx.Err()
		})
		if err != nil {
			yield(blob.Info{}, err)
			return
		}
		slices.Sort(names)
		for _, name := range names {
			info, err := d.Stat(ctx, name)
			if errors.Is(err, fs.ErrNotExist) {
				continue // deleted meanwhile
			}
			if !yield(info, err) || err != nil {
				return
			}
		}
	}
}

// IsNotExist implements blob.Driver.
func (d *Driver) IsNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errUnknownBlock)
}

// Close implements blob.Driver.
func (d *Driver) Close() error { return nil }

// ctxReader stops reading when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// ModTime is when the driver considers a blob written; exposed for tests
// that age blobs.
func ModTime(root, name string, t time.Time) error {
	return os.Chtimes(filepath.Join(root, "blobs", filepath.FromSlash(name)), t, t)
}
