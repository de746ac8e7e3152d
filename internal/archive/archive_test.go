package archive_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/archive"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/azureblob"
	"github.com/kanri/kanri/internal/azureblob/azuritetest"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/disk"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/wiring"
)

// world is a tenant whose person ann made old audit records and sent old
// messages, over a store and a blob store.
type world struct {
	ds     docstore.Store
	blobs  *blob.Bucket
	svcs   *wiring.Set
	tenant string
	ann    *kanri.User
	now    time.Time
}

func newWorld(t *testing.T, ds docstore.Store, blobs *blob.Bucket) *world {
	t.Helper()
	w := &world{ds: ds, blobs: blobs, now: time.Now()}
	w.svcs = wiring.New(store.New(ds, nil, features.Schema()), slog.New(slog.DiscardHandler), nil, wiring.Options{Roles: features.Roles(), Blobs: blobs})
	ctx := actor(t)
	if _, err := w.svcs.Roles.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	ten, err := w.svcs.Tenants.Create(ctx, kanri.TenantInput{Name: "acme", DisplayName: "Acme", Plan: kanri.PlanStandard, MaxUsers: 10})
	if err != nil {
		t.Fatal(err)
	}
	w.tenant = ten.ID
	if _, err := w.svcs.Users.Create(ctx, ten.ID, kanri.UserInput{Username: "admin", Email: "admin@acme.test", DisplayName: "Admin", Password: "Admin-pass-123"}); err != nil {
		t.Fatal(err)
	}
	if w.ann, err = w.svcs.Users.Create(ctx, ten.ID, kanri.UserInput{Username: "annarchive", Email: "ann@acme.test", DisplayName: "Ann Archive", Password: "Ann-pass-12345"}); err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		age := 88 * 24 * time.Hour // within a week of the 90 days
		if i >= 5 {
			age = time.Hour
		}
		body := fmt.Sprintf(`{"id":"audit_old_%d","tenantId":%q,"type":"audit_log","schemaVersion":"1.0","timestamp":%q,"userId":%q,"userName":"annarchive","action":"file.update","resource":{"type":"File","id":"file_%d","name":"plan %d.txt"},"metadata":{"ipAddress":"203.0.113.9","userAgent":"Ann's browser"},"status":"success"}`,
			i, ten.ID, kanri.FormatTime(w.now.Add(-age)), w.ann.ID, i, i)
		if _, err := ds.Container(kanri.ContainerAudit).Create(ctx, ten.ID, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 2 {
		body := fmt.Sprintf(`{"id":"message_old_%d","tenantId":%q,"type":"message","schemaVersion":"1.0","channelId":"channel_x","seq":%d,"senderId":%q,"senderName":"Ann Archive","content":"hello from ann@acme.test","sentAt":%q}`,
			i, ten.ID, i+1, w.ann.ID, kanri.FormatTime(w.now.Add(-360*24*time.Hour)))
		if _, err := ds.Container(kanri.ContainerMessaging).Create(ctx, ten.ID, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func actor(t testing.TB) context.Context {
	return audit.WithActor(t.Context(), audit.Actor{UserID: "user_system", UserName: "operator", GlobalAdmin: true})
}

// count counts the tenant's documents of a type.
func (w *world) count(t *testing.T, container, typ string) int {
	t.Helper()
	n, q := 0, docstore.Query{Type: typ, Limit: docstore.MaxPageSize}
	for {
		page, err := w.ds.Container(container).Query(t.Context(), w.tenant, q)
		if err != nil {
			t.Fatal(err)
		}
		n += len(page.Items)
		if page.Continuation == "" {
			return n
		}
		q.Continuation = page.Continuation
	}
}

// testArchive: nothing is archived until the tenant says so; then the
// audit records within a week of their expiry are archived, checked and
// deleted from the store, the recent ones stay; messages only once
// chosen. An archive is read only once rehydrated, and an erasure
// rewrites it without the person.
func testArchive(t *testing.T, w *world) {
	ctx := actor(t)
	a := w.svcs.Archives
	if got, err := a.Tenant(ctx, w.tenant); err != nil || len(got) != 0 {
		t.Fatalf("a pass before the tenant archives: %d archives, %v", len(got), err)
	}
	if _, err := a.SaveSettings(ctx, w.tenant, archive.SettingsInput{Enabled: true, Days: 0}, kanri.Seen{}); !kanri.IsCode(err, kanri.EINVALID) {
		t.Errorf("0 days: %v; want EINVALID", err)
	}
	if _, err := a.SaveSettings(ctx, w.tenant, archive.SettingsInput{Enabled: true, Optional: []string{"audit_log"}, Days: 7}, kanri.Seen{}); !kanri.IsCode(err, kanri.EINVALID) {
		t.Errorf("audit records as an optional type: %v; want EINVALID", err)
	}
	st, err := a.SaveSettings(ctx, w.tenant, archive.SettingsInput{Enabled: true, Days: 7}, kanri.Seen{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.Tenant(ctx, w.tenant)
	if err != nil || len(got) != 1 {
		t.Fatalf("the pass: %d archives, %v; want 1", len(got), err)
	}
	first := got[0]
	if first.State != archive.StateArchived || first.Documents != 5 || first.Deleted != 5 || first.Kept != 0 || first.Count("audit_log") != 5 || len(first.People) == 0 {
		t.Fatalf("the archive: %+v; want 5 audit records archived and deleted", first)
	}
	if n := w.count(t, kanri.ContainerAudit, "audit_log"); n < 3 {
		t.Errorf("%d audit records left; want the 3 recent ones and those the setup wrote", n)
	}
	for i := range 5 {
		if _, err := w.ds.Container(kanri.ContainerAudit).Read(ctx, w.tenant, fmt.Sprintf("audit_old_%d", i)); !kanri.IsCode(err, kanri.ENOTFOUND) {
			t.Errorf("audit_old_%d is still in the store: %v", i, err)
		}
	}
	if n := w.count(t, kanri.ContainerMessaging, "message"); n != 2 {
		t.Errorf("%d messages left; want both: messages were not chosen", n)
	}
	if again, err := a.Tenant(ctx, w.tenant); err != nil || len(again) != 0 {
		t.Errorf("a second pass: %d archives, %v; want none", len(again), err)
	}

	if _, err := a.SaveSettings(ctx, w.tenant, archive.SettingsInput{Enabled: true, Optional: []string{"message"}, Days: 7}, kanri.Seen{ETag: st.ETag}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.SaveSettings(ctx, w.tenant, archive.SettingsInput{Enabled: true, Days: 7}, kanri.Seen{ETag: st.ETag}); !kanri.IsCode(err, kanri.ESTALE) {
		t.Errorf("a save at an old version: %v; want ESTALE", err)
	}
	if got, err = a.Tenant(ctx, w.tenant); err != nil || len(got) != 1 || got[0].Count("message") != 2 {
		t.Fatalf("the pass with messages: %+v, %v; want one archive of 2 messages", got, err)
	}
	if n := w.count(t, kanri.ContainerMessaging, "message"); n != 0 {
		t.Errorf("%d messages left after they were archived", n)
	}
	created, _, err := w.svcs.Deps.Audit.Query(ctx, w.tenant, audit.Filter{Action: "archive.create", Limit: 10})
	if err != nil || len(created) != 2 {
		t.Errorf("audit records of the archives written: %d, %v; want 2", len(created), err)
	}

	if _, _, err := a.Records(ctx, w.tenant, first.ID, 10); !kanri.IsCode(err, kanri.ECONFLICT) {
		t.Errorf("reading an archived archive: %v; want ECONFLICT (rehydrate first)", err)
	}
	if other, _, err := a.Records(ctx, "tenant_other", first.ID, 10); err == nil || other != nil {
		t.Errorf("another tenant read the archive")
	}
	r, err := a.Rehydrate(ctx, w.tenant, first.ID)
	if err != nil || r.State != archive.StateAvailable {
		t.Fatalf("rehydrate: %+v, %v; want it available (these stores rehydrate at once)", r, err)
	}
	_, recs, err := a.Records(ctx, w.tenant, first.ID, 10)
	if err != nil || len(recs) != 5 || recs[0].Doc["userName"] != "annarchive" {
		t.Fatalf("records: %d, %v; want ann's 5", len(recs), err)
	}
	var dl bytes.Buffer
	if err := a.Download(ctx, &dl, w.tenant, first.ID); err != nil || strings.Count(dl.String(), "\n") != 5 {
		t.Errorf("download: %d lines, %v", strings.Count(dl.String(), "\n"), err)
	}

	// Ann is erased: the available archive is rewritten at once; the
	// archived one (messages) too, once readable.
	if _, err := w.svcs.Erasure.Erase(ctx, w.tenant, w.ann.ID, "annarchive"); err != nil {
		t.Fatal(err)
	}
	all, _, err := a.List(ctx, w.tenant, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, ar := range all {
		if ar.State == archive.StateRehydrating {
			if ar, err = a.Refresh(ctx, w.tenant, ar); err != nil {
				t.Fatal(err)
			}
		}
		if len(ar.Pending) != 0 || ar.State == archive.StateRehydrating {
			t.Errorf("archive %s is still %s with %d erasures pending", ar.ID, ar.State, len(ar.Pending))
		}
		for _, id := range ar.People {
			if id == w.ann.ID {
				t.Errorf("archive %s still lists ann", ar.ID)
			}
		}
		if ar.State == archive.StateArchived {
			if _, err := a.Rehydrate(ctx, w.tenant, ar.ID); err != nil {
				t.Fatal(err)
			}
		}
		var all bytes.Buffer
		if err := a.Download(ctx, &all, w.tenant, ar.ID); err != nil {
			t.Fatal(err)
		}
		for _, trace := range []string{"annarchive", "ann@acme.test", "Ann Archive", "203.0.113.9", "Ann's browser"} {
			if strings.Contains(all.String(), trace) {
				t.Errorf("archive %s still holds %q after ann's erasure", ar.ID, trace)
			}
		}
		if ar.Documents == 0 || !strings.Contains(all.String(), "erased-") {
			t.Errorf("archive %s: %d records, pseudonym present %v; want them kept under the pseudonym", ar.ID, ar.Documents, strings.Contains(all.String(), "erased-"))
		}
	}
}

func TestArchiveEmbedded(t *testing.T) {
	ds, err := bolt.Open(t.TempDir(), features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ds.Close() })
	drv, err := disk.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testArchive(t, newWorld(t, ds, blob.New(drv)))
}

func TestArchiveCosmosAzure(t *testing.T) {
	srv := cosmostest.Start(t)
	az := azuritetest.Start(t)
	d, err := azureblob.New(t.Context(), azureblob.Config{ConnectionString: az.ConnectionString(), Container: "archive-test"})
	if err != nil {
		t.Fatal(err)
	}
	testArchive(t, newWorld(t, cosmostest.OpenNew(t, srv), blob.New(d)))
}
