// Package blob is the port to the store of file contents: the bytes of
// uploaded files, thumbnails and (later) backups. Documents say what exists;
// blobs only hold bytes, under names the application derives from tenant
// and document ids (never from user input).
//
// Bucket is the one portable type the application uses. It validates names
// and block ids, computes SHA-256 while writing and wraps errors, once, over
// a minimal Driver that each backend implements: the local directory
// (package disk, the default) and Azure Blob Storage (package azureblob).
// Package blobtest is the contract suite every driver passes.
//
// Errors are *kanri.Error values: ENOTFOUND for a missing blob, EINVALID for
// a bad name, block id or range.
package blob

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"iter"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/kanri"
)

// MaxBlockSize is the largest block StageBlock takes. Resumable uploads
// cut their bytes into blocks of at most this size, so that a block is
// held in memory whole (Azure needs a block's length before it is sent)
// and memory does not grow with file size.
const MaxBlockSize = 8 << 20

// MaxBlocks is the most blocks one blob may be committed from (Azure's
// limit).
const MaxBlocks = 50000

// DefaultBlockSize is the size of the blocks a resumable upload stages on
// a store whose driver does not say otherwise (BlockSizer): Azure takes
// blocks of 4 MiB in one request each.
const DefaultBlockSize = 4 << 20

// BlockSizer is implemented by a driver whose staged blocks are best of
// another size than DefaultBlockSize (at most MaxBlockSize).
type BlockSizer interface {
	// BlockSize is the size of the blocks an upload should stage.
	BlockSize() int
}

// Info describes a stored blob.
type Info struct {
	// Name is the blob's name.
	Name string
	// Size is its length in bytes.
	Size int64
	// ModTime is when it was last written.
	ModTime time.Time
	// Tier is its access tier (TierHot, TierCool, TierArchive), "" on a
	// store without tiers. Rehydrating says it is leaving the archive tier
	// for Tier's successor: until it has, it cannot be read.
	Tier        string
	Rehydrating bool
}

// Access tiers (Azure Blob Storage's): a blob in the archive tier is
// stored offline, cheaply, and must be rehydrated (moved to another tier,
// which takes hours) before it can be read.
const (
	TierHot     = "hot"
	TierCool    = "cool"
	TierArchive = "archive"
)

// Driver is what a backend implements. Bucket has validated every name,
// block id and range before a Driver sees it. Implementations are safe for
// concurrent use. A missing blob is reported as an error for which
// IsNotExist (of the driver) is true; Bucket turns it into ENOTFOUND.
type Driver interface {
	// Put stores r's bytes as the blob name, replacing any. The blob
	// appears under its name only once complete: a reader or a crash
	// midway never leaves a partial blob visible.
	Put(ctx context.Context, name string, r io.Reader) (int64, error)
	// StageBlock keeps data as the block id of the blob name, to be
	// committed later. Staging an id again replaces its data. Staged
	// blocks are not visible as the blob, and need not survive a crash
	// until SyncBlocks.
	StageBlock(ctx context.Context, name, id string, data []byte) error
	// SyncBlocks makes the blocks staged so far for name survive a crash
	// (a store whose StageBlock is durable already does nothing).
	SyncBlocks(ctx context.Context, name string) error
	// CommitBlocks makes the blob name the concatenation of the staged
	// blocks ids, in order, replacing any blob of that name, and forgets
	// the staged blocks of name (those not listed included). It returns
	// the blob's size.
	CommitBlocks(ctx context.Context, name string, ids []string) (int64, error)
	// DiscardBlocks forgets the staged blocks of name; the blob itself, if
	// one was committed, stays. Nothing staged is not an error.
	DiscardBlocks(ctx context.Context, name string) error
	// NewRangeReader reads length bytes of the blob from offset (to the end
	// when length is negative). offset is within the blob's size.
	NewRangeReader(ctx context.Context, name string, offset, length int64) (io.ReadCloser, error)
	// Stat describes the blob.
	Stat(ctx context.Context, name string) (Info, error)
	// Delete removes the blob; a missing blob is reported as missing.
	// Staged blocks are DiscardBlocks' business.
	Delete(ctx context.Context, name string) error
	// List yields the blobs whose names start with prefix, in name order.
	List(ctx context.Context, prefix string) iter.Seq2[Info, error]
	// SetTier moves the blob to tier; from TierArchive to another tier it
	// starts the blob's rehydration (Stat says when it is over). A store
	// without tiers keeps the blob where it is; a missing blob is reported
	// as missing.
	SetTier(ctx context.Context, name, tier string) error
	// IsNotExist reports whether err says a blob does not exist.
	IsNotExist(err error) bool
	// Close releases the driver's resources.
	Close() error
}

// Bucket is the blob store the application uses.
type Bucket struct {
	d   Driver
	obs Observer
}

// New returns a Bucket over d.
func New(d Driver) *Bucket { return &Bucket{d: d} }

// Observer is told of a Bucket's calls to its driver (telemetry): it is
// called as one begins, with the operation's name, and returns the
// context the call runs in and the function to call with its outcome.
type Observer func(ctx context.Context, op string) (context.Context, func(error))

// Observe has o told of every call from now on. It must be called before
// the bucket is used.
func (b *Bucket) Observe(o Observer) { b.obs = o }

// begin tells the observer, if any, that the call op begins.
func (b *Bucket) begin(ctx context.Context, op string) (context.Context, func(error)) {
	if b.obs == nil {
		return ctx, func(error) {}
	}
	return b.obs(ctx, op)
}

// namePattern is what a blob name may be: slash-separated segments of
// lower-case letters, digits, '_', '-' and '.', none of them "." or "..".
var namePattern = regexp.MustCompile(`^[a-z0-9_-][a-z0-9_.-]*(/[a-z0-9_-][a-z0-9_.-]*)*$`)

// blockIDPattern is what a block id may be.
var blockIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,48}$`)

// CheckName reports whether name is a valid blob name: at most 512
// characters, slash-separated segments of [a-z0-9_.-] that start with a
// letter, digit, '_' or '-'.
func CheckName(name string) error {
	if len(name) > 512 || !namePattern.MatchString(name) {
		return kanri.Wrap(kanri.EINVALID, "error.internal", fmt.Errorf("blob: bad name %q", name))
	}
	return nil
}

// CheckPrefix reports whether prefix is a valid prefix of names: empty, or
// a name optionally followed by a slash.
func CheckPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	return CheckName(strings.TrimSuffix(prefix, "/"))
}

// Result is what writing a whole blob produced.
type Result struct {
	// Size is the blob's length in bytes.
	Size int64
	// SHA256 is the hex SHA-256 of its bytes.
	SHA256 string
}

// Put stores r's bytes as the blob name, computing their SHA-256 on the
// way. A failed or interrupted Put leaves no blob (or the earlier one) under
// name.
func (b *Bucket) Put(ctx context.Context, name string, r io.Reader) (Result, error) {
	if err := CheckName(name); err != nil {
		return Result{}, err
	}
	h := sha256.New()
	ctx, end := b.begin(ctx, "put")
	n, err := b.d.Put(ctx, name, io.TeeReader(r, h))
	err = b.wrap(err, name)
	end(err)
	if err != nil {
		return Result{}, err
	}
	return Result{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// BlockSize is the size of the blocks an upload should stage: the most
// bytes it holds in memory at once, twice over while it reads one block
// and stages the one before.
func (b *Bucket) BlockSize() int {
	if s, ok := b.d.(BlockSizer); ok {
		return min(s.BlockSize(), MaxBlockSize)
	}
	return DefaultBlockSize
}

// StageBlock keeps data as the block id of the blob name (see Driver).
// Block ids are 1 to 48 characters of [A-Za-z0-9_-]; all the blocks of one
// blob must have ids of the same length (Azure's rule). data is at most
// MaxBlockSize bytes.
func (b *Bucket) StageBlock(ctx context.Context, name, id string, data []byte) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if !blockIDPattern.MatchString(id) {
		return kanri.Wrap(kanri.EINVALID, "error.internal", fmt.Errorf("blob: bad block id %q", id))
	}
	if len(data) > MaxBlockSize {
		return kanri.Wrap(kanri.EINVALID, "error.internal", fmt.Errorf("blob: block of %d bytes is over %d", len(data), MaxBlockSize))
	}
	ctx, end := b.begin(ctx, "stage_block")
	err := b.wrap(b.d.StageBlock(ctx, name, id, data), name)
	end(err)
	return err
}

// SyncBlocks makes the blocks staged so far for name survive a crash:
// an upload records the blocks it staged only after this.
func (b *Bucket) SyncBlocks(ctx context.Context, name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	ctx, end := b.begin(ctx, "sync_blocks")
	err := b.wrap(b.d.SyncBlocks(ctx, name), name)
	end(err)
	return err
}

// CommitBlocks makes the blob name from the staged blocks ids, in order
// (see Driver), and returns its size.
func (b *Bucket) CommitBlocks(ctx context.Context, name string, ids []string) (int64, error) {
	if err := CheckName(name); err != nil {
		return 0, err
	}
	if len(ids) > MaxBlocks {
		return 0, kanri.Wrap(kanri.EINVALID, "error.internal", fmt.Errorf("blob: %d blocks is over %d", len(ids), MaxBlocks))
	}
	for _, id := range ids {
		if !blockIDPattern.MatchString(id) || len(id) != len(ids[0]) {
			return 0, kanri.Wrap(kanri.EINVALID, "error.internal", fmt.Errorf("blob: bad block id %q", id))
		}
	}
	ctx, end := b.begin(ctx, "commit_blocks")
	n, err := b.d.CommitBlocks(ctx, name, ids)
	err = b.wrap(err, name)
	end(err)
	return n, err
}

// DiscardBlocks forgets the staged blocks of name.
func (b *Bucket) DiscardBlocks(ctx context.Context, name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	return b.wrap(b.d.DiscardBlocks(ctx, name), name)
}

// NewRangeReader reads length bytes of the blob name from offset, or to
// its end when length is negative. A range past the end is EINVALID; a
// range that runs past the end is cut at the end.
func (b *Bucket) NewRangeReader(ctx context.Context, name string, offset, length int64) (io.ReadCloser, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	if offset < 0 {
		return nil, kanri.Wrap(kanri.EINVALID, "error.internal", fmt.Errorf("blob: negative offset %d", offset))
	}
	ctx, end := b.begin(ctx, "open")
	info, err := b.d.Stat(ctx, name)
	if err != nil {
		err = b.wrap(err, name)
		end(err)
		return nil, err
	}
	if offset > info.Size {
		end(nil)
		return nil, kanri.Wrap(kanri.EINVALID, "error.internal", fmt.Errorf("blob: offset %d past the end (%d)", offset, info.Size))
	}
	if length < 0 || offset+length > info.Size {
		length = info.Size - offset
	}
	if length == 0 {
		end(nil)
		return io.NopCloser(strings.NewReader("")), nil
	}
	r, err := b.d.NewRangeReader(ctx, name, offset, length)
	err = b.wrap(err, name)
	end(err)
	return r, err
}

// Stat describes the blob name.
func (b *Bucket) Stat(ctx context.Context, name string) (Info, error) {
	if err := CheckName(name); err != nil {
		return Info{}, err
	}
	ctx, end := b.begin(ctx, "stat")
	info, err := b.d.Stat(ctx, name)
	err = b.wrap(err, name)
	end(err)
	return info, err
}

// Filer is a Driver whose blobs are files of this machine.
type Filer interface {
	// File opens the blob name's file for reading.
	File(name string) (*os.File, error)
}

// File opens the blob name's file when the store keeps blobs as files of
// this machine (a server sends it with sendfile); nil, nil otherwise.
func (b *Bucket) File(ctx context.Context, name string) (*os.File, error) {
	fd, ok := b.d.(Filer)
	if !ok {
		return nil, nil
	}
	if err := CheckName(name); err != nil {
		return nil, err
	}
	f, err := fd.File(name)
	return f, b.wrap(err, name)
}

// SetTier moves the blob name to tier (TierHot, TierCool or
// TierArchive); see Driver.SetTier.
func (b *Bucket) SetTier(ctx context.Context, name, tier string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if tier != TierHot && tier != TierCool && tier != TierArchive {
		return kanri.Wrap(kanri.EINVALID, "error.internal", fmt.Errorf("blob: bad tier %q", tier))
	}
	return b.wrap(b.d.SetTier(ctx, name, tier), name)
}

// Delete removes the blob name (not blocks staged for it: see
// DiscardBlocks). Deleting a blob that
// does not exist is not an error, so that cleanups can be repeated.
func (b *Bucket) Delete(ctx context.Context, name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	ctx, end := b.begin(ctx, "delete")
	err := b.d.Delete(ctx, name)
	if err != nil && b.d.IsNotExist(err) {
		err = nil
	}
	err = b.wrap(err, name)
	end(err)
	return err
}

// List yields the blobs whose names start with prefix, in name order.
func (b *Bucket) List(ctx context.Context, prefix string) iter.Seq2[Info, error] {
	if err := CheckPrefix(prefix); err != nil {
		return func(yield func(Info, error) bool) { yield(Info{}, err) }
	}
	return func(yield func(Info, error) bool) {
		for info, err := range b.d.List(ctx, prefix) {
			if !yield(info, b.wrap(err, prefix)) || err != nil {
				return
			}
		}
	}
}

// Close releases the bucket's driver.
func (b *Bucket) Close() error { return b.d.Close() }

// wrap turns a driver's error into a *kanri.Error.
func (b *Bucket) wrap(err error, name string) error {
	if err == nil {
		return nil
	}
	var ke *kanri.Error
	if errors.As(err, &ke) {
		return err
	}
	if b.d.IsNotExist(err) {
		return kanri.Wrap(kanri.ENOTFOUND, "error.not_found", fmt.Errorf("blob %s: %w", name, err))
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err // the caller went away: not the store's fault
	}
	return kanri.Wrap(kanri.EINTERNAL, "error.internal", fmt.Errorf("blob %s: %w", name, err))
}

// NewHash returns the hash Kanri checks file contents with (SHA-256), for
// callers that hash blocks as they stage them.
func NewHash() hash.Hash { return sha256.New() }
