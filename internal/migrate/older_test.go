package migrate_test

import (
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/migrate"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/internal/user"
	"github.com/kanri/kanri/internal/wiring"
)

// olderSchema is Kanri's document types as the release before the user's
// profile block declared them: the user at schema version 1.1.
func olderSchema() *doctype.Set {
	var containers []doctype.Container
	for _, f := range features.All() {
		containers = append(containers, f.Containers...)
	}
	types := features.Schema().Types()
	for i, t := range types {
		if t.Name == kanri.TypeUser {
			types[i].Upgrades = t.Upgrades[:len(t.Upgrades)-1]
		}
	}
	return doctype.MustSet(containers, types)
}

// TestAnOlderReleaseNeverWritesBack (data model §12.3): during a rolling
// deploy an instance of the older release (user schema 1.1) shares the
// store with one of the newer (1.2). It reads the newer user, but its
// write of it is refused (ECONFLICT, error.newer_version) and leaves the
// document as it was; its reads write nothing back; and its batch
// migration finds nothing behind and writes nothing.
func TestAnOlderReleaseNeverWritesBack(t *testing.T) {
	ds, err := bolt.Open(t.TempDir(), features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ds.Close() })
	ctx := audit.WithActor(t.Context(), audit.Actor{UserID: "system", GlobalAdmin: true})
	newer := wiring.New(store.New(ds, nil, features.Schema()), slog.New(slog.DiscardHandler), nil, wiring.Options{Roles: features.Roles()})
	ten, err := newer.Tenants.Create(ctx, kanri.TenantInput{Name: "acme", DisplayName: "Acme", Plan: kanri.PlanFree, MaxUsers: 10})
	if err != nil {
		t.Fatal(err)
	}
	u, err := newer.Users.Create(ctx, ten.ID, kanri.UserInput{Username: "ann", Email: "ann@acme.test", DisplayName: "Ann", Password: "Ann-pass-12345"})
	if err != nil {
		t.Fatal(err)
	}
	raw := func() (string, string) {
		it, err := ds.Container(kanri.ContainerAuth).Read(ctx, ten.ID, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		var hd struct{ SchemaVersion string }
		json.Unmarshal(it.Body, &hd)
		return hd.SchemaVersion, it.ETag
	}
	version, etag := raw()
	if version != kanri.UserSchemaVersion {
		t.Fatalf("the newer release wrote ann at %s", version)
	}

	oldStore := store.New(ds, nil, olderSchema())
	d := app.NewDeps(oldStore, slog.New(slog.DiscardHandler), nil)
	older := user.New(d, tenant.New(d), role.New(d, features.Roles()), auth.Hasher{Cost: 4})
	got, err := older.Get(ctx, ten.ID, u.ID)
	if err != nil || got.Username != "ann" {
		t.Fatalf("the older release reads ann: %+v, %v", got, err)
	}
	in := kanri.UserInput{Username: "ann", Email: "ann@acme.test", DisplayName: "Ann Older"}
	_, err = older.Update(ctx, ten.ID, u.ID, got.ETag, nil, in)
	if key, _ := kanri.ErrorMessage(err); !kanri.IsCode(err, kanri.ECONFLICT) || key != "error.newer_version" {
		t.Errorf("the older release's update of ann: %v; want ECONFLICT error.newer_version", err)
	}
	if v, e := raw(); v != version || e != etag {
		t.Errorf("after the older release's read and refused write, ann is at %s (ETag %s → %s); want untouched", v, etag, e)
	}

	r := migrate.New(d, tenant.New(d), nil, nil)
	plan, err := r.DryRun(ctx, 0)
	if err != nil || plan.Documents != 0 {
		t.Errorf("the older release's dry run: %d behind, %v; want none", plan.Documents, err)
	}
	if rep, err := r.Run(ctx, nil); err != nil || rep.Migrated != 0 {
		t.Errorf("the older release's run: %+v, %v; want nothing migrated", rep, err)
	}
	if v, e := raw(); v != version || e != etag {
		t.Errorf("after the older release's migration, ann is at %s (ETag %s → %s); want untouched", v, etag, e)
	}
}
