package apikey

import (
	"fmt"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// TestLimiterForgetsIdleKeys fills a limiter with buckets of keys idle
// for two days and one in use: the next new key drops the idle ones only.
func TestLimiterForgetsIdleKeys(t *testing.T) {
	ds := openStore(t)
	now := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	l := NewLimiter(store.New(ds, nil, ownTypes), func() time.Time { return now })
	for i := range maxBuckets - 1 {
		l.by[fmt.Sprintf("apikey_idle%d", i)] = &bucket{window: now.Add(-48 * time.Hour)}
	}
	l.by["apikey_busy"] = &bucket{window: now.Truncate(time.Hour), local: 5}
	k := &kanri.APIKey{Doc: kanri.Doc{ID: "apikey_new", TenantID: "tenant_a"}, RateLimit: 10, RateLimitWindow: "1h"}
	if d, err := l.Allow(t.Context(), k); err != nil || !d.Allowed {
		t.Fatalf("Allow: %+v, %v", d, err)
	}
	if got := len(l.by); got != 2 {
		t.Errorf("buckets after pruning: got %d, want 2 (the busy key and the new one)", got)
	}
	if l.by["apikey_busy"] == nil {
		t.Error("the busy key's bucket was dropped")
	}
}

// TestTouchForgetsIdleKeys checks the same of the lastUsedAt bookkeeping.
func TestTouchForgetsIdleKeys(t *testing.T) {
	s := &Service{touched: map[string]time.Time{}}
	now := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for i := range maxTouched - 1 {
		s.touched[fmt.Sprintf("apikey_idle%d", i)] = now.Add(-time.Hour)
	}
	s.touched["apikey_recent"] = now.Add(-10 * time.Second)
	if s.due("apikey_recent", now) {
		t.Error("a key written 10 s ago is due again")
	}
	if !s.due("apikey_new", now) {
		t.Error("a new key is not due")
	}
	if got := len(s.touched); got != 2 {
		t.Errorf("entries after pruning: got %d, want 2 (the recent key and the new one)", got)
	}
}

// ownTypes are the package's own document types: its internal tests cannot
// import package schema (which imports this package).
var ownTypes = doctype.MustSet([]doctype.Container{Container}, DocTypes)

// openStore opens an embedded store of the package's own types, closed
// when the test ends.
func openStore(t *testing.T) *bolt.Store {
	t.Helper()
	st, err := bolt.Open(t.TempDir(), ownTypes.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
