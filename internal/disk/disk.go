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
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/blob"
)

// Driver stores blobs in a directory.
type Driver struct {
	root string
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

// staging returns the directory of a blob's staged blocks.
func (d *Driver) staging(name string) string {
	h := sha256.Sum256([]byte(name))
	return filepath.Join(d.dir("staging"), hex.EncodeToString(h[:16]))
}

// Put implements blob.Driver.
func (d *Driver) Put(ctx context.Context, name string, r io.Reader) (int64, error) {
	return d.write(name, func(w *os.File) (int64, error) {
		return io.Copy(w, ctxReader{ctx, r})
	})
}

// write writes a blob through a temporary file that is synced, then
// renamed into place (and the directory synced), so that the blob appears
// whole or not at all.
func (d *Driver) write(name string, fill func(*os.File) (int64, error)) (int64, error) {
	tmp, err := os.CreateTemp(d.dir("tmp"), "put-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name()) // gone already once renamed
	n, err := fill(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	dst := d.path(name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return 0, err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return 0, err
	}
	return n, syncDir(filepath.Dir(dst))
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// StageBlock implements blob.Driver.
func (d *Driver) StageBlock(ctx context.Context, name, id string, data []byte) error {
	dir := d.staging(name)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(d.dir("tmp"), "block-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, id))
}

// CommitBlocks implements blob.Driver: the blocks are copied into one
// temporary file (file to file, which Linux does in the kernel) that is
// renamed into place; then the staging directory goes.
func (d *Driver) CommitBlocks(ctx context.Context, name string, ids []string) (int64, error) {
	dir := d.staging(name)
	n, err := d.write(name, func(w *os.File) (int64, error) {
		var total int64
		for _, id := range ids {
			if err := ctx.Err(); err != nil {
				return total, err
			}
			f, err := os.Open(filepath.Join(dir, id))
			if err != nil {
				return total, fmt.Errorf("disk: block %s of %s: %w", id, name, errors.Join(err, errUnknownBlock))
			}
			n, err := io.Copy(w, f)
			f.Close()
			total += n
			if err != nil {
				return total, err
			}
		}
		return total, nil
	})
	if err != nil {
		return 0, err
	}
	return n, os.RemoveAll(dir)
}

// errUnknownBlock marks a commit naming a block that was not staged: an
// error, but not a missing blob.
var errUnknownBlock = errors.New("block not staged")

// DiscardBlocks implements blob.Driver.
func (d *Driver) DiscardBlocks(ctx context.Context, name string) error {
	return os.RemoveAll(d.staging(name))
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
	_ = os.RemoveAll(d.staging(name))
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
