package backup

import (
	"fmt"
	"testing"
	"time"
)

// TestDryRunsKeepFewAndFresh: a kept result serves for dryRunTTL; at most
// dryRunsKept are kept, the oldest going first; forget drops a tenant's.
func TestDryRunsKeepFewAndFresh(t *testing.T) {
	var d dryRuns
	t0 := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	key := func(tenant string, i int) string {
		return dryRunKey(tenant, fmt.Sprintf("history_%d", i), "user_1", []string{"users"})
	}
	d.put(key("tenant_a", 0), &DryRun{ComputedAt: t0}, t0)
	for _, c := range []struct {
		at   time.Duration
		kept bool
	}{{0, true}, {dryRunTTL - time.Second, true}, {dryRunTTL, false}, {-time.Second, false}} {
		if got := d.get(key("tenant_a", 0), t0.Add(c.at)) != nil; got != c.kept {
			t.Errorf("at %v: kept %v, want %v", c.at, got, c.kept)
		}
	}
	for i := 1; i <= dryRunsKept; i++ {
		at := t0.Add(time.Duration(i) * time.Second)
		d.put(key("tenant_b", i), &DryRun{ComputedAt: at}, at)
	}
	now := t0.Add(time.Minute)
	if got := len(d.kept); got != dryRunsKept {
		t.Errorf("%d kept, want %d", got, dryRunsKept)
	}
	if d.get(key("tenant_a", 0), now) != nil {
		t.Error("the oldest result was kept over the bound")
	}
	if d.get(key("tenant_b", dryRunsKept), now) == nil {
		t.Error("the newest result was not kept")
	}
	d.forget("tenant_b")
	if got := len(d.kept); got != 0 {
		t.Errorf("%d kept after forgetting tenant_b, want 0", got)
	}
	if d.get(dryRunKey("tenant_bb", "h", "u", nil), now) != nil {
		t.Error("a result of another tenant appeared")
	}
}
