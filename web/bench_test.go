package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
)

// BenchmarkUserListPage measures the whole request of a tenant's user list
// (session, user and role loading, the query, templ rendering) over an
// embedded store holding 1,000 users in the tenant.
func BenchmarkUserListPage(b *testing.B) {
	e := newEnv(b)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID})
	ten, _ := e.tenants.Get(ctx, e.acme.ID)
	ten.MaxUsers = 2000
	e.st.Tenant(ten.ID).Tenants().Replace(ctx, ten)
	for i := range 1000 {
		if _, err := e.users.Create(ctx, e.acme.ID, kanri.UserInput{
			Username: fmt.Sprintf("user%04d", i), Email: fmt.Sprintf("u%d@acme.test", i), DisplayName: fmt.Sprintf("User %d", i), Password: password,
		}); err != nil {
			b.Fatal(err)
		}
	}
	c := e.client(b).signIn("acme", "admin")
	for _, tc := range []struct{ name, path string }{
		{"FirstPage", "/t/" + e.acme.ID + "/users"},
		{"Search", "/t/" + e.acme.ID + "/users?q=user09&status=active"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				resp, err := c.http.Get(e.srv.URL + tc.path)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
		})
	}
}
