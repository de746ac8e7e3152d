package user_test

import (
	"context"
	"testing"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/catalog"
	"github.com/kanri/kanri/internal/emaildomain"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
)

// TestADeletedTenantGainsNothing checks the rule in the services, where
// pages and the API share it: once a tenant is deleted, nothing in it is
// added, granted, verified, edited or reactivated, while what takes
// something away still works.
func TestADeletedTenantGainsNothing(t *testing.T) {
	f := setup(t)
	if _, err := f.roles.Seed(f.ctx); err != nil {
		t.Fatal(err)
	}
	catalog, keys := catalog.New(f.d, features.Roles()), apikey.New(f.d)
	domains := emaildomain.New(f.d, emaildomain.NewResolver("127.0.0.1:1"))
	ten := f.tenant(t, "acme", 10)
	// The first user, its administrator.
	if _, err := f.users.Create(f.ctx, ten.ID, kanri.UserInput{Username: "admin", Email: "admin@acme.test", DisplayName: "Admin", Password: "Correct-horse-9"}); err != nil {
		t.Fatal(err)
	}
	bob, err := f.users.Create(f.ctx, ten.ID, kanri.UserInput{Username: "bob", Email: "bob@acme.test", DisplayName: "Bob", Password: "Correct-horse-9"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := catalog.Assign(f.ctx, ten.ID, kanri.AssignmentInput{ServiceID: kanri.APIServiceID}); err != nil {
		t.Fatal(err)
	}
	key, _, err := keys.Create(f.ctx, ten.ID, apikey.Input{Name: "ci", Scopes: []string{"read"}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := domains.Add(f.ctx, ten.ID, "acme.test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := keys.SetActive(f.ctx, ten.ID, key.ID, kanri.Seen{}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := catalog.Suspend(f.ctx, ten.ID, kanri.APIServiceID, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	// Deleted as Delete leaves it, without emptying it first.
	stored, err := f.st.Tenant(ten.ID).Profile(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	stored.Status = kanri.TenantDeleted
	if err := f.st.Tenant(ten.ID).Tenants().Replace(f.ctx, stored); err != nil {
		t.Fatal(err)
	}

	refused := []struct {
		name   string
		change func(ctx context.Context) error
	}{
		{"create a user", func(ctx context.Context) error {
			_, err := f.users.Create(ctx, ten.ID, kanri.UserInput{Username: "carol", Email: "carol@acme.test", DisplayName: "Carol", Password: "Correct-horse-9"})
			return err
		}},
		{"edit a user", func(ctx context.Context) error {
			_, err := f.users.Update(ctx, ten.ID, bob.ID, "", nil, kanri.UserInput{Email: "bob@acme.test", DisplayName: "Robert"})
			return err
		}},
		{"reset a password", func(ctx context.Context) error {
			_, err := f.users.ResetPassword(ctx, ten.ID, bob.ID, kanri.Seen{}, "Another-horse-9")
			return err
		}},
		{"unlock a user", func(ctx context.Context) error {
			_, err := f.users.Unlock(ctx, ten.ID, bob.ID, kanri.Seen{})
			return err
		}},
		{"grant a role", func(ctx context.Context) error {
			_, _, err := f.roles.Assign(ctx, role.Grant{Tenant: ten, UserID: bob.ID, ServiceID: kanri.FileServiceID, RoleName: role.Viewer})
			return err
		}},
		{"assign a service", func(ctx context.Context) error {
			_, _, err := catalog.Assign(ctx, ten.ID, kanri.AssignmentInput{ServiceID: kanri.FileServiceID})
			return err
		}},
		{"edit an assignment", func(ctx context.Context) error {
			_, err := catalog.UpdateAssignment(ctx, ten.ID, kanri.APIServiceID, "", kanri.AssignmentInput{})
			return err
		}},
		{"reactivate an assignment", func(ctx context.Context) error {
			_, err := catalog.Reactivate(ctx, ten.ID, kanri.APIServiceID, kanri.Seen{})
			return err
		}},
		{"add a domain", func(ctx context.Context) error { _, err := domains.Add(ctx, ten.ID, "other.test"); return err }},
		{"verify a domain", func(ctx context.Context) error { _, err := domains.Verify(ctx, ten.ID, d.ID, kanri.Seen{}); return err }},
		{"create an API key", func(ctx context.Context) error {
			_, _, err := keys.Create(ctx, ten.ID, apikey.Input{Name: "more", Scopes: []string{"read"}})
			return err
		}},
		{"reactivate an API key", func(ctx context.Context) error {
			_, err := keys.SetActive(ctx, ten.ID, key.ID, kanri.Seen{}, true)
			return err
		}},
		{"rotate an API key", func(ctx context.Context) error {
			_, _, err := keys.Rotate(ctx, ten.ID, key.ID, kanri.Seen{}, 0)
			return err
		}},
	}
	for _, tt := range refused {
		err := tt.change(f.ctx)
		if key, _ := kanri.ErrorMessage(err); !kanri.IsCode(err, kanri.ECONFLICT) || key != "error.tenant_deleted" {
			t.Errorf("%s: got %v, want ECONFLICT error.tenant_deleted", tt.name, err)
		}
	}

	allowed := []struct {
		name   string
		change func(ctx context.Context) error
	}{
		{"deactivate a user", func(ctx context.Context) error {
			_, err := f.users.SetActive(ctx, ten.ID, bob.ID, kanri.Seen{}, false)
			return err
		}},
		{"revoke an API key", func(ctx context.Context) error { _, err := keys.Revoke(ctx, ten.ID, key.ID, kanri.Seen{}); return err }},
		{"end an assignment", func(ctx context.Context) error {
			_, err := catalog.End(ctx, ten.ID, kanri.APIServiceID, kanri.Seen{})
			return err
		}},
		{"remove a domain", func(ctx context.Context) error { _, err := domains.Delete(ctx, ten.ID, d.ID, kanri.Seen{}); return err }},
	}
	for _, tt := range allowed {
		if err := tt.change(f.ctx); err != nil {
			t.Errorf("%s: got %v, want it done", tt.name, err)
		}
	}
}
