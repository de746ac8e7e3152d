package transfer

import (
	"context"
	"io"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/export"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// exportUsers, exportRoles and exportFiles stream a list of the tenant
// as CSV or JSON.
func (s *Pages) exportUsers(c echo.Context) error { return s.stream(c, "users", s.Exports.Users) }
func (s *Pages) exportRoles(c echo.Context) error {
	return s.stream(c, "role-assignments", s.Exports.RoleAssignments)
}
func (s *Pages) exportFiles(c echo.Context) error { return s.stream(c, "files", s.Exports.Files) }

// stream sends the export write makes in the format the route names,
// as a file named after what, the tenant and the time.
func (s *Pages) stream(c echo.Context, what string, write func(context.Context, io.Writer, export.Format, string) error) error {
	t := httpkit.Tenant(c)
	f, ok := export.ParseFormat(c.Param("format"))
	if !ok {
		return kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	console.StartExport(c, f, what+"-"+t.Name+"-"+s.Now().UTC().Format("20060102-150405"))
	return write(c.Request().Context(), c.Response(), f, t.ID)
}
