package httpkit

import (
	"context"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
)

// Catalog says whether a tenant may use a service: what Usable asks of
// the catalog service.
type Catalog interface {
	UsableFor(ctx context.Context, t *kanri.Tenant, serviceID string) error
}

// Usable lets a request through only while its tenant (Tenant) may use
// the service: the routes of a service's features (files, messaging,
// backups, the API) are declared with it, so that a suspended or expired
// assignment takes their pages away. It answers 403 with the reason.
func Usable(catalog Catalog, serviceID string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if err := catalog.UsableFor(c.Request().Context(), Tenant(c), serviceID); err != nil {
				return err
			}
			return next(c)
		}
	}
}
