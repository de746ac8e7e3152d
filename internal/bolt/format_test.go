package bolt

import (
	"context"
	"encoding/hex"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/kanri/kanri/internal/docstore"
)

// TestIndexEncodingIsPinned pins the bytes of the index keys: a change to
// encodeValue or to the key layout fails here, and must come with a new
// indexFormat (which rebuilds every index on open) and new golden bytes.
func TestIndexEncodingIsPinned(t *testing.T) {
	values := []struct {
		v    any
		ok   bool
		want string
	}{
		{nil, false, "01"},
		{nil, true, "02"},
		{false, true, "03"},
		{true, true, "04"},
		{-2.5, true, "053ffbffffffffffff"},
		{0.0, true, "058000000000000000"},
		{1e12, true, "05c26d1a94a2000000"},
		{"", true, "060001"},
		{"a\x00b", true, "066100ff620001"},
		{"日本", true, "06e697a5e69cac0001"},
		{map[string]any{}, true, "07"},
	}
	for _, v := range values {
		if got := hex.EncodeToString(encodeValue(nil, v.v, v.ok)); got != v.want {
			t.Errorf("encodeValue(%#v, %t): got %s, want %s", v.v, v.ok, got, v.want)
		}
	}
	if indexFormat != 4 {
		t.Errorf("indexFormat %d: update the golden bytes of this test with it", indexFormat)
	}
	spec := docstore.Spec{Name: "c", Indexes: []docstore.Index{{Name: "ix", Type: "t", Fields: []string{"tags[]", "n"}}}}
	st, err := Open(t.TempDir(), []docstore.Spec{spec}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	keys, err := st.containers["c"].indexKeys(itemKey("p", "d"), []byte(`{"type":"t","tags":["b","a","b"],"n":1}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"70000100" + "06620001" + "05bff0000000000000" + "64", "70000100" + "06610001" + "05bff0000000000000" + "64"}
	if len(keys) != len(want) {
		t.Fatalf("got %d keys, want %d", len(keys), len(want))
	}
	for i, k := range keys {
		if got := hex.EncodeToString(k); got != want[i] {
			t.Errorf("key %d: got %s, want %s", i, got, want[i])
		}
	}
}

// TestIndexesOfAnotherFormatAreRebuilt opens a store whose indexes say
// they were built in an earlier format (and are wrong): the open rebuilds
// them, and queries find what they should.
func TestIndexesOfAnotherFormatAreRebuilt(t *testing.T) {
	dir := t.TempDir()
	spec := docstore.Spec{Name: "c", Indexes: []docstore.Index{{Name: "by_n", Type: "t", Fields: []string{"n"}}}}
	st, err := Open(dir, []docstore.Spec{spec}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		if _, err := st.Container("c").Create(context.Background(), "p", []byte(`{"id":"`+id+`","tenantId":"p","type":"t","n":1}`)); err != nil {
			t.Fatal(err)
		}
	}
	// An earlier format's indexes: other keys, and an older signature.
	err = st.db.Update(func(tx *bbolt.Tx) error {
		if err := tx.DeleteBucket(indexBucket([]byte("c"))); err != nil {
			return err
		}
		b, err := tx.CreateBucket(indexBucket([]byte("c")))
		if err != nil {
			return err
		}
		if err := b.Put([]byte("p\x00by_n\x00garbage"), nil); err != nil {
			return err
		}
		return tx.Bucket(metaBucket).Put([]byte("indexes:c"), []byte("v1|by_n=t:n"))
	})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err = Open(dir, []docstore.Spec{spec}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	page, err := st.Container("c").Query(context.Background(), "p", docstore.Query{Type: "t", OrderBy: "n"})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(page.Items); got != 2 {
		t.Errorf("after the rebuild: got %d documents, want 2", got)
	}
}
