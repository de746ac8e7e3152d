package bolt

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/kanri/kanri/internal/docstore"
)

// TestCheckFindsAndRepairsDamage damages a data file on purpose in each
// way Check looks for, and expects queries to go on (without what is
// damaged), Check to name every fault, and a repair to leave none.
func TestCheckFindsAndRepairsDamage(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	spec := docstore.Spec{Name: "c", Indexes: []docstore.Index{{Name: "by_n", Type: "t", Fields: []string{"n"}}}}
	open := func() *Store {
		st, err := Open(dir, []docstore.Spec{spec}, Options{Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	st := open()
	c := st.Container("c")
	for _, body := range []string{
		`{"id":"a","tenantId":"p","type":"t","n":1}`,
		`{"id":"b","tenantId":"p","type":"t","n":2,"ttl":3600}`,
		`{"id":"c","tenantId":"p","type":"t","n":3}`,
		`{"id":"d","tenantId":"p","type":"t","n":4,"ttl":3600}`,
	} {
		if _, err := c.Create(context.Background(), "p", []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if rep, err := st.Check(false); err != nil || rep.Count != 0 || rep.Documents != 4 || rep.IndexEntries != 4 || rep.ExpiryKeys != 2 {
		t.Fatalf("a sound file: got %+v, %v", rep, err)
	}
	cont := st.containers["c"]
	err := st.db.Update(func(tx *bbolt.Tx) error {
		docs, idx, exp := tx.Bucket([]byte("c")), tx.Bucket(indexBucket([]byte("c"))), tx.Bucket(expiryBucket)
		// b's document goes, leaving its index and expiry entries.
		if err := docs.Delete(itemKey("p", "b")); err != nil {
			return err
		}
		// c loses its index entry.
		keys, _ := cont.indexKeys(itemKey("p", "c"), []byte(`{"type":"t","n":3}`))
		if err := (*blockWrites)(nil).delete(idx, byIndex, keys[0]); err != nil {
			return err
		}
		// a gains an entry that is not its own.
		wrong, _ := cont.indexKeys(itemKey("p", "a"), []byte(`{"type":"t","n":9}`))
		if err := (*blockWrites)(nil).put(idx, byIndex, wrong[0]); err != nil {
			return err
		}
		// d loses its expiry entry.
		cur := newIndexCursor(exp)
		for k := cur.First(); k != nil; k = cur.Next() {
			if strings.HasSuffix(string(k), "p\x00d") {
				return (*blockWrites)(nil).delete(exp, whole, k)
			}
		}
		return errors.New("no expiry entry of d")
	})
	if err != nil {
		t.Fatal(err)
	}
	// The damaged index still answers, without what it cannot find.
	page, err := c.Query(context.Background(), "p", docstore.Query{Type: "t", OrderBy: "n"})
	if err != nil {
		t.Fatalf("query over a damaged index: %v", err)
	}
	if got, want := ids(page.Items), "a,d,a"; got != want {
		t.Errorf("query over the damaged index: got %s, want %s (the wrong entry finds a again)", got, want)
	}
	rep, err := st.Check(false)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`has no document "b"`, `document "p\x00c" lacks its index entry`, `does not match its document "a"`, `expiry entry of "p\x00b"`, `document "p\x00d" expires but has no expiry entry`} {
		if !strings.Contains(strings.Join(rep.Problems, "\n"), want) {
			t.Errorf("check did not report %q; it reported:\n%s", want, strings.Join(rep.Problems, "\n"))
		}
	}
	rep, err = st.Check(true)
	if err != nil || rep.Count != 0 || len(rep.Repaired) != 1 {
		t.Fatalf("after the repair: got %+v, %v", rep, err)
	}
	st.Close()
	st = open() // the repair was written
	defer st.Close()
	page, err = st.Container("c").Query(context.Background(), "p", docstore.Query{Type: "t", OrderBy: "n"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(page.Items), "a,c,d"; got != want {
		t.Errorf("after the repair: got %s, want %s", got, want)
	}
	now = now.Add(2 * time.Hour)
	if n, err := st.Purge(); err != nil || n != 1 {
		t.Errorf("purge after the repair: got %d, %v; want d's expiry entry purged", n, err)
	}
}

func ids(items []docstore.Item) string {
	var out []string
	for _, it := range items {
		out = append(out, it.ID)
	}
	return strings.Join(out, ",")
}
