package bolt

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/kanri/kanri/internal/docstore"
)

// TestEncodedValuesSortLikeOrderBy checks that the index encoding sorts
// values as ORDER BY does: missing, null, false, true, numbers, strings,
// each in its own order, and that skipping a value finds the next.
func TestEncodedValuesSortLikeOrderBy(t *testing.T) {
	values := []struct {
		v  any
		ok bool
	}{
		{nil, false}, {nil, true}, {false, true}, {true, true},
		{math.Inf(-1), true}, {-1e9, true}, {-2.5, true}, {0.0, true}, {1e-9, true}, {3.0, true}, {1e12, true},
		{"", true}, {"\x00", true}, {"\x00a", true}, {"a", true}, {"a\x00", true}, {"ab", true}, {"b", true}, {"日本", true},
	}
	var keys [][]byte
	for i, v := range values {
		k := encodeValue(nil, v.v, v.ok)
		rest, err := skipIndexValue(append(k, "tail"...))
		if err != nil || string(rest) != "tail" {
			t.Errorf("value %d (%#v): skipping it left %q, %v", i, v.v, rest, err)
		}
		keys = append(keys, k)
	}
	if !sort.SliceIsSorted(keys, func(i, j int) bool { return bytes.Compare(keys[i], keys[j]) < 0 }) {
		for i := 1; i < len(keys); i++ {
			if bytes.Compare(keys[i-1], keys[i]) >= 0 {
				t.Errorf("%#v does not sort before %#v", values[i-1].v, values[i].v)
			}
		}
	}
}

// TestPurgeRemovesIndexEntries checks that expired documents leave their
// indexes with them, and that the walk of the index after the purge pages
// the live documents in order.
func TestPurgeRemovesIndexEntries(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	spec := docstore.Spec{Name: "c", Indexes: []docstore.Index{{Name: "by_v", Type: "thing", Fields: []string{"v"}}}}
	st, err := Open(t.TempDir(), []docstore.Spec{spec}, Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := st.Container("c")
	for i := range 10 {
		ttl := ""
		if i%2 == 0 {
			ttl = `,"ttl":60`
		}
		body := fmt.Sprintf(`{"id":"d%d","tenantId":"t1","type":"thing","v":%d%s}`, i, i, ttl)
		if _, err := c.Create(t.Context(), "t1", []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	entries := func() int {
		n := 0
		st.db.View(func(tx *bbolt.Tx) error {
			cur := newIndexCursor(tx.Bucket(indexBucket([]byte("c"))))
			for k := cur.First(); k != nil; k = cur.Next() {
				n++
			}
			return nil
		})
		return n
	}
	if got := entries(); got != 10 {
		t.Fatalf("before the purge: %d index entries, want 10", got)
	}
	now = now.Add(2 * time.Minute)
	if n, err := st.Purge(); err != nil || n != 5 {
		t.Fatalf("purge: %d, %v; want 5", n, err)
	}
	if got := entries(); got != 5 {
		t.Errorf("after the purge: %d index entries, want 5", got)
	}
	p, err := c.Query(t.Context(), "t1", docstore.Query{Type: "thing", OrderBy: "v", Limit: 2})
	if err != nil || fmt.Sprint(itemIDs(p.Items)) != "[d1 d3]" || p.Continuation == "" {
		t.Errorf("first page by v: got %v (%q), %v", itemIDs(p.Items), p.Continuation, err)
	}
}

func itemIDs(items []docstore.Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.ID)
	}
	return out
}
