package bolt_test

import (
	"sync"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func TestDataSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	st, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	etag, err := st.Container(kanri.ContainerAuth).Create(t.Context(), "t1", []byte(`{"id":"a","tenantId":"t1","type":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	it, err := st.Container(kanri.ContainerAuth).Read(t.Context(), "t1", "a")
	if err != nil {
		t.Fatalf("read after reopen: %v", err)
	}
	if it.ETag != etag {
		t.Errorf("ETag after reopen: got %q, want %q", it.ETag, etag)
	}
}

func TestSecondOpenFailsClearly(t *testing.T) {
	dir := t.TempDir()
	st, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := bolt.Open(dir, features.Specs(), bolt.Options{}); err == nil {
		t.Fatal("second open of a store in use: got no error")
	}
}

func TestPurgeDeletesOnlyExpired(t *testing.T) {
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	st, err := bolt.Open(t.TempDir(), features.Specs(), bolt.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := t.Context()
	audit, auth := st.Container(kanri.ContainerAudit), st.Container(kanri.ContainerAuth)
	put := func(c docstore.Container, id, extra string) {
		t.Helper()
		if _, err := c.Create(ctx, "t1", []byte(`{"id":"`+id+`","tenantId":"t1","type":"x"`+extra+`}`)); err != nil {
			t.Fatal(err)
		}
	}
	put(audit, "default", "")          // 90 days by the container's default
	put(audit, "forever", `,"ttl":-1`) // never
	put(auth, "hour", `,"ttl":3600`)   // one hour
	put(auth, "plain", "")             // never: auth has no default
	// Rewriting with a longer ttl moves the expiry: the old index entry
	// must not purge the new version.
	put(auth, "moved", `,"ttl":60`)
	if _, err := auth.Upsert(ctx, "t1", []byte(`{"id":"moved","tenantId":"t1","type":"x","ttl":7200}`), ""); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		after   time.Duration
		purged  int
		visible map[string]bool
	}{
		{30 * time.Minute, 0, map[string]bool{"default": true, "forever": true, "hour": true, "plain": true, "moved": true}},
		{time.Hour, 1, map[string]bool{"default": true, "forever": true, "hour": false, "plain": true, "moved": true}},
		{2 * time.Hour, 1, map[string]bool{"moved": false, "plain": true}},
		{90 * 24 * time.Hour, 1, map[string]bool{"default": false, "forever": true}},
	}
	start := clk.Now()
	for _, tt := range tests {
		clk.t = start.Add(tt.after)
		for id, want := range tt.visible {
			c := auth
			if id == "default" || id == "forever" {
				c = audit
			}
			_, err := c.Read(ctx, "t1", id)
			if got := err == nil; got != want {
				t.Errorf("after %v: %s visible = %v (%v), want %v", tt.after, id, got, err, want)
			} else if !got && !kanri.IsCode(err, kanri.ENOTFOUND) {
				t.Errorf("after %v: %s: got %v, want not found", tt.after, id, err)
			}
		}
		n, err := st.Purge()
		if err != nil {
			t.Fatal(err)
		}
		if n != tt.purged {
			t.Errorf("after %v: purged %d, want %d", tt.after, n, tt.purged)
		}
	}
}
