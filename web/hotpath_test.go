package web_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore/docstoretest"
	"github.com/kanri/kanri/internal/kanri"
)

// TestAPIUsagePageRoundTrips counts the calls the API usage pages make
// to the API container: the keys, the 30 days in one query, the month's
// aggregate and a page of the log.
func TestAPIUsagePageRoundTrips(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	k, _ := e.apiKey(t, e.acme.ID, "read")
	admin := e.client(t).signIn("acme", "admin")
	for _, tc := range []struct {
		name, path string
	}{
		{"the tenant's usage", "/t/" + e.acme.ID + "/api-keys/usage"},
		{"a key's usage", "/t/" + e.acme.ID + "/api-keys/" + k.ID},
	} {
		before := e.calls.CallsTo(kanri.ContainerAPI)
		resp, body := admin.get(tc.path)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", tc.name, resp.StatusCode, body)
		}
		got := e.calls.CallsTo(kanri.ContainerAPI).Sub(before)
		want := docstoretest.Calls{Query: 3, Read: 1}
		if tc.name == "a key's usage" {
			want.Read++ // the key itself
		}
		if got != want {
			t.Errorf("%s: got %v, want %v", tc.name, got, want)
		}
	}
}

// operatorKey returns the secret of a read key of tenantID made by the
// operator's global administrator, whose rights it has.
func (e *env) operatorKey(t *testing.T, tenantID string) string {
	t.Helper()
	e.apiKey(t, tenantID, "read") // makes the API usable
	adminID, err := e.users.IDByUsername(context.Background(), kanri.PrivilegedTenantID, adminEmail)
	if err != nil {
		t.Fatal(err)
	}
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: adminID, TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true})
	_, secret, err := e.keys.Create(ctx, tenantID, apikey.Input{Name: "operator's", Scopes: []string{"read"}})
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// TestAPIUserReadRoundTrips counts the store calls of GET
// /api/v1/users/{id} in steady state (after a first call): the user's
// point read, and on the call that leases the next block of the key's
// rate limit (1 in 20 at the default limit), the lease's one write.
func TestAPIUserReadRoundTrips(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, tenantAdmin := e.apiKey(t, e.acme.ID, "read")
	for _, tc := range []struct {
		name, secret string
	}{
		{"a key of the tenant's administrator", tenantAdmin},
		{"a key of the operator's global administrator", e.operatorKey(t, e.acme.ID)},
	} {
		path := "/api/v1/users/" + e.acmeBob.ID
		if a := e.api(t, http.MethodGet, path, tc.secret, nil); a.status != http.StatusOK {
			t.Fatalf("%s: first call: %d %s", tc.name, a.status, a.body)
		}
		leases := 0
		for i := range 40 {
			var a apiCall
			got := e.calls.Count(func() { a = e.api(t, http.MethodGet, path, tc.secret, nil) })
			if a.status != http.StatusOK {
				t.Fatalf("%s: %d %s", tc.name, a.status, a.body)
			}
			read, lease := docstoretest.Calls{Read: 1}, docstoretest.Calls{Read: 1, Replace: 1}
			switch got {
			case read:
			case lease:
				leases++
			default:
				t.Errorf("%s, call %d: got %v, want %v or %v", tc.name, i+2, got, read, lease)
			}
		}
		if got, want := leases, 2; got != want {
			t.Errorf("%s: %d calls leased a block, want %d", tc.name, got, want)
		}
	}
}
