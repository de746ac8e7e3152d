package backups

import (
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// Routes are the pages of a tenant's backup jobs, archives and restores.
func (s *Pages) Routes(g console.Groups) []console.Route {
	bk := g.Tenant.Group("/backups", httpkit.Usable(s.Catalog, kanri.BackupServiceID))
	// A backup's progress, live (server-sent events): a session like the
	// console, but no body limit or deadline.
	g.Echo.GET("/t/:tenant/backups/events", s.backupEvents, s.RequireUser, s.ResolveTenant, httpkit.Usable(s.Catalog, kanri.BackupServiceID), httpkit.Need(role.BackupsRead)).Name = "perm:" + role.BackupsRead

	return []console.Route{
		console.Get(bk, "", role.BackupsRead, s.listBackups),
		console.Get(bk, "/new", role.BackupsCreate, s.newBackupJob),
		console.Post(bk, "", role.BackupsCreate, s.createBackupJob),
		console.Get(bk, "/schedule", role.BackupsRead, s.schedulePreview),
		console.Get(bk, "/jobs/:job/edit", role.BackupsUpdate, s.editBackupJob),
		console.Post(bk, "/jobs/:job", role.BackupsUpdate, s.updateBackupJob),
		console.Post(bk, "/jobs/:job/pause", role.BackupsUpdate, s.pauseBackupJob),
		console.Post(bk, "/jobs/:job/resume", role.BackupsUpdate, s.resumeBackupJob),
		console.Post(bk, "/jobs/:job/delete", role.BackupsDelete, s.deleteBackupJob),
		console.Post(bk, "/jobs/:job/run", role.BackupsExecute, s.runBackupJob),
		console.Get(bk, "/history", role.BackupsRead, s.listBackupRuns),
		console.Get(bk, "/history/:id", role.BackupsRead, s.showBackupRun),
		console.NoSupport(console.Get(bk, "/history/:id/download", role.BackupsExecute, s.Streaming(console.ExportTimeout, s.downloadBackup))),
		console.NoSupport(console.Get(bk, "/history/:id/restore", role.BackupsExecute, s.showRestore)),
		console.NoSupport(console.Post(bk, "/history/:id/restore", role.BackupsExecute, s.restoreBackup)),
		console.NoSupport(console.Post(bk, "/history/:id/copy", role.TenantsCreate, s.copyBackup)),
		console.NoSupport(console.Post(bk, "/restores/:restore/retry", role.BackupsExecute, s.retryRestore)),
	}
}

// Nav are the feature's entries of the side navigation.
func (s *Pages) Nav() []views.NavEntry {
	return []views.NavEntry{
		{Key: "backups", LabelKey: "nav.backups", Path: views.BackupsPath, Perm: role.BackupsRead, Service: kanri.BackupServiceID, Order: 70},
	}
}
