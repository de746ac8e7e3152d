package files

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// blockSize is the size of the blocks of an upload of size bytes: the
// blob store's (base), doubled until half of blob.MaxBlocks hold the
// upload (the other half left for the short blocks that PATCHes end
// with), at most blob.MaxBlockSize.
func blockSize(base int, size int64) int {
	n := base
	for n < blob.MaxBlockSize && int64(n)*(blob.MaxBlocks/2) < size {
		n *= 2
	}
	return min(n, blob.MaxBlockSize)
}

// UploadInput is what creating an upload declares, before any byte.
type UploadInput struct {
	Name        string
	Size        int64
	FolderID    string
	ContentType string
	// Metadata is the tus Upload-Metadata header as the client sent it,
	// which HEAD gives back.
	Metadata string
}

// Upload returns one of the tenant's uploads in progress.
func (s *Service) Upload(ctx context.Context, tenantID, id string) (*kanri.Upload, error) {
	if err := checkID(tenantID, id, "upload_"); err != nil {
		return nil, err
	}
	up, err := s.Store.Tenant(tenantID).Uploads().Get(ctx, id)
	if err == nil && !s.Now().Before(up.ExpiresAt.Time) {
		return nil, kanri.E(kanri.ENOTFOUND, "files.upload_expired")
	}
	return up, err
}

// CreateUpload begins a resumable upload: the file service must be usable
// by the tenant, the file no larger than its largest file size, and its
// size is reserved in the quota (in one transaction with the upload), so
// that uploads running together can never exceed it.
func (s *Service) CreateUpload(ctx context.Context, tenantID string, in UploadInput) (*kanri.Upload, error) {
	if err := s.Catalog.Usable(ctx, tenantID, kanri.FileServiceID); err != nil {
		return nil, err
	}
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, err
	}
	in.Name = strings.TrimSpace(in.Name)
	f := kanri.Fields{}
	if msg := kanri.CheckFileName(in.Name); msg != "" {
		f["name"] = msg
	}
	if in.Size < 0 {
		f["size"] = "files.bad_size"
	}
	if in.FolderID != "" {
		if _, err := s.Folder(ctx, tenantID, in.FolderID); kanri.IsCode(err, kanri.ENOTFOUND) {
			f["folderId"] = "files.no_such_folder"
		} else if err != nil {
			return nil, err
		}
	}
	if len(f) > 0 {
		return nil, kanri.Invalid(f)
	}
	limits, err := s.Limits(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	if in.Size > limits.MaxFileSize {
		return nil, kanri.E(kanri.ETOOLARGE, "files.too_large", in.Name, kanri.HumanSize(in.Size), kanri.HumanSize(limits.MaxFileSize))
	}
	state, err := sha256.New().(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return nil, err
	}
	now := s.Now()
	up := &kanri.Upload{
		Doc: kanri.Doc{ID: newID("upload_")}, FileID: newID("file_"), Name: in.Name, FolderID: ptr(in.FolderID),
		Size: in.Size, ContentType: declaredType(in.ContentType, in.Name), HashState: state, Metadata: in.Metadata,
		UploadedBy: audit.ActorFrom(ctx).UserID, CreatedAt: kanri.NewTime(now), ExpiresAt: kanri.NewTime(now.Add(kanri.UploadLifetime)),
	}
	repo := s.Store.Tenant(tenantID).Uploads()
	_, err = s.account(ctx, tenantID, func(st *kanri.FileStorage) error {
		if st.Total()+in.Size > limits.MaxStorage {
			left := kanri.HumanSize(max(0, limits.MaxStorage-st.Total()))
			if st.Reserved > 0 {
				// Say what holds the space, and where to free it.
				return kanri.E(kanri.ETOOLARGE, "files.quota_exceeded_reserved", in.Name, left, kanri.HumanSize(limits.MaxStorage), kanri.HumanSize(st.Reserved), kanri.HumanSize(st.Trash))
			}
			return kanri.E(kanri.ETOOLARGE, "files.quota_exceeded", in.Name, left, kanri.HumanSize(limits.MaxStorage))
		}
		st.Reserved += in.Size
		return nil
	}, func() ([]docstore.Op, error) {
		op, err := repo.Op(docstore.OpCreate, up)
		return []docstore.Op{op}, err
	})
	if err != nil {
		return nil, err
	}
	if up, err = repo.Get(ctx, up.ID); err != nil {
		return nil, err
	}
	if up.Size == 0 {
		if _, err := s.complete(ctx, tenantID, up); err != nil {
			return nil, err
		}
	}
	return up, nil
}

// declaredType returns the content type a client declared, or the one its
// name's extension says, or application/octet-stream.
func declaredType(declared, name string) string {
	if t, _, err := mime.ParseMediaType(declared); err == nil && t != "" {
		return t
	}
	if t, _, err := mime.ParseMediaType(mime.TypeByExtension(strings.ToLower(path.Ext(name)))); err == nil && t != "" {
		return t
	}
	return "application/octet-stream"
}

// Checksum is a checksum a client sent with a part of an upload (the tus
// checksum extension): the algorithm's hash and the digest it expects.
type Checksum struct {
	Hash   hash.Hash
	Digest []byte
}

// ErrChecksum is the error of a part whose checksum did not match: none
// of its bytes were kept.
var ErrChecksum = kanri.E(kanri.EINVALID, "files.checksum_mismatch")

// OffsetMismatch is the error of a write to an upload at another offset
// than where it stands (ECONFLICT), which says where it stands: its
// message's one argument is the upload's offset (int64).
func OffsetMismatch(up *kanri.Upload) error {
	return kanri.E(kanri.ECONFLICT, "files.upload_offset", up.Offset)
}

// WriteUpload appends body's bytes to an upload at offset, which must be
// where the upload stands. The bytes are staged in blocks as they arrive
// (hashed on the way), and what arrived is recorded once, at the end of
// the request, clean or broken: the staged blocks synced, then the
// upload's document (so that a crash keeps what was recorded, and a
// client sends the rest from there). A part that carries a checksum is
// recorded whole once the checksum matched, or not at all. An upload
// whose last byte arrived becomes a file. It returns the upload as it
// stands and, when it completed, its file.
func (s *Service) WriteUpload(ctx context.Context, tenantID, id string, offset int64, body io.Reader, sum *Checksum) (*kanri.Upload, *kanri.File, error) {
	up, err := s.Upload(ctx, tenantID, id)
	if err != nil {
		return nil, nil, err
	}
	if offset != up.Offset {
		return up, nil, OffsetMismatch(up)
	}
	if !up.CompletedAt.IsZero() {
		f, err := s.Store.Tenant(tenantID).Files().Get(ctx, up.FileID)
		return up, f, err
	}
	h := sha256.New()
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(up.HashState); err != nil {
		return nil, nil, fmt.Errorf("files: upload %s hash state: %w", up.ID, err)
	}
	name := kanri.BlobName(tenantID, up.FileID)
	cur := *up // the upload as recorded
	var readErr error
	ahead := readAhead(body, up.Size-up.Offset, blockSize(s.Blobs.BlockSize(), up.Size))
	defer ahead.stop()
	for blk := range ahead.blocks {
		if errors.Is(blk.err, io.EOF) || errors.Is(blk.err, io.ErrUnexpectedEOF) {
			readErr = io.EOF
		} else if blk.err != nil {
			readErr = blk.err
		}
		if len(blk.data) == 0 {
			ahead.done(blk)
			break
		}
		data := blk.data
		if up.Offset == 0 {
			up.Sniffed = sniff(data)
		}
		blockID := fmt.Sprintf("%06d%s", len(up.Blocks), randomHex(8))
		if err := s.Blobs.StageBlock(ctx, name, blockID, data); err != nil {
			ahead.done(blk)
			readErr = err // what was staged before is still recorded
			break
		}
		h.Write(data)
		if sum != nil {
			sum.Hash.Write(data)
		}
		ahead.done(blk)
		up.Blocks = append(up.Blocks, blockID)
		up.Offset += int64(len(data))
		if readErr != nil {
			break
		}
	}
	if sum != nil {
		if readErr != nil && !errors.Is(readErr, io.EOF) {
			return &cur, nil, readErr // an incomplete part cannot be checked: none of it is kept
		}
		if !bytes.Equal(sum.Hash.Sum(nil), sum.Digest) {
			return &cur, nil, ErrChecksum
		}
	}
	if up.Offset != cur.Offset {
		// Recorded even when the client went away: what arrived is kept.
		keep := context.WithoutCancel(ctx)
		if up.HashState, err = h.(encoding.BinaryMarshaler).MarshalBinary(); err != nil {
			return &cur, nil, err
		}
		if err := s.Blobs.SyncBlocks(keep, name); err != nil {
			return &cur, nil, err
		}
		if err := s.saveUpload(keep, s.Store.Tenant(tenantID).Uploads(), up); err != nil {
			return &cur, nil, err
		}
	}
	if readErr != nil && !errors.Is(readErr, io.EOF) {
		return up, nil, readErr
	}
	if up.Offset < up.Size {
		return up, nil, nil
	}
	file, err := s.complete(ctx, tenantID, up)
	return up, file, err
}

// readAhead reads a body in blocks of at most size bytes, up to limit
// bytes, on a goroutine of its own, one block ahead of the caller: the
// socket is read while the caller hashes and stages the block before.
func readAhead(body io.Reader, limit int64, size int) *reader {
	list := blocksOf(size)
	r := &reader{blocks: make(chan block), free: make(chan *[]byte, 2), quit: make(chan struct{}), gone: make(chan struct{}), list: list}
	r.free <- list.get()
	r.free <- list.get()
	go func() {
		defer close(r.gone)
		defer close(r.blocks)
		for limit > 0 {
			var buf *[]byte
			select {
			case buf = <-r.free:
			case <-r.quit:
				return
			}
			n, err := io.ReadFull(body, (*buf)[:min(int64(len(*buf)), limit)])
			limit -= int64(n)
			select {
			case r.blocks <- block{buf: buf, data: (*buf)[:n], err: err}:
			case <-r.quit:
				r.free <- buf
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return r
}

// reader is readAhead's: blocks are the blocks read, each handed back
// with done once used.
type reader struct {
	blocks chan block
	free   chan *[]byte
	quit   chan struct{}
	gone   chan struct{} // closed when the reading goroutine has returned
	list   *blockList    // where the buffers go back
}

// block is a block of a body, or the read's error after it.
type block struct {
	buf  *[]byte
	data []byte
	err  error
}

// done hands a block's buffer back for the next read.
func (r *reader) done(b block) { r.free <- b.buf }

// stop ends the reading, waits for the read going on (the body is not
// read after WriteUpload returns: the handler reads its state), and gives
// the buffers back.
func (r *reader) stop() {
	close(r.quit)
	<-r.gone
	for {
		select {
		case buf := <-r.free:
			r.list.put(buf)
		default:
			return
		}
	}
}

// saveUpload records an upload's progress at its ETag: a write by another
// request in between means two requests are writing one upload, and this
// one stops.
func (s *Service) saveUpload(ctx context.Context, repo interface {
	Replace(context.Context, *kanri.Upload) error
}, up *kanri.Upload) error {
	err := repo.Replace(ctx, up)
	if kanri.IsCode(err, kanri.ESTALE) || kanri.IsCode(err, kanri.ENOTFOUND) {
		return kanri.Wrap(kanri.ECONFLICT, "files.upload_busy", err)
	}
	return err
}

func randomHex(n int) string {
	b := make([]byte, n/2)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// sniff returns the content type of a file's first bytes.
func sniff(b []byte) string {
	t, _, _ := mime.ParseMediaType(http.DetectContentType(b))
	return t
}

// storedType decides the content type a file is stored with: the declared
// one when the bytes agree with it (or say nothing definite), else what
// the bytes are.
func storedType(declared, sniffed string) string {
	switch {
	case sniffed == "" || sniffed == declared:
		return declared
	case sniffed == "application/octet-stream":
		// Binary bytes: a declared text type is not believed.
		if strings.HasPrefix(declared, "text/") {
			return sniffed
		}
		return declared
	case sniffed == "text/plain":
		// Text: believed unless the declared type is one browsers would
		// run or render (HTML, SVG, XML), which text does not make safe.
		if declared == "text/html" || strings.Contains(declared, "xml") || strings.Contains(declared, "javascript") {
			return sniffed
		}
		return declared
	case sniffed == "application/zip" && (strings.Contains(declared, "openxmlformats") || strings.Contains(declared, "opendocument") || strings.HasSuffix(declared, "+zip")):
		return declared // office documents and the like are zip files
	}
	return sniffed
}

// complete makes a finished upload a file: the blocks become the blob,
// then one transaction creates the file, removes the upload and moves its
// size from reserved to used. Completing again (after a crash in between)
// finds the blob made and finishes the transaction.
func (s *Service) complete(ctx context.Context, tenantID string, up *kanri.Upload) (*kanri.File, error) {
	name := kanri.BlobName(tenantID, up.FileID)
	if info, err := s.Blobs.Stat(ctx, name); err != nil || info.Size != up.Size {
		if len(up.Blocks) == 0 {
			if _, err := s.Blobs.Put(ctx, name, strings.NewReader("")); err != nil {
				return nil, err
			}
		} else if _, err := s.Blobs.CommitBlocks(ctx, name, up.Blocks); err != nil {
			return nil, err
		}
	}
	h := sha256.New()
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(up.HashState); err != nil {
		return nil, err
	}
	folderID := deref(up.FolderID)
	if folderID != "" {
		if _, err := s.Folder(ctx, tenantID, folderID); kanri.IsCode(err, kanri.ENOTFOUND) {
			folderID = "" // the folder went meanwhile: the file lands at the top level
		}
	}
	now := kanri.NewTime(s.Now())
	f := &kanri.File{
		Doc: kanri.Doc{ID: up.FileID}, Name: up.Name, NameKey: kanri.FoldName(up.Name), Size: up.Size,
		ContentType: storedType(up.ContentType, up.Sniffed), FolderID: ptr(folderID), StorageURL: "blob:" + name,
		Checksum: "sha256:" + hex.EncodeToString(h.Sum(nil)), UploadedBy: up.UploadedBy, UploadedAt: now, UpdatedAt: now,
	}
	if s.hooks.beforeFileCommit != nil {
		s.hooks.beforeFileCommit()
	}
	ten := s.Store.Tenant(tenantID)
	_, err := s.account(ctx, tenantID, func(st *kanri.FileStorage) error {
		st.Reserved = max(0, st.Reserved-up.Size)
		st.Used += up.Size
		st.Files++
		return nil
	}, func() ([]docstore.Op, error) {
		fileOp, err := ten.Files().Op(docstore.OpCreate, f)
		if err != nil {
			return nil, err
		}
		done := *up
		done.CompletedAt, done.Blocks, done.HashState = now, nil, nil
		upOp, err := ten.Uploads().Op(docstore.OpReplace, &done)
		return []docstore.Op{fileOp, upOp}, err
	})
	if kanri.IsCode(err, kanri.ECONFLICT) || kanri.IsCode(err, kanri.ENOTFOUND) {
		// Completed by another request meanwhile: the file is there.
		if done, gerr := ten.Files().Get(ctx, up.FileID); gerr == nil {
			return done, nil
		}
	}
	if err != nil {
		return nil, err
	}
	if f, err = ten.Files().Get(ctx, f.ID); err != nil {
		return nil, err
	}
	fields := map[string]any{"name": f.Name, "size": f.Size, "contentType": f.ContentType, "checksum": f.Checksum}
	if folderID != "" { // the top level goes unsaid
		fields["folder"] = s.folderPath(ctx, tenantID, folderID)
	}
	s.Audit.Change(ctx, tenantID, "file.upload", kanri.AuditResource{Type: kanri.AuditFile, ID: f.ID, Name: f.Name}, nil, fields)
	s.meter.storage(tenantID)
	return s.landed(ctx, tenantID, f)
}

// Unfinished returns the tenant's uploads in progress that have not
// expired, the first to expire first: those userID started, or everyone's
// for "". At most limit.
func (s *Service) Unfinished(ctx context.Context, tenantID, userID string, limit int) ([]*kanri.Upload, error) {
	ups, _, err := s.Store.Tenant(tenantID).Uploads().Query(ctx, UnfinishedQuery(s.Now(), userID, limit))
	return ups, err
}

// UnfinishedQuery is Unfinished's query: the uploads not completed (the
// upload_open index: completed ones stay a day, and a busy tenant has
// many) that have not expired at now, of userID unless it is "".
func UnfinishedQuery(now time.Time, userID string, limit int) docstore.Query {
	where := []docstore.Filter{docstore.Eq("completedAt", nil), docstore.Gt("expiresAt", kanri.FormatTime(now))}
	if userID != "" {
		where = append(where, docstore.Eq("uploadedBy", userID))
	}
	return docstore.Query{Type: kanri.TypeUpload, Where: where, OrderBy: "expiresAt", Limit: limit}
}

// CancelUpload gives up an upload in progress for the person who started
// it (userID) or, with anyone, for an administrator: its reservation is
// given back with the upload's removal, in one transaction, and its
// staged bytes dropped; it is audited.
// Another person's upload is not found.
func (s *Service) CancelUpload(ctx context.Context, tenantID, id, userID string, anyone bool) (*kanri.Upload, error) {
	up, err := s.Upload(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if up.UploadedBy != userID && !anyone {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	if !up.CompletedAt.IsZero() {
		return nil, kanri.E(kanri.ECONFLICT, "files.upload_completed")
	}
	if err := s.release(ctx, tenantID, up); err != nil {
		return nil, err
	}
	s.Audit.Change(ctx, tenantID, "file.upload_cancel", kanri.AuditResource{Type: kanri.AuditFile, ID: up.FileID, Name: up.Name}, map[string]any{"size": up.Size, "offset": up.Offset}, nil)
	return up, nil
}

// release removes an upload and gives its reservation back; a completed
// upload holds none and simply goes.
func (s *Service) release(ctx context.Context, tenantID string, up *kanri.Upload) error {
	if !up.CompletedAt.IsZero() {
		return s.Store.Tenant(tenantID).Uploads().Delete(ctx, up.ID, up.ETag)
	}
	repo := s.Store.Tenant(tenantID).Uploads()
	_, err := s.account(ctx, tenantID, func(st *kanri.FileStorage) error {
		cur, err := repo.Get(ctx, up.ID) // as it stands: a write may have come meanwhile
		if err != nil {
			return err
		}
		if !cur.CompletedAt.IsZero() {
			return kanri.E(kanri.ECONFLICT, "files.upload_completed")
		}
		up = cur
		st.Reserved = max(0, st.Reserved-up.Size)
		return nil
	}, func() ([]docstore.Op, error) {
		return []docstore.Op{{Kind: docstore.OpDelete, ID: up.ID, IfMatch: up.ETag}}, nil
	})
	if err != nil {
		return err
	}
	name := kanri.BlobName(tenantID, up.FileID)
	if err := s.Blobs.DiscardBlocks(ctx, name); err != nil {
		s.Logger.Warn("staged blocks of an upload not discarded", "blob", name, "err", err)
	}
	return nil
}

// ExpireUploads gives back the reservations of the uploads of every tenant
// that expired, and returns how many.
func (s *Service) ExpireUploads(ctx context.Context) (int, error) {
	n, next := 0, ""
	for {
		page, token, err := s.Store.Privileged().ExpiredUploads(ctx, kanri.NewTime(s.Now()), next)
		if err != nil {
			return n, err
		}
		for _, up := range page {
			if err := s.release(ctx, up.TenantID, up); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
				s.Logger.Warn("expired upload not released", "tenant", up.TenantID, "upload", up.ID, "err", err)
				continue
			}
			n++
		}
		if token == "" {
			return n, nil
		}
		next = token
	}
}
