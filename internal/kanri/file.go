package kanri

// File is an uploaded file's metadata; its content lives in a blob store
// (spec §5.1).
type File struct {
	Doc
	Name           string       `json:"name"`
	DisplayName    string       `json:"displayName"`
	Size           int64        `json:"size"`
	ContentType    string       `json:"contentType"`
	FolderID       string       `json:"folderId,omitempty"`
	StorageURL     string       `json:"storageUrl"`
	Checksum       string       `json:"checksum"`
	UploadedBy     string       `json:"uploadedBy"`
	UploadedAt     Time         `json:"uploadedAt"`
	LastAccessedAt Time         `json:"lastAccessedAt"`
	Metadata       FileMetadata `json:"metadata"`
}

// FileMetadata describes a file for people.
type FileMetadata struct {
	Tags        []string `json:"tags,omitempty"`
	Description string   `json:"description,omitempty"`
}

// Folder groups files; folders nest (spec §5.2).
type Folder struct {
	Doc
	Name           string  `json:"name"`
	ParentFolderID *string `json:"parentFolderId"`
	Path           string  `json:"path"`
	CreatedBy      string  `json:"createdBy"`
	CreatedAt      Time    `json:"createdAt"`
}
