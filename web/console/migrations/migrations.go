// Package migrations serves the operator's page of batch migrations:
// the last run and its live progress, a dry run, a run and a rollback
// (internal/migrate; docs/operations.md, "Batch migrations").
package migrations

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/migrate"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// samples is how many documents of each tenant a dry run shows changed.
const samples = 3

// Pages serve the feature's pages, with what every page of the console
// shares.
type Pages struct {
	*console.Console
	runner *migrate.Runner
}

// New returns the pages of the console c over the runner r.
func New(c *console.Console, r *migrate.Runner) *Pages { return &Pages{Console: c, runner: r} }

// Routes are the page, its dry run, and the run and rollback it starts.
func (s *Pages) Routes(g console.Groups) []console.Route {
	return []console.Route{
		console.Get(g.Staff, views.MigrationsPath, role.MigrationsRun, s.show),
		console.Get(g.Staff, views.MigrationsPath+"/plan", role.MigrationsRun, s.Streaming(console.ExportTimeout, s.plan)),
		console.Post(g.Staff, views.MigrationsPath+"/run", role.MigrationsRun, s.run),
		console.Post(g.Staff, views.MigrationsPath+"/rollback", role.MigrationsRun, s.rollback),
	}
}

// Nav are the feature's entries of the side navigation.
func (s *Pages) Nav() []views.NavEntry {
	return []views.NavEntry{{Key: "migrations", LabelKey: "nav.migrations", Staff: true, Path: func(string) string { return views.MigrationsPath }, Perm: role.MigrationsRun, Order: 25}}
}

// view reads the last run and the lease.
func (s *Pages) view(c echo.Context) (views.MigrationsView, error) {
	ctx := c.Request().Context()
	last, err := s.runner.Last(ctx)
	if err != nil {
		return views.MigrationsView{}, err
	}
	busy, err := s.runner.Busy(ctx)
	return views.MigrationsView{Last: last, Busy: busy}, err
}

// show shows the last run and its progress.
func (s *Pages) show(c echo.Context) error {
	v, err := s.view(c)
	if err != nil {
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.MigrationsPage(s.Page(c, "migrations.title", "migrations"), v))
}

// plan shows the page with a dry run: it reads every tenant's documents
// and writes nothing.
func (s *Pages) plan(c echo.Context) error {
	v, err := s.view(c)
	if err != nil {
		return err
	}
	if v.Plan, err = s.runner.DryRun(c.Request().Context(), samples); err != nil {
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.MigrationsPage(s.Page(c, "migrations.title", "migrations"), v))
}

// run starts a run (or resumes one cut short) in the background.
func (s *Pages) run(c echo.Context) error {
	if err := s.runner.Start(c.Request().Context(), migrate.OpRun); err != nil {
		return err
	}
	return s.Report(c, views.MigrationsPath, "migrations.run_started")
}

// rollback starts the rollback of the last run in the background.
func (s *Pages) rollback(c echo.Context) error {
	if err := s.runner.Start(c.Request().Context(), migrate.OpRollback); err != nil {
		return err
	}
	return s.Report(c, views.MigrationsPath, "migrations.rollback_started")
}
