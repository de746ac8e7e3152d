package kanri

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// File is an uploaded file's metadata; its content lives in the blob store
// under BlobName(tenantId, id) (docs/data-model.md, "Files"). The document
// is the truth: a file exists when its document does.
type File struct {
	Doc
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
	// NameKey is Name folded for sorting and comparing (FoldName).
	NameKey     string `json:"nameKey"`
	Size        int64  `json:"size"`
	ContentType string `json:"contentType"`
	// FolderID is the folder holding the file; null at the top level.
	FolderID *string `json:"folderId"`
	// StorageURL names the blob inside Kanri ("blob:" + its name); the
	// bytes are never reachable but through Kanri's tenant-scoped routes.
	StorageURL     string       `json:"storageUrl"`
	Checksum       string       `json:"checksum"`
	UploadedBy     string       `json:"uploadedBy"`
	UploadedAt     Time         `json:"uploadedAt"`
	LastAccessedAt Time         `json:"lastAccessedAt"`
	UpdatedAt      Time         `json:"updatedAt"`
	Metadata       FileMetadata `json:"metadata"`
	// DeletedAt is when the file went to the trash; null while it is not
	// there. A trashed file still counts in the quota until it is purged.
	DeletedAt Time   `json:"deletedAt"`
	DeletedBy string `json:"deletedBy,omitempty"`
	// TrashedFrom is the path of the folder the file was in when it went
	// to the trash: a restore after the folder was deleted makes it again.
	TrashedFrom string   `json:"trashedFrom,omitempty"`
	SearchTerms []string `json:"searchTerms,omitempty"`
	// Damaged is set when a download found the bytes no longer match the
	// checksum.
	Damaged bool `json:"damaged,omitempty"`
}

// FileMetadata describes a file for people.
type FileMetadata struct {
	Tags        []string `json:"tags,omitempty"`
	Description string   `json:"description,omitempty"`
}

// SearchFields implements Searchable: a file is found by its names and
// tags.
func (f *File) SearchFields() (*[]string, []string) {
	return &f.SearchTerms, append([]string{f.Name, f.DisplayName}, f.Metadata.Tags...)
}

// Title is what people call the file: its display name, else its name.
func (f *File) Title() string {
	if f.DisplayName != "" {
		return f.DisplayName
	}
	return f.Name
}

// State is the part of the file people see and change, for Seen: its
// names, metadata, folder and whether it is in the trash. A download
// writing lastAccessedAt changes none of it, so it never makes an open
// form stale.
func (f *File) State() string {
	return StateOf(append([]string{f.Name, f.DisplayName, f.Metadata.Description, derefString(f.FolderID), f.DeletedAt.String()}, f.Metadata.Tags...)...)
}

func derefString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// InTrash reports whether the file is in the trash.
func (f *File) InTrash() bool { return !f.DeletedAt.IsZero() }

// TrashRetention is how long a file stays restorable in the trash.
const TrashRetention = 30 * 24 * time.Hour

// PurgeAt is when a trashed file is removed for good.
func (f *File) PurgeAt() time.Time { return f.DeletedAt.Add(TrashRetention) }

// Folder groups files; folders nest (docs/data-model.md, "Files").
type Folder struct {
	Doc
	Name string `json:"name"`
	// NameKey is Name folded (FoldName): names are unique among siblings
	// by it.
	NameKey        string  `json:"nameKey"`
	ParentFolderID *string `json:"parentFolderId"`
	// Path is the folder's names from the top, as /Documents/2026.
	Path      string `json:"path"`
	CreatedBy string `json:"createdBy"`
	CreatedAt Time   `json:"createdAt"`
	UpdatedAt Time   `json:"updatedAt"`
}

// Depth is how deep the folder is: 1 at the top level.
func (f *Folder) Depth() int { return strings.Count(f.Path, "/") }

// MaxFolderDepth is how deeply folders may nest.
const MaxFolderDepth = 16

// TypeFolderName is the type of the reservations that keep folder names
// unique among siblings.
const TypeFolderName = "folder_name"

// FolderNameID returns the id of the reservation of a folder name (folded
// by FoldName) under a parent ("" for the top level).
func FolderNameID(parentID, nameKey string) string {
	h := sha256.Sum256([]byte(parentID + "\x00" + nameKey))
	return "foldername_" + hex.EncodeToString(h[:20])
}

// FolderName reserves a folder's name under its parent; its id is
// FolderNameID.
type FolderName struct {
	Doc
	FolderID string `json:"folderId"`
}

// TypeUpload is the type of a resumable upload in progress.
const TypeUpload = "upload"

// Upload is a resumable upload (tus) in progress. It reserves its size in
// the tenant's storage until it completes (and becomes a File with the id
// FileID) or expires. Any instance may continue it: everything needed is
// here, at an ETag.
type Upload struct {
	Doc
	FileID      string  `json:"fileId"`
	Name        string  `json:"name"`
	FolderID    *string `json:"folderId"`
	Size        int64   `json:"size"`
	Offset      int64   `json:"offset"`
	ContentType string  `json:"contentType"`
	// Sniffed is the content type read from the first bytes.
	Sniffed string `json:"sniffed,omitempty"`
	// Metadata is the tus Upload-Metadata given at creation (at most the
	// length the header parser accepts), returned by HEAD.
	Metadata string `json:"metadata,omitempty"`
	// Blocks are the ids of the staged blocks received so far, in order.
	Blocks []string `json:"blocks,omitempty"`
	// HashState is the SHA-256 state after Offset bytes, so that the
	// checksum is computed once, as the bytes arrive, on any instance.
	HashState  []byte `json:"hashState,omitempty"`
	UploadedBy string `json:"uploadedBy"`
	CreatedAt  Time   `json:"createdAt"`
	ExpiresAt  Time   `json:"expiresAt"`
	// CompletedAt is when the upload became the file FileID. A completed
	// upload is kept until it expires, so that a client that missed the
	// last answer learns that it is done rather than starting again.
	CompletedAt Time `json:"completedAt"`
}

// UploadLifetime is how long an upload may take before it expires and its
// reservation is given back.
const UploadLifetime = 24 * time.Hour

// TypeFileStorage is the type of a tenant's storage account.
const TypeFileStorage = "file_storage"

// FileStorageID is the id of the tenant's storage account.
const FileStorageID = "file_storage"

// FileStorage counts a tenant's stored bytes. Every change of a file's
// existence changes it in the same transaction, so it is exact; the quota
// is checked against Used + Trash + Reserved.
type FileStorage struct {
	Doc
	// Used is the bytes of the files not in the trash.
	Used int64 `json:"used"`
	// Trash is the bytes of the files in the trash.
	Trash int64 `json:"trash"`
	// Reserved is the bytes of the uploads in progress.
	Reserved int64 `json:"reserved"`
	// Files counts the files, trashed ones included.
	Files     int  `json:"files"`
	UpdatedAt Time `json:"updatedAt"`
}

// Total is what counts against the quota.
func (s *FileStorage) Total() int64 { return s.Used + s.Trash + s.Reserved }

// Quota defaults: a file-service assignment without these settings allows
// this much.
const (
	DefaultMaxStorage  = 10 << 30 // 10GB
	DefaultMaxFileSize = 1 << 30  // 1GB
)

// FileLimits are the file-service settings of a tenant's assignment.
type FileLimits struct {
	MaxStorage  int64
	MaxFileSize int64
}

// FileLimitsOf reads the limits of a file-service assignment's config,
// with the defaults where a setting is absent or unreadable.
func FileLimitsOf(config map[string]any) FileLimits {
	l := FileLimits{MaxStorage: DefaultMaxStorage, MaxFileSize: DefaultMaxFileSize}
	if v, ok := config["maxStorage"].(string); ok {
		if n, err := ParseSize(v); err == nil && n > 0 {
			l.MaxStorage = n
		}
	}
	if v, ok := config["maxFileSize"].(string); ok {
		if n, err := ParseSize(v); err == nil && n > 0 {
			l.MaxFileSize = n
		}
	}
	return l
}

// FoldName returns the form of a file or folder name under which two names
// are the same: NFKC-normalised and case-folded.
func FoldName(name string) string {
	return cases.Fold().String(norm.NFKC.String(name))
}

// CheckFileName says what is wrong with a file or folder name ("" if
// nothing): 1 to 255 characters, no slash or backslash, no control or
// bidi-override characters, not "." or "..".
func CheckFileName(name string) string {
	if strings.TrimSpace(name) == "" {
		return "validation.required"
	}
	if len([]rune(name)) > 255 {
		return "validation.too_long"
	}
	if name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return "validation.file_name"
	}
	for _, r := range name {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return "validation.file_name"
		}
	}
	return ""
}

// BlobName returns the name of a file's content in the blob store: made of
// ids only, never of what a user typed.
func BlobName(tenantID, fileID string) string { return "files/" + tenantID + "/" + fileID }

// Thumbnailable reports whether Kanri makes thumbnails of the file: an
// image it can decode.
func (f *File) Thumbnailable() bool {
	switch f.ContentType {
	case "image/jpeg", "image/png", "image/gif", "image/webp":
		return true
	}
	return false
}

// ThumbnailBlobName returns the name of a file's thumbnail whose longest
// side is size pixels. (Earlier versions bounded thumbnails by their width
// only and named them "-<width>": LegacyThumbnailBlobName.)
func ThumbnailBlobName(tenantID, fileID string, size int) string {
	return "thumbs/" + tenantID + "/" + fileID + "-s" + strconv.Itoa(size)
}

// LegacyThumbnailBlobName returns the name earlier versions gave a file's
// thumbnail of the given width, for its removal with the file.
func LegacyThumbnailBlobName(tenantID, fileID string, width int) string {
	return "thumbs/" + tenantID + "/" + fileID + "-" + strconv.Itoa(width)
}
