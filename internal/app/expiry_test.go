package app_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// TestMoveExpiryDays: the upgrade moves an expiry an earlier version
// stored for a date (its last second in UTC) to the last second of that
// date in the tenant's zone, once, and leaves other expiries, and a tenant
// in UTC, alone. On API keys and service assignments, the two documents
// whose forms take expiry dates.
func TestMoveExpiryDays(t *testing.T) {
	ds := bolttest.Open(t)
	d := app.NewDeps(store.New(ds, nil, features.Schema()), nil, nil)
	ctx := t.Context()
	legacy := time.Date(2026, 7, 1, 23, 59, 59, 0, time.UTC)
	instant := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	for i, c := range []struct {
		zone string
		want time.Time // of the legacy expiry
	}{
		{"Asia/Tokyo", time.Date(2026, 7, 1, 14, 59, 59, 0, time.UTC)},
		{"America/New_York", time.Date(2026, 7, 2, 3, 59, 59, 0, time.UTC)},
		{"UTC", legacy},
	} {
		ten := &kanri.Tenant{Doc: kanri.Doc{ID: fmt.Sprintf("tenant_%d", i)}, Name: fmt.Sprintf("t%d", i), Status: kanri.TenantActive}
		ten.Settings.Timezone = c.zone
		if err := d.Store.Tenant(ten.ID).Tenants().Create(ctx, ten); err != nil {
			t.Fatal(err)
		}
		keys := d.Store.Tenant(ten.ID).APIKeys()
		for _, k := range []*kanri.APIKey{
			{Doc: kanri.Doc{ID: "apikey_legacy"}, Name: "legacy", ExpiresAt: kanri.NewTime(legacy)},
			{Doc: kanri.Doc{ID: "apikey_instant"}, Name: "instant", ExpiresAt: kanri.NewTime(instant)},
			{Doc: kanri.Doc{ID: "apikey_none"}, Name: "none"},
		} {
			if err := keys.Create(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
		assignments := d.Store.Tenant(ten.ID).ServiceAssignments()
		if err := assignments.Create(ctx, &kanri.ServiceAssignment{Doc: kanri.Doc{ID: "assignment_legacy"}, ServiceID: kanri.FileServiceID, ExpiresAt: kanri.NewTime(legacy)}); err != nil {
			t.Fatal(err)
		}
		for range 2 { // run again, it moves nothing more
			if err := app.MoveExpiryDays(ctx, d, ten.ID, keys, func(k *kanri.APIKey) *kanri.Time { return &k.ExpiresAt }); err != nil {
				t.Fatal(err)
			}
			if err := app.MoveExpiryDays(ctx, d, ten.ID, assignments, func(a *kanri.ServiceAssignment) *kanri.Time { return &a.ExpiresAt }); err != nil {
				t.Fatal(err)
			}
		}
		for id, want := range map[string]time.Time{"apikey_legacy": c.want, "apikey_instant": instant, "apikey_none": {}} {
			k, err := keys.Get(ctx, id)
			if err != nil || !k.ExpiresAt.Equal(want) {
				t.Errorf("%s: %s expires at %v (%v), want %v", c.zone, id, k.ExpiresAt, err, want)
			}
		}
		if a, err := assignments.Get(ctx, "assignment_legacy"); err != nil || !a.ExpiresAt.Equal(c.want) {
			t.Errorf("%s: the assignment expires at %v (%v), want %v", c.zone, a.ExpiresAt, err, c.want)
		}
	}
	if err := app.MoveExpiryDays(ctx, d, "tenant_unknown", d.Store.Tenant("tenant_unknown").APIKeys(), func(k *kanri.APIKey) *kanri.Time { return &k.ExpiresAt }); err != nil {
		t.Errorf("a partition without a tenant: %v", err)
	}
}
