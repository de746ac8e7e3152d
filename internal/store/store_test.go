package store_test

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

func openStore(t *testing.T) (*store.Store, docstore.Store) {
	t.Helper()
	ds := bolttest.Open(t)
	return store.New(ds, nil, features.Schema()), ds
}

func newUser(id, name string) *kanri.User {
	now := kanri.NewTime(time.Now())
	return &kanri.User{Doc: kanri.Doc{ID: id}, Username: name, Email: name, DisplayName: name, IsActive: true, CreatedAt: now, UpdatedAt: now}
}

func TestTenantHandleFixesThePartition(t *testing.T) {
	s, _ := openStore(t)
	ctx := t.Context()
	a, b := s.Tenant("tenant_a"), s.Tenant("tenant_b")

	// A forged tenantId in the document is overwritten by the handle's.
	u := newUser("user_1", "alice@example.com")
	u.TenantID = "tenant_b"
	if err := a.Users().Create(ctx, u); err != nil {
		t.Fatal(err)
	}
	if got, want := u.TenantID, "tenant_a"; got != want {
		t.Errorf("tenantId after create: got %q, want %q", got, want)
	}
	if _, err := b.Users().Get(ctx, "user_1"); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("B reads A's user: got %v, want not found", err)
	}
	users, _, err := b.Users().Query(ctx, docstore.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != 0 {
		t.Errorf("B's user list: got %d users, want 0", len(users))
	}
	got, err := a.Users().Get(ctx, "user_1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Username != "alice@example.com" || got.SchemaVersion != kanri.UserSchemaVersion || got.ETag == "" {
		t.Errorf("A's user: got %+v", got)
	}
}

func TestReplaceDetectsStaleEdits(t *testing.T) {
	s, _ := openStore(t)
	ctx := t.Context()
	users := s.Tenant("tenant_a").Users()
	u := newUser("user_1", "a@example.com")
	if err := users.Create(ctx, u); err != nil {
		t.Fatal(err)
	}
	first, _ := users.Get(ctx, "user_1")
	second, _ := users.Get(ctx, "user_1")
	first.DisplayName = "First"
	if err := users.Replace(ctx, first); err != nil {
		t.Fatal(err)
	}
	second.DisplayName = "Second"
	if err := users.Replace(ctx, second); !kanri.IsCode(err, kanri.ESTALE) {
		t.Fatalf("second edit from the same version: got %v, want stale", err)
	}
	got, _ := users.Get(ctx, "user_1")
	if got.DisplayName != "First" {
		t.Errorf("after stale edit: got %q, want First", got.DisplayName)
	}
}

func TestOtherTypeWithSameIDIsNotFound(t *testing.T) {
	s, _ := openStore(t)
	ctx := t.Context()
	ten := s.Tenant("tenant_a")
	ra := &kanri.RoleAssignment{Doc: kanri.Doc{ID: "shared"}, UserID: "u"}
	if err := ten.RoleAssignments().Create(ctx, ra); err != nil {
		t.Fatal(err)
	}
	if _, err := ten.Users().Get(ctx, "shared"); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("user repo reads a role assignment: got %v, want not found", err)
	}
}

func TestExpiringDocumentsGetTheirDefaultTTL(t *testing.T) {
	s, _ := openStore(t)
	ctx := t.Context()
	tests := []struct {
		set  int
		want int
	}{
		{0, kanri.TTLAuditLog},
		{-1, -1},
		{60, 60},
	}
	for i, tt := range tests {
		a := &kanri.AuditLog{Doc: kanri.Doc{ID: "audit_" + string(rune('a'+i))}, Action: "user.create", TTL: tt.set}
		if err := s.Tenant("tenant_a").AuditLogs().Create(ctx, a); err != nil {
			t.Fatal(err)
		}
		got, err := s.Tenant("tenant_a").AuditLogs().Get(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.TTL != tt.want {
			t.Errorf("ttl set to %d: got %d, want %d", tt.set, got.TTL, tt.want)
		}
	}
}

func TestLazyMigrationUpgradesAndWritesBack(t *testing.T) {
	s, ds := openStore(t)
	ctx := t.Context()
	// A user as the data model's first version stored it: no
	// schemaVersion, no isActive, no security block.
	old := `{"id":"user_old","tenantId":"tenant_a","type":"user","username":"old@example.com","email":"old@example.com","passwordHash":"x","displayName":"Old","createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}`
	if _, err := ds.Container(kanri.ContainerAuth).Create(ctx, "tenant_a", []byte(old)); err != nil {
		t.Fatal(err)
	}
	users := s.Tenant("tenant_a").Users()

	listed, _, err := users.Query(ctx, docstore.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) != 1 || listed[0].SchemaVersion != kanri.UserSchemaVersion || !listed[0].IsActive {
		t.Fatalf("listed old user: got %+v", listed)
	}

	u, err := users.Get(ctx, "user_old")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := u.SchemaVersion, kanri.UserSchemaVersion; got != want {
		t.Errorf("schemaVersion: got %q, want %q", got, want)
	}
	if !u.IsActive {
		t.Error("isActive: got false, want the old default true")
	}
	if got, want := u.CreatedAt.Time, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("createdAt: got %v, want %v", got, want)
	}
	// Written back: the stored document is now at the current version,
	// and the returned ETag is the stored one, so an edit goes through.
	it, err := ds.Container(kanri.ContainerAuth).Read(ctx, "tenant_a", "user_old")
	if err != nil {
		t.Fatal(err)
	}
	if it.ETag != u.ETag {
		t.Errorf("ETag after write-back: got %q, stored %q", u.ETag, it.ETag)
	}
	if want := `"schemaVersion":"` + kanri.UserSchemaVersion + `"`; !strings.Contains(string(it.Body), want) {
		t.Errorf("stored body %s lacks %s", it.Body, want)
	}
	u.DisplayName = "Renamed"
	if err := users.Replace(ctx, u); err != nil {
		t.Errorf("edit after upgrade: %v", err)
	}
}

func TestMigrationWithoutAPathFails(t *testing.T) {
	s, ds := openStore(t)
	ctx := t.Context()
	if _, err := ds.Container(kanri.ContainerAuth).Create(ctx, "tenant_a", []byte(`{"id":"u","tenantId":"tenant_a","type":"user","schemaVersion":"0.1"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tenant("tenant_a").Users().Get(ctx, "u"); err == nil {
		t.Error("read of a version with no upgrade path: got no error")
	}
}

func TestPrivilegedFindsTenantsAcrossPartitions(t *testing.T) {
	s, _ := openStore(t)
	ctx := t.Context()
	for _, tc := range []struct{ name, status string }{{"acme", kanri.TenantDeleted}, {"acme2", kanri.TenantActive}, {"globex", kanri.TenantActive}} {
		id := kanri.TenantIDFromName(tc.name + "_" + tc.status)
		ten := &kanri.Tenant{Doc: kanri.Doc{ID: id}, Name: tc.name, Status: tc.status}
		if err := s.Tenant(id).Tenants().Create(ctx, ten); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Privileged().FindActiveTenantByName(ctx, "globex")
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "globex" {
		t.Errorf("got %q, want globex", got.Name)
	}
	if _, err := s.Privileged().FindActiveTenantByName(ctx, "acme"); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("deleted tenant by name: got %v, want not found", err)
	}
}

func TestNewerDocumentsAreReadAsTheyAre(t *testing.T) {
	s, ds := openStore(t)
	ctx := t.Context()
	body := `{"id":"user_new","tenantId":"tenant_a","type":"user","schemaVersion":"1.9","username":"n","isActive":true,"futureField":1}`
	if _, err := ds.Container(kanri.ContainerAuth).Create(ctx, "tenant_a", []byte(body)); err != nil {
		t.Fatal(err)
	}
	u, err := s.Tenant("tenant_a").Users().Get(ctx, "user_new")
	if err != nil {
		t.Fatalf("read of a newer document: %v", err)
	}
	if u.SchemaVersion != "1.9" || u.Username != "n" {
		t.Errorf("newer document: got %+v", u.Doc)
	}
	it, _ := ds.Container(kanri.ContainerAuth).Read(ctx, "tenant_a", "user_new")
	if !strings.Contains(string(it.Body), "futureField") {
		t.Error("the read rewrote a newer document")
	}
	u.DisplayName = "changed"
	if err := s.Tenant("tenant_a").Users().Replace(ctx, u); !kanri.IsCode(err, kanri.ECONFLICT) {
		t.Errorf("writing back a newer document: got %v, want conflict (no downgrade)", err)
	}
	it, _ = ds.Container(kanri.ContainerAuth).Read(ctx, "tenant_a", "user_new")
	if !strings.Contains(string(it.Body), "futureField") || !strings.Contains(string(it.Body), `"1.9"`) {
		t.Errorf("the newer document was downgraded: %s", it.Body)
	}
}

// TestModifyNeverLosesAChange counts from concurrent goroutines through
// Modify, and checks its refusals.
func TestModifyNeverLosesAChange(t *testing.T) {
	s, _ := openStore(t)
	ctx := t.Context()
	repo := s.Tenant("tenant_a").ServiceUsage()
	fresh := func() *kanri.ServiceUsage { return &kanri.ServiceUsage{Metrics: kanri.UsageMetrics{}} }
	var wg sync.WaitGroup
	var done atomic.Int64
	for range 8 {
		wg.Go(func() {
			for range 10 {
				_, err := repo.Modify(ctx, "usage_x", fresh, func(u *kanri.ServiceUsage) error { u.Metrics["n"]++; return nil })
				if err == nil {
					done.Add(1)
				} else if !kanri.IsCode(err, kanri.EBUSY) { // past the bound: refused, not counted
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	n := done.Load()
	got, err := repo.Get(ctx, "usage_x")
	if err != nil || got.Metrics["n"] != n || n == 0 {
		t.Errorf("counted %v (%v), want the %d changes that succeeded (of 80)", got, err, n)
	}
	if _, err := repo.Modify(ctx, "usage_missing", nil, func(*kanri.ServiceUsage) error { return nil }); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("missing without fresh: got %v, want ENOTFOUND", err)
	}
	refused := errors.New("no")
	if _, err := repo.Modify(ctx, "usage_x", fresh, func(u *kanri.ServiceUsage) error { u.Metrics["n"] = 0; return refused }); err != refused {
		t.Errorf("refused: got %v", err)
	}
	if got, _ := repo.Get(ctx, "usage_x"); got.Metrics["n"] != n {
		t.Errorf("a refused change was written: %v", got.Metrics)
	}
}
