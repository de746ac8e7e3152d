// Package userimport imports a tenant's users from a CSV file
// (docs/import-export.md): the file is uploaded and kept in the blob
// store, a dry run says per row what the import would do, and the import
// itself runs in the background; both write their progress into the
// import's document, so that any instance shows it, and their results as
// a report in the blob store. Rows are matched to users by username, so
// importing a file again creates nobody twice, and new users are counted
// against the tenant's maxUsers by the user service's counter, so that an
// import never makes more users than the tenant may have.
package userimport

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/user"
)

// TypeImport is the document type of an import.
const TypeImport = "user_import"

// An import's states.
const (
	Checking  = "checking"  // its dry run is running
	Checked   = "checked"   // its dry run is done: it waits to be started
	Importing = "importing" // it is running
	Done      = "done"      // it ran
	Failed    = "failed"    // its dry run or its run failed (ErrorKey)
)

// Outcomes of a row.
const (
	Created   = "created"
	Updated   = "updated"
	Unchanged = "unchanged"
	Refused   = "refused"
)

// RowField is the key of Result.Errors for what concerns a row as a whole.
const RowField = "row"

// ttl is how long an import and its files are kept after its last write.
const ttl = 7 * 24 * time.Hour

// beat is how often a running dry run or import writes its progress;
// stale how long it may go unwritten before it is taken for one a stopped
// instance left.
const (
	beat  = time.Second
	stale = 30 * time.Second
)

// Counts are how many rows had each outcome.
type Counts struct {
	Created   int `json:"created"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
	Refused   int `json:"refused"`
}

func (c *Counts) add(outcome string) {
	switch outcome {
	case Created:
		c.Created++
	case Updated:
		c.Updated++
	case Unchanged:
		c.Unchanged++
	default:
		c.Refused++
	}
}

// Import is an import of users from a file (TypeImport, in the auth
// container).
type Import struct {
	kanri.Doc
	FileName string `json:"fileName"`
	Size     int    `json:"size"`
	SHA256   string `json:"sha256"`
	Rows     int    `json:"rows"`
	Status   string `json:"status"`
	// Processed is how many rows the running dry run or import has done.
	Processed int `json:"processed"`
	// DryRun are the dry run's outcomes; Result the import's.
	DryRun Counts `json:"dryRun"`
	Result Counts `json:"result"`
	// AssignRoles says the person who uploaded the file may assign roles:
	// without it, a row with roles is refused.
	AssignRoles bool   `json:"assignRoles"`
	StartedBy   string `json:"startedBy"`
	// Run names the running dry run or import: a run that finds another
	// name in the document was superseded and stops.
	Run        string     `json:"run,omitempty"`
	CreatedAt  kanri.Time `json:"createdAt"`
	UpdatedAt  kanri.Time `json:"updatedAt"`
	CheckedAt  kanri.Time `json:"checkedAt"`
	ImportedAt kanri.Time `json:"importedAt"`
	ErrorKey   string     `json:"errorKey,omitempty"`
	TTL        int        `json:"ttl,omitempty"`
}

// TTLField implements kanri.Expiring.
func (im *Import) TTLField() (*int, int) { return &im.TTL, int(ttl / time.Second) }

// Interrupted reports whether a dry run or import was running on an
// instance that stopped: it has not said how far it came for longer than
// stale.
func (im *Import) Interrupted(now time.Time) bool {
	return (im.Status == Checking || im.Status == Importing) && now.Sub(im.UpdatedAt.Time) >= stale
}

// Startable reports whether the import may be started now: its dry run
// is done, or an import of it failed or was interrupted.
func (im *Import) Startable(now time.Time) bool {
	switch {
	case im.Status == Checked:
		return true
	case im.CheckedAt.IsZero():
		return false
	}
	return im.Status == Failed || im.Status == Importing && im.Interrupted(now)
}

// Service imports users.
type Service struct {
	app.Deps
	users *user.Service
	roles *role.Service
	blobs *blob.Bucket
	mu    sync.Mutex
	bg    context.Context
	wg    sync.WaitGroup
	// beat and stale are the package's, but for tests.
	beat, stale time.Duration
}

// New returns the import service, which creates and changes users through
// users, assigns roles through roles and keeps files in blobs.
func New(d app.Deps, users *user.Service, roles *role.Service, blobs *blob.Bucket) *Service {
	return &Service{Deps: d, users: users, roles: roles, blobs: blobs, bg: context.Background(), beat: beat, stale: stale}
}

// Run gives the dry runs and imports that this instance starts the
// context ctx, until it ends; then it waits for them to stop.
func (s *Service) Run(ctx context.Context) error {
	s.mu.Lock()
	s.bg = ctx
	s.mu.Unlock()
	<-ctx.Done()
	s.wg.Wait()
	return nil
}

// Wait waits for the dry runs and imports running in the background.
func (s *Service) Wait() { s.wg.Wait() }

// background runs fn in a goroutine that Wait waits for, in a context
// that ends when Run's does, acting as actor.
func (s *Service) background(actor audit.Actor, fn func(ctx context.Context)) {
	s.mu.Lock()
	ctx := s.bg
	s.mu.Unlock()
	s.wg.Go(func() { fn(audit.WithActor(ctx, actor)) })
}

func (s *Service) repo(tenantID string) *store.Repo[Import, *Import] {
	return store.Of[Import](s.Store.Tenant(tenantID), kanri.ContainerAuth, TypeImport)
}

// blobName names one of an import's files: its upload, its dry run's
// results or its import's.
func blobName(tenantID, id, file string) string {
	return "imports/" + tenantID + "/" + id + "/" + file
}

// The files of an import.
const (
	fileUpload = "upload.csv"
	fileDryRun = "dryrun.ndjson"
	fileResult = "result.ndjson"
)

// Upload keeps an import file and starts its dry run. assignRoles says
// whether the person may assign roles (role.RolesUpdate). A file that
// cannot be read is EINVALID with a *FileError.
func (s *Service) Upload(ctx context.Context, tenantID, fileName string, data []byte, assignRoles bool) (*Import, error) {
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, err
	}
	rows, err := Parse(data)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	now := kanri.NewTime(s.Now())
	actor := audit.ActorFrom(ctx)
	im := &Import{
		Doc:      kanri.Doc{ID: "import_" + strings.ReplaceAll(uuid.NewString(), "-", "")},
		FileName: cleanName(fileName), Size: len(data), SHA256: hex.EncodeToString(sum[:]), Rows: len(rows),
		Status: Checking, AssignRoles: assignRoles, StartedBy: actor.UserID, Run: newRun(),
		CreatedAt: now, UpdatedAt: now,
	}
	if _, err := s.blobs.Put(ctx, blobName(tenantID, im.ID, fileUpload), strings.NewReader(string(data))); err != nil {
		return nil, err
	}
	if err := s.repo(tenantID).Create(ctx, im); err != nil {
		s.removeFiles(ctx, tenantID, im.ID)
		return nil, err
	}
	s.Audit.Record(ctx, audit.Entry{
		TenantID: tenantID, Action: "import.upload",
		Resource: kanri.AuditResource{Type: kanri.AuditUserImport, ID: im.ID, Name: im.FileName},
	})
	run := *im
	s.background(actor, func(bg context.Context) {
		s.execute(bg, tenantID, &run, rows, true)
		if err := s.sweep(bg, tenantID); err != nil && bg.Err() == nil {
			s.Logger.Warn("the files of expired user imports not removed", "tenant", tenantID, "err", err)
		}
	})
	return im, nil
}

// orphanAge is how old a file under the imports' folder must be before a
// sweep removes it for want of its import: an upload writes its file
// before its document.
const orphanAge = time.Hour

// sweep removes the files of the tenant's imports that expired (their
// documents' TTL).
func (s *Service) sweep(ctx context.Context, tenantID string) error {
	all, err := s.repo(tenantID).All(ctx, docstore.Query{})
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, im := range all {
		keep[im.ID] = true
	}
	return s.removeOrphans(ctx, tenantID, keep, s.Now().Add(-orphanAge))
}

// cleanName keeps what a file's name may show: its base name, without
// characters that hide what it says, at most 200 characters.
func cleanName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if kanri.HasHidden(string(r), false) {
			return -1
		}
		return r
	}, name)
	if r := []rune(name); len(r) > 200 {
		name = string(r[:200])
	}
	if strings.TrimSpace(name) == "" {
		return "users.csv"
	}
	return name
}

func newRun() string { return strings.ReplaceAll(uuid.NewString(), "-", "")[:12] }

// Get returns one of a tenant's imports.
func (s *Service) Get(ctx context.Context, tenantID, id string) (*Import, error) {
	if !strings.HasPrefix(id, "import_") || docstore.CheckKey(tenantID, id) != nil {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return s.repo(tenantID).Get(ctx, id)
}

// List returns a tenant's latest imports, newest first.
func (s *Service) List(ctx context.Context, tenantID string, limit int) ([]*Import, error) {
	list, _, err := s.repo(tenantID).Query(ctx, docstore.Query{OrderBy: "createdAt", Desc: true, Limit: limit})
	return list, err
}

// Start starts the import of the rows of a checked import in the
// background, for the person in ctx. It is ECONFLICT when the import is
// running or not checked.
func (s *Service) Start(ctx context.Context, tenantID, id string) (*Import, error) {
	if _, err := s.Get(ctx, tenantID, id); err != nil {
		return nil, err
	}
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, err
	}
	run := newRun()
	im, err := s.repo(tenantID).Modify(ctx, id, nil, func(im *Import) error {
		if !im.Startable(s.Now()) {
			return kanri.E(kanri.ECONFLICT, "imports.error.not_startable")
		}
		now := kanri.NewTime(s.Now())
		im.Status, im.Run, im.Processed, im.Result, im.ErrorKey, im.UpdatedAt = Importing, run, 0, Counts{}, "", now
		return nil
	})
	if err != nil {
		return nil, err
	}
	rows, err := s.rows(ctx, tenantID, id)
	if err != nil {
		return nil, s.fail(ctx, tenantID, im, err)
	}
	s.Audit.Record(ctx, audit.Entry{
		TenantID: tenantID, Action: "import.start",
		Resource: kanri.AuditResource{Type: kanri.AuditUserImport, ID: im.ID, Name: im.FileName},
	})
	started := *im
	s.background(audit.ActorFrom(ctx), func(bg context.Context) { s.execute(bg, tenantID, &started, rows, false) })
	return im, nil
}

// rows reads the rows of an import's file again.
func (s *Service) rows(ctx context.Context, tenantID, id string) ([]Row, error) {
	data, err := s.read(ctx, blobName(tenantID, id, fileUpload), MaxFileBytes)
	if err != nil {
		return nil, err
	}
	return Parse(data)
}

// fail records that an import could not start, and returns err.
func (s *Service) fail(ctx context.Context, tenantID string, im *Import, err error) error {
	s.Logger.Error("user import failed", "tenant", tenantID, "import", im.ID, "err", err)
	_, _ = s.repo(tenantID).Modify(context.WithoutCancel(ctx), im.ID, nil, func(cur *Import) error {
		if cur.Run != im.Run {
			return errSuperseded
		}
		cur.Status, cur.ErrorKey, cur.UpdatedAt = Failed, "imports.error.failed", kanri.NewTime(s.Now())
		return nil
	})
	return err
}

// Delete removes an import and its files. A running one is ECONFLICT.
func (s *Service) Delete(ctx context.Context, tenantID, id string) error {
	im, err := s.Get(ctx, tenantID, id)
	if err != nil {
		return err
	}
	if (im.Status == Checking || im.Status == Importing) && !im.Interrupted(s.Now()) {
		return kanri.E(kanri.ECONFLICT, "imports.error.running")
	}
	if err := s.repo(tenantID).Delete(ctx, id, im.ETag); err != nil {
		if kanri.IsCode(err, kanri.ESTALE) {
			return kanri.E(kanri.ECONFLICT, "imports.error.running")
		}
		return err
	}
	s.removeFiles(ctx, tenantID, id)
	s.Audit.Record(ctx, audit.Entry{
		TenantID: tenantID, Action: "import.delete",
		Resource: kanri.AuditResource{Type: kanri.AuditUserImport, ID: im.ID, Name: im.FileName},
	})
	return nil
}

// removeFiles deletes an import's files (those already gone aside).
func (s *Service) removeFiles(ctx context.Context, tenantID, id string) {
	for _, f := range []string{fileUpload, fileDryRun, fileResult} {
		if err := s.blobs.Delete(context.WithoutCancel(ctx), blobName(tenantID, id, f)); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			s.Logger.Warn("a user import's file not deleted", "tenant", tenantID, "import", id, "file", f, "err", err)
		}
	}
}

// Forget deletes the tenant's imports and every file under its imports'
// folder (those of an import that expired too): their files and results
// name people, so an erasure in the tenant removes them.
func (s *Service) Forget(ctx context.Context, tenantID string) error {
	all, err := s.repo(tenantID).All(ctx, docstore.Query{})
	if err != nil {
		return err
	}
	for _, im := range all {
		if err := s.repo(tenantID).Delete(ctx, im.ID, ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return err
		}
	}
	return s.removeOrphans(ctx, tenantID, nil, time.Time{})
}

// removeOrphans deletes the files under the tenant's imports' folder whose
// import is not in keep (an import that expired, or all when keep is nil)
// and that were written before (any time, when before is zero).
func (s *Service) removeOrphans(ctx context.Context, tenantID string, keep map[string]bool, before time.Time) error {
	prefix := "imports/" + tenantID + "/"
	for info, err := range s.blobs.List(ctx, prefix) {
		if err != nil {
			return err
		}
		id, _, _ := strings.Cut(strings.TrimPrefix(info.Name, prefix), "/")
		if keep[id] || !before.IsZero() && info.ModTime.After(before) {
			continue
		}
		if err := s.blobs.Delete(ctx, info.Name); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return err
		}
	}
	return nil
}
