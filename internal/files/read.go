package files

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"os"
	"strings"

	"github.com/kanri/kanri/internal/kanri"
)

// ErrDamaged is the error of a read that found a file's bytes no longer
// match its checksum.
var ErrDamaged = kanri.E(kanri.EINTERNAL, "files.damaged")

// errBadSeek is the error of a seek Content cannot make.
var errBadSeek = errors.New("files: bad seek")

// Content is a file's bytes for http.ServeContent. On a blob store whose
// blobs are local files it is that file (File), which a server sends with
// sendfile; the periodic scrub (Scrub) checks those files against their
// checksums. Otherwise it seeks without reading (each read after a seek
// opens a range of the blob), and a read of the whole file from its first
// byte to its last is checked against the file's checksum as it streams:
// on a mismatch the last block is withheld and the read fails, so the
// recipient never gets a whole file that is wrong; the file is marked
// damaged and the failure logged.
type Content struct {
	file   *os.File // the blob's local file, when it is one
	s      *Service
	ctx    context.Context
	f      *kanri.File
	name   string
	pos    int64
	r      io.ReadCloser
	h      hash.Hash // the hash of bytes 0 to hashed, while reads went in order from 0
	hashed int64
	sent   int64
	closed bool
	failed bool
}

// Failed reports whether a read failed midway (a damaged file, a blob
// store that went away): what was sent is incomplete.
func (c *Content) Failed() bool { return c.failed }

// Open returns the content of a live file, and notes the access (its
// lastAccessedAt is written later, at most once a minute).
func (s *Service) Open(ctx context.Context, tenantID string, f *kanri.File) *Content {
	s.touches.note(tenantID, f.ID, s.Now())
	c := &Content{s: s, ctx: ctx, f: f, name: kanri.BlobName(tenantID, f.ID), h: sha256.New()}
	if file, err := s.Blobs.File(ctx, c.name); err == nil && file != nil {
		c.file = file
	}
	return c
}

// File returns the blob's local file, or nil when the blob store has
// none: a server sends the file itself, then reports what it sent (Sent).
func (c *Content) File() *os.File { return c.file }

// Sent records n bytes sent from File.
func (c *Content) Sent(n int64) { c.sent += n }

// Seek implements io.Seeker.
func (c *Content) Seek(offset int64, whence int) (int64, error) {
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = c.pos + offset
	case io.SeekEnd:
		abs = c.f.Size + offset
	default:
		return 0, errBadSeek
	}
	if abs < 0 {
		return 0, errBadSeek
	}
	if abs != c.pos {
		c.closeReader()
		c.pos = abs
	}
	return abs, nil
}

// Read implements io.Reader.
func (c *Content) Read(p []byte) (int, error) { return c.next(p) }

// next reads the next bytes of the content into p.
func (c *Content) next(p []byte) (int, error) {
	if c.pos >= c.f.Size {
		return 0, io.EOF
	}
	if c.r == nil {
		r, err := c.s.Blobs.NewRangeReader(c.ctx, c.name, c.pos, -1)
		if err != nil {
			c.failed = true
			return 0, err
		}
		c.r = r
	}
	if c.h != nil && c.pos != c.hashed {
		c.h = nil // not a whole read in order from the start: nothing to check
	}
	n, err := io.ReadAtLeast(c.r, p, 1)
	if c.h != nil && n > 0 {
		c.h.Write(p[:n])
		c.hashed += int64(n)
		if c.pos+int64(n) >= c.f.Size && !c.matches() {
			c.s.damaged(c.ctx, c.f)
			c.failed = true
			return 0, ErrDamaged
		}
	}
	c.pos += int64(n)
	c.sent += int64(n)
	if errors.Is(err, io.EOF) && c.pos < c.f.Size {
		err = io.ErrUnexpectedEOF // the blob is shorter than its file
	}
	if err != nil && !errors.Is(err, io.EOF) {
		c.failed = true
	}
	return n, err
}

// matches reports whether the bytes read hash to the file's checksum.
func (c *Content) matches() bool {
	want, ok := strings.CutPrefix(c.f.Checksum, "sha256:")
	return !ok || hex.EncodeToString(c.h.Sum(nil)) == want
}

func (c *Content) closeReader() {
	if c.r != nil {
		c.r.Close()
		c.r = nil
	}
}

// Close releases the content and records the bytes sent as the tenant's
// bandwidth.
func (c *Content) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	c.closeReader()
	if c.file != nil {
		c.file.Close()
	}
	c.s.meter.download(c.f.TenantID, c.sent)
	return nil
}

// damaged marks a file whose bytes no longer match its checksum, and logs
// it: an operator must know.
func (s *Service) damaged(ctx context.Context, f *kanri.File) {
	s.Logger.Error("file damaged: its bytes do not match its checksum", "tenant", f.TenantID, "file", f.ID, "blob", kanri.BlobName(f.TenantID, f.ID))
	_, err := s.Store.Tenant(f.TenantID).Files().Modify(context.WithoutCancel(ctx), f.ID, nil, func(f *kanri.File) error {
		f.Damaged = true
		return nil
	})
	if err != nil {
		s.Logger.Warn("damaged file not marked", "file", f.ID, "err", err)
	}
}
