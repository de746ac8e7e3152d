// Package archives serves the console's pages of a tenant's archives of
// records before they expire: what it archives, its archives, their
// rehydration, records and download (internal/archive; docs/backups.md,
// "Archive").
package archives

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/archive"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// shown is how many records an available archive's page shows.
const shown = 200

// Pages serve the feature's pages, with what every page of the console
// shares.
type Pages struct {
	*console.Console
	archives *archive.Service
}

// New returns the pages of the console c over the archives a.
func New(c *console.Console, a *archive.Service) *Pages { return &Pages{Console: c, archives: a} }

// Routes are the page of the tenant's archives and its actions.
func (s *Pages) Routes(g console.Groups) []console.Route {
	ar := g.Tenant.Group("/archives", httpkit.Usable(s.Catalog, kanri.BackupServiceID))
	return []console.Route{
		console.Get(ar, "", role.BackupsRead, s.list),
		console.Post(ar, "/settings", role.BackupsUpdate, s.saveSettings),
		console.Post(ar, "/run", role.BackupsExecute, s.Streaming(console.ExportTimeout, s.run)),
		console.Get(ar, "/:id", role.BackupsRead, s.show),
		console.Post(ar, "/:id/rehydrate", role.BackupsExecute, s.rehydrate),
		console.NoSupport(console.Get(ar, "/:id/download", role.BackupsExecute, s.Streaming(console.ExportTimeout, s.download))),
	}
}

// Nav are the feature's entries of the side navigation.
func (s *Pages) Nav() []views.NavEntry {
	return []views.NavEntry{{Key: "archives", LabelKey: "nav.archives", Path: views.ArchivesPath, Perm: role.BackupsRead, Service: kanri.BackupServiceID, Order: 71}}
}

// optional are the types a tenant may choose to archive.
func (s *Pages) optional() []string {
	var out []string
	for _, t := range s.archives.Archivable() {
		if t.Retention.Archive == doctype.ArchiveOnRequest {
			out = append(out, t.Name)
		}
	}
	return out
}

// render shows the page with the form's input and errors.
func (s *Pages) render(c echo.Context, status int, in *archive.SettingsInput, errs views.Errors) error {
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	st, err := s.archives.Settings(ctx, t.ID)
	if err != nil {
		return err
	}
	v := views.ArchivesView{Settings: st, Errors: errs, Optional: s.optional()}
	if in != nil {
		v.Input = *in
	} else {
		v.Input = archive.SettingsInput{Enabled: st.Enabled, Optional: st.Optional, Days: st.Days}
	}
	v.Archives, v.Paging, err = console.ListPage(c, views.ArchivesPath(t.ID), 20, func(cont string, limit int) ([]*archive.Archive, string, error) {
		return s.archives.List(ctx, t.ID, limit, cont)
	})
	if err != nil {
		return err
	}
	for i, a := range v.Archives {
		if v.Archives[i], err = s.archives.Refresh(ctx, t.ID, a); err != nil {
			return err
		}
	}
	return httpkit.Render(c, status, views.ArchivesPage(s.Page(c, "archive.title", "archives"), v))
}

// list shows the tenant's archives and what it archives.
func (s *Pages) list(c echo.Context) error { return s.render(c, http.StatusOK, nil, nil) }

// saveSettings changes what the tenant archives.
func (s *Pages) saveSettings(c echo.Context) error {
	t := httpkit.Tenant(c)
	form, _ := c.FormParams()
	days, err := strconv.Atoi(strings.TrimSpace(c.FormValue("days")))
	if err != nil {
		days = 0
	}
	in := archive.SettingsInput{Enabled: c.FormValue("enabled") == "1", Optional: form["optional"], Days: days}
	_, err = s.archives.SaveSettings(c.Request().Context(), t.ID, in, console.Seen(c))
	switch {
	case err == nil:
		return s.Report(c, views.ArchivesPath(t.ID), "archive.saved")
	case kanri.IsCode(err, kanri.EINVALID):
		return s.render(c, http.StatusUnprocessableEntity, &in, views.Errors(kanri.ErrorFields(err)))
	case kanri.IsCode(err, kanri.ESTALE):
		return s.render(c, http.StatusConflict, &in, views.Errors{"_form": "stale.title"})
	}
	return err
}

// run archives what is due now.
func (s *Pages) run(c echo.Context) error {
	t := httpkit.Tenant(c)
	done, err := s.archives.Tenant(c.Request().Context(), t.ID)
	if err != nil {
		return err
	}
	if len(done) == 0 {
		return s.Report(c, views.ArchivesPath(t.ID), "archive.nothing_due")
	}
	n := 0
	for _, a := range done {
		n += a.Documents
	}
	return s.Report(c, views.ArchivesPath(t.ID), "archive.archived", n)
}

// show shows an archive, and its first records once available.
func (s *Pages) show(c echo.Context) error {
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	a, err := s.archives.Get(ctx, t.ID, c.Param("id"))
	if err != nil {
		return err
	}
	if a, err = s.archives.Refresh(ctx, t.ID, a); err != nil {
		return err
	}
	v := views.ArchiveView{Archive: a}
	if a.State == archive.StateAvailable {
		if _, v.Records, err = s.archives.Records(ctx, t.ID, a.ID, shown); err != nil {
			return err
		}
	}
	return httpkit.Render(c, http.StatusOK, views.ArchivePage(s.Page(c, "archive.title", "archives"), v))
}

// rehydrate asks for an archive to be made readable.
func (s *Pages) rehydrate(c echo.Context) error {
	t := httpkit.Tenant(c)
	a, err := s.archives.Rehydrate(c.Request().Context(), t.ID, c.Param("id"))
	if err != nil {
		return err
	}
	key := "archive.rehydrate_started"
	if a.State == archive.StateAvailable {
		key = "archive.rehydrated"
	}
	return s.Report(c, views.ArchivesPath(t.ID)+"/"+a.ID, key)
}

// download sends every record of an available archive, one JSON object a
// line.
func (s *Pages) download(c echo.Context) error {
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	a, err := s.archives.Get(ctx, t.ID, c.Param("id"))
	if err != nil {
		return err
	}
	if a.State != archive.StateAvailable {
		return kanri.E(kanri.ECONFLICT, "archive.error.not_available")
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "application/x-ndjson")
	h.Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s-%s.ndjson"`, t.Name, a.ID))
	c.Response().WriteHeader(http.StatusOK)
	return s.archives.Download(ctx, c.Response(), t.ID, a.ID)
}
