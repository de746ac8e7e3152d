package role

import (
	"slices"
	"testing"

	"github.com/kanri/kanri/internal/kanri"
)

// testCatalog is a catalog of three services: one on every plan, one
// that needs the standard plan and one with a member role.
var testCatalog = NewCatalog(
	AuthOffer,
	Offer{ID: kanri.APIServiceID, Name: "API", Read: []string{APIKeysRead}, Write: []string{APIKeysDelete}, Plan: kanri.PlanStandard},
	Offer{ID: kanri.FileServiceID, Name: "files", Read: []string{FilesRead}, Write: []string{FilesCreate, FilesDelete}, Member: []string{FilesCreate}},
)

// TestPlanTable pins what each plan allows: services, their permissions
// and features, and that the operator's own plan allows everything.
func TestPlanTable(t *testing.T) {
	for _, c := range []struct {
		key                               string
		free, standard, premium, operator bool
	}{
		{kanri.AuthServiceID, true, true, true, true},
		{UsersCreate, true, true, true, true},
		{FilesCreate, true, true, true, true},
		{kanri.APIServiceID, false, true, true, true},
		{APIKeysRead, false, true, true, true},
		{APIKeysDelete, false, true, true, true},
		{kanri.FeatureAdvancedReporting, false, true, true, true},
		{kanri.FeatureTwoFactorAuth, true, true, true, true},
		{kanri.FeatureAPIAccess, true, true, true, true}, // the api-service's plan gates the API
		{"an-external-service", true, true, true, true},
	} {
		for plan, want := range map[string]bool{kanri.PlanFree: c.free, kanri.PlanStandard: c.standard, kanri.PlanPremium: c.premium, kanri.PlanPrivileged: c.operator} {
			if got := testCatalog.PlanAllows(plan, c.key); got != want {
				t.Errorf("PlanAllows(%s, %s) = %v, want %v", plan, c.key, got, want)
			}
		}
	}
	if got := testCatalog.PlanAllows("", kanri.APIServiceID); got {
		t.Error("a tenant without a plan is allowed what free is not")
	}
}

// TestPlanTableNamesWhatExists: every key of the table is a service of the
// catalog or a feature, so that a renamed service cannot leave a gate
// behind that gates nothing.
func TestPlanTableNamesWhatExists(t *testing.T) {
	features := []string{kanri.FeatureTwoFactorAuth, kanri.FeatureAPIAccess, kanri.FeatureAdvancedReporting}
	for _, r := range testCatalog.PlanTable() {
		_, svc := testCatalog.Find(r.Key, Admin)
		if svc != r.Service || (!svc && !slices.Contains(features, r.Key)) {
			t.Errorf("plan table key %q: a service %v, a feature %v", r.Key, svc, slices.Contains(features, r.Key))
		}
		if !slices.Contains(Plans, r.Plan) {
			t.Errorf("plan table key %q needs the unknown plan %q", r.Key, r.Plan)
		}
	}
}

// TestForPlanTakesAwayWhatThePlanLacks: an administrator's permissions on
// the free plan lose the API's, and keep the others; a
// plan that takes nothing returns the set itself.
func TestForPlanTakesAwayWhatThePlanLacks(t *testing.T) {
	admin := Set{}
	for _, s := range testCatalog.Services() {
		d, _ := testCatalog.Find(s.ID, Admin)
		for _, p := range d.Permissions {
			admin[p] = true
		}
	}
	free := testCatalog.ForPlan(admin, kanri.PlanFree)
	for p := range admin {
		svc := testCatalog.permService[p]
		want := svc != kanri.APIServiceID
		if free.Has(p) != want {
			t.Errorf("free plan: %s (of %s) kept %v, want %v", p, svc, free.Has(p), want)
		}
	}
	if !admin.Has(APIKeysRead) {
		t.Fatal("ForPlan changed the set it was given")
	}
	if got := testCatalog.ForPlan(admin, kanri.PlanStandard); len(got) != len(admin) {
		t.Errorf("standard plan: %d permissions, want %d", len(got), len(admin))
	}
}

// TestFeatureOn: a feature is on when its flag is on and its plan
// includes it.
func TestFeatureOn(t *testing.T) {
	off := false
	for _, c := range []struct {
		name    string
		plan    string
		flag    *bool
		feature string
		want    bool
	}{
		{"default flag, standard", kanri.PlanStandard, nil, kanri.FeatureAdvancedReporting, true},
		{"flag off, standard", kanri.PlanStandard, &off, kanri.FeatureAdvancedReporting, false},
		{"default flag, free", kanri.PlanFree, nil, kanri.FeatureAdvancedReporting, false},
		{"api access default", kanri.PlanFree, nil, kanri.FeatureAPIAccess, true},
		{"api access off", kanri.PlanPremium, &off, kanri.FeatureAPIAccess, false},
	} {
		ten := &kanri.Tenant{Plan: c.plan}
		ten.Settings.Features.AdvancedReporting = c.flag
		ten.Settings.Features.APIAccess = c.flag
		if got := FeatureOn(ten, c.feature); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}
