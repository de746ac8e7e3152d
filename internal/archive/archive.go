// Package archive moves a tenant's records to the blob store before they
// expire (docs/backups.md, "Archive"; the data model's §10.3): the types
// that declare it (doctype.Retention.Archive) are found within days of
// their expiry, written in the backups' archive format (sealed parts and
// a manifest) under archive/, read back and checked, and only then
// deleted from the store; the parts then go to the archive tier (offline
// on Azure, until rehydrated on request). An erasure reaches the archives
// too: those holding the person are rewritten without them.
package archive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/schedule"
	"github.com/kanri/kanri/internal/seal"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/tenant"
)

// The document types of archiving.
const (
	TypeSettings = "archive_settings"
	TypeArchive  = "archive"
	settingsID   = "archive_settings"
)

// DefaultDays is how many days before its expiry a record is archived
// when the tenant did not say; MaxDays the most it may say.
const (
	DefaultDays = 7
	MaxDays     = 30
)

// maxRecords is the most records one archive holds; a pass writes as
// many archives as it needs.
const maxRecords = 10_000

// The states of an archive.
const (
	// StateWriting: its blobs are being written; a pass cut short
	// deletes them and starts again.
	StateWriting = "writing"
	// StateDeleting: written and checked; its records are being deleted
	// from the store (those unchanged since they were archived).
	StateDeleting = "deleting"
	// StateArchived: in the archive tier (offline on Azure).
	StateArchived = "archived"
	// StateRehydrating: on its way back from the archive tier.
	StateRehydrating = "rehydrating"
	// StateAvailable: readable: its records can be viewed and downloaded.
	StateAvailable = "available"
)

// Settings are what a tenant archives.
type Settings struct {
	kanri.Doc
	Enabled bool `json:"enabled"`
	// Optional are the types archived on request that the tenant chose.
	Optional []string `json:"optional"`
	// Days is how many days before its expiry a record is archived.
	Days      int        `json:"days"`
	UpdatedAt kanri.Time `json:"updatedAt"`
	UpdatedBy string     `json:"updatedBy,omitempty"`
}

// Archive is one archive of a tenant's records.
type Archive struct {
	kanri.Doc
	State string `json:"state"`
	// From and To are the times (the types' Since fields) of its oldest
	// and newest record.
	From      kanri.Time `json:"from"`
	To        kanri.Time `json:"to"`
	Documents int        `json:"documents"`
	Bytes     int64      `json:"bytes"`
	Parts     []Part     `json:"parts"`
	// Sealed names the key its parts are sealed to.
	Sealed string `json:"sealed"`
	// People are the ids of the people whose data it holds (the records'
	// owners and subjects), for their erasure.
	People []string `json:"people"`
	// Pending are the people erased since, whose data it still holds
	// until it is readable again and rewritten: each sealed (their
	// patterns exist nowhere else).
	Pending []string `json:"pending,omitempty"`
	// Deleted counts the records deleted from the store; Kept those
	// changed since they were archived, left in the store.
	Deleted     int        `json:"deleted"`
	Kept        int        `json:"kept"`
	CreatedAt   kanri.Time `json:"createdAt"`
	ArchivedAt  kanri.Time `json:"archivedAt,omitzero"`
	RequestedAt kanri.Time `json:"requestedAt,omitzero"`
	RequestedBy string     `json:"requestedBy,omitempty"`
	AvailableAt kanri.Time `json:"availableAt,omitzero"`
}

// Count returns how many records of type typ the archive holds.
func (a *Archive) Count(typ string) int {
	for _, p := range a.Parts {
		if p.Type == typ {
			return p.Documents
		}
	}
	return 0
}

// Part is the file of one type's records in an archive.
type Part struct {
	Type      string `json:"type"`
	Container string `json:"container"`
	Blob      string `json:"blob"`
	Documents int    `json:"documents"`
	Bytes     int64  `json:"bytes"`
	SHA256    string `json:"sha256"`
}

// DocTypes are the document types of archiving.
var DocTypes = []doctype.Type{
	{
		Name: TypeSettings, Container: kanri.ContainerTenant, Of: &Settings{},
		Backup: doctype.InPart(kanri.PartServices),
	},
	{
		Name: TypeArchive, Container: kanri.ContainerTenant, Of: &Archive{},
		Indexes: []doctype.Index{{Name: "archive_created", Fields: []string{"createdAt"}}},
		Backup:  doctype.NotBackedUp("the list of the tenant's archives, which are in the blob store, not in a backup"),
	},
}

// Service archives the tenants' records.
type Service struct {
	app.Deps
	tenants *tenant.Service
	blobs   *blob.Bucket
	keys    *seal.Keys
	sched   *schedule.Scheduler
	// halt, when set, is called at each step of a pass with its name: a
	// test stops the process there (KANRI_TEST_ARCHIVE_HALT).
	halt func(step string)
}

// New returns the archiving of d's tenants into blobs, sealed with keys;
// sched's lease makes one pass run at a time across instances.
func New(d app.Deps, tenants *tenant.Service, blobs *blob.Bucket, keys *seal.Keys, sched *schedule.Scheduler) *Service {
	return &Service{Deps: d, tenants: tenants, blobs: blobs, keys: keys, sched: sched}
}

// Lease is the lease, in the _system partition, that a pass holds: one
// at a time across instances and the command, so that no record is
// archived twice; LeaseTerm is how long one cut short keeps the next
// waiting.
const (
	Lease     = "archive"
	LeaseTerm = 2 * time.Minute
)

// holding runs fn holding the lease; ECONFLICT when another pass holds it.
func (s *Service) holding(ctx context.Context, fn func(ctx context.Context) error) error {
	l, err := s.sched.Acquire(ctx, kanri.SystemTenantID, Lease, "archive", LeaseTerm)
	if errors.Is(err, schedule.ErrHeld) {
		return kanri.Wrap(kanri.ECONFLICT, "archive.error.busy", err)
	}
	if err != nil {
		return err
	}
	return l.Hold(ctx, fn)
}

// HaltAt has fn called at each step of a pass (for a test that kills the
// process there).
func (s *Service) HaltAt(fn func(step string)) { s.halt = fn }

func (s *Service) step(name string) {
	if s.halt != nil {
		s.halt(name)
	}
}

func (s *Service) settings(tenantID string) *store.Repo[Settings, *Settings] {
	return store.Of[Settings](s.Store.Tenant(tenantID), kanri.ContainerTenant, TypeSettings)
}

func (s *Service) archives(tenantID string) *store.Repo[Archive, *Archive] {
	return store.Of[Archive](s.Store.Tenant(tenantID), kanri.ContainerTenant, TypeArchive)
}

// Archivable returns the types whose records are archived: always, or
// when chosen.
func (s *Service) Archivable() []doctype.Type {
	var out []doctype.Type
	for _, t := range s.Store.Types().Types() {
		if t.Retention.Archive != doctype.NotArchived {
			out = append(out, t)
		}
	}
	return out
}

// Settings returns what the tenant archives (off, when it never said).
func (s *Service) Settings(ctx context.Context, tenantID string) (*Settings, error) {
	st, err := s.settings(tenantID).Get(ctx, settingsID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return &Settings{Doc: kanri.Doc{ID: settingsID}, Days: DefaultDays}, nil
	}
	return st, err
}

// SettingsInput is a change of what a tenant archives.
type SettingsInput struct {
	Enabled  bool
	Optional []string
	Days     int
}

// SaveSettings changes what the tenant archives, at the version seen.
func (s *Service) SaveSettings(ctx context.Context, tenantID string, in SettingsInput, seen kanri.Seen) (*Settings, error) {
	if in.Days < 1 || in.Days > MaxDays {
		return nil, kanri.Invalid(kanri.Fields{"days": "archive.error.days"})
	}
	for _, name := range in.Optional {
		if !slices.ContainsFunc(s.Archivable(), func(t doctype.Type) bool {
			return t.Name == name && t.Retention.Archive == doctype.ArchiveOnRequest
		}) {
			return nil, kanri.Invalid(kanri.Fields{"optional": "archive.error.type"})
		}
	}
	cur, err := s.Settings(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	if seen.ETag != "" && cur.ETag != "" && seen.ETag != cur.ETag {
		return nil, kanri.E(kanri.ESTALE, "stale.title")
	}
	before := map[string]any{"enabled": cur.Enabled, "optional": strings.Join(cur.Optional, ","), "days": cur.Days}
	cur.Enabled, cur.Optional, cur.Days = in.Enabled, slices.Clone(in.Optional), in.Days
	cur.UpdatedAt, cur.UpdatedBy = kanri.NewTime(s.Now()), actorName(ctx)
	if cur.ETag == "" {
		if err := s.settings(tenantID).Create(ctx, cur); kanri.IsCode(err, kanri.ECONFLICT) {
			return nil, kanri.E(kanri.ESTALE, "stale.title")
		} else if err != nil {
			return nil, err
		}
	} else if err := s.settings(tenantID).Replace(ctx, cur); err != nil {
		return nil, err
	}
	s.Audit.Change(ctx, tenantID, "archive.settings", kanri.AuditResource{Type: kanri.AuditArchive, ID: settingsID},
		before, map[string]any{"enabled": cur.Enabled, "optional": strings.Join(cur.Optional, ","), "days": cur.Days})
	return cur, nil
}

// List returns a page of the tenant's archives, newest first.
func (s *Service) List(ctx context.Context, tenantID string, limit int, continuation string) ([]*Archive, string, error) {
	return s.archives(tenantID).Query(ctx, docstoreQuery(limit, continuation))
}

// Get returns one of the tenant's archives.
func (s *Service) Get(ctx context.Context, tenantID, id string) (*Archive, error) {
	return s.archives(tenantID).Get(ctx, id)
}

// blobName names an archive's blobs: archive/<tenant>/<archive>/<file>.
func blobName(tenantID, archiveID, file string) string {
	return "archive/" + tenantID + "/" + archiveID + "/" + file
}

// cutoff is the newest time of a record of t that is within days of its
// expiry at now.
func cutoff(t doctype.Type, now time.Time, days int) time.Time {
	return now.Add(-t.Retention.TTL + time.Duration(days)*24*time.Hour)
}

// decode reads a document.
func decode(body []byte) (map[string]any, error) {
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("archive: a record is not JSON: %w", err)
	}
	return doc, nil
}

// docstoreQuery is the query of a page of archives, newest first.
func docstoreQuery(limit int, continuation string) docstore.Query {
	return docstore.Query{OrderBy: "createdAt", Desc: true, Limit: limit, Continuation: continuation}
}
