package backup

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/seal"
)

// FormatVersion is the version of the archive format this Kanri writes
// and reads.
const FormatVersion = 1

// Manifest describes an archive. It is written last: an archive without
// one is incomplete and is never restored.
type Manifest struct {
	Format      int        `json:"format"`
	Kanri       string     `json:"kanri"`
	TenantID    string     `json:"tenantId"`
	TenantName  string     `json:"tenantName"`
	JobID       string     `json:"jobId"`
	JobName     string     `json:"jobName"`
	HistoryID   string     `json:"historyId"`
	StartedAt   kanri.Time `json:"startedAt"`
	CompletedAt kanri.Time `json:"completedAt"`
	// Consistency is "snapshot" (one read transaction, the embedded store)
	// or "end" (Cosmos DB: every document as of the export's end).
	Consistency string     `json:"consistency"`
	Parts       []PartInfo `json:"parts"`
	Files       FilesInfo  `json:"files"`
	// Sealed names the key (its public part, age1…) the parts and the
	// contents are encrypted to; "" for an archive made before archives
	// were sealed, or a download's copy, which is not.
	Sealed string `json:"sealed,omitempty"`
}

// PartInfo describes one part's file in the archive.
type PartInfo struct {
	Name string `json:"name"`
	// Blob is the part's file name within the archive.
	Blob      string `json:"blob"`
	Documents int    `json:"documents"`
	// Bytes and SHA256 are the compressed file's length and digest.
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// FilesInfo counts the file contents the archive references.
type FilesInfo struct {
	Count int   `json:"count"`
	Bytes int64 `json:"bytes"`
	// New and NewBytes are the contents this archive stored; the others
	// were kept already by an earlier archive of the tenant.
	New      int   `json:"new"`
	NewBytes int64 `json:"newBytes"`
}

// Part returns the part's description, if the archive has it.
func (m *Manifest) Part(name string) (PartInfo, bool) {
	for _, p := range m.Parts {
		if p.Name == name {
			return p, true
		}
	}
	return PartInfo{}, false
}

// Documents counts the archive's documents.
func (m *Manifest) Documents() int {
	n := 0
	for _, p := range m.Parts {
		n += p.Documents
	}
	return n
}

// line is one document of a part: its container and its body.
type line struct {
	C string          `json:"c"`
	D json.RawMessage `json:"d"`
}

// Blob names: an archive is a folder of the tenant's backups, and file
// contents are kept once per tenant under their SHA-256.
func tenantPrefix(tenantID string) string { return "backups/" + tenantID + "/" }
func archivePrefix(tenantID, historyID string) string {
	return tenantPrefix(tenantID) + "archives/" + historyID + "/"
}
func manifestBlob(tenantID, historyID string) string {
	return archivePrefix(tenantID, historyID) + "manifest.json"
}
func partFile(part string) string             { return part + ".ndjson.gz" }
func contentPrefix(tenantID string) string    { return tenantPrefix(tenantID) + "files/" }
func contentBlob(tenantID, sha string) string { return contentPrefix(tenantID) + sha }

// sealedSuffix ends the names of sealed contents; those without it were
// kept before archives were sealed.
const sealedSuffix = ".age"

// header is what a document's body says of itself.
type header struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// PartWriter writes one part of an archive: gzip-compressed NDJSON of
// {"c": container, "d": document}, sealed, streamed into a blob through a
// pipe, so memory does not grow with the part. The archives of records
// before they expire (internal/archive) are written with it too.
type PartWriter struct {
	name string
	pw   *io.PipeWriter
	buf  *bufio.Writer
	seal io.WriteCloser
	gz   *gzip.Writer
	enc  *json.Encoder
	docs int
	done chan struct{}
	res  blob.Result
	err  error
}

// NewPartWriter starts the part named part as the blob blobName, sealed
// with keys.
func NewPartWriter(ctx context.Context, blobs *blob.Bucket, keys *seal.Keys, blobName, part string) (*PartWriter, error) {
	pr, pw := io.Pipe()
	w := &PartWriter{name: part, pw: pw, done: make(chan struct{})}
	w.buf = bufio.NewWriterSize(pw, 64<<10)
	var err error
	if w.seal, err = keys.Seal(w.buf); err != nil {
		return nil, err
	}
	w.gz, _ = gzip.NewWriterLevel(w.seal, gzip.BestSpeed)
	w.enc = json.NewEncoder(w.gz)
	go func() {
		defer close(w.done)
		w.res, w.err = blobs.Put(ctx, blobName, pr)
		pr.CloseWithError(w.err) // a failed Put stops the writer
	}()
	return w, nil
}

// Write adds a document of container to the part.
func (w *PartWriter) Write(container string, body []byte) error {
	w.docs++
	if bytes.IndexByte(body, '\n') >= 0 || strings.ContainsAny(container, `"\`) {
		return w.enc.Encode(line{C: container, D: body}) // not one line as it is
	}
	// The line as the encoder would write it, without its second pass over
	// the document: the store's bytes as they are.
	w.gz.Write(linePrefix)
	w.gz.Write([]byte(container))
	w.gz.Write(lineMiddle)
	w.gz.Write(body)
	_, err := w.gz.Write(lineEnd)
	return err
}

// parseLine returns the container and the document (a copy) of a part's
// line: cut from the line as PartWriter.Write writes it, or else decoded.
func parseLine(ln []byte) (string, json.RawMessage, error) {
	ln = bytes.TrimSuffix(ln, []byte("\n"))
	if rest, ok := bytes.CutPrefix(ln, linePrefix); ok && bytes.HasSuffix(rest, []byte("}")) {
		if c, d, ok := bytes.Cut(rest[:len(rest)-1], lineMiddle); ok && bytes.IndexAny(c, `"\\`) < 0 && json.Valid(d) {
			return string(c), bytes.Clone(d), nil
		}
	}
	var l line
	if err := json.Unmarshal(ln, &l); err != nil {
		return "", nil, err
	}
	return l.C, l.D, nil
}

// The parts of a part's line around its container and document.
var (
	linePrefix = []byte(`{"c":"`)
	lineMiddle = []byte(`","d":`)
	lineEnd    = []byte("}\n")
)

// DocType returns the type a stored document's body names: read from its
// first bytes, where the store writes it, or else by decoding it.
func DocType(body []byte) (string, error) {
	// Every document begins {"id":…,"tenantId":…,"type":"…" (kanri.Doc
	// first, ids without quotes or backslashes); the first "type" key
	// before any nested object is the document's.
	head := body[:min(len(body), 512)]
	if i := bytes.Index(head, typeKey); i > 0 && bytes.IndexByte(head[1:i], '{') < 0 {
		rest := head[i+len(typeKey):]
		if j := bytes.IndexByte(rest, '"'); j >= 0 && bytes.IndexByte(rest[:j], '\\') < 0 {
			return string(rest[:j]), nil
		}
	}
	var hd header
	if err := json.Unmarshal(body, &hd); err != nil {
		return "", err
	}
	return hd.Type, nil
}

// headerOf returns the id and type of a stored document: read from its
// first bytes, where the store writes them, or else by decoding it.
func headerOf(body []byte) (header, error) {
	// Every document begins {"id":"…", its id without quotes or
	// backslashes.
	if rest, ok := bytes.CutPrefix(body, idKey); ok {
		if j := bytes.IndexByte(rest[:min(len(rest), 512)], '"'); j >= 0 && bytes.IndexByte(rest[:j], '\\') < 0 {
			typ, err := DocType(body)
			return header{ID: string(rest[:j]), Type: typ}, err
		}
	}
	var hd header
	err := json.Unmarshal(body, &hd)
	return hd, err
}

// idKey is how a stored document begins.
var idKey = []byte(`{"id":"`)

// typeKey is how a stored document names its type.
var typeKey = []byte(`"type":"`)

// Close finishes the part and returns its stored length and digest.
func (w *PartWriter) Close() (blob.Result, error) {
	err := errors.Join(w.gz.Close(), w.seal.Close(), w.buf.Flush())
	w.pw.CloseWithError(err)
	<-w.done
	if err != nil {
		return blob.Result{}, err
	}
	return w.res, w.err
}

// Abort stops the part's write: the blob is not stored.
func (w *PartWriter) Abort(cause error) {
	w.pw.CloseWithError(cause)
	<-w.done
}

// readPart streams the documents of a part's blob to fn, opening it when
// it is sealed, and checking the blob's SHA-256 against want at the end (a
// damaged part is an error, and fn may have seen some of it: callers
// verify before they change anything).
func (s *Service) readPart(ctx context.Context, name, want string, fn func(container string, body json.RawMessage) error) error {
	return ReadPart(ctx, s.blobs, s.keys, name, want, fn)
}

// ReadPart streams the documents of the part blob name to fn, opened with
// keys when it is sealed, and checks the blob's SHA-256 against want at
// the end (see Service.readPart).
func ReadPart(ctx context.Context, blobs *blob.Bucket, keys *seal.Keys, name, want string, fn func(container string, body json.RawMessage) error) error {
	r, err := blobs.NewRangeReader(ctx, name, 0, -1)
	if err != nil {
		return err
	}
	defer r.Close()
	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(r, h), 64<<10)
	plain, err := keys.Open(br)
	if err != nil {
		return err
	}
	gz, err := gzip.NewReader(plain)
	if err != nil {
		return damaged(name, err)
	}
	lines := bufio.NewReaderSize(gz, 64<<10)
	var long []byte // a line longer than the reader's buffer
	for {
		ln, err := lines.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], ln...)
			for errors.Is(err, bufio.ErrBufferFull) {
				ln, err = lines.ReadSlice('\n')
				long = append(long, ln...)
			}
			ln = long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return damaged(name, err)
		}
		if len(ln) > 0 {
			container, body, perr := parseLine(ln)
			if perr != nil {
				return damaged(name, perr)
			}
			if fn != nil {
				if err := fn(container, body); err != nil {
					return err
				}
			}
		}
		if err != nil {
			break // io.EOF
		}
	}
	// Whatever the decoders left unread is hashed too.
	if _, err := io.Copy(io.Discard, br); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return damaged(name, fmt.Errorf("SHA-256 %s, the manifest says %s", got, want))
	}
	return nil
}

// damaged is the error of an archive that fails its checks.
func damaged(name string, err error) error {
	return kanri.Wrap(kanri.EINVALID, "backups.error.damaged", fmt.Errorf("archive %s: %w", name, err))
}

// version returns the running Kanri's version: its module version, else
// its VCS revision.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			return s.Value
		}
	}
	return "devel"
}
