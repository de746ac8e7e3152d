package user_test

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/upgrade"
	"github.com/kanri/kanri/internal/user"
)

// members returns the user ids of a tenant's membership records.
func members(t *testing.T, f *fixture, tenantID string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	token := ""
	for {
		page, next, err := f.users.Members(f.ctx, tenantID, 100, token)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page {
			if m.ID != kanri.TenantUserID(m.UserID) || m.Role != kanri.MemberRole {
				t.Errorf("membership %+v", m)
			}
			out[m.UserID] = true
		}
		if next == "" {
			return out
		}
		token = next
	}
}

func TestMembershipFollowsTheUser(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(*testing.T) *fixture
	}{{"embedded", setup}, {"cosmos", setupCosmos}} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.setup(t)
			ten := f.tenant(t, "acme", 10)
			u, err := f.users.Create(f.ctx, ten.ID, input("bob"))
			if err != nil {
				t.Fatal(err)
			}
			if got := members(t, f, ten.ID); !got[u.ID] || len(got) != 2 {
				t.Errorf("after create: members %v, want the owner and bob", got)
			}
			if _, err := f.users.Delete(f.ctx, ten.ID, u.ID, kanri.Seen{}); err != nil {
				t.Fatal(err)
			}
			if got := members(t, f, ten.ID); got[u.ID] || len(got) != 1 {
				t.Errorf("after delete: members %v, want the owner only", got)
			}
			if got, _ := f.tenants.Get(f.ctx, ten.ID); got.UserCount != 1 {
				t.Errorf("userCount: got %d, want 1", got.UserCount)
			}
		})
	}
}

// TestMembershipAfterACrash leaves each write of a create and of a delete
// half done, as a crash between the tenant container and the auth
// container would, and checks that the repair makes user, membership and
// count agree again.
func TestMembershipAfterACrash(t *testing.T) {
	f := setup(t)
	ten := f.tenant(t, "acme", 10)

	// A create that stopped after the count: a membership without a user.
	if _, err := f.tenants.ChangeUserCount(f.ctx, ten.ID, "user_ghost", +1); err != nil {
		t.Fatal(err)
	}
	if got := members(t, f, ten.ID); !got["user_ghost"] {
		t.Fatal("the membership is not written with the count")
	}
	// A delete that stopped after the count: a user without a membership.
	bob, err := f.users.Create(f.ctx, ten.ID, input("bob"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.tenants.ChangeUserCount(f.ctx, ten.ID, bob.ID, -1); err != nil {
		t.Fatal(err)
	}
	if got := members(t, f, ten.ID); got[bob.ID] {
		t.Fatal("the membership is not removed with the count")
	}
	// Within the grace nothing is repaired (the writes may be in flight).
	if n, err := f.tenants.RepairUserCounts(f.ctx, time.Hour); err != nil || n != 0 {
		t.Errorf("repair within the grace: %d, %v", n, err)
	}
	if n, err := f.tenants.RepairUserCounts(f.ctx, -time.Second); err != nil || n != 2 {
		t.Errorf("repair: got %d, %v; want 2 reversed", n, err)
	}
	got := members(t, f, ten.ID)
	if got["user_ghost"] || !got[bob.ID] || len(got) != 2 {
		t.Errorf("after the repair: members %v, want the owner and bob", got)
	}
	if t2, _ := f.tenants.Get(f.ctx, ten.ID); t2.UserCount != 2 {
		t.Errorf("userCount after the repair: got %d, want 2", t2.UserCount)
	}
}

// TestEarlierUsersGetTheirMembership opens a data file written before
// memberships were kept (testdata of the bolt package) and upgrades it.
func TestEarlierUsersGetTheirMembership(t *testing.T) {
	ds := openV1(t)
	f := setupOn(t, ds)
	for _, id := range []string{"tenant_alpha", "tenant_beta"} {
		if got := members(t, f, id); len(got) != 0 {
			t.Fatalf("%s has memberships before the upgrade: %d", id, len(got))
		}
	}
	// One user already has a membership (as one created by the new code
	// while another instance upgrades): it is kept as it is.
	alpha, _, err := f.st.Tenant("tenant_alpha").Users().Query(f.ctx, docstore.Query{Limit: 1})
	if err != nil || len(alpha) != 1 {
		t.Fatalf("a user of alpha: %v", err)
	}
	kept := &kanri.TenantUser{Doc: kanri.Doc{ID: kanri.TenantUserID(alpha[0].ID)}, UserID: alpha[0].ID, Role: kanri.MemberRole, AssignedBy: "already"}
	if err := f.st.Tenant("tenant_alpha").TenantUsers().Create(f.ctx, kept); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second run finds the work done
		if err := upgrade.New(f.d, f.tenants).Run(f.ctx, f.users.Upgrades()); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{kanri.PrivilegedTenantID, "tenant_alpha", "tenant_beta"} {
		users, err := f.st.Tenant(id).Users().All(f.ctx, docstore.Query{})
		if err != nil {
			t.Fatal(err)
		}
		got := members(t, f, id)
		want := 0
		for _, u := range users {
			if u.DeletedAt.IsZero() {
				want++
				if !got[u.ID] {
					t.Errorf("%s: user %s has no membership", id, u.Username)
				}
			}
		}
		if len(got) != want || want == 0 {
			t.Errorf("%s: %d memberships, want %d", id, len(got), want)
		}
	}
	if m, _ := f.st.Tenant("tenant_alpha").TenantUsers().Get(f.ctx, kept.ID); m == nil || m.AssignedBy != "already" {
		t.Errorf("the existing membership was rewritten: %+v", m)
	}
}

// openV1 opens a copy of the data file of an earlier version (two tenants
// whose users have no e-mail reservations, memberships or search terms).
func openV1(t *testing.T) docstore.Store {
	t.Helper()
	dir := t.TempDir()
	in, err := os.Open(filepath.Join("..", "bolt", "testdata", "v1-kanri.db.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(filepath.Join(dir, bolt.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	out.Close()
	ds, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestEarlierUsersAreFoundBySearch checks the search-terms upgrade: the
// users of an earlier version's data file are not found by a search
// before it, and are after.
func TestEarlierUsersAreFoundBySearch(t *testing.T) {
	f := setupOn(t, openV1(t))
	all, err := f.st.Tenant("tenant_alpha").Users().All(f.ctx, docstore.Query{})
	if err != nil || len(all) == 0 {
		t.Fatalf("alpha's users: %d, %v", len(all), err)
	}
	name := all[0].Username
	find := func() int {
		got, _, err := f.users.List(f.ctx, "tenant_alpha", user.ListFilter{Search: name})
		if err != nil {
			t.Fatal(err)
		}
		return len(got)
	}
	if got := find(); got != 0 {
		t.Fatalf("before the upgrade a search for %q found %d users: the file has terms already?", name, got)
	}
	if err := upgrade.New(f.d, f.tenants).Run(f.ctx, f.users.Upgrades()); err != nil {
		t.Fatal(err)
	}
	if got := find(); got != 1 {
		t.Errorf("after the upgrade a search for %q found %d users, want 1", name, got)
	}
}
