package erasure_test

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/disk"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/messaging"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/seal"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/wiring"
)

// alice is the person erased: every string that names her.
var alice = struct {
	username, email, display, first, last, phone, ip, agent string
}{"alice.liddell", "alice.liddell@acme.example", "Alice Liddell", "Alicia", "Liddell", "+81-90-1234-5678", "203.0.113.77", "AliceBrowser/1.0"}

// traces are what must be found nowhere after her erasure.
func traces() []string {
	return []string{alice.username, alice.email, alice.display, alice.first, alice.last, alice.phone, alice.ip, alice.agent}
}

// env is a Kanri over one store with a tenant, acme, its admin and
// alice, who has touched every feature.
type env struct {
	svcs   *wiring.Set
	ds     docstore.Store
	blobs  *blob.Bucket
	keys   *seal.Keys      // the archives' keys
	admin  context.Context // acting as acme's administrator
	tenant *kanri.Tenant
	alice  *kanri.User
	file   *kanri.File // uploaded by alice
	jobs   int         // backup jobs made
}

func newEnv(t *testing.T, ds docstore.Store) *env {
	t.Helper()
	drv, err := disk.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	blobs, keys := blob.New(drv), seal.Generated()
	svcs := wiring.New(store.New(ds, nil, features.Schema()), slog.New(slog.DiscardHandler), nil, wiring.Options{
		Roles: features.Roles(), Hasher: auth.Hasher{Cost: bcrypt.MinCost}, Blobs: blobs, ArchiveKeys: keys,
	})
	t.Cleanup(svcs.Backups.Wait)
	ctx := audit.WithActor(t.Context(), audit.Actor{UserID: "user_operator", UserName: "operator", TenantID: kanri.PrivilegedTenantID})
	if _, err := svcs.Roles.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	ten, err := svcs.Tenants.Create(ctx, kanri.TenantInput{Name: "acme", DisplayName: "ACME", Plan: kanri.PlanStandard, MaxUsers: 100})
	if err != nil {
		t.Fatal(err)
	}
	admin, err := svcs.Users.Create(ctx, ten.ID, kanri.UserInput{Username: "admin", Email: "admin@acme.example", DisplayName: "Admin", Password: "Correct-Horse-9"})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{svcs: svcs, ds: ds, blobs: blobs, keys: keys, tenant: ten,
		admin: audit.WithActor(ctx, audit.Actor{UserID: admin.ID, UserName: admin.Username, TenantID: ten.ID, IPAddress: "198.51.100.1"})}
	e.fill(t)
	return e
}

// fill gives alice a part in every feature: roles, a profile with her
// phone, an avatar, a session, a file, a channel with her messages and
// reactions, an API key; and the admin changes her.
func (e *env) fill(t *testing.T) {
	t.Helper()
	ctx, tid, s := e.admin, e.tenant.ID, e.svcs
	for _, id := range []string{kanri.FileServiceID, kanri.MessagingServiceID, kanri.APIServiceID, kanri.BackupServiceID} {
		if _, _, err := s.Catalog.Assign(ctx, tid, kanri.AssignmentInput{ServiceID: id}); err != nil {
			t.Fatal(err)
		}
	}
	u, err := s.Users.Create(ctx, tid, kanri.UserInput{Username: alice.username, Email: alice.email, DisplayName: alice.display, Password: "Correct-Horse-9"})
	if err != nil {
		t.Fatal(err)
	}
	for _, svc := range []string{kanri.FileServiceID, kanri.MessagingServiceID} {
		if _, _, err := s.Roles.Assign(ctx, role.Grant{Tenant: e.tenant, UserID: u.ID, ServiceID: svc, RoleName: role.Member}); err != nil {
			t.Fatal(err)
		}
	}
	as := audit.WithActor(t.Context(), audit.Actor{UserID: u.ID, UserName: u.Username, TenantID: tid, IPAddress: alice.ip, UserAgent: alice.agent})
	if u, err = s.Users.UpdateProfile(as, tid, u.ID, kanri.Seen{}, kanri.UserProfile{FirstName: alice.first, LastName: alice.last, PhoneNumber: alice.phone}); err != nil {
		t.Fatal(err)
	}
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewGray(image.Rect(0, 0, 8, 8))); err != nil {
		t.Fatal(err)
	}
	url, err := s.Files.StoreAvatar(as, tid, u.ID, &img)
	if err != nil {
		t.Fatal(err)
	}
	if u, err = s.Users.SetAvatar(as, tid, u.ID, kanri.Seen{}, url); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Auth.StartSession(as, tid, u.ID, "token-of-alice", alice.agent, alice.ip, 3600e9); err != nil {
		t.Fatal(err)
	}
	data := []byte("the quarterly figures")
	up, err := s.Files.CreateUpload(as, tid, files.UploadInput{Name: "figures.txt", Size: int64(len(data))})
	if err != nil {
		t.Fatal(err)
	}
	if _, e.file, err = s.Files.WriteUpload(as, tid, up.ID, 0, bytes.NewReader(data), nil); err != nil || e.file == nil {
		t.Fatalf("upload: %v", err)
	}
	me := messaging.Person{UserID: u.ID, Name: u.DisplayName, Username: u.Username}
	ch, err := s.Messaging.CreateChannel(as, tid, me, messaging.ChannelInput{Name: "tea-party", DisplayName: "Tea party"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Messaging.Post(as, tid, me, ch.ID, "Call me on "+alice.phone+", "+alice.first, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Messaging.React(as, tid, me, ch.ID, m.ID, "👍", true); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Keys.Create(as, tid, apikey.Input{Name: "alice's script", Scopes: []string{"read"}}); err != nil {
		t.Fatal(err)
	}
	e.alice = u
}

// search returns where the store's partitions of tenantIDs, and every
// blob (archives opened and decompressed) whose name does not start with
// one of skip, hold one of the traces.
func (e *env) search(t *testing.T, tenantIDs []string, skip ...string) []string {
	t.Helper()
	var found []string
	var containers []string
	for _, sp := range features.Specs() {
		containers = append(containers, sp.Name)
	}
	look := func(where string, b []byte) {
		for _, s := range traces() {
			if bytes.Contains(bytes.ToLower(b), bytes.ToLower([]byte(s))) {
				found = append(found, where+": "+s)
			}
		}
	}
	for _, pk := range append(tenantIDs, kanri.SystemTenantID, kanri.PrivilegedTenantID) {
		_, err := e.ds.Dump(t.Context(), pk, containers, func(container string, it docstore.Item) error {
			look(pk+"/"+container+"/"+it.ID, it.Body)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for info, err := range e.blobs.List(t.Context(), "") {
		if err != nil {
			t.Fatal(err)
		}
		if slicesHasPrefix(info.Name, skip) {
			continue
		}
		r, err := e.blobs.NewRangeReader(t.Context(), info.Name, 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		plain, err := e.keys.Open(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(plain); err != nil {
			t.Fatal(err)
		}
		if zr, err := gzip.NewReader(bytes.NewReader(b)); err == nil {
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		look("blob "+info.Name, b)
	}
	return found
}

func slicesHasPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func (e *env) backup(t *testing.T) *kanri.BackupHistory {
	t.Helper()
	e.jobs++
	j, err := e.svcs.Backups.CreateJob(e.admin, e.tenant.ID, kanri.BackupJobInput{Name: fmt.Sprintf("job %d", e.jobs), Schedule: "0 3 * * *", Parts: kanri.AllBackupParts, RetentionDays: 30, IsActive: true})
	if err != nil {
		t.Fatal(err)
	}
	h, err := e.svcs.Backups.RunNow(e.admin, e.tenant.ID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	e.svcs.Backups.Wait()
	if h, err = e.svcs.Backups.History(e.admin, e.tenant.ID, h.ID); err != nil || h.Status != kanri.BackupSuccess {
		t.Fatalf("backup: %v, %+v", err, h)
	}
	return h
}

// testErasure erases alice, then looks for her everywhere: in the store,
// in every blob, in an archive made after, and after restoring an archive
// made before (into the tenant, and into a new one).
func testErasure(t *testing.T, e *env) {
	ctx, tid := e.admin, e.tenant.ID
	if found := e.search(t, []string{tid}); len(found) < len(traces()) {
		t.Fatalf("before the erasure, found only %v: the search does not see what it should", found)
	}
	export, err := e.svcs.Erasure.Export(ctx, tid, e.alice.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, s := range export.Sections {
		got[s.Type] = len(s.Items)
	}
	for _, typ := range []string{kanri.TypeUser, kanri.TypeRoleAssignment, kanri.TypeSession, kanri.TypeFile, kanri.TypeMessage, kanri.TypeReaction, kanri.TypeChannelMember, kanri.TypeAuditLog} {
		if got[typ] == 0 {
			t.Errorf("the export has no %s of alice: %v", typ, got)
		}
	}
	if b, _ := jsonOf(export); bytes.Contains(b, []byte("passwordHash")) || bytes.Contains(b, []byte("twoFactorSecret")) {
		t.Errorf("the export holds a secret: %s", b)
	}
	var zipped bytes.Buffer
	if err := e.svcs.Erasure.WriteZip(ctx, &zipped, tid, e.alice.ID); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(zipped.Bytes()), int64(zipped.Len()))
	if err != nil {
		t.Fatal(err)
	}
	entries := map[string]string{}
	for _, f := range zr.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		entries[f.Name] = string(b)
	}
	if got, want := entries["files/"+e.file.ID+"-figures.txt"], "the quarterly figures"; got != want || !strings.Contains(entries["personal-data.json"], alice.email) {
		t.Errorf("the zip of alice's data: %d entries, her file %q (want %q), her data %d bytes", len(entries), got, want, len(entries["personal-data.json"]))
	}
	before := e.backup(t)

	if _, err := e.svcs.Erasure.Erase(ctx, tid, e.alice.ID, "alice"); !kanri.IsCode(err, kanri.EINVALID) {
		t.Fatalf("erasure with a wrong confirmation: got %v, want invalid", err)
	}
	rep, err := e.svcs.Erasure.Erase(ctx, tid, e.alice.ID, alice.username)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Deleted == 0 || rep.Pseudonymised == 0 || rep.Revoked != 1 {
		t.Errorf("report %+v: want deletions, pseudonymisations and one key revoked", rep)
	}
	archives := "backups/" + tid + "/archives/" + before.ID + "/"
	// The archive made before still holds her, sealed: the search opens it.
	if found := e.search(t, nil); !slices.ContainsFunc(found, func(f string) bool { return strings.HasPrefix(f, "blob "+archives) }) {
		t.Errorf("the search finds nothing in the archive made before the erasure (%v): it does not open sealed archives", found)
	}
	if found := e.search(t, []string{tid}, archives); len(found) > 0 {
		t.Errorf("after the erasure, still found:\n%s", strings.Join(found, "\n"))
	}
	if _, err := e.svcs.Users.Get(ctx, tid, e.alice.ID); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("alice's user: got %v, want not found", err)
	}
	if f, err := e.svcs.Files.File(ctx, tid, e.file.ID); err != nil || f.UploadedBy != e.alice.ID {
		t.Errorf("alice's file: got %+v, %v; want kept, uploaded by her id", f, err)
	}
	keys, err := e.svcs.Keys.List(ctx, tid)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.CreatedBy == e.alice.ID && k.RevokedAt.IsZero() {
			t.Errorf("alice's key %s is not revoked", k.ID)
		}
	}

	// An archive made after holds nothing of her.
	e.backup(t)
	if found := e.search(t, []string{tid}, archives); len(found) > 0 {
		t.Errorf("after a later backup, found:\n%s", strings.Join(found, "\n"))
	}

	// Restoring the archive made before brings her back only to erase
	// her again.
	if _, err := e.svcs.Backups.Restore(ctx, tid, before.ID, kanri.AllBackupParts); err != nil {
		t.Fatal(err)
	}
	e.svcs.Backups.Wait()
	if r, err := e.svcs.Backups.LatestRestore(ctx, tid); err != nil || r.Status != kanri.RestoreDone {
		t.Fatalf("restore: %v, %+v", err, r)
	}
	if found := e.search(t, []string{tid}, archives); len(found) > 0 {
		t.Errorf("after restoring an archive made before the erasure, found:\n%s", strings.Join(found, "\n"))
	}
	if ten, err := e.svcs.Tenants.Get(ctx, tid); err != nil || ten.UserCount != 1 {
		t.Errorf("userCount after the restore: %+v, %v; want 1 (the admin)", ten, err)
	}
	copied, _, err := e.svcs.Backups.RestoreAsNewTenant(ctx, tid, before.ID, kanri.TenantInput{Name: "acme-copy", DisplayName: "ACME copy", Plan: kanri.PlanStandard, MaxUsers: 100})
	if err != nil {
		t.Fatal(err)
	}
	e.svcs.Backups.Wait()
	if found := e.search(t, []string{tid, copied.ID}, archives); len(found) > 0 {
		t.Errorf("after restoring into a new tenant, found:\n%s", strings.Join(found, "\n"))
	}
	erased, err := e.svcs.Erasure.Erased(ctx, copied.ID)
	if err != nil || len(erased) != 1 || erased[0].UserID != e.alice.ID {
		t.Errorf("the copy's erasure list: %v, %v; want alice's", erased, err)
	}
}

func TestErasureEmbedded(t *testing.T) {
	testErasure(t, newEnv(t, bolttest.Open(t)))
}

func TestErasureCosmos(t *testing.T) {
	srv := cosmostest.Start(t)
	testErasure(t, newEnv(t, cosmostest.OpenNew(t, srv)))
}

func jsonOf(v any) ([]byte, error) { return json.Marshal(v) }
