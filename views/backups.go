package views

import (
	"context"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
)

// BackupsPath is a tenant's backups page.
func BackupsPath(tenantID string) string { return "/t/" + tenantID + "/backups" }

// BackupJobPath is one job of a tenant.
func BackupJobPath(tenantID, jobID string) string { return BackupsPath(tenantID) + "/jobs/" + jobID }

// BackupHistoryPath is a tenant's list of backup runs.
func BackupHistoryPath(tenantID string) string { return BackupsPath(tenantID) + "/history" }

// BackupRunPath is one run of a tenant, and its archive.
func BackupRunPath(tenantID, historyID string) string {
	return BackupHistoryPath(tenantID) + "/" + historyID
}

// restoreReported is how long the backups page says a restore finished.
const restoreReported = 24 * time.Hour

// BackupsView is what the backups page shows.
type BackupsView struct {
	Jobs     []BackupJobRow
	Alerts   []BackupAlert
	Recent   []*kanri.BackupHistory
	Restore  *kanri.BackupRestore
	Location *time.Location
	// ErasedAt is when the tenant last erased someone (zero: never):
	// the runs before hold their data.
	ErasedAt time.Time
	// Zone names the time zone schedules are read in: the tenant's,
	// chosen on its settings page.
	Zone string
}

// BackupJobRow is one job with its next runs.
type BackupJobRow struct {
	Job  *kanri.BackupJob
	Next []time.Time
}

// BackupAlert is a job that needs attention.
type BackupAlert struct {
	Job   *kanri.BackupJob
	Kind  string // failed or overdue
	Since kanri.Time
}

// BackupJobForm is the job form.
type BackupJobForm struct {
	Job      *kanri.BackupJob
	Input    kanri.BackupJobInput
	Errors   Errors
	Next     []time.Time
	Location *time.Location
	// ScheduleDetail is the cron library's explanation of a bad schedule.
	ScheduleDetail string
}

// Chose reports whether the form has part chosen.
func (f BackupJobForm) Chose(part string) bool {
	for _, p := range f.Input.Parts {
		if p == part {
			return true
		}
	}
	return false
}

// BackupRunView is a run and its archive.
type BackupRunView struct {
	Run      *kanri.BackupHistory
	Manifest *BackupManifest
	// Damaged is why the archive cannot be read, when it cannot.
	Damaged  string
	Location *time.Location
	// ErasedSince says the tenant erased someone after the run: the
	// archive holds their data, and its restore erases them again.
	ErasedSince bool
}

// BackupManifest is what the run page shows of a manifest.
type BackupManifest struct {
	Consistency string
	Kanri       string
	Parts       []BackupPart
	Files       int
	FilesBytes  int64
	NewFiles    int
}

// BackupPart is one part of an archive.
type BackupPart struct {
	Name      string
	Documents int
	Bytes     int64
	SHA256    string
}

// BackupRestoreView is the restore page: the dry run and the confirmation.
type BackupRestoreView struct {
	Run      *kanri.BackupHistory
	Tenant   *kanri.Tenant
	Parts    []string
	Diffs    []BackupDiff
	Changes  []BackupChange
	Total    int
	Offset   int
	NextURL  string
	PrevURL  string
	Location *time.Location
	Errors   Errors
	Confirm  string
	// ComputedAt is when the archive and the tenant were compared;
	// AgainURL compares them again.
	ComputedAt time.Time
	AgainURL   string
	// Running says the comparison is still being made, in Phase, Count
	// documents of it done (the archive holds Of); SelfURL shows the page
	// again. Failed says why it could not be made.
	Running   bool
	Phase     string
	Count, Of int
	SelfURL   string
	Failed    string
	// ErasedSince is the run page's.
	ErasedSince bool
}

// BackupDiff counts one part's changes.
type BackupDiff struct {
	Part                    string
	Added, Changed, Removed int
}

// BackupChange is one changed document.
type BackupChange struct {
	Part, Container, ID, Type string
	Label                     string
	Kind                      string
}

// docTypeName names a document type for a person, in their language where
// the catalog has it (doctype.<type>), else as the type itself.
func docTypeName(ctx context.Context, typ string) string {
	if i18n.Has("doctype." + typ) {
		return i18n.T(ctx, "doctype."+typ)
	}
	return typ
}

// ChosePart reports whether the restore has part chosen.
func (v BackupRestoreView) ChosePart(part string) bool {
	for _, p := range v.Parts {
		if p == part {
			return true
		}
	}
	return false
}

// WhenIn formats an instant in loc with the zone's abbreviation, or a dash
// for the zero time.
func WhenIn(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "—"
	}
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format("2006-01-02 15:04 MST")
}

// Seconds formats a duration in seconds.
func Seconds(n int) string { return (time.Duration(n) * time.Second).String() }

// partsText names parts in the reader's language.
func partsText(ctx context.Context, parts []string) string {
	if len(parts) == len(kanri.AllBackupParts) {
		return T(ctx, "backups.part_all")
	}
	names := make([]string, len(parts))
	for i, p := range parts {
		names[i] = T(ctx, "backups.part_"+p)
	}
	return strings.Join(names, ", ")
}
