package user_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/internal/upgrade"
)

// operator returns the operator's tenant with its global administrator
// (root) and a 管理者 of every service who is not a global administrator
// (op), and the context in which op acts.
func operator(t *testing.T, f *fixture) (p *kanri.Tenant, root, op *kanri.User, opCtx context.Context) {
	t.Helper()
	if _, _, err := auth.Bootstrap(f.ctx, f.tenants, f.users, f.roles, "root@example.com", password); err != nil {
		t.Fatal(err)
	}
	p, _ = f.tenants.Get(f.ctx, kanri.PrivilegedTenantID)
	root, _ = f.users.Get(f.ctx, p.ID, mustID(t, f, p.ID, "root@example.com"))
	op, err := f.users.Create(f.ctx, p.ID, input("opadmin"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range features.Roles().Services() {
		if _, _, err := f.roles.Assign(f.ctx, role.Grant{Tenant: p, UserID: op.ID, ServiceID: s.ID, RoleName: role.Admin}); err != nil {
			t.Fatal(err)
		}
	}
	return p, root, op, audit.WithActor(t.Context(), audit.Actor{UserID: op.ID, UserName: op.Username, TenantID: p.ID})
}

func TestOnlyGlobalAdminsChangeGlobalAdmins(t *testing.T) {
	f := setup(t)
	p, root, _, opCtx := operator(t, f)
	staff, err := f.users.Create(f.ctx, p.ID, input("staff"))
	if err != nil {
		t.Fatal(err)
	}
	changes := []struct {
		name string
		do   func(ctx context.Context, id string) error
	}{
		{"edit", func(ctx context.Context, id string) error {
			_, err := f.users.Update(ctx, p.ID, id, "", nil, kanri.UserInput{Email: "new@example.com", DisplayName: "New"})
			return err
		}},
		{"reset password", func(ctx context.Context, id string) error {
			_, err := f.users.ResetPassword(ctx, p.ID, id, kanri.Seen{}, "Another-pass-7")
			return err
		}},
		{"unlock", func(ctx context.Context, id string) error {
			_, err := f.users.Unlock(ctx, p.ID, id, kanri.Seen{})
			return err
		}},
		{"assign a role", func(ctx context.Context, id string) error {
			_, _, err := f.roles.Assign(ctx, role.Grant{Tenant: p, UserID: id, ServiceID: kanri.FileServiceID, RoleName: role.Viewer})
			return err
		}},
		{"remove a role", func(ctx context.Context, id string) error {
			return f.roles.Remove(ctx, role.Grant{Tenant: p, UserID: id, ServiceID: kanri.AuthServiceID, RoleName: role.GlobalAdmin})
		}},
		{"deactivate", func(ctx context.Context, id string) error {
			_, err := f.users.SetActive(ctx, p.ID, id, kanri.Seen{}, false)
			return err
		}},
		{"delete", func(ctx context.Context, id string) error {
			_, err := f.users.Delete(ctx, p.ID, id, kanri.Seen{})
			return err
		}},
	}
	for _, tt := range changes {
		err := tt.do(opCtx, root.ID)
		if key, _ := kanri.ErrorMessage(err); !kanri.IsCode(err, kanri.EFORBIDDEN) || key != "error.global_admin_only" {
			t.Errorf("%s of a global admin by a 管理者: got %v, want forbidden (error.global_admin_only)", tt.name, err)
		}
	}
	cur, _ := f.users.Get(f.ctx, p.ID, root.ID)
	if cur.ETag != root.ETag {
		t.Errorf("the refused changes changed the global admin")
	}
	// The same 管理者 changes staff who are not global administrators.
	for _, tt := range changes[:3] {
		if err := tt.do(opCtx, staff.ID); err != nil {
			t.Errorf("%s of a staff member by a 管理者: %v", tt.name, err)
		}
	}
}

func TestChangeableTenants(t *testing.T) {
	f := setup(t)
	operator(t, f)
	active := f.tenant(t, "acme", 10)
	gone, _ := f.tenants.Create(f.ctx, kanri.TenantInput{Name: "gone", DisplayName: "Gone", Plan: kanri.PlanFree, MaxUsers: 5})
	if _, err := f.tenants.Delete(f.ctx, gone.ID, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		id   string
		seen kanri.Seen
		want string
	}{
		{"active", active.ID, kanri.Seen{}, ""},
		{"the operator's own", kanri.PrivilegedTenantID, kanri.Seen{}, kanri.EFORBIDDEN},
		{"deleted", gone.ID, kanri.Seen{}, kanri.ECONFLICT},
		{"missing", "tenant_nope", kanri.Seen{}, kanri.ENOTFOUND},
		{"not an id", "../etc", kanri.Seen{}, kanri.ENOTFOUND},
		{"seen in another status", active.ID, kanri.Seen{ETag: `"old"`, State: kanri.TenantSuspended}, kanri.ESTALE},
		{"seen at an older version in the same status", active.ID, kanri.Seen{ETag: `"old"`, State: kanri.TenantActive}, ""},
	}
	for _, tt := range tests {
		_, err := f.tenants.Changeable(f.ctx, tt.id, tt.seen)
		if got := kanri.ErrorCode(err); got != tt.want {
			t.Errorf("%s: got %q (%v), want %q", tt.name, got, err, tt.want)
		}
	}
}

// TestActionsCheckWhatWasSeen checks that an action is refused when what
// it depends on changed since the page was shown, and goes ahead when only
// something else changed (a sign-in, a user count).
func TestActionsCheckWhatWasSeen(t *testing.T) {
	f := setup(t)
	ten := f.tenant(t, "acme", 10)
	u, err := f.users.Create(f.ctx, ten.ID, input("bob"))
	if err != nil {
		t.Fatal(err)
	}
	shown := kanri.Seen{ETag: u.ETag, State: u.State()}
	if _, err := f.users.Update(f.ctx, ten.ID, u.ID, "", nil, kanri.UserInput{Email: "bob2@example.com", DisplayName: "Bob"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.users.SetActive(f.ctx, ten.ID, u.ID, shown, false); err != nil {
		t.Errorf("deactivate after an edit of other fields: %v", err)
	}
	// Shown active, deactivated since: reactivating is fine (its state is
	// what it expects); deactivating again is refused as stale.
	if _, err := f.users.SetActive(f.ctx, ten.ID, u.ID, shown, false); !kanri.IsCode(err, kanri.ESTALE) {
		t.Errorf("deactivate a user deactivated since it was shown: got %v, want stale", err)
	}
	if _, err := f.users.Delete(f.ctx, ten.ID, u.ID, shown); !kanri.IsCode(err, kanri.ESTALE) {
		t.Errorf("delete a user whose state changed since it was shown: got %v, want stale", err)
	}

	listing := func() kanri.Seen {
		l, _, _ := f.tenants.List(f.ctx, tenant.ListFilter{Search: "acme"})
		return kanri.Seen{ETag: l[0].TenantETag, State: l[0].Status}
	}
	seen := listing()
	if _, err := f.users.Create(f.ctx, ten.ID, input("carol")); err != nil { // moves userCount
		t.Fatal(err)
	}
	if _, err := f.tenants.SetStatus(f.ctx, ten.ID, seen, kanri.TenantSuspended); err != nil {
		t.Errorf("suspend after a user count moved: %v", err)
	}
	if _, err := f.tenants.SetStatus(f.ctx, ten.ID, seen, kanri.TenantSuspended); !kanri.IsCode(err, kanri.ESTALE) {
		t.Errorf("suspend a tenant suspended since it was shown: got %v, want stale", err)
	}
	if got := listing(); got.State != kanri.TenantSuspended {
		t.Errorf("the list shows status %q, want suspended", got.State)
	}
}

func TestAuditFilterFindsAUserByIDOrName(t *testing.T) {
	f := setup(t)
	ten := f.tenant(t, "acme", 10)
	bob, err := f.users.Create(f.ctx, ten.ID, input("bob"))
	if err != nil {
		t.Fatal(err)
	}
	record := func(a audit.Actor, action string) {
		f.audit.Record(audit.WithActor(t.Context(), a), audit.Entry{TenantID: ten.ID, Action: action})
	}
	record(audit.Actor{UserID: bob.ID, UserName: "bob"}, "test.by_bob")
	record(audit.Actor{UserID: "user_operator", UserName: "bob"}, "test.by_an_operator_named_bob")
	record(audit.Actor{UserID: bob.ID}, "test.by_bob_unnamed")
	record(audit.Actor{UserID: "user_alice", UserName: "alice"}, "test.by_alice")
	tests := []struct {
		user string
		want int
	}{
		{"bob", 3},
		{bob.ID, 2},
		{"alice", 1},
		{"nobody", 0},
	}
	for _, tt := range tests {
		recs, _, err := f.audit.Query(f.ctx, ten.ID, audit.Filter{User: tt.user, Action: "test."})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(recs); got != tt.want {
			t.Errorf("user %q: got %d records, want %d", tt.user, got, tt.want)
		}
	}
}

func TestRoleHoldersAndAccess(t *testing.T) {
	f := setup(t)
	p, root, op, _ := operator(t, f)
	ten := f.tenant(t, "acme", 10)
	holders, err := f.roles.HolderUsers(f.ctx, p.ID, kanri.AuthServiceID, role.Admin)
	if err != nil {
		t.Fatal(err)
	}
	if len(holders) != 1 || holders[0].ID != op.ID {
		t.Errorf("holders of 管理者: got %v, want opadmin", holders)
	}
	owner := mustID(t, f, ten.ID, "owner")
	tests := []struct {
		name       string
		tenant     *kanri.Tenant
		user       string
		global     bool
		perm, lack string
	}{
		{"global admin", p, root.ID, true, role.TenantsDelete, ""},
		{"operator's 管理者", p, op.ID, false, role.UsersDelete, ""},
		{"customer admin", ten, owner, false, role.UsersCreate, role.TenantsCreate},
	}
	for _, tt := range tests {
		a, err := f.roles.AccessOf(f.ctx, tt.tenant.ID, tt.user)
		if err != nil {
			t.Fatal(err)
		}
		if a.GlobalAdmin != tt.global || !a.Perms.Has(tt.perm) || (tt.lack != "" && a.Perms.Has(tt.lack)) {
			t.Errorf("%s: got global=%v perms %v, want global=%v with %s without %q", tt.name, a.GlobalAdmin, a.Perms, tt.global, tt.perm, tt.lack)
		}
	}
}

// TestRepairSettlesWhatACrashLeftPending leaves changes of userCount
// pending as a crash between the count and the user write would, and
// checks that the repair settles each the right way.
func TestRepairSettlesWhatACrashLeftPending(t *testing.T) {
	for name, setup := range map[string]func(*testing.T) *fixture{"embedded": setup, "cosmos": setupCosmos} {
		t.Run(name, func(t *testing.T) { testRepair(t, setup(t)) })
	}
}

func testRepair(t *testing.T, f *fixture) {
	ten := f.tenant(t, "acme", 10) // owner: 1 user
	kept, err := f.users.Create(f.ctx, ten.ID, input("kept"))
	if err != nil {
		t.Fatal(err)
	}
	gone, err := f.users.Create(f.ctx, ten.ID, input("gone"))
	if err != nil {
		t.Fatal(err)
	}
	// A delete that was made and stopped before settling its change.
	if _, err := f.users.Delete(f.ctx, ten.ID, gone.ID, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	pending := store.Of[kanri.UserCountChange](f.st.Tenant(ten.ID), kanri.ContainerTenant, kanri.TypeUserCountChange)
	if err := pending.Create(f.ctx, &kanri.UserCountChange{Doc: kanri.Doc{ID: kanri.UserCountChangeID(gone.ID, -1)}, UserID: gone.ID, Delta: -1, CreatedAt: kanri.NewTime(time.Now())}); err != nil {
		t.Fatal(err)
	}
	// A create that counted its user and stopped before storing it.
	if _, err := f.tenants.ChangeUserCount(f.ctx, ten.ID, "user_phantom", +1); err != nil {
		t.Fatal(err)
	}
	// A delete that gave up its count and stopped before the user write.
	if _, err := f.tenants.ChangeUserCount(f.ctx, ten.ID, kept.ID, -1); err != nil {
		t.Fatal(err)
	}
	if _, err := f.users.Delete(f.ctx, ten.ID, kept.ID, kanri.Seen{}); !kanri.IsCode(err, kanri.ECONFLICT) {
		t.Fatalf("a delete while one of the same user is pending: got %v, want conflict (busy)", err)
	}
	if got := userCount(t, f, ten.ID); got != 2 { // 3 users, -1 (gone), +1 (phantom), -1 (kept)
		t.Fatalf("before the repair: got userCount %d, want 2", got)
	}
	if n, err := f.tenants.RepairUserCounts(f.ctx, time.Hour); err != nil || n != 0 {
		t.Errorf("repair of changes younger than its grace: got %d, %v; want 0 (they may be in flight)", n, err)
	}
	n, err := f.tenants.RepairUserCounts(f.ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := userCount(t, f, ten.ID), 2; got != want || n != 2 { // owner and kept
		t.Errorf("after the repair: got userCount %d (%d repairs), want %d (2)", got, n, want)
	}
	if n, _ := f.tenants.RepairUserCounts(f.ctx, 0); n != 0 {
		t.Errorf("a second repair changed %d counts, want none", n)
	}
	l, _, _ := f.tenants.List(f.ctx, tenant.ListFilter{Search: "acme"})
	if len(l) != 1 || l[0].UserCount != 2 {
		t.Errorf("the tenant list shows %v, want userCount 2", l)
	}
}

func TestEmailsAreUniquePerTenant(t *testing.T) {
	for name, setup := range map[string]func(*testing.T) *fixture{"embedded": setup, "cosmos": setupCosmos} {
		t.Run(name, func(t *testing.T) { testEmailsUnique(t, setup(t)) })
	}
}

func testEmailsUnique(t *testing.T, f *fixture) {
	acme, globex := f.tenant(t, "acme", 50), f.tenant(t, "globex", 50)
	bob, err := f.users.Create(f.ctx, acme.ID, input("bob"))
	if err != nil {
		t.Fatal(err)
	}
	carol, err := f.users.Create(f.ctx, acme.ID, input("carol"))
	if err != nil {
		t.Fatal(err)
	}
	taken := func(what string, err error) {
		t.Helper()
		if got := kanri.ErrorFields(err)["email"]; got != "validation.email_taken" {
			t.Errorf("%s: got %v, want the e-mail taken", what, err)
		}
	}
	in := input("bob2")
	in.Email = " BOB@Example.com"
	_, err = f.users.Create(f.ctx, acme.ID, in)
	taken("a second user with bob's address in another case", err)
	if _, err := f.users.Create(f.ctx, globex.ID, input("bob")); err != nil {
		t.Errorf("bob's address in another tenant: %v", err)
	}
	_, err = f.users.Update(f.ctx, acme.ID, carol.ID, "", nil, kanri.UserInput{Email: "Bob@example.com", DisplayName: "Carol"})
	taken("carol taking bob's address", err)
	if _, err := f.users.Update(f.ctx, acme.ID, carol.ID, "", nil, kanri.UserInput{Email: "carol.new@example.com", DisplayName: "Carol"}); err != nil {
		t.Fatalf("carol moving to a new address: %v", err)
	}
	in = input("dave")
	in.Email = "carol@example.com" // carol's old address is free again
	if _, err := f.users.Create(f.ctx, acme.ID, in); err != nil {
		t.Errorf("carol's old address: %v", err)
	}
	if _, err := f.users.Delete(f.ctx, acme.ID, bob.ID, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	in = input("erin")
	in.Email = "bob@example.com" // bob is deleted: his address is free
	if _, err := f.users.Create(f.ctx, acme.ID, in); err != nil {
		t.Errorf("a deleted user's address: %v", err)
	}
	// Concurrent creates with one address: exactly one wins.
	var wg sync.WaitGroup
	var wins atomic.Int32
	for i := range 8 {
		wg.Go(func() {
			in := input(fmt.Sprintf("race%d", i))
			in.Email = "race@example.com"
			if _, err := f.users.Create(f.ctx, acme.ID, in); err == nil {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	if got := wins.Load(); got != 1 {
		t.Errorf("8 concurrent creates with one address: %d won, want 1", got)
	}
}

func TestExistingUsersGetTheirEmailsReserved(t *testing.T) {
	f := setup(t)
	ten := f.tenant(t, "acme", 50)
	// Users written before addresses were reserved, two sharing one.
	for _, name := range []string{"old1", "old2"} {
		u := &kanri.User{Doc: kanri.Doc{ID: "user_" + name}, Username: name, Email: "shared@example.com", DisplayName: name, IsActive: true}
		if err := f.st.Tenant(ten.ID).Users().Create(f.ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	in := input("new")
	in.Email = "owner@example.com" // the owner's, made by the current code
	if _, err := f.users.Create(f.ctx, ten.ID, in); kanri.ErrorFields(err)["email"] != "validation.email_taken" {
		t.Errorf("the owner's address: got %v, want taken", err)
	}
	for range 2 {
		if err := upgrade.New(f.d, f.tenants).Run(f.ctx, f.users.Upgrades()); err != nil {
			t.Fatal(err)
		}
	}
	in.Email = "Shared@example.com"
	if _, err := f.users.Create(f.ctx, ten.ID, in); kanri.ErrorFields(err)["email"] != "validation.email_taken" {
		t.Errorf("an old user's address after the migration: got %v, want taken", err)
	}
	r, err := f.st.Tenant(ten.ID).EmailAddresses().Get(f.ctx, kanri.EmailAddressID("shared@example.com"))
	if err != nil || (r.UserID != "user_old1" && r.UserID != "user_old2") {
		t.Errorf("the shared address is reserved for %v (%v), want one of the old users", r, err)
	}
}

// TestExactlyOneFirstAdministrator creates users at once in a new tenant:
// exactly one becomes its administrator. And a count left wrong (as by a
// crash) never makes a later user an administrator.
func TestExactlyOneFirstAdministrator(t *testing.T) {
	f := setup(t)
	p, _, _, _ := operator(t, f)
	ten, err := f.tenants.Create(f.ctx, kanri.TenantInput{Name: "fresh", DisplayName: "Fresh", Plan: kanri.PlanFree, MaxUsers: 50})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() { f.users.Create(f.ctx, ten.ID, input(fmt.Sprintf("first%d", i))) })
	}
	wg.Wait()
	if got := mustHolders(t, f, ten.ID); len(got) != 1 {
		t.Errorf("8 users created at once in a new tenant: %d administrators (%v), want 1", len(got), got)
	}
	// The operator's count goes wrong; the next staff member stays staff.
	if err := f.tenants.SetUserCount(f.ctx, p.ID, 0); err != nil {
		t.Fatal(err)
	}
	staff, err := f.users.Create(f.ctx, p.ID, input("newstaff"))
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := f.roles.AccessOf(f.ctx, p.ID, staff.ID); a.GlobalAdmin {
		t.Errorf("a user created while the operator's count was 0 became a global administrator")
	}
}
