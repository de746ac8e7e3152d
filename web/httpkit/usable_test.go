package httpkit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/catalog"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/web/httpkit"
)

// TestUsableGuardsAServicesRoutes checks the guard later features declare
// their routes with: a tenant reaches them only while its assignment of
// the service is active and unexpired, and the service itself active.
func TestUsableGuardsAServicesRoutes(t *testing.T) {
	t.Parallel()
	ds := bolttest.Open(t)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	d := app.NewDeps(store.New(ds, nil, features.Schema()), nil, func() time.Time { return now })
	if _, err := role.New(d, features.Roles()).Seed(t.Context()); err != nil {
		t.Fatal(err)
	}
	catalog := catalog.New(d, features.Roles())
	e := echo.New()
	e.HTTPErrorHandler = func(err error, c echo.Context) { c.NoContent(httpkit.Status(err)) }
	e.GET("/t/:tenant/files", func(c echo.Context) error { return c.NoContent(http.StatusOK) },
		func(next echo.HandlerFunc) echo.HandlerFunc {
			return func(c echo.Context) error {
				c.Set(httpkit.KeyTenant, &kanri.Tenant{Doc: kanri.Doc{ID: c.Param("tenant")}})
				return next(c)
			}
		}, httpkit.Usable(catalog, kanri.FileServiceID))
	get := func() int {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/t/tenant_a/files", nil))
		return rec.Code
	}
	ctx := t.Context()
	steps := []struct {
		name string
		do   func()
		want int
	}{
		{"not assigned", func() {}, http.StatusForbidden},
		{"assigned", func() {
			if _, _, err := catalog.Assign(ctx, "tenant_a", kanri.AssignmentInput{ServiceID: kanri.FileServiceID, ExpiresAt: "2026-05-10"}); err != nil {
				t.Fatal(err)
			}
		}, http.StatusOK},
		{"suspended", func() {
			if _, err := catalog.Suspend(ctx, "tenant_a", kanri.FileServiceID, kanri.Seen{}); err != nil {
				t.Fatal(err)
			}
		}, http.StatusForbidden},
		{"reactivated", func() {
			if _, err := catalog.Reactivate(ctx, "tenant_a", kanri.FileServiceID, kanri.Seen{}); err != nil {
				t.Fatal(err)
			}
		}, http.StatusOK},
		{"expired", func() { now = now.AddDate(0, 0, 10) }, http.StatusForbidden},
	}
	for _, st := range steps {
		st.do()
		if got := get(); got != st.want {
			t.Errorf("%s: got %d, want %d", st.name, got, st.want)
		}
	}
}
