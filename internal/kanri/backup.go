package kanri

import (
	"slices"
	"strconv"
	"strings"
)

// BackupJob is a scheduled backup of a tenant's data
// (docs/data-model.md, "Backups"). Its Schedule is a 5-field cron
// expression read in the tenant's time zone; Target is "all" or the parts
// it copies, comma-separated (see BackupParts).
type BackupJob struct {
	Doc
	Name          string `json:"name"`
	Description   string `json:"description"`
	Schedule      string `json:"schedule"`
	Target        string `json:"target"`
	RetentionDays int    `json:"retentionDays"`
	IsActive      bool   `json:"isActive"`
	CreatedBy     string `json:"createdBy"`
	CreatedAt     Time   `json:"createdAt"`
	UpdatedAt     Time   `json:"updatedAt"`
	LastRunAt     Time   `json:"lastRunAt"`
	NextRunAt     Time   `json:"nextRunAt"`
	// LastSuccessAt is when the job last finished a backup; with the
	// schedule's interval it tells whether the job is overdue.
	LastSuccessAt Time `json:"lastSuccessAt"`
	// LastStatus is the status of the job's latest run ("" before one).
	LastStatus string `json:"lastStatus,omitempty"`
}

// Parts returns the parts the job copies.
func (j *BackupJob) Parts() []string { return BackupParts(j.Target) }

// State is what an edit of the job depends on.
func (j *BackupJob) State() string {
	return StateOf(j.Name, j.Description, j.Schedule, j.Target, strconv.Itoa(j.RetentionDays), boolString(j.IsActive))
}

// Backup statuses of a run (BackupHistory.Status).
const (
	BackupRunning = "running"
	BackupSuccess = "success"
	BackupFailed  = "failed"
)

// How a backup run was started.
const (
	TriggerSchedule = "schedule"
	TriggerManual   = "manual"
	// TriggerMigration is a copy the batch migration takes of what it
	// will change, to roll back to.
	TriggerMigration = "migration"
)

// BackupHistory is one run of a backup job (docs/data-model.md, "Backups").
// It expires after a year (docs/data-model.md, "Retention").
type BackupHistory struct {
	Doc
	JobID           string  `json:"jobId"`
	JobName         string  `json:"jobName"`
	Status          string  `json:"status"`
	BackupSize      int64   `json:"backupSize"`
	StorageLocation string  `json:"storageLocation"`
	ItemsBackedUp   int     `json:"itemsBackedUp"`
	StartedAt       Time    `json:"startedAt"`
	CompletedAt     Time    `json:"completedAt"`
	Duration        int     `json:"duration"`
	ErrorMessage    *string `json:"errorMessage"`
	TTL             int     `json:"ttl,omitempty"`
	// Parts are the parts the run copies.
	Parts []string `json:"parts"`
	// Trigger says whether the schedule or a person started the run, and
	// StartedBy who.
	Trigger   string `json:"trigger"`
	StartedBy string `json:"startedBy,omitempty"`
	// BytesWritten is what the run added to the blob store: its parts and
	// the files no earlier archive of the tenant kept.
	BytesWritten int64 `json:"bytesWritten"`
	// ArchiveDeletedAt is when retention deleted the run's archive.
	ArchiveDeletedAt Time `json:"archiveDeletedAt"`
}

// Restorable reports whether the run left an archive one can restore.
func (h *BackupHistory) Restorable() bool {
	return h.Status == BackupSuccess && h.ArchiveDeletedAt.IsZero()
}

// The parts of a tenant's data a backup copies and a restore puts back.
const (
	PartUsers    = "users"    // users, their roles, memberships and sign-in providers
	PartServices = "services" // service assignments and usage, e-mail domains
	PartFiles    = "files"    // files and folders, with their contents
	PartChannels = "channels" // channels, members, messages and reactions
	PartAPIKeys  = "apikeys"  // API keys, settings and usage
	PartAudit    = "audit"    // the audit log
)

// AllBackupParts are the parts, in the order archives list them.
var AllBackupParts = []string{PartUsers, PartServices, PartFiles, PartChannels, PartAPIKeys, PartAudit}

// BackupTargetAll is the Target of a job that copies every part.
const BackupTargetAll = "all"

// BackupParts returns the parts a job's target names: all of them for
// "all", else the known names in the list, in archive order.
func BackupParts(target string) []string {
	if target == BackupTargetAll || target == "" {
		return slices.Clone(AllBackupParts)
	}
	names := strings.Split(target, ",")
	var out []string
	for _, p := range AllBackupParts {
		if slices.Contains(names, p) {
			out = append(out, p)
		}
	}
	return out
}

// BackupTarget returns the Target for parts: "all" when every part is
// chosen.
func BackupTarget(parts []string) string {
	parts = BackupParts(strings.Join(parts, ","))
	if len(parts) == len(AllBackupParts) {
		return BackupTargetAll
	}
	return strings.Join(parts, ",")
}

// BackupJobInput is what the job form edits.
type BackupJobInput struct {
	Name          string
	Description   string
	Schedule      string
	Parts         []string
	RetentionDays int
	IsActive      bool
}

// Restore statuses.
const (
	RestoreRunning = "running"
	RestoreDone    = "done"
	RestoreFailed  = "failed"
)

// TypeBackupRestore is a restore of an archive into a tenant: its record
// lets an interrupted restore be finished by any instance.
const TypeBackupRestore = "backup_restore"

// BackupRestore is one restore of an archive.
type BackupRestore struct {
	Doc
	HistoryID string `json:"historyId"`
	// SourceTenantID is the tenant whose archive is restored: the tenant
	// itself, or another one for a restore into a new tenant.
	SourceTenantID string   `json:"sourceTenantId"`
	Parts          []string `json:"parts"`
	Status         string   `json:"status"`
	StartedBy      string   `json:"startedBy"`
	StartedAt      Time     `json:"startedAt"`
	CompletedAt    Time     `json:"completedAt"`
	Attempts       int      `json:"attempts"`
	ErrorMessage   string   `json:"errorMessage,omitempty"`
	// Written and Removed count the documents the restore wrote and
	// removed.
	Written int `json:"written"`
	Removed int `json:"removed"`
	TTL     int `json:"ttl,omitempty"`
}

// TTLBackupRestore keeps a restore's record for a year, like the history.
const TTLBackupRestore = TTLBackupHistory

// TTLField implements Expiring.
func (r *BackupRestore) TTLField() (*int, int) { return &r.TTL, TTLBackupRestore }

// DefaultTimeZone is a tenant's time zone until it chooses one.
const DefaultTimeZone = "Asia/Tokyo"
