package console

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/export"
)

// StartExport sends the headers of an export in format f named name
// (without its extension); a CSV file starts with a byte order mark, so
// that spreadsheets read it as UTF-8.
func StartExport(c echo.Context, f export.Format, name string) {
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, f.ContentType())
	h.Set(echo.HeaderContentDisposition, `attachment; filename="`+name+`.`+string(f)+`"`)
	c.Response().WriteHeader(http.StatusOK)
	if f == export.CSV {
		c.Response().Write([]byte("\xEF\xBB\xBF"))
	}
}
