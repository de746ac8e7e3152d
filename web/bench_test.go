package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
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

// BenchmarkSignedInPage measures a light signed-in page (the tenant's
// settings: the user, tenant, session and roles every request loads, then
// the page) on the embedded store as it is and with each store call
// taking a round trip first, as on Cosmos DB (rtt), to show how many
// round trips a request waits for in a row.
func BenchmarkSignedInPage(b *testing.B) {
	for _, rtt := range []time.Duration{0, time.Millisecond} {
		b.Run("rtt="+rtt.String(), func(b *testing.B) {
			e := newEnvOver(b, func(ds docstore.Store) docstore.Store { return slowStore{ds, rtt} })
			c := e.client(b).signIn("acme", "admin")
			path := e.srv.URL + "/t/" + e.acme.ID + "/settings"
			b.ReportAllocs()
			for b.Loop() {
				resp, err := c.http.Get(path)
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

// slowStore is a store whose every call first waits for a round trip.
type slowStore struct {
	docstore.Store
	rtt time.Duration
}

func (s slowStore) Container(name string) docstore.Container {
	return slowContainer{s.Store.Container(name), s.rtt}
}

type slowContainer struct {
	docstore.Container
	rtt time.Duration
}

func (c slowContainer) wait() {
	if c.rtt > 0 {
		time.Sleep(c.rtt)
	}
}

func (c slowContainer) Read(ctx context.Context, pk, id string) (docstore.Item, error) {
	c.wait()
	return c.Container.Read(ctx, pk, id)
}

func (c slowContainer) Query(ctx context.Context, pk string, q docstore.Query) (docstore.Page, error) {
	c.wait()
	return c.Container.Query(ctx, pk, q)
}

func (c slowContainer) Replace(ctx context.Context, pk, id string, body []byte, ifMatch string) (string, error) {
	c.wait()
	return c.Container.Replace(ctx, pk, id, body, ifMatch)
}
