package wiring_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/schema"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/wiring"
)

// TestEveryFeatureIsRegistered: every service of the set that offers a
// Feature is in Features, so that the composition root, which loops over
// Features, runs its upgrades and workers; and names are unique (they
// record upgrades as done and claim scheduled runs).
func TestEveryFeatureIsRegistered(t *testing.T) {
	st := store.New(bolttest.Open(t), nil, schema.Set())
	svcs := wiring.New(st, nil, nil, wiring.Options{RepairGrace: time.Minute, HealthInterval: time.Minute, DomainRecheck: time.Hour})
	registered := map[string]bool{}
	upgrades, work := map[string]bool{}, map[string]bool{}
	for _, f := range svcs.Features() {
		if registered[f.Name] {
			t.Errorf("feature %s registered twice", f.Name)
		}
		registered[f.Name] = true
		for _, u := range f.Upgrades {
			if upgrades[u.Name] || u.Tenant == nil {
				t.Errorf("upgrade %q of %s: twice, or without its work", u.Name, f.Name)
			}
			upgrades[u.Name] = true
		}
		for _, w := range f.Work {
			if work[w.Name] || (w.Run == nil) == (w.Periodic == nil) || w.Periodic != nil && w.Every <= 0 {
				t.Errorf("work %q of %s: twice, not one of Run and Periodic, or periodic without an interval", w.Name, f.Name)
			}
			work[w.Name] = true
		}
	}
	v := reflect.ValueOf(svcs).Elem()
	for i := range v.NumField() {
		m := v.Field(i).MethodByName("Feature")
		if !m.IsValid() {
			continue
		}
		f, ok := m.Call(nil)[0].Interface().(app.Feature)
		if !ok {
			t.Fatalf("%s.Feature does not return an app.Feature", v.Type().Field(i).Name)
		}
		if !registered[f.Name] {
			t.Errorf("%s offers feature %q, which Features leaves out", v.Type().Field(i).Name, f.Name)
		}
	}
	if len(registered) < 9 || len(upgrades) < 8 || len(work) < 9 {
		t.Errorf("found %d features, %d upgrades, %d workers: fewer than Kanri has", len(registered), len(upgrades), len(work))
	}
}
