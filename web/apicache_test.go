package web_test

import (
	"context"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/catalog"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/internal/user"
	"github.com/kanri/kanri/web/api"
)

// instance is the services of one Kanri process over a store. The env's
// server hears of its own changes through its audit log; an instance
// with another log changes the store as another process would, behind
// the server's back.
type instance struct {
	keys    *apikey.Service
	users   *user.Service
	roles   *role.Service
	catalog *catalog.Service
	tenants *tenant.Service
}

func (e *env) thisInstance() instance {
	return instance{keys: e.keys, users: e.users, roles: e.roles, catalog: e.catalog, tenants: e.tenants}
}

func (e *env) otherInstance() instance {
	d := app.NewDeps(e.st, slog.New(slog.DiscardHandler), e.clock.Now)
	ts, roles := tenant.New(d), role.New(d, features.Roles())
	return instance{keys: apikey.New(d), users: user.New(d, ts, roles, auth.Hasher{Cost: bcrypt.MinCost}), roles: roles, catalog: catalog.New(d, features.Roles()), tenants: ts}
}

// TestAPIGrantChangesTakeEffect checks the bound docs/api.md gives: a
// change of a key, its creator, their role or the tenant's api-service
// assignment takes effect at the next call on the instance that made it,
// and on another instance once api.GrantTTL has passed (not before:
// the grant is kept that long).
func TestAPIGrantChangesTakeEffect(t *testing.T) {
	t.Parallel()
	system := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true})
	for _, tc := range []struct {
		name   string
		change func(in instance, e *env, dev *kanri.User, k *kanri.APIKey) error
		want   int
	}{
		{"the key revoked", func(in instance, e *env, _ *kanri.User, k *kanri.APIKey) error {
			_, err := in.keys.Revoke(system, e.acme.ID, k.ID, kanri.Seen{})
			return err
		}, http.StatusUnauthorized},
		{"the key deactivated", func(in instance, e *env, _ *kanri.User, k *kanri.APIKey) error {
			_, err := in.keys.SetActive(system, e.acme.ID, k.ID, kanri.Seen{}, false)
			return err
		}, http.StatusUnauthorized},
		{"the creator deactivated", func(in instance, e *env, dev *kanri.User, _ *kanri.APIKey) error {
			_, err := in.users.SetActive(system, e.acme.ID, dev.ID, kanri.Seen{}, false)
			return err
		}, http.StatusUnauthorized},
		{"the creator demoted", func(in instance, e *env, dev *kanri.User, _ *kanri.APIKey) error {
			return in.roles.Remove(system, role.Grant{Tenant: e.acme, UserID: dev.ID, ServiceID: kanri.AuthServiceID, RoleName: role.Admin})
		}, http.StatusForbidden},
		{"the api-service suspended", func(in instance, e *env, _ *kanri.User, _ *kanri.APIKey) error {
			_, err := in.catalog.Suspend(system, e.acme.ID, kanri.APIServiceID, kanri.Seen{})
			return err
		}, http.StatusForbidden},
		{"the tenant suspended", func(in instance, e *env, _ *kanri.User, _ *kanri.APIKey) error {
			_, err := in.tenants.SetStatus(system, e.acme.ID, kanri.Seen{}, kanri.TenantSuspended)
			return err
		}, http.StatusUnauthorized},
	} {
		for _, where := range []string{"this instance", "another instance"} {
			e := newEnv(t)
			e.apiKey(t, e.acme.ID, "read") // makes the API usable
			dev, err := e.users.Create(system, e.acme.ID, kanri.UserInput{Username: "dev", Email: "dev@acme.test", DisplayName: "Dev", Password: password})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := e.roles.Assign(system, role.Grant{Tenant: e.acme, UserID: dev.ID, ServiceID: kanri.AuthServiceID, RoleName: role.Admin}); err != nil {
				t.Fatal(err)
			}
			k, secret, err := e.keys.Create(audit.WithActor(context.Background(), audit.Actor{UserID: dev.ID, TenantID: e.acme.ID}), e.acme.ID, apikey.Input{Name: "dev's", Scopes: []string{"read"}})
			if err != nil {
				t.Fatal(err)
			}
			path := "/api/v1/users/" + e.acmeBob.ID
			call := func() int { return e.api(t, http.MethodGet, path, secret, nil).status }
			if got, want := call(), http.StatusOK; got != want {
				t.Fatalf("%s, before: got %d, want %d", tc.name, got, want)
			}
			in := e.thisInstance()
			if where == "another instance" {
				in = e.otherInstance()
			}
			if err := tc.change(in, e, dev, k); err != nil {
				t.Fatalf("%s on %s: %v", tc.name, where, err)
			}
			if where == "another instance" {
				// Kept until the TTL has passed, then read again.
				e.clock.Advance(api.GrantTTL - time.Millisecond)
				if got, want := call(), http.StatusOK; got != want {
					t.Errorf("%s on %s, within the TTL: got %d, want %d (the grant kept)", tc.name, where, got, want)
				}
				e.clock.Advance(time.Millisecond)
			}
			if got := call(); got != tc.want {
				t.Errorf("%s on %s: got %d, want %d", tc.name, where, got, tc.want)
			}
		}
	}
}
