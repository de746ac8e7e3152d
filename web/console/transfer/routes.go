package transfer

import (
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
)

// Routes are the imports of users.
func (s *Pages) Routes(g console.Groups) []console.Route {
	return []console.Route{
		console.Get(g.Tenant, "/users/import", role.UsersCreate, s.listImports),
		console.NoSupport(console.Post(g.Tenant, "/users/import", role.UsersCreate, s.uploadImport)),
		console.Get(g.Tenant, "/users/import/:import", role.UsersCreate, s.showImport),
		console.NoSupport(console.Post(g.Tenant, "/users/import/:import/start", role.UsersCreate, s.startImport)),
		console.Post(g.Tenant, "/users/import/:import/delete", role.UsersCreate, s.deleteImport),
		console.Get(g.Tenant, "/users/import/:import/report.csv", role.UsersCreate, s.Streaming(console.ExportTimeout, s.importReport)),
	}
}

// Nav: the pages are reached from the users' page.
func (s *Pages) Nav() []views.NavEntry { return nil }
