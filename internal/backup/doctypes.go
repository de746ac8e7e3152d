package backup

import (
	"time"

	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// notInBackups is why the backups' own documents are not in backups.
const notInBackups = "the backups' own jobs and records are not inside the backups they make, so that a restore never rewinds them"

// DocTypes are the document types of backups (docs/architecture.md,
// "Document types").
var DocTypes = []doctype.Type{
	{
		Name: kanri.TypeBackupJob, Container: kanri.ContainerBackup, Of: &kanri.BackupJob{},
		Indexes: []doctype.Index{
			{Name: "job_name", Fields: []string{"name"}},
			{Name: "job_due", Fields: []string{"isActive", "nextRunAt"}},
		},
		Backup:   doctype.NotBackedUp(notInBackups),
		Personal: doctype.Personal{Owner: "createdBy", Data: []string{"createdBy"}},
		Erasure:  doctype.KeepFor("the organisation's backup job; its creator is named by id only, and the user is pseudonymised"),
	},
	{
		Name: kanri.TypeBackupHistory, Container: kanri.ContainerBackup, Of: &kanri.BackupHistory{},
		Indexes: []doctype.Index{
			{Name: "history_job_started", Fields: []string{"jobId", "startedAt"}},
			{Name: "history_started", Fields: []string{"startedAt"}},
			{Name: "history_status_started", Fields: []string{"status", "startedAt"}},
		},
		Backup:    doctype.NotBackedUp(notInBackups),
		Personal:  doctype.Personal{Owner: "startedBy", Data: []string{"startedBy"}},
		Erasure:   doctype.KeepFor("the record of a backup the organisation made; who started it is named by id only, and the user is pseudonymised"),
		Retention: doctype.Retention{TTL: kanri.TTLBackupHistory * time.Second},
	},
	{
		Name: kanri.TypeBackupRestore, Container: kanri.ContainerBackup, Of: &kanri.BackupRestore{},
		Indexes: []doctype.Index{
			{Name: "restore_status", Fields: []string{"status", "startedAt"}},
			{Name: "restore_started", Fields: []string{"startedAt"}},
		},
		Backup:    doctype.NotBackedUp(notInBackups),
		Personal:  doctype.Personal{Owner: "startedBy", Data: []string{"startedBy"}},
		Erasure:   doctype.KeepFor("the record of a restore of the organisation's data; who started it is named by id only, and the user is pseudonymised"),
		Retention: doctype.Retention{TTL: kanri.TTLBackupRestore * time.Second},
	},
	{
		Name: TypeDryRun, Container: kanri.ContainerBackup, Of: &DryRunRecord{},
		Backup:    doctype.NotBackedUp("a restore's dry run of the moment, compared again when it is gone"),
		Personal:  doctype.Personal{Owner: "startedBy", Data: []string{"startedBy"}},
		Erasure:   doctype.Erase(),
		Retention: doctype.Retention{TTL: dryRunTTL},
	},
	{
		Name: TypeDryRunChanges, Container: kanri.ContainerBackup, Of: &DryRunChanges{},
		Backup:    doctype.NotBackedUp("a restore's dry run of the moment; its changes name people, so every erasure in the tenant deletes them"),
		Retention: doctype.Retention{TTL: dryRunTTL + 10*time.Minute},
	},
	{
		Name: kanri.TypeLimitGuard, Container: kanri.ContainerBackup, Of: &kanri.LimitGuard{},
		Backup: doctype.NotBackedUp("a version counter that serialises the creation of backup jobs under the plan's limit; made again on first use"),
	},
}

// Container is the backup container: jobs, runs, archives and the
// scheduler's claims.
var Container = doctype.Container{Name: kanri.ContainerBackup, Indexing: doctype.DefaultIndexing()}
