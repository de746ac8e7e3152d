// Package fileapi serves the API's operations on a tenant's files, folders and uploads.
package fileapi

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/web/api"
	"github.com/kanri/kanri/web/httpkit"
	"github.com/kanri/kanri/web/tus"
)

// The files of the API: folders, files' metadata and bytes, and tus
// uploads, through the file service as the console's routes use it, with
// the same permissions, and only while the tenant's file service is usable.

// The limits of a file's names and metadata as kanri.CheckFileName and
// files.FileInput check them, for the document.
const (
	fileNameMax = 255
	fileTagsMax = 20
	fileTagMax  = 50
	fileDescMax = 1000
)

// The query parameters of the files' operations.
var (
	paramFileFolder = api.Param{Name: "folder", Checked: true,
		Doc: "A folder's id: the files in it; without it, the files of the top level. A folder that does not exist is refused (422)."}
	paramFileSearch = api.Param{Name: "q",
		Doc: "Words that begin words of the files' names or tags: the matching files of every folder, by name (folder, sort and desc are then not used)."}
	paramFileSort = api.Param{Name: "sort", Enum: []string{files.SortName, files.SortSize, files.SortDate}, DefString: files.SortName,
		Doc: "The order of the list: name, size, or date (of the upload). Another value is refused (400)."}
	paramFolderParent = api.Param{Name: "parent", Checked: true,
		Doc: "A folder's id: the folders in it; without it, the folders of the top level. A folder that does not exist is refused (422)."}
	paramConfirmFiles = api.Param{Name: "files", Kind: api.IntegerParam, Min: 0, Max: 999_999_999, Def: 0,
		Doc: "The number of files in the folder and the folders inside it, which go to the trash with it: a folder holding files is deleted only when this is that number, else 409, whose detail says how many."}
)

// The tus headers an upload's requests send.
var (
	tusResumableHeader = api.Header{Name: "Tus-Resumable", Required: true}
	tusLengthHeader    = api.Header{Name: "Upload-Length", Required: true}
	tusMetadataHeader  = api.Header{Name: "Upload-Metadata"}
	tusOffsetHeader    = api.Header{Name: "Upload-Offset", Required: true}
	tusChecksumHeader  = api.Header{Name: "Upload-Checksum"}
)

// Routes are the API's operations on files, folders and uploads.
func (s *Handlers) Routes() []api.Route {
	fsvc := kanri.FileServiceID
	folderChange := map[int]string{
		http.StatusConflict:            "The folder holds more folders than can be changed at once.",
		http.StatusUnprocessableEntity: "The name is invalid or taken by another folder of the same folder (compared ignoring case and width), or parentId names no folder, the folder itself or one inside it, or one too deep; errors names the field.",
	}
	up := s.apiUploads()
	return []api.Route{
		{Method: http.MethodGet, Path: "/files", Scope: kanri.ScopeRead, Perm: role.FilesRead, Service: fsvc, Handler: s.apiListFiles, Op: "listFiles",
			Doc:   "The files of the top level, or of the folder given, that are not in the trash, in the order asked; with q, the files of every folder whose names or tags have words beginning with its words.",
			Query: []api.Param{paramFileFolder, paramFileSearch, paramFileSort, api.ParamDesc, api.ParamLimit, api.ParamNext}, Response: "FileList", Status: 200, ETag: true},
		{Method: http.MethodGet, Path: "/files/:file", Scope: kanri.ScopeRead, Perm: role.FilesRead, Service: fsvc, Handler: s.apiGetFile, Op: "getFile",
			Doc: "A file in the trash is read too (its deletedAt is set).", Response: "File", Status: 200, ETag: true},
		{Method: http.MethodPatch, Path: "/files/:file", Scope: kanri.ScopeWrite, Perm: role.FilesCreate, Service: fsvc, Handler: s.apiUpdateFile, Op: "updateFile",
			Doc:     "Only the fields sent change; folderId moves the file (null for the top level). Send the ETag read in If-Match so that a change made since is not overwritten (412); a download does not change the ETag. A file in the trash is not found (404).",
			Request: "FileUpdate", Response: "File", Status: 200, IfMatch: true, ETag: true,
			Statuses: map[int]string{http.StatusForbidden: notYours, http.StatusUnprocessableEntity: "A field is invalid (a name, too many or too long tags, a tag holding a comma or space, too long a description), or folderId names no folder; errors names the field."}},
		{Method: http.MethodDelete, Path: "/files/:file", Scope: kanri.ScopeWrite, Perm: role.FilesCreate, Service: fsvc, Handler: s.apiTrashFile, Op: "deleteFile",
			Doc: "As in the console, the file stays restorable for 30 days and still counts in the storage used until it is purged.", Status: 204, IfMatch: true,
			Statuses: map[int]string{http.StatusForbidden: notYours}},
		{Method: http.MethodPost, Path: "/files/:file/restore", Scope: kanri.ScopeWrite, Perm: role.FilesCreate, Service: fsvc, Handler: s.apiRestoreFile, Op: "restoreFile",
			Doc: "Back into its folder, or to the top level if its folder is gone.", Response: "File", Status: 200, IfMatch: true, ETag: true,
			Statuses: map[int]string{http.StatusForbidden: notYours, http.StatusConflict: "The file is not in the trash."}},
		{Method: http.MethodGet, Path: "/files/:file/content", Scope: kanri.ScopeRead, Perm: role.FilesRead, Service: fsvc, Handler: s.apiFileContent, Op: "getFileContent",
			Doc:     "The bytes as stored, as an attachment named after the file (its type is the metadata's contentType). Range asks for part of them (206), several parts as multipart/byteranges; the ETag is the file's SHA-256, and If-None-Match or If-Range take it. A whole download is checked against the checksum as it streams: a mismatch ends the connection early.",
			Content: "application/octet-stream", Status: 200, ETag: true,
			Statuses: map[int]string{http.StatusRequestedRangeNotSatisfiable: "Range asks for bytes the file does not have, or is not a bytes range that can be read; Content-Range says the file's length (bytes */length).",
				http.StatusPreconditionFailed: "If-Match or If-Unmodified-Since does not hold."}},

		{Method: http.MethodGet, Path: "/folders", Scope: kanri.ScopeRead, Perm: role.FilesRead, Service: fsvc, Handler: s.apiListFolders, Op: "listFolders",
			Query: []api.Param{paramFolderParent, api.ParamLimit, api.ParamNext}, Response: "FolderList", Status: 200, ETag: true},
		{Method: http.MethodPost, Path: "/folders", Scope: kanri.ScopeWrite, Perm: role.FilesCreate, Service: fsvc, Handler: s.apiCreateFolder, Op: "createFolder",
			Doc: "In the folder parentId, or at the top level. Names are unique among a folder's folders, compared ignoring case and width.", Request: "FolderCreate", Response: "Folder", Status: 201, ETag: true, Location: true,
			Statuses: map[int]string{http.StatusUnprocessableEntity: "The name is invalid or taken by another folder of the same folder (compared ignoring case and width), or parentId names no folder or one too deep; errors names the field."}},
		{Method: http.MethodGet, Path: "/folders/:folder", Scope: kanri.ScopeRead, Perm: role.FilesRead, Service: fsvc, Handler: s.apiGetFolder, Op: "getFolder",
			Response: "Folder", Status: 200, ETag: true},
		{Method: http.MethodPatch, Path: "/folders/:folder", Scope: kanri.ScopeWrite, Perm: role.FilesUpdate, Service: fsvc, Handler: s.apiUpdateFolder, Op: "updateFolder",
			Doc:     "Only the fields sent change: name renames the folder, parentId moves it (null for the top level); the paths of the folders inside follow. Send the ETag read in If-Match so that a change made since is not overwritten (412). A rename and a move sent together are one change: both are made, or neither.",
			Request: "FolderUpdate", Response: "Folder", Status: 200, IfMatch: true, ETag: true, Statuses: folderChange},
		{Method: http.MethodDelete, Path: "/folders/:folder", Scope: kanri.ScopeWrite, Perm: role.FilesDelete, Service: fsvc, Handler: s.apiDeleteFolder, Op: "deleteFolder",
			Doc:   "The files inside go to the trash (restorable for 30 days, to the top level). A folder holding files is deleted only when files is their number, as the console asks the person to confirm it; without it, or with another number, the answer is 409 and its detail says how many.",
			Query: []api.Param{paramConfirmFiles}, Status: 204, IfMatch: true,
			Statuses: map[int]string{http.StatusConflict: "The folder holds files and files is not their number (the detail says how many), or it holds too many folders to delete at once."}},

		{Method: http.MethodOptions, Path: api.UploadsPath, Scope: kanri.ScopeWrite, Perm: role.FilesCreate, Service: fsvc, Handler: up.Options, Op: "uploadOptions", Tag: "Files",
			Doc: "tus 1.0 (https://tus.io/protocols/resumable-upload): the version, the extensions (creation, termination, expiration, checksum), the checksum algorithms and the largest file the tenant may upload.",
			Tus: true, ReqHeaders: []api.Header{{Name: "Tus-Resumable"}}, RespHeaders: []string{api.HdrTusResumable, api.HdrTusVersion, api.HdrTusExtension, api.HdrTusChecksumAlgorithm}, OptHeaders: []string{api.HdrTusMaxSize}, Status: 204},
		{Method: http.MethodPost, Path: api.UploadsPath, Scope: kanri.ScopeWrite, Perm: role.FilesCreate, Service: fsvc, Handler: up.Create, Op: "createUpload", Tag: "Files",
			Doc: "Upload-Length is the file's size; Upload-Metadata names the file (filename), its type (filetype) and the folder it goes to (folderId), each value in base64. The size is reserved in the tenant's storage until the upload completes or expires (Upload-Expires). Location is the upload's address: send its bytes there with PATCH. A creation retried with its Idempotency-Key is the same upload, reserved once.",
			Tus: true, ReqHeaders: []api.Header{tusResumableHeader, tusLengthHeader, tusMetadataHeader}, RespHeaders: []string{api.HdrTusResumable, api.HdrLocation, api.HdrUploadExpires}, Status: 201,
			Statuses: map[int]string{
				http.StatusBadRequest:            "Upload-Length is missing or not a whole number, Upload-Metadata cannot be read, or Upload-Defer-Length was sent; or Authorization was sent twice.",
				http.StatusPreconditionFailed:    "Tus-Resumable is not 1.0.0; Tus-Version says the version spoken.",
				http.StatusRequestEntityTooLarge: "The file is larger than the tenant's largest file, or than the storage left; the detail says which and how large.",
				http.StatusUnprocessableEntity:   "The file's name is missing or invalid, or folderId names no folder of the tenant; errors names the metadata's key (filename, folderId).",
			}},
		{Method: http.MethodHead, Path: api.UploadsPath + "/:upload", Scope: kanri.ScopeWrite, Perm: role.FilesCreate, Service: fsvc, Handler: up.Head, Op: "headUpload", Tag: "Files",
			Doc: "Upload-Offset is where to resume; once the upload is complete, Kanri-File-Id names its file. An upload's address answers the tus methods only: GET is 405.",
			Tus: true, ReqHeaders: []api.Header{tusResumableHeader}, RespHeaders: []string{api.HdrTusResumable, api.HdrUploadOffset, api.HdrUploadLength, api.HdrUploadExpires}, OptHeaders: []string{api.HdrKanriFileID, api.HdrUploadMetadata}, Status: 200,
			Statuses: map[int]string{http.StatusPreconditionFailed: "Tus-Resumable is not 1.0.0; Tus-Version says the version spoken."}},
		{Method: http.MethodPatch, Path: api.UploadsPath + "/:upload", Scope: kanri.ScopeWrite, Perm: role.FilesCreate, Service: fsvc, Handler: up.Patch, Op: "writeUpload", Tag: "Files",
			Doc: "The body (application/offset+octet-stream) is written at Upload-Offset, which must be where the upload stands. The body may take as long as it needs, but not stall for a minute; what arrived before an interruption is kept, and HEAD says where to resume. Upload-Checksum (sha1 or sha256, base64) checks this part. The last part makes the file: Kanri-File-Id names it.",
			Tus: true, ReqHeaders: []api.Header{tusResumableHeader, tusOffsetHeader, tusChecksumHeader}, ReqBytes: tus.OffsetType,
			RespHeaders: []string{api.HdrTusResumable, api.HdrUploadOffset, api.HdrUploadExpires}, OptHeaders: []string{api.HdrKanriFileID}, Status: 204,
			Statuses: map[int]string{
				http.StatusBadRequest:            "Upload-Offset is missing or not a whole number, or Upload-Checksum cannot be read.",
				http.StatusConflict:              "Upload-Offset is not where the upload stands (Upload-Offset in the answer says where; checked before the length, as tusd does), or another request is writing the upload.",
				http.StatusPreconditionFailed:    "Tus-Resumable is not 1.0.0; Tus-Version says the version spoken.",
				http.StatusRequestEntityTooLarge: "The bytes sent go past the upload's length; a complete upload takes none (an empty PATCH at its end is answered 204 and changes nothing).",
				http.StatusUnsupportedMediaType:  "The body is not application/offset+octet-stream.",
				tus.StatusChecksumMismatch:       "The part's bytes do not match Upload-Checksum; they were not kept.",
			}},
		{Method: http.MethodDelete, Path: api.UploadsPath + "/:upload", Scope: kanri.ScopeWrite, Perm: role.FilesCreate, Service: fsvc, Handler: up.Delete, Op: "deleteUpload", Tag: "Files",
			Doc: "Its bytes are deleted and its reservation of storage given back. A complete upload is 409: delete its file instead.",
			Tus: true, ReqHeaders: []api.Header{tusResumableHeader}, RespHeaders: []string{api.HdrTusResumable}, Status: 204,
			Statuses: map[int]string{
				http.StatusConflict:           "The upload is complete.",
				http.StatusPreconditionFailed: "Tus-Resumable is not 1.0.0; Tus-Version says the version spoken.",
			}},
		{Method: http.MethodOptions, Path: api.UploadsPath + "/:upload", Scope: kanri.ScopeWrite, Perm: role.FilesCreate, Service: fsvc, Handler: up.OptionsAt, Op: "uploadOptionsAt", Tag: "Files",
			Doc: "As OPTIONS /uploads, for an upload of the tenant (tus servers answer OPTIONS at every address of theirs).",
			Tus: true, ReqHeaders: []api.Header{{Name: "Tus-Resumable"}}, RespHeaders: []string{api.HdrTusResumable, api.HdrTusVersion, api.HdrTusExtension, api.HdrTusChecksumAlgorithm}, OptHeaders: []string{api.HdrTusMaxSize}, Status: 204},
	}
}

// apiFile is a file as the API shows it: its metadata, never where its
// bytes are stored.
type apiFile struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	DisplayName string   `json:"displayName"`
	Size        int64    `json:"size"`
	ContentType string   `json:"contentType"`
	FolderID    *string  `json:"folderId"`
	Checksum    string   `json:"checksum"`
	Tags        []string `json:"tags"`
	Description string   `json:"description"`
	UploadedBy  string   `json:"uploadedBy"`
	// UploadedByKind says what UploadedBy names (actorKind).
	UploadedByKind string     `json:"uploadedByKind"`
	UploadedAt     kanri.Time `json:"uploadedAt"`
	UpdatedAt      kanri.Time `json:"updatedAt"`
	DeletedAt      kanri.Time `json:"deletedAt"`
}

func apiFileOf(f *kanri.File) apiFile {
	tags := f.Metadata.Tags
	if tags == nil {
		tags = []string{}
	}
	return apiFile{
		ID: f.ID, Name: f.Name, DisplayName: f.DisplayName, Size: f.Size, ContentType: f.ContentType, FolderID: f.FolderID,
		Checksum: f.Checksum, Tags: tags, Description: f.Metadata.Description, UploadedBy: f.UploadedBy, UploadedByKind: api.ActorKind(f.UploadedBy),
		UploadedAt: f.UploadedAt, UpdatedAt: f.UpdatedAt, DeletedAt: f.DeletedAt,
	}
}

// apiFileTag returns the ETag of a file's metadata as the API shows it: of
// what people see and change (kanri.File.State) and when they last
// changed it, so that a download, which records when the file was last
// read, does not make a client's If-Match fail, as it does not make the
// console's form stale.
func apiFileTag(f *kanri.File) string {
	sum := sha256.Sum256([]byte(f.State() + "\x00" + f.UpdatedAt.String()))
	return base64.RawURLEncoding.EncodeToString(sum[:18])
}

// fileSeen checks the request's If-Match against a file's ETag: the file as
// seen, for the service to change only that version of it (412 when it
// changed since); nothing to check without the header.
func fileSeen(c echo.Context, f *kanri.File) (kanri.Seen, error) {
	tag, err := api.Precondition(c, apiFileTag(f))
	if err != nil || tag == "" {
		return kanri.Seen{}, err
	}
	return kanri.Seen{ETag: f.ETag, State: f.State()}, nil
}

// apiFolder is a folder as the API shows it.
type apiFolder struct {
	ID             string     `json:"id"`
	Name           string     `json:"name"`
	ParentFolderID *string    `json:"parentFolderId"`
	Path           string     `json:"path"`
	CreatedBy      string     `json:"createdBy"`
	CreatedByKind  string     `json:"createdByKind"` // what CreatedBy names (actorKind)
	CreatedAt      kanri.Time `json:"createdAt"`
	UpdatedAt      kanri.Time `json:"updatedAt"`
}

func apiFolderOf(f *kanri.Folder) apiFolder {
	return apiFolder{ID: f.ID, Name: f.Name, ParentFolderID: f.ParentFolderID, Path: f.Path, CreatedBy: f.CreatedBy, CreatedByKind: api.ActorKind(f.CreatedBy), CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt}
}

// optionalID is a folder's id in a request body that may leave it out:
// Set says it was given; null and "" are the top level.
type optionalID struct {
	Set bool
	ID  string
}

// UnmarshalJSON implements json.Unmarshaler.
func (o *optionalID) UnmarshalJSON(b []byte) error {
	o.Set = true
	if string(b) == "null" {
		o.ID = ""
		return nil
	}
	return json.Unmarshal(b, &o.ID)
}

// folderParam returns the folder a query parameter names, "" when it
// names none (the top level); a folder that does not exist is invalid.
func (s *Handlers) folderParam(c echo.Context, p api.Param) (string, error) {
	id := p.Str(c)
	if id == "" {
		return "", nil
	}
	return id, s.folderExists(c, p.Name, id)
}

// folderExists refuses a folder named in a request (field) that is not
// one of the tenant's.
func (s *Handlers) folderExists(c echo.Context, field, id string) error {
	if id == "" {
		return nil
	}
	_, err := s.Files.Folder(c.Request().Context(), httpkit.Tenant(c).ID, id)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return kanri.Invalid(kanri.Fields{field: "files.no_such_folder"})
	}
	return err
}

func (s *Handlers) apiListFiles(c echo.Context) error {
	limit, err := api.ParamLimit.Int(c)
	if err != nil {
		return err
	}
	q := strings.TrimSpace(paramFileSearch.Str(c))
	folderID := ""
	if q == "" {
		if folderID, err = s.folderParam(c, paramFileFolder); err != nil {
			return err
		}
	}
	list, next, err := s.Files.Browse(c.Request().Context(), httpkit.Tenant(c).ID, folderID, q,
		files.ListQuery{Sort: paramFileSort.Str(c), Desc: api.ParamDesc.Bool(c), Limit: limit, Next: api.ParamNext.Str(c)})
	if err != nil {
		return api.BadNext(err)
	}
	out := make([]apiFile, len(list))
	for i, f := range list {
		out[i] = apiFileOf(f)
	}
	return api.SendList(c, out, next)
}

func (s *Handlers) apiGetFile(c echo.Context) error {
	f, err := s.Files.File(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("file"))
	if err != nil {
		return err
	}
	return api.SendDoc(c, http.StatusOK, apiFileTag(f), apiFileOf(f))
}

// apiFileUpdate is the body of PATCH /files/{file}: the fields to change.
type apiFileUpdate struct {
	Name        *string    `json:"name"`
	DisplayName *string    `json:"displayName"`
	Tags        *[]string  `json:"tags"`
	Description *string    `json:"description"`
	FolderID    optionalID `json:"folderId"`
}

// tagSeparators are the characters the console's tag field splits tags
// at, which a tag sent as one of a list cannot hold.
const tagSeparators = ",、 \u3000\n"

// input returns the file's metadata with the body's fields changed, as
// the console's form sends it.
func (in apiFileUpdate) input(f *kanri.File) (files.FileInput, error) {
	out := files.FileInput{DisplayName: f.DisplayName, Tags: strings.Join(f.Metadata.Tags, ","), Description: f.Metadata.Description}
	if in.Name != nil {
		out.Name = *in.Name
		if strings.TrimSpace(out.Name) == "" {
			return out, kanri.Invalid(kanri.Fields{"name": "validation.required"})
		}
	}
	if in.DisplayName != nil {
		out.DisplayName = *in.DisplayName
	}
	if in.Description != nil {
		out.Description = *in.Description
	}
	if in.Tags != nil {
		for _, t := range *in.Tags {
			if strings.ContainsAny(t, tagSeparators) || strings.TrimSpace(t) == "" {
				return out, kanri.Invalid(kanri.Fields{"tags": "files.bad_tag"})
			}
		}
		out.Tags = strings.Join(*in.Tags, ",")
	}
	return out, nil
}

func (s *Handlers) apiUpdateFile(c echo.Context) error {
	var in apiFileUpdate
	if err := api.ReadJSON(c, &in); err != nil {
		return err
	}
	t := httpkit.Tenant(c)
	if in.FolderID.Set {
		if err := s.folderExists(c, "folderId", in.FolderID.ID); err != nil {
			return err // before any change: the request changes all it asks or nothing
		}
	}
	p := files.FilePatch{}
	if in.Name != nil || in.DisplayName != nil || in.Tags != nil || in.Description != nil {
		p.Input = in.input
	}
	if in.FolderID.Set {
		p.Folder = &in.FolderID.ID
	}
	f, err := s.Files.PatchFile(c.Request().Context(), t.ID, c.Param("file"), func(f *kanri.File) (bool, error) {
		if err := apiMayChange(c, f, role.FilesUpdate); err != nil {
			return false, err
		}
		tag, err := api.Precondition(c, apiFileTag(f))
		return tag != "", err
	}, p)
	if err != nil {
		return err
	}
	return api.SendDoc(c, http.StatusOK, apiFileTag(f), apiFileOf(f))
}

// notYours is the 403 of a change of a file by a member (files.create)
// who did not upload it.
const notYours = "The key's creator may change only the files they (or the key) uploaded: they hold files.create, not files.update or files.delete."

// apiMayChange says whether the key may change file f: anyone's when its
// creator holds manage (files.update or files.delete), else only a file
// the creator or the key uploaded (files.MayChange).
func apiMayChange(c echo.Context, f *kanri.File, manage string) error {
	k, g := api.KeyOf(c), api.GrantOf(c)
	if f.UploadedBy == k.ID {
		return nil
	}
	return files.MayChange(f, k.CreatedBy, g.Perms.Has(manage))
}

func (s *Handlers) apiTrashFile(c echo.Context) error {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	f, err := s.Files.LiveFile(ctx, t.ID, c.Param("file"))
	if err != nil {
		return err
	}
	if err := apiMayChange(c, f, role.FilesDelete); err != nil {
		return err
	}
	sn, err := fileSeen(c, f)
	if err != nil {
		return err
	}
	if _, err := s.Files.TrashFile(ctx, t.ID, f.ID, sn); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *Handlers) apiRestoreFile(c echo.Context) error {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	f, err := s.Files.File(ctx, t.ID, c.Param("file"))
	if err != nil {
		return err
	}
	if err := apiMayChange(c, f, role.FilesDelete); err != nil {
		return err
	}
	sn, err := fileSeen(c, f)
	if err != nil {
		return err
	}
	if f, err = s.Files.RestoreFile(ctx, t.ID, f.ID, sn); err != nil {
		return err
	}
	return api.SendDoc(c, http.StatusOK, apiFileTag(f), apiFileOf(f))
}

// apiFileContent sends a live file's bytes as the console's download
// does (streamFile), as application/octet-stream. What http.ServeContent
// refuses (a range the file does not have, a precondition that fails) is
// answered as a problem.
func (s *Handlers) apiFileContent(c echo.Context) error {
	f, err := s.Files.LiveFile(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("file"))
	if err != nil {
		return err
	}
	w := c.Response()
	held := &heldError{ResponseWriter: w.Writer}
	w.Writer = held
	err = httpkit.ServeFile(c, f, s.Files.Open(c.Request().Context(), httpkit.Tenant(c).ID, f), "attachment", "application/octet-stream")
	w.Writer = held.ResponseWriter
	if held.status != 0 {
		w.Status = held.status // for the usage log: the answer went around Echo's writer
	}
	if err != nil || held.status < http.StatusBadRequest {
		return err
	}
	h := w.Header()
	for _, k := range []string{"Content-Disposition", api.HdrETag, "Accept-Ranges", "Last-Modified", echo.HeaderContentType, "X-Content-Type-Options"} {
		h.Del(k)
	}
	if held.status == http.StatusPreconditionFailed {
		return kanri.Stale()
	}
	return api.WriteProblem(c, held.status, "")
}

// heldError passes an answer through, but holds back one of an error
// status, which http.ServeContent writes as plain text: its status is
// kept, and nothing of it is sent.
type heldError struct {
	http.ResponseWriter
	status int
}

func (w *heldError) WriteHeader(code int) {
	w.status = code
	if code < http.StatusBadRequest {
		w.ResponseWriter.WriteHeader(code)
	}
}

func (w *heldError) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.status >= http.StatusBadRequest {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap returns the writer underneath, for http.ResponseController.
func (w *heldError) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (s *Handlers) apiListFolders(c echo.Context) error {
	limit, err := api.ParamLimit.Int(c)
	if err != nil {
		return err
	}
	parent, err := s.folderParam(c, paramFolderParent)
	if err != nil {
		return err
	}
	list, next, err := s.Files.Folders(c.Request().Context(), httpkit.Tenant(c).ID, parent, limit, api.ParamNext.Str(c))
	if err != nil {
		return api.BadNext(err)
	}
	out := make([]apiFolder, len(list))
	for i, f := range list {
		out[i] = apiFolderOf(f)
	}
	return api.SendList(c, out, next)
}

func (s *Handlers) apiGetFolder(c echo.Context) error {
	f, err := s.Files.Folder(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("folder"))
	if err != nil {
		return err
	}
	return api.SendDoc(c, http.StatusOK, f.ETag, apiFolderOf(f))
}

// apiFolderCreate is the body of POST /folders.
type apiFolderCreate struct {
	Name     string  `json:"name"`
	ParentID *string `json:"parentId"`
}

func (s *Handlers) apiCreateFolder(c echo.Context) error {
	var in apiFolderCreate
	if err := api.ReadJSON(c, &in); err != nil {
		return err
	}
	parent := ""
	if in.ParentID != nil {
		parent = *in.ParentID
	}
	if err := s.folderExists(c, "parentId", parent); err != nil {
		return err
	}
	f, err := s.Files.CreateFolder(c.Request().Context(), httpkit.Tenant(c).ID, parent, in.Name)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, api.Prefix+"/folders/"+url.PathEscape(f.ID))
	return api.SendDoc(c, http.StatusCreated, f.ETag, apiFolderOf(f))
}

// apiFolderUpdate is the body of PATCH /folders/{folder}: the fields to
// change.
type apiFolderUpdate struct {
	Name     *string    `json:"name"`
	ParentID optionalID `json:"parentId"`
}

// apiUpdateFolder renames a folder or moves it, or both in one change.
func (s *Handlers) apiUpdateFolder(c echo.Context) error {
	var in apiFolderUpdate
	if err := api.ReadJSON(c, &in); err != nil {
		return err
	}
	var parent *string
	if in.ParentID.Set {
		parent = &in.ParentID.ID
	}
	f, err := s.Files.PatchFolder(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("folder"), func(f *kanri.Folder) (bool, error) {
		tag, err := api.Precondition(c, f.ETag)
		return tag != "", err
	}, in.Name, parent)
	if err != nil {
		return kanri.RenamedField(err, "folderId", "parentId")
	}
	return api.SendDoc(c, http.StatusOK, f.ETag, apiFolderOf(f))
}

// apiDeleteFolder deletes a folder with the console's rule: one holding
// files only when the request confirms their number.
func (s *Handlers) apiDeleteFolder(c echo.Context) error {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	f, err := s.Files.Folder(ctx, t.ID, c.Param("folder"))
	if err != nil {
		return err
	}
	tag, err := api.Precondition(c, f.ETag)
	if err != nil {
		return err
	}
	confirmed, _ := strconv.Atoi(paramConfirmFiles.Str(c)) // digits within bounds, or none (0): checkQuery refused the rest
	err = s.Files.DeleteFolder(ctx, t.ID, f.ID, tag, confirmed)
	if err != nil {
		return err // a folder with files unconfirmed: its message says how many
	}
	return c.NoContent(http.StatusNoContent)
}

// apiUploads serves the API's uploads: those of the key's tenant, under
// /api/v1/uploads. A key acts for all the tenant's uploads; a refusal is
// a problem document like any of the API's, whose invalid input names
// its fields in errors.
func (s *Handlers) apiUploads() *tus.Handler {
	return tus.New(s.Files, s.Logger, tus.Mount{
		Metrics:    s.Metrics,
		Base:       func(echo.Context) string { return api.Prefix + api.UploadsPath },
		CancelsAny: func(echo.Context) bool { return true },
		Refuse: func(c echo.Context, status int, msg string, err error) error {
			errs, detail := api.FieldErrors(c.Request().Context(), err, msg)
			return api.WriteFieldProblem(c, status, detail, errs)
		},
	})
}

// Schemas returns the schemas of the files' operations, made with the
// document's obj and list.
func (*Handlers) Schemas(obj func([]string, map[string]any) map[string]any, list func(string) map[string]any) map[string]any {
	str := map[string]any{"type": "string"}
	when := map[string]any{"type": []string{"string", "null"}, "format": "date-time"}
	ref := map[string]any{"type": []string{"string", "null"}, "description": "A folder's id; null for the top level."}
	name := map[string]any{"type": "string", "minLength": 1, "maxLength": fileNameMax,
		"description": fmt.Sprintf("1 to %d characters, spaces around it trimmed: no / or \\, control or direction characters, nor . or ..", fileNameMax)}
	return map[string]any{
		"File": obj([]string{"id", "name", "displayName", "size", "contentType", "folderId", "checksum", "tags", "description", "uploadedBy", "uploadedByKind", "uploadedAt", "updatedAt", "deletedAt"}, map[string]any{
			"id": str, "name": map[string]any{"type": "string", "description": "The file's name: the one it was uploaded with, or renamed to; it downloads with it."},
			"displayName": map[string]any{"type": "string", "description": "A title to show instead of the name; empty when none."},
			"size":        api.Count(0, "Bytes."),
			"contentType": map[string]any{"type": "string", "description": "The media type the file is stored with."},
			"folderId":    ref,
			"checksum":    map[string]any{"type": "string", "description": "sha256: and the SHA-256 of the bytes in hex; the content's ETag is the hex."},
			"tags":        map[string]any{"type": "array", "items": str},
			"description": str, "uploadedBy": api.ActorIDSchema("uploadedByKind"), "uploadedByKind": api.ActorKindSchema("uploadedBy"), "uploadedAt": when, "updatedAt": when,
			"deletedAt": map[string]any{"type": []string{"string", "null"}, "format": "date-time", "description": "When the file went to the trash; null when it is not there."},
		}),
		"FileList": list("File"),
		"FileUpdate": obj(nil, map[string]any{
			"name":        name,
			"displayName": map[string]any{"type": "string", "maxLength": fileNameMax, "description": "The name to show; empty for the name it was uploaded with."},
			"tags": map[string]any{"type": "array", "maxItems": fileTagsMax, "items": map[string]any{"type": "string", "minLength": 1, "maxLength": fileTagMax,
				"description": "A tag: no commas, spaces, slashes or control characters."}},
			"description": map[string]any{"type": "string", "maxLength": fileDescMax},
			"folderId":    map[string]any{"type": []string{"string", "null"}, "description": "The folder to move the file to; null or empty for the top level."},
		}),
		"Folder": obj([]string{"id", "name", "parentFolderId", "path", "createdBy", "createdByKind", "createdAt", "updatedAt"}, map[string]any{
			"id": str, "name": str, "parentFolderId": ref,
			"path":      map[string]any{"type": "string", "description": "The names of the folders from the top level, as /Documents/2026."},
			"createdBy": api.ActorIDSchema("createdByKind"), "createdByKind": api.ActorKindSchema("createdBy"), "createdAt": when, "updatedAt": when,
		}),
		"FolderList": list("Folder"),
		"FolderCreate": obj([]string{"name"}, map[string]any{
			"name":     name,
			"parentId": map[string]any{"type": "string", "description": "The folder to create it in; the top level without it (or empty)."},
		}),
		"FolderUpdate": obj(nil, map[string]any{
			"name":     name,
			"parentId": map[string]any{"type": []string{"string", "null"}, "description": "The folder to move it to; null or empty for the top level."},
		}),
	}
}

// Examples returns examples of the files' schemas, at the time at.
func (*Handlers) Examples(at string) map[string]any {
	file := map[string]any{"id": api.ExampleFileID, "name": "report-2026.pdf", "displayName": "", "size": 48213, "contentType": "application/pdf",
		"folderId": api.ExampleFolderID, "checksum": "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"tags": []any{"finance", "2026"}, "description": "", "uploadedBy": api.ExampleUserID, "uploadedByKind": api.ActorUser, "uploadedAt": at, "updatedAt": at, "deletedAt": nil}
	folder := map[string]any{"id": api.ExampleFolderID, "name": "Reports", "parentFolderId": nil, "path": "/Reports", "createdBy": api.ExampleKeyID, "createdByKind": api.ActorAPIKey, "createdAt": at, "updatedAt": at}
	return map[string]any{
		"File":         file,
		"FileList":     map[string]any{"items": []any{file}, "hasMore": false},
		"FileUpdate":   map[string]any{"tags": []any{"finance", "2026"}, "folderId": api.ExampleFolderID},
		"Folder":       folder,
		"FolderList":   map[string]any{"items": []any{folder}, "hasMore": false},
		"FolderCreate": map[string]any{"name": "Reports"},
		"FolderUpdate": map[string]any{"name": "Reports 2026"},
	}
}

// Handlers serve the feature's operations, with what every operation of
// the API shares.
type Handlers struct {
	*api.Server
}

// New returns the feature of the API s.
func New(s *api.Server) api.Feature { return &Handlers{Server: s} }

// Tags group the feature's operations.
func (*Handlers) Tags() []api.Tag {
	return []api.Tag{
		{Name: "Files", Doc: "The tenant's files: list and search them, read and change their metadata, download their bytes (with ranges), move them to the trash and back, and upload them with tus 1.0 (resumable). They need the tenant's file service, with the console's limits."},
		{Name: "Folders", Doc: "The tenant's folders: list, read, create, rename, move and delete them."},
	}
}

// PathParams describe the path parameters of the feature's operations.
func (*Handlers) PathParams() map[string]api.PathParam {
	return map[string]api.PathParam{
		"file":   {Doc: "The file's id.", Example: api.ExampleFileID},
		"folder": {Doc: "The folder's id.", Example: api.ExampleFolderID},
		"upload": {Doc: "The upload's id: the last segment of the Location its creation answered.", Example: "upload_5b1e0c2a9d7f4e6b8a3c1d2e4f5a6b7c"},
	}
}
