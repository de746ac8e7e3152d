package upgrade_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/docstore/docstoretest"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/internal/upgrade"
)

// fixture is a store of n tenants, counting its calls.
type fixture struct {
	ctx    context.Context
	calls  *docstoretest.CountingStore
	runner *upgrade.Runner
	ids    []string // the tenants, sorted
}

func setup(t *testing.T, n int) *fixture {
	t.Helper()
	ds := bolttest.Open(t)
	calls := docstoretest.NewCounting(ds)
	d := app.NewDeps(store.New(calls, nil, features.Schema()), slog.New(slog.DiscardHandler), nil)
	ts := tenant.New(d)
	f := &fixture{ctx: audit.WithActor(t.Context(), audit.Actor{UserID: "system", GlobalAdmin: true}), calls: calls, runner: upgrade.New(d, ts)}
	for i := range n {
		ten, err := ts.Create(f.ctx, kanri.TenantInput{Name: fmt.Sprintf("t%03d", i), DisplayName: "T", Plan: kanri.PlanFree, MaxUsers: 5})
		if err != nil {
			t.Fatal(err)
		}
		f.ids = append(f.ids, ten.ID)
	}
	slices.Sort(f.ids)
	return f
}

// seen is an upgrade that notes the tenants it is run on.
type seen struct {
	mu      sync.Mutex
	tenants []string
	fail    error
}

func (s *seen) upgrade(name string) upgrade.Upgrade {
	return upgrade.Upgrade{Name: name, Tenant: func(_ context.Context, id string) error {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.fail != nil {
			return s.fail
		}
		s.tenants = append(s.tenants, id)
		return nil
	}}
}

func (s *seen) sorted() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(slices.Values(s.tenants))
}

// TestRunUpgradesEveryTenantOnce runs two upgrades over more tenants than
// a page holds, then again: the second run reads the marker alone; a
// third upgrade added later runs alone.
func TestRunUpgradesEveryTenantOnce(t *testing.T) {
	f := setup(t, 102)
	var a, b seen
	if err := f.runner.Run(f.ctx, []upgrade.Upgrade{a.upgrade("a"), b.upgrade("b")}); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*seen{"a": &a, "b": &b} {
		if got, want := s.sorted(), f.ids; !slices.Equal(got, want) {
			t.Errorf("upgrade %s ran on %d tenants, want each of the %d once", name, len(got), len(want))
		}
	}
	var a2, b2, c seen
	calls := f.calls.Count(func() {
		if err := f.runner.Run(f.ctx, []upgrade.Upgrade{a2.upgrade("a"), b2.upgrade("b")}); err != nil {
			t.Fatal(err)
		}
	})
	if got, want := calls, (docstoretest.Calls{Read: 1}); got != want {
		t.Errorf("a run with every upgrade done: got %v, want %v", got, want)
	}
	if len(a2.tenants)+len(b2.tenants) != 0 {
		t.Errorf("upgrades done ran again: %d, %d tenants", len(a2.tenants), len(b2.tenants))
	}
	if err := f.runner.Run(f.ctx, []upgrade.Upgrade{a2.upgrade("a"), b2.upgrade("b"), c.upgrade("c")}); err != nil {
		t.Fatal(err)
	}
	if got, want := len(c.tenants), len(f.ids); got != want || len(a2.tenants)+len(b2.tenants) != 0 {
		t.Errorf("a new upgrade: ran on %d tenants (want %d), the others on %d, %d (want 0)", got, want, len(a2.tenants), len(b2.tenants))
	}
	if got, _ := f.runner.Done(f.ctx); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("done: got %v, want [a b c]", got)
	}
}

// TestAFailedUpgradeIsNotRecorded checks that an upgrade that fails on a
// tenant is run again by the next start, and those after it wait.
func TestAFailedUpgradeIsNotRecorded(t *testing.T) {
	f := setup(t, 3)
	boom := errors.New("boom")
	a, b := seen{fail: boom}, seen{}
	if err := f.runner.Run(f.ctx, []upgrade.Upgrade{a.upgrade("a"), b.upgrade("b")}); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the upgrade's error", err)
	}
	if len(b.tenants) != 0 {
		t.Errorf("the upgrade after a failed one ran on %d tenants", len(b.tenants))
	}
	a.fail = nil
	if err := f.runner.Run(f.ctx, []upgrade.Upgrade{a.upgrade("a"), b.upgrade("b")}); err != nil {
		t.Fatal(err)
	}
	if got, want := len(a.sorted()), len(f.ids); got != want {
		t.Errorf("the failed upgrade's second run: %d tenants, want %d", got, want)
	}
	if got, _ := f.runner.Done(f.ctx); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("done: got %v, want [a b]", got)
	}
}

// TestARunCutShortResumesAtItsPage: an upgrade that fails on a tenant of
// its second page of tenants resumes, at the next start, with that page:
// the tenants of the first are not upgraded again.
func TestARunCutShortResumesAtItsPage(t *testing.T) {
	f := setup(t, 250) // three pages of tenants
	var ran []string
	calls, boom := 0, errors.New("boom")
	first := upgrade.Upgrade{Name: "a", Tenant: func(_ context.Context, id string) error {
		if calls++; calls == 150 {
			return boom
		}
		ran = append(ran, id)
		return nil
	}}
	if err := f.runner.Run(f.ctx, []upgrade.Upgrade{first}); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the upgrade's error", err)
	}
	var again seen
	if err := f.runner.Run(f.ctx, []upgrade.Upgrade{again.upgrade("a")}); err != nil {
		t.Fatal(err)
	}
	if got, want := len(again.tenants), 150; got != want {
		t.Errorf("the second run upgraded %d tenants, want %d (the second and third pages)", got, want)
	}
	if all := slices.Compact(slices.Sorted(slices.Values(append(ran[:100:100], again.tenants...)))); !slices.Equal(all, f.ids) {
		t.Errorf("the two runs upgraded %d distinct tenants, want all %d", len(all), len(f.ids))
	}
	if got, _ := f.runner.Done(f.ctx); !slices.Equal(got, []string{"a"}) {
		t.Errorf("done: got %v, want [a]", got)
	}
}
