package web

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/static"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// exportTimeout is how long a streamed export may take to write.
const exportTimeout = 10 * time.Minute

// routes declares every route of the server, in one place, each with what
// it needs. Route groups carry their own middleware: the console's pages
// and forms have its body limit and timeout and CSRF check (a JSON API with bearer keys
// or an upload route would be groups of their own); /tenants is the
// global administrators'; /t/:tenant resolves the tenant and hides other
// tenants.
func (s *Server) routes(e *echo.Echo) {
	e.IPExtractor = s.origin.IPExtractor()
	e.SchemeExtractor = s.origin.Scheme
	e.Pre(httpkit.HeadAsGet(&s.heads))
	e.Use(httpkit.HeadRestored, middleware.Recover(), console.SecureHeaders, s.RequestContext, s.api.Preflight)

	e.GET("/healthz", s.healthz).Name = httpkit.RoutePublic
	e.GET("/readyz", s.readyz).Name = httpkit.RoutePublic
	e.StaticFS("/static", static.FS).Name = httpkit.RoutePublic
	e.GET("/favicon.ico", func(c echo.Context) error {
		return c.Redirect(http.StatusMovedPermanently, "/static/img/favicon.svg")
	}).Name = httpkit.RoutePublic

	// The JSON API and its reference.
	s.api.Register(e)

	console := e.Group("", httpkit.Bodies(s.bodyTimeout, httpkit.ConsoleBodyLimit, true), s.CSRF)
	console.GET("/login", s.loginForm).Name = httpkit.RoutePublic
	console.POST("/login", s.login).Name = httpkit.RoutePublic
	console.GET("/login/2fa", s.secondFactorForm).Name = httpkit.RoutePublic
	console.POST("/login/2fa", s.secondFactor).Name = httpkit.RoutePublic
	console.POST("/login/2fa/cancel", s.cancelSecondFactor).Name = httpkit.RoutePublic
	console.POST("/lang", s.setLang).Name = httpkit.RoutePublic
	console.POST("/theme", s.setTheme).Name = httpkit.RoutePublic

	app := console.Group("", s.RequireUser)
	app.GET("/", s.home).Name = httpkit.RouteSignedIn
	app.POST("/logout", s.logout).Name = httpkit.RouteSignedIn
	app.GET("/account", s.account).Name = httpkit.RouteSignedIn
	app.POST("/account/password", s.changePassword).Name = httpkit.RouteSignedIn
	app.POST("/account/sessions/:session/end", s.endOwnSession).Name = httpkit.RouteSignedIn
	app.POST("/account/sessions/end-others", s.endOtherSessions).Name = httpkit.RouteSignedIn
	app.POST("/account/profile", s.updateOwnProfile).Name = httpkit.RouteSignedIn
	app.POST("/account/avatar", s.uploadOwnAvatar).Name = httpkit.RouteSignedIn
	app.GET("/account/avatar", s.ownAvatar).Name = httpkit.RouteSignedIn
	app.GET("/account/2fa", s.twoFactorPage).Name = httpkit.RouteSignedIn
	app.POST("/account/2fa/setup", s.setupTwoFactor).Name = httpkit.RouteSignedIn
	app.POST("/account/2fa/confirm", s.confirmTwoFactor).Name = httpkit.RouteSignedIn
	app.POST("/account/2fa/disable", s.disableTwoFactor).Name = httpkit.RouteSignedIn

	staff := app.Group("", s.RequireGlobalAdmin)
	t := app.Group("/t/:tenant", s.ResolveTenant)
	fs := t.Group("/files", httpkit.Usable(s.Catalog, kanri.FileServiceID))
	ch := t.Group("/channels", httpkit.Usable(s.Catalog, kanri.MessagingServiceID))
	bk := t.Group("/backups", httpkit.Usable(s.Catalog, kanri.BackupServiceID))

	// A tab's live updates (server-sent events): a session like the
	// console, but no body limit or deadline: the stream lasts as long as
	// the tab, and ends with its session.
	e.GET("/t/:tenant/events", s.live.Channels, s.RequireUser, s.ResolveTenant, httpkit.Usable(s.Catalog, kanri.MessagingServiceID)).Name = "perm:" + role.ChannelsRead
	e.GET("/t/:tenant/backups/events", s.backupEvents, s.RequireUser, s.ResolveTenant, httpkit.Usable(s.Catalog, kanri.BackupServiceID), httpkit.Need(role.BackupsRead)).Name = "perm:" + role.BackupsRead

	// Resumable uploads (tus): a session and the CSRF header like the
	// console, but their own body handling (no console body limit: each
	// PATCH is bounded by what is left of its upload) and no read or write
	// deadline but an idle one.
	tu := s.consoleUploads()
	up := e.Group("/t/:tenant/uploads", s.RequireUser, s.ResolveTenant, s.CSRF, httpkit.Usable(s.Catalog, kanri.FileServiceID))
	up.OPTIONS("", tu.Options, httpkit.Need(role.FilesCreate)).Name = "perm:" + role.FilesCreate
	up.POST("", tu.Create, httpkit.Need(role.FilesCreate)).Name = "perm:" + role.FilesCreate
	up.HEAD("/:upload", tu.Head, httpkit.Need(role.FilesCreate)).Name = "perm:" + role.FilesCreate // not GET: HEAD is its own here
	up.PATCH("/:upload", tu.Patch, httpkit.Need(role.FilesCreate)).Name = "perm:" + role.FilesCreate
	up.DELETE("/:upload", tu.Delete, httpkit.Need(role.FilesCreate)).Name = "perm:" + role.FilesCreate

	type route struct {
		g      *echo.Group
		method string
		path   string
		perm   string
		h      echo.HandlerFunc
	}
	for _, r := range []route{
		{staff, http.MethodGet, "/switch", role.TenantsRead, s.switchTenant},
		{staff, http.MethodGet, "/tenants", role.TenantsRead, s.listTenants},
		{staff, http.MethodGet, "/tenants/new", role.TenantsCreate, s.newTenant},
		{staff, http.MethodPost, "/tenants", role.TenantsCreate, s.createTenant},
		{staff, http.MethodGet, "/tenants/:id/edit", role.TenantsUpdate, s.editTenant},
		{staff, http.MethodPost, "/tenants/:id", role.TenantsUpdate, s.updateTenant},
		{staff, http.MethodPost, "/tenants/:id/suspend", role.TenantsUpdate, s.suspendTenant},
		{staff, http.MethodPost, "/tenants/:id/reactivate", role.TenantsUpdate, s.reactivateTenant},
		{staff, http.MethodPost, "/tenants/:id/delete", role.TenantsDelete, s.deleteTenant},

		{staff, http.MethodGet, "/services", role.ServicesManage, s.listServices},
		{staff, http.MethodGet, "/services/new", role.ServicesManage, s.newService},
		{staff, http.MethodGet, "/services/usage", role.ServicesManage, s.servicesUsage},
		{staff, http.MethodPost, "/services", role.ServicesManage, s.createService},
		{staff, http.MethodGet, "/services/:id/edit", role.ServicesManage, s.editService},
		{staff, http.MethodPost, "/services/:id", role.ServicesManage, s.updateService},
		{staff, http.MethodPost, "/services/:id/deactivate", role.ServicesManage, s.deactivateService},
		{staff, http.MethodPost, "/services/:id/reactivate", role.ServicesManage, s.reactivateService},
		{staff, http.MethodPost, "/services/:id/delete", role.ServicesManage, s.deleteService},

		{t, http.MethodGet, "/users", role.UsersRead, s.listUsers},
		{t, http.MethodGet, "/users/new", role.UsersCreate, s.newUser},
		{t, http.MethodPost, "/users", role.UsersCreate, s.createUser},
		{t, http.MethodGet, "/users/:id/edit", role.UsersUpdate, s.editUser},
		{t, http.MethodPost, "/users/:id", role.UsersUpdate, s.updateUser},
		{t, http.MethodPost, "/users/:id/deactivate", role.UsersUpdate, s.deactivateUser},
		{t, http.MethodPost, "/users/:id/reactivate", role.UsersUpdate, s.reactivateUser},
		{t, http.MethodPost, "/users/:id/unlock", role.UsersUpdate, s.unlockUser},
		{t, http.MethodPost, "/users/:id/password", role.UsersUpdate, s.resetPassword},
		{t, http.MethodPost, "/users/:id/sessions/end", role.UsersUpdate, s.endUserSessions},
		{t, http.MethodPost, "/users/:id/2fa/reset", role.UsersUpdate, s.resetTwoFactor},
		{t, http.MethodPost, "/users/:id/profile", role.UsersUpdate, s.updateProfile},
		{t, http.MethodPost, "/users/:id/avatar", role.UsersUpdate, s.uploadAvatar},
		{t, http.MethodGet, "/users/:id/avatar", role.UsersRead, s.avatar},
		{t, http.MethodPost, "/users/:id/delete", role.UsersDelete, s.deleteUser},

		{t, http.MethodGet, "/roles", role.RolesRead, s.listRoles},
		{t, http.MethodGet, "/roles/:service/:role", role.RolesRead, s.roleHolders},
		{t, http.MethodGet, "/users/:id/roles", role.RolesRead, s.userRoles},
		{t, http.MethodPost, "/users/:id/roles", role.RolesUpdate, s.assignRole},
		{t, http.MethodPost, "/users/:id/roles/remove", role.RolesUpdate, s.removeRole},

		{t, http.MethodGet, "/services", role.ServicesRead, s.listTenantServices},
		{t, http.MethodGet, "/services/:service", role.ServicesRead, s.tenantServiceUsage},
		{t, http.MethodGet, "/services/:service/edit", role.ServicesUpdate, s.editAssignment},
		{t, http.MethodPost, "/services/:service", role.ServicesUpdate, s.saveAssignment},
		{t, http.MethodPost, "/services/:service/suspend", role.ServicesUpdate, s.suspendAssignment},
		{t, http.MethodPost, "/services/:service/reactivate", role.ServicesUpdate, s.reactivateAssignment},
		{t, http.MethodPost, "/services/:service/end", role.ServicesUpdate, s.endAssignment},

		{t, http.MethodGet, "/domains", role.DomainsRead, s.listDomains},
		{t, http.MethodPost, "/domains", role.DomainsCreate, s.addDomain},
		{t, http.MethodPost, "/domains/:id/verify", role.DomainsUpdate, s.verifyDomain},
		{t, http.MethodPost, "/domains/:id/delete", role.DomainsDelete, s.deleteDomain},

		{t, http.MethodGet, "/api-keys", role.APIKeysRead, s.listAPIKeys},
		{t, http.MethodGet, "/api-keys/new", role.APIKeysCreate, s.newAPIKey},
		{t, http.MethodGet, "/api-keys/usage", role.APIKeysRead, s.tenantAPIUsage},
		{t, http.MethodGet, "/api-keys/cors", role.APIKeysRead, s.showCORS},
		{t, http.MethodPost, "/api-keys/cors", role.APIKeysUpdate, s.saveCORS},
		{t, http.MethodPost, "/api-keys", role.APIKeysCreate, s.createAPIKey},
		{t, http.MethodGet, "/api-keys/:id", role.APIKeysRead, s.apiKeyUsage},
		{t, http.MethodGet, "/api-keys/:id/secret", role.APIKeysRead, s.showAPIKeySecret},
		{t, http.MethodPost, "/api-keys/:id/deactivate", role.APIKeysUpdate, s.deactivateAPIKey},
		{t, http.MethodPost, "/api-keys/:id/reactivate", role.APIKeysUpdate, s.reactivateAPIKey},
		{t, http.MethodPost, "/api-keys/:id/rotate", role.APIKeysUpdate, s.rotateAPIKey},
		{t, http.MethodPost, "/api-keys/:id/revoke", role.APIKeysDelete, s.revokeAPIKey},

		{fs, http.MethodGet, "", role.FilesRead, s.listFiles},
		{fs, http.MethodGet, "/trash", role.FilesRead, s.listTrash},
		{fs, http.MethodPost, "/trash/empty", role.FilesDelete, s.emptyTrash},
		{fs, http.MethodPost, "/folders", role.FilesCreate, s.createFolder},
		{fs, http.MethodPost, "/uploads/:upload/cancel", role.FilesCreate, s.cancelUpload},
		{fs, http.MethodGet, "/folders/:id", role.FilesRead, s.showFolderPage},
		{fs, http.MethodPost, "/folders/:id/rename", role.FilesUpdate, s.renameFolder},
		{fs, http.MethodPost, "/folders/:id/move", role.FilesUpdate, s.moveFolder},
		{fs, http.MethodPost, "/folders/:id/delete", role.FilesDelete, s.deleteFolder},
		{fs, http.MethodGet, "/:id", role.FilesRead, s.showFile},
		// A member (files.create) changes its own files; anyone else's
		// needs files.update or files.delete (ownFile).
		{fs, http.MethodPost, "/:id", role.FilesCreate, s.ownFile(role.FilesUpdate, s.updateFile)},
		{fs, http.MethodPost, "/:id/move", role.FilesCreate, s.ownFile(role.FilesUpdate, s.moveFile)},
		{fs, http.MethodPost, "/:id/delete", role.FilesCreate, s.ownFile(role.FilesDelete, s.trashFile)},
		{fs, http.MethodPost, "/:id/restore", role.FilesCreate, s.ownFile(role.FilesDelete, s.restoreFile)},
		{fs, http.MethodPost, "/:id/purge", role.FilesDelete, s.purgeFile},
		{fs, http.MethodGet, "/:id/download", role.FilesRead, s.downloadFile},
		{fs, http.MethodGet, "/:id/preview", role.FilesRead, s.previewFile},
		{fs, http.MethodGet, "/:id/thumbnail", role.FilesRead, s.thumbnail},

		{ch, http.MethodGet, "", role.ChannelsRead, s.listChannels},
		{ch, http.MethodGet, "/new", role.ChannelsCreate, s.newChannel},
		{ch, http.MethodPost, "", role.ChannelsCreate, s.createChannel},
		{ch, http.MethodGet, "/:id", role.ChannelsRead, s.showChannel},
		{ch, http.MethodGet, "/:id/messages", role.ChannelsRead, s.olderMessages},
		{ch, http.MethodGet, "/:id/edit", role.ChannelsCreate, s.editChannel}, // owners; channels.update for any public one
		{ch, http.MethodPost, "/:id", role.ChannelsCreate, s.updateChannel},
		{ch, http.MethodPost, "/:id/archive", role.ChannelsCreate, s.archiveChannel},
		{ch, http.MethodPost, "/:id/unarchive", role.ChannelsCreate, s.unarchiveChannel},
		{ch, http.MethodPost, "/:id/delete", role.ChannelsDelete, s.deleteChannel},
		{ch, http.MethodPost, "/:id/join", role.MessagesCreate, s.joinChannel},
		{ch, http.MethodPost, "/:id/leave", role.ChannelsRead, s.leaveChannel},
		{ch, http.MethodGet, "/:id/members", role.ChannelsRead, s.showMembers},
		{ch, http.MethodPost, "/:id/members", role.ChannelsCreate, s.addMember},
		{ch, http.MethodPost, "/:id/members/:user/remove", role.ChannelsCreate, s.removeMember},
		{ch, http.MethodPost, "/:id/members/:user/role", role.ChannelsCreate, s.setMemberRole},
		{ch, http.MethodPost, "/:id/read", role.ChannelsRead, s.markRead},
		{ch, http.MethodPost, "/:id/messages", role.MessagesCreate, s.postMessage},
		{ch, http.MethodPost, "/:id/messages/:msg", role.MessagesCreate, s.editMessage},
		{ch, http.MethodPost, "/:id/messages/:msg/delete", role.MessagesCreate, s.deleteMessage},
		{ch, http.MethodPost, "/:id/messages/:msg/react", role.MessagesCreate, s.reactToMessage},

		{bk, http.MethodGet, "", role.BackupsRead, s.listBackups},
		{bk, http.MethodGet, "/new", role.BackupsCreate, s.newBackupJob},
		{bk, http.MethodPost, "", role.BackupsCreate, s.createBackupJob},
		{bk, http.MethodGet, "/schedule", role.BackupsRead, s.schedulePreview},
		{bk, http.MethodGet, "/jobs/:job/edit", role.BackupsUpdate, s.editBackupJob},
		{bk, http.MethodPost, "/jobs/:job", role.BackupsUpdate, s.updateBackupJob},
		{bk, http.MethodPost, "/jobs/:job/pause", role.BackupsUpdate, s.pauseBackupJob},
		{bk, http.MethodPost, "/jobs/:job/resume", role.BackupsUpdate, s.resumeBackupJob},
		{bk, http.MethodPost, "/jobs/:job/delete", role.BackupsDelete, s.deleteBackupJob},
		{bk, http.MethodPost, "/jobs/:job/run", role.BackupsExecute, s.runBackupJob},
		{bk, http.MethodGet, "/history", role.BackupsRead, s.listBackupRuns},
		{bk, http.MethodGet, "/history/:id", role.BackupsRead, s.showBackupRun},
		{bk, http.MethodGet, "/history/:id/download", role.BackupsExecute, s.Streaming(exportTimeout, s.downloadBackup)},
		{bk, http.MethodGet, "/history/:id/restore", role.BackupsExecute, s.showRestore},
		{bk, http.MethodPost, "/history/:id/restore", role.BackupsExecute, s.restoreBackup},
		{bk, http.MethodPost, "/history/:id/copy", role.TenantsCreate, s.copyBackup},
		{bk, http.MethodPost, "/restores/:restore/retry", role.BackupsExecute, s.retryRestore},

		{t, http.MethodGet, "/audit", role.AuditRead, s.listAudit},
		{t, http.MethodGet, "/audit.csv", role.AuditRead, s.Streaming(exportTimeout, s.exportAudit)},

		{t, http.MethodGet, "/settings", role.SettingsRead, s.showSettings},
		{t, http.MethodPost, "/settings", role.SettingsUpdate, s.saveSettings},
		{t, http.MethodGet, "/settings/time-now", role.SettingsRead, s.zoneNowPreview},
	} {
		r.g.Add(r.method, r.path, r.h, httpkit.Need(r.perm)).Name = "perm:" + r.perm
	}
	s.heads = httpkit.HeadRoutes(e.Routes())
}
