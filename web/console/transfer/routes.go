package transfer

import (
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// Routes are the imports of users and the exports of a tenant's lists.
func (s *Pages) Routes(g console.Groups) []console.Route {
	fs := g.Tenant.Group("/files", httpkit.Usable(s.Catalog, kanri.FileServiceID))
	return []console.Route{
		console.Get(g.Tenant, "/users/import", role.UsersCreate, s.listImports),
		console.NoSupport(console.Post(g.Tenant, "/users/import", role.UsersCreate, s.uploadImport)),
		console.Get(g.Tenant, "/users/import/:import", role.UsersCreate, s.showImport),
		console.NoSupport(console.Post(g.Tenant, "/users/import/:import/start", role.UsersCreate, s.startImport)),
		console.Post(g.Tenant, "/users/import/:import/delete", role.UsersCreate, s.deleteImport),
		console.Get(g.Tenant, "/users/import/:import/report.csv", role.UsersCreate, s.Streaming(console.ExportTimeout, s.importReport)),
		console.Get(g.Tenant, "/users/export.:format", role.UsersRead, s.Streaming(console.ExportTimeout, s.exportUsers)),
		console.Get(g.Tenant, "/roles/export.:format", role.RolesRead, s.Streaming(console.ExportTimeout, s.exportRoles)),
		console.Get(fs, "/export.:format", role.FilesRead, s.Streaming(console.ExportTimeout, s.exportFiles)),
	}
}

// Nav: the pages are reached from the users' page.
func (s *Pages) Nav() []views.NavEntry { return nil }
