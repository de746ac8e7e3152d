package userimport_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/disk"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/userimport"
	"github.com/kanri/kanri/internal/wiring"
)

const password = "Correct-horse-9"

type env struct {
	svcs  *wiring.Set
	blobs *blob.Bucket
	// ahead moves the services' clock forward.
	ahead  *atomic.Int64
	ctx    context.Context
	tenant *kanri.Tenant
	admin  *kanri.User
}

// stores are the stores the tests run on: the embedded one, and the
// local Cosmos DB test server.
var stores = []struct {
	name string
	open func(t *testing.T) docstore.Store
}{
	{"embedded", func(t *testing.T) docstore.Store { return bolttest.Open(t) }},
	{"cosmos", func(t *testing.T) docstore.Store { return cosmostest.OpenNew(t, cosmostest.Start(t)) }},
}

// newEnv returns the services over ds with a tenant of maxUsers whose
// administrator acts.
func newEnv(t testing.TB, ds docstore.Store, maxUsers int) *env {
	t.Helper()
	drv, err := disk.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	blobs := blob.New(drv)
	ahead := new(atomic.Int64)
	now := func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	svcs := wiring.New(store.New(ds, nil, features.Schema()), slog.New(slog.DiscardHandler), now, wiring.Options{
		Roles: features.Roles(), Hasher: auth.Hasher{Cost: bcrypt.MinCost}, Blobs: blobs,
	})
	t.Cleanup(svcs.Imports.Wait)
	sys := audit.WithActor(t.Context(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true})
	if _, err := svcs.Roles.Seed(sys); err != nil {
		t.Fatal(err)
	}
	ten, err := svcs.Tenants.Create(sys, kanri.TenantInput{Name: "acme", DisplayName: "Acme", Plan: kanri.PlanStandard, MaxUsers: maxUsers})
	if err != nil {
		t.Fatal(err)
	}
	admin, err := svcs.Users.Create(sys, ten.ID, kanri.UserInput{Username: "admin", Email: "admin@acme.test", DisplayName: "Admin", Password: password})
	if err != nil {
		t.Fatal(err)
	}
	ctx := audit.WithActor(t.Context(), audit.Actor{UserID: admin.ID, UserName: "admin", TenantID: ten.ID})
	return &env{svcs: svcs, blobs: blobs, ahead: ahead, ctx: ctx, tenant: ten, admin: admin}
}

// dryRun uploads file and waits for its dry run.
func (e *env) dryRun(t testing.TB, file string, assignRoles bool) *userimport.Import {
	t.Helper()
	im, err := e.svcs.Imports.Upload(e.ctx, e.tenant.ID, "users.csv", []byte(file), assignRoles)
	if err != nil {
		t.Fatal(err)
	}
	e.svcs.Imports.Wait()
	return e.get(t, im.ID)
}

// run starts a checked import and waits for it.
func (e *env) run(t testing.TB, id string) *userimport.Import {
	t.Helper()
	if _, err := e.svcs.Imports.Start(e.ctx, e.tenant.ID, id); err != nil {
		t.Fatal(err)
	}
	e.svcs.Imports.Wait()
	return e.get(t, id)
}

func (e *env) get(t testing.TB, id string) *userimport.Import {
	t.Helper()
	im, err := e.svcs.Imports.Get(e.ctx, e.tenant.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return im
}

// results returns the outcome and reasons of each row, by username.
func (e *env) results(t *testing.T, im *userimport.Import) map[string]string {
	t.Helper()
	page, err := e.svcs.Imports.Results(e.ctx, e.tenant.ID, im, "", 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range page.Results {
		got := r.Outcome
		for _, f := range []string{userimport.RowField, "username", "email", "displayName", "status", "roles"} {
			if k := r.Errors[f]; k != "" {
				got += " " + f + ":" + k
			}
		}
		if len(r.Changes) > 0 {
			got += " (" + strings.Join(r.Changes, ",") + ")"
		}
		out[fmt.Sprintf("%d:%s", r.Line, r.Username)] = got
	}
	return out
}

// TestDryRunThenImport: each row's outcome, said by the dry run and done
// by the import, on both stores.
func TestDryRunThenImport(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			e := newEnv(t, st.open(t), 100)
			for _, name := range []string{"bob", "zed"} {
				if _, err := e.svcs.Users.Create(e.ctx, e.tenant.ID, kanri.UserInput{Username: name, Email: name + "@acme.test", DisplayName: "Bob", Password: password}); err != nil {
					t.Fatal(err)
				}
			}
			file := "username,email,displayName,status,roles\n" +
				"ann,ann@acme.test,Ann,,file-service:member;messaging-service:viewer\n" + // 2
				"bob,bob@acme.test,Bob,,\n" + // 3
				"admin,admin@acme.test,Admin the Second,,\n" + // 4
				"cid,zed@acme.test,Cid,,\n" + // 5: zed's address
				"dee,not-an-address,Dee,,\n" + // 6
				"ann,ann2@acme.test,Ann again,,\n" + // 7
				"eve,ANN@acme.test,Eve,,\n" + // 8
				"fay,fay@acme.test,Fay,asleep,\n" + // 9
				"gus,gus@acme.test,Gus,,file-service:boss\n" + // 10
				"hal,hal@acme.test,Hal,,auth-service:全体管理者\n" + // 11
				"ivy,ivy@acme.test,Ivy,inactive,\n" + // 12
				"jon,jon@acme.test\n" // 13
			want := map[string]string{
				"2:ann":   "created",
				"3:bob":   "unchanged",
				"4:admin": "updated (displayName)",
				"5:cid":   "refused email:validation.email_taken",
				"6:dee":   "refused email:validation.email",
				"7:ann":   "refused username:imports.error.duplicate_username",
				"8:eve":   "refused email:imports.error.duplicate_email",
				"9:fay":   "refused status:imports.error.status",
				"10:gus":  "refused roles:imports.error.role_unknown",
				"11:hal":  "refused roles:imports.error.role_global_admin",
				"12:ivy":  "created",
				"13:jon":  "refused row:imports.error.cells",
			}
			dry := e.dryRun(t, file, true)
			if dry.Status != userimport.Checked {
				t.Fatalf("dry run %s (%s), want checked", dry.Status, dry.ErrorKey)
			}
			got := e.results(t, dry)
			for k, w := range want {
				if got[k] != w {
					t.Errorf("dry run of row %s: got %q, want %q", k, got[k], w)
				}
			}
			if _, err := e.svcs.Users.IDByUsername(e.ctx, e.tenant.ID, "ann"); !kanri.IsCode(err, kanri.ENOTFOUND) {
				t.Errorf("the dry run made ann (err %v)", err)
			}
			done := e.run(t, dry.ID)
			if done.Status != userimport.Done {
				t.Fatalf("import %s (%s), want done", done.Status, done.ErrorKey)
			}
			if done.Result != dry.DryRun {
				t.Errorf("the import did %+v, its dry run said %+v", done.Result, dry.DryRun)
			}
			got = e.results(t, done)
			for k, w := range want {
				if got[k] != w {
					t.Errorf("import of row %s: got %q, want %q", k, got[k], w)
				}
			}
			ann := e.user(t, "ann")
			if ras, _ := e.svcs.Roles.ForUser(e.ctx, e.tenant.ID, ann.ID); len(ras) != 2 {
				t.Errorf("ann holds %d roles, want 2", len(ras))
			}
			if ivy := e.user(t, "ivy"); ivy.IsActive {
				t.Error("ivy is active, want inactive")
			}
			if a := e.user(t, "admin"); a.DisplayName != "Admin the Second" {
				t.Errorf("admin's display name %q", a.DisplayName)
			}
		})
	}
}

func (e *env) user(t *testing.T, name string) *kanri.User {
	t.Helper()
	id, err := e.svcs.Users.IDByUsername(e.ctx, e.tenant.ID, name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	u, err := e.svcs.Users.Get(e.ctx, e.tenant.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestImportTwice: the same file imported again creates nobody and
// changes nothing; a row of it changed since updates its user only.
func TestImportTwice(t *testing.T) {
	e := newEnv(t, bolttest.Open(t), 100)
	file := "username,email,displayName,roles\nann,ann@acme.test,Ann,file-service:member\nben,ben@acme.test,Ben,\n"
	first := e.run(t, e.dryRun(t, file, true).ID)
	if got, want := first.Result, (userimport.Counts{Created: 2}); got != want {
		t.Fatalf("first import: %+v, want %+v", got, want)
	}
	again := e.run(t, e.dryRun(t, file, true).ID)
	if got, want := again.Result, (userimport.Counts{Unchanged: 2}); got != want {
		t.Errorf("the same file again: %+v, want %+v", got, want)
	}
	changed := e.run(t, e.dryRun(t, strings.Replace(file, "Ben,", "Benjamin,", 1), true).ID)
	if got, want := changed.Result, (userimport.Counts{Unchanged: 1, Updated: 1}); got != want {
		t.Errorf("a row changed: %+v, want %+v", got, want)
	}
	if ten, _ := e.svcs.Tenants.Get(e.ctx, e.tenant.ID); ten.UserCount != 3 {
		t.Errorf("userCount %d, want 3", ten.UserCount)
	}
}

// TestRolesNeedTheRight: without the right to assign roles, a row with
// roles is refused, and one without is imported.
func TestRolesNeedTheRight(t *testing.T) {
	e := newEnv(t, bolttest.Open(t), 100)
	im := e.dryRun(t, "username,email,displayName,roles\nann,ann@acme.test,Ann,file-service:viewer\nben,ben@acme.test,Ben,\n", false)
	got := e.results(t, im)
	if got["2:ann"] != "refused roles:imports.error.roles_forbidden" || got["3:ben"] != "created" {
		t.Errorf("got %v", got)
	}
}

// TestQuotaIsExact: the rows past the tenant's maxUsers are refused by
// the dry run, and the import never makes more users than the tenant may
// have, even while others create users at the same time.
func TestQuotaIsExact(t *testing.T) {
	const maxUsers = 6 // the administrator and bob are 2 of them
	e := newEnv(t, bolttest.Open(t), maxUsers)
	if _, err := e.svcs.Users.Create(e.ctx, e.tenant.ID, kanri.UserInput{Username: "bob", Email: "bob@acme.test", DisplayName: "Bob", Password: password}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("username,email,displayName\nbob,bob@acme.test,Bob\n")
	for i := range 8 {
		fmt.Fprintf(&b, "u%d,u%d@acme.test,U%d\n", i, i, i)
	}
	dry := e.dryRun(t, b.String(), false)
	if got, want := dry.DryRun, (userimport.Counts{Created: 4, Unchanged: 1, Refused: 4}); got != want {
		t.Errorf("dry run: %+v, want %+v", got, want)
	}
	got := e.results(t, dry)
	for _, row := range []string{"7:u4", "8:u5", "9:u6", "10:u7"} {
		if got[row] != "refused row:error.user_limit" {
			t.Errorf("row %s: %q, want refused for the limit", row, got[row])
		}
	}
	// While the import runs, others take places too.
	if _, err := e.svcs.Imports.Start(e.ctx, e.tenant.ID, dry.ID); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	others := 0
	for i := range 4 {
		wg.Go(func() {
			_, err := e.svcs.Users.Create(e.ctx, e.tenant.ID, kanri.UserInput{Username: fmt.Sprintf("o%d", i), Email: fmt.Sprintf("o%d@acme.test", i), DisplayName: "O", Password: password})
			if err == nil {
				mu.Lock()
				others++
				mu.Unlock()
			} else if !kanri.IsCode(err, kanri.ECONFLICT) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	e.svcs.Imports.Wait()
	done := e.get(t, dry.ID)
	if done.Result.Created+others != maxUsers-2 {
		t.Errorf("the import created %d and the others %d: want %d in all", done.Result.Created, others, maxUsers-2)
	}
	ten, _ := e.svcs.Tenants.Get(e.ctx, e.tenant.ID)
	users, err := e.svcs.Deps.Store.Tenant(e.tenant.ID).Users().All(e.ctx, docstore.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if ten.UserCount != maxUsers || len(users) != maxUsers {
		t.Errorf("userCount %d, %d users: want %d of each", ten.UserCount, len(users), maxUsers)
	}
}

// TestImportsOfAnotherTenant: an import is found only in its tenant.
func TestImportsOfAnotherTenant(t *testing.T) {
	e := newEnv(t, bolttest.Open(t), 100)
	im := e.dryRun(t, "username,email,displayName\nann,ann@acme.test,Ann\n", false)
	sys := audit.WithActor(t.Context(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true})
	other, err := e.svcs.Tenants.Create(sys, kanri.TenantInput{Name: "globex", DisplayName: "Globex", Plan: kanri.PlanStandard, MaxUsers: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svcs.Imports.Get(e.ctx, other.ID, im.ID); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("another tenant's import: err %v, want not found", err)
	}
	if _, err := e.svcs.Imports.Start(e.ctx, other.ID, im.ID); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("another tenant's import started: err %v, want not found", err)
	}
	if list, _ := e.svcs.Imports.List(e.ctx, other.ID, 10); len(list) != 0 {
		t.Errorf("another tenant lists %d imports", len(list))
	}
}

// TestExpiredImportsLeaveNoFiles: deleting an import removes its files,
// and an upload's sweep removes those of an import that expired (its
// document gone) but never a file just written.
func TestExpiredImportsLeaveNoFiles(t *testing.T) {
	e := newEnv(t, bolttest.Open(t), 100)
	file := "username,email,displayName\nann,ann@acme.test,Ann\n"
	gone := e.dryRun(t, file, false)
	kept := e.dryRun(t, file, false)
	if err := e.svcs.Imports.Delete(e.ctx, e.tenant.ID, kept.ID); err != nil {
		t.Fatal(err)
	}
	// The other expires: its document goes, its files stay until a sweep.
	if err := e.svcs.Deps.Store.Port().Container(kanri.ContainerAuth).Delete(e.ctx, e.tenant.ID, gone.ID, ""); err != nil {
		t.Fatal(err)
	}
	if n := e.files(t); n != 2 {
		t.Fatalf("%d files of the expired import, want 2 (its upload and dry run)", n)
	}
	e.dryRun(t, file, false) // a sweep, now: the files are too new
	if n := e.files(t); n != 4 {
		t.Errorf("%d files after a sweep of files just written, want 4", n)
	}
	e.ahead.Store(int64(2 * time.Hour))
	e.dryRun(t, file, false) // a sweep, later: the expired import's files go
	if n := e.files(t); n != 4 {
		t.Errorf("%d files after a later sweep, want 4 (two imports' upload and dry run)", n)
	}
	if err := e.svcs.Imports.Forget(e.ctx, e.tenant.ID); err != nil {
		t.Fatal(err)
	}
	if n := e.files(t); n != 0 {
		t.Errorf("%d files after Forget, want 0", n)
	}
}

// files counts the files under the tenant's imports' folder.
func (e *env) files(t *testing.T) int {
	t.Helper()
	n := 0
	for _, err := range e.blobs.List(e.ctx, "imports/"+e.tenant.ID+"/") {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}
