package tenant_test

import (
	"testing"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/schedule/scheduletest"
	"github.com/kanri/kanri/internal/store"
)

// TestListingsKeepWhyAndWhere: the operator's index entry of a tenant
// holds why it is suspended and its time zone, and the upgrade
// RewriteListing gives them to an entry written before it held them.
func TestListingsKeepWhyAndWhere(t *testing.T) {
	ds := bolttest.Open(t)
	svcs := instance(t, ds, "one", scheduletest.NewClock(start))
	ten, err := svcs.Tenants.Create(operator, kanri.TenantInput{Name: "zoned", DisplayName: "Zoned", Plan: kanri.PlanStandard, MaxUsers: 10})
	if err != nil {
		t.Fatal(err)
	}
	in := kanri.SettingsInputOf(ten)
	in.Timezone = "Europe/Berlin"
	if ten, err = svcs.Tenants.UpdateSettings(operator, ten.ID, ten.ETag, nil, in); err != nil {
		t.Fatal(err)
	}
	if ten, err = svcs.Tenants.SetStatus(operator, ten.ID, kanri.Seen{ETag: ten.ETag, State: ten.Status}, kanri.TenantSuspended); err != nil {
		t.Fatal(err)
	}
	repo := store.Of[kanri.TenantListing](store.New(ds, nil, features.Schema()).Tenant(kanri.SystemTenantID), kanri.ContainerTenant, kanri.TypeTenantListing)
	entry := func() *kanri.TenantListing {
		t.Helper()
		l, err := repo.Get(operator, ten.ID)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	check := func(when string) {
		t.Helper()
		l := entry()
		if got, want := l.SuspendedReason, kanri.SuspendedByOperator; got != want {
			t.Errorf("%s: reason %q, want %q", when, got, want)
		}
		if got, want := l.Location().String(), "Europe/Berlin"; got != want {
			t.Errorf("%s: zone %s, want %s", when, got, want)
		}
	}
	check("kept on save")

	old := entry() // as a version before this one wrote it
	old.SuspendedReason, old.Timezone = "", ""
	if err := repo.Replace(operator, old); err != nil {
		t.Fatal(err)
	}
	if got := entry().Location().String(); got != kanri.DefaultTimeZone {
		t.Fatalf("an entry without a zone is in %s, want the default %s", got, kanri.DefaultTimeZone)
	}
	for range 2 { // run again, it changes nothing
		if err := svcs.Tenants.RewriteListing(operator, ten.ID); err != nil {
			t.Fatal(err)
		}
		check("after the upgrade")
	}
	if err := svcs.Tenants.RewriteListing(operator, "tenant_unknown"); err != nil {
		t.Errorf("the upgrade of a partition without a tenant: %v", err)
	}
}
