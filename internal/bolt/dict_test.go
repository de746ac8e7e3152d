package bolt

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/kanri/kanri/internal/docstore"
)

var dictSpecs = []docstore.Spec{{Name: "c", Indexes: []docstore.Index{{Name: "by_n", Type: "t", Fields: []string{"n"}}}}}

// dictDoc is a document of type typ whose body repeats most of the
// others' bytes, as a store's documents do.
func dictDoc(id, typ string, n int) []byte {
	return fmt.Appendf(nil, `{"id":%q,"tenantId":"p","type":%q,"schemaVersion":"1.0","n":%d,"name":"document number %d of the compression test","tags":["alpha","bravo"]}`, id, typ, n, n)
}

// storedBytes returns the stored record of document id of container c.
func storedBytes(t *testing.T, st *Store, id string) []byte {
	t.Helper()
	var v []byte
	st.db.View(func(tx *bbolt.Tx) error {
		v = bytes.Clone(tx.Bucket([]byte("c")).Get(itemKey("p", id)))
		return nil
	})
	if v == nil {
		t.Fatalf("no record %s", id)
	}
	return v
}

// TestDocumentsAreStoredCompressed writes documents of two types and
// reads them back, before and after the store is reopened: each reads as
// written, the second and later of a type are stored in three quarters of
// their JSON or less, and each type's first document added a generation.
func TestDocumentsAreStoredCompressed(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(dir, dictSpecs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := st.Container("c")
	want := map[string][]byte{}
	for i := range 20 {
		typ := []string{"t", "u"}[i%2]
		id := fmt.Sprintf("d%02d", i)
		want[id] = dictDoc(id, typ, i)
		if _, err := c.Create(ctx, "p", want[id]); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := len(st.codec.state.Load().all), 2; got != want {
		t.Errorf("generations: got %d, want %d (one a type)", got, want)
	}
	r, err := decodeRecord(storedBytes(t, st, "d10"))
	if err != nil {
		t.Fatal(err)
	}
	if r.dict == 0 || len(r.data) > len(want["d10"])*3/4 {
		t.Errorf("d10 stored in %d bytes with dictionary %d; its JSON has %d", len(r.data), r.dict, len(want["d10"]))
	}
	check := func(st *Store) {
		t.Helper()
		for id, body := range want {
			it, err := st.Container("c").Read(ctx, "p", id)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(it.Body, body) {
				t.Errorf("%s: got %s, want %s", id, it.Body, body)
			}
		}
		page, err := st.Container("c").Query(ctx, "p", docstore.Query{Type: "t", OrderBy: "n"})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(page.Items); got != 10 {
			t.Errorf("query: got %d documents, want 10", got)
		}
		for _, it := range page.Items {
			if !bytes.Equal(it.Body, want[it.ID]) {
				t.Errorf("query %s: got %s, want %s", it.ID, it.Body, want[it.ID])
			}
		}
		if rep, err := st.Check(false); err != nil || len(rep.Problems) > 0 {
			t.Errorf("check: %v %v", err, rep.Problems)
		}
	}
	check(st)
	st.Close()
	st, err = Open(dir, dictSpecs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	check(st)
	// A third type after the reopen adds a generation after the loaded ones.
	if _, err := st.Container("c").Create(ctx, "p", dictDoc("v", "v", 1)); err != nil {
		t.Fatal(err)
	}
	if got, want := len(st.codec.state.Load().all), 3; got != want {
		t.Errorf("generations after a new type: got %d, want %d", got, want)
	}
}

// TestAGenerationOfARolledBackWriteIsSavedByTheNext fails the batch that
// wrote a type's first document, so that its new generation is not saved
// with it: the next write saves it, and its document reads back after
// the store is reopened.
func TestAGenerationOfARolledBackWriteIsSavedByTheNext(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(dir, dictSpecs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := st.Container("c")
	_, err = c.Batch(ctx, "p", []docstore.Op{
		{Kind: docstore.OpCreate, Body: dictDoc("a", "t", 1)},
		{Kind: docstore.OpDelete, ID: "missing"},
	})
	if err == nil {
		t.Fatal("the batch did not fail")
	}
	if _, err := c.Create(ctx, "p", dictDoc("b", "t", 2)); err != nil {
		t.Fatal(err)
	}
	if r, err := decodeRecord(storedBytes(t, st, "b")); err != nil || r.dict == 0 {
		t.Fatalf("b is not compressed: %v", err)
	}
	st.Close()
	st, err = Open(dir, dictSpecs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	it, err := st.Container("c").Read(ctx, "p", "b")
	if err != nil {
		t.Fatal(err)
	}
	if want := dictDoc("b", "t", 2); !bytes.Equal(it.Body, want) {
		t.Errorf("got %s, want %s", it.Body, want)
	}
	if _, err := st.Container("c").Read(ctx, "p", "a"); err == nil {
		t.Error("the failed batch's document exists")
	}
}

// TestRecordsOfTheFirstFormatRead reads records as stores before wrote
// them (version 1: the body follows the ETag; version 2: a generation
// between them).
func TestRecordsOfTheFirstFormatRead(t *testing.T) {
	st, err := Open(t.TempDir(), dictSpecs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	body := dictDoc("old", "t", 7)
	v := append([]byte{1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 4}, `"e1"`...)
	v = append(v, body...)
	// Version 2: the same, and a generation (0: not compressed).
	v2 := append([]byte{2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 4}, `"e2"`...)
	v2 = append(append(v2, 0), body...)
	err = st.db.Update(func(tx *bbolt.Tx) error {
		if err := tx.Bucket([]byte("c")).Put(itemKey("p", "v2"), v2); err != nil {
			return err
		}
		return tx.Bucket([]byte("c")).Put(itemKey("p", "old"), v)
	})
	if err != nil {
		t.Fatal(err)
	}
	if it, err := st.Container("c").Read(context.Background(), "p", "v2"); err != nil || !bytes.Equal(it.Body, body) || it.ETag != `"e2"` {
		t.Errorf("version 2: got %s %s, %v; want %s %s", it.ETag, it.Body, err, `"e2"`, body)
	}
	it, err := st.Container("c").Read(context.Background(), "p", "old")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(it.Body, body) || it.ETag != `"e1"` {
		t.Errorf("got %s %s, want %s %s", it.ETag, it.Body, `"e1"`, body)
	}
	// Written again, it is stored in the current format.
	if _, err := st.Container("c").Replace(context.Background(), "p", "old", body, it.ETag); err != nil {
		t.Fatal(err)
	}
	if got := storedBytes(t, st, "old")[0]; got != 3 {
		t.Errorf("rewritten record's version: got %d, want 3", got)
	}
}

// TestDictionariesHoldNoValues writes a document holding a secret, in a
// batch that fails and then in one that succeeds and is deleted: the
// store's dictionaries (every generation in the meta bucket) hold the
// documents' shapes, never the secret.
func TestDictionariesHoldNoValues(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(dir, dictSpecs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	c := st.Container("c")
	secret := func(id, typ string) []byte {
		return fmt.Appendf(nil, `{"id":%q,"tenantId":"p","type":%q,"schemaVersion":"2.1","owner":"alice@example.com","secret":"SUPER-SECRET-123","n":42,"tags":["x-private"]}`, id, typ)
	}
	if _, err := c.Batch(ctx, "p", []docstore.Op{{Kind: docstore.OpCreate, Body: secret("a", "rolled")}, {Kind: docstore.OpDelete, ID: "missing"}}); err == nil {
		t.Fatal("the batch did not fail")
	}
	if _, err := c.Create(ctx, "p", secret("b", "kept")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, "p", secret("c", "rolled")); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "p", "b", ""); err != nil {
		t.Fatal(err)
	}
	var dicts [][]byte
	st.db.View(func(tx *bbolt.Tx) error {
		cur := tx.Bucket(metaBucket).Cursor()
		for k, v := cur.Seek([]byte(dictPrefix)); k != nil && bytes.HasPrefix(k, []byte(dictPrefix)); k, v = cur.Next() {
			dicts = append(dicts, bytes.Clone(v))
		}
		return nil
	})
	if len(dicts) == 0 {
		t.Fatal("no dictionary saved")
	}
	for i, d := range dicts {
		for _, value := range []string{"SUPER-SECRET", "alice", "42", "x-private", `"p"`} {
			if bytes.Contains(d, []byte(value)) {
				t.Errorf("dictionary %d holds %q: %q", i, value, d)
			}
		}
		if !bytes.Contains(d, []byte(`"secret":""`)) || !bytes.Contains(d, []byte(`"schemaVersion":"2.1"`)) {
			t.Errorf("dictionary %d lacks the document's shape: %q", i, d)
		}
	}
}

// TestSkeleton pins what a dictionary keeps of a document.
func TestSkeleton(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"id":"x1","type":"t","schemaVersion":"1.0","n":-2.5e3,"ok":true,"none":null}`, `{"id":"","type":"t","schemaVersion":"1.0","n":0,"ok":true,"none":null}`},
		{`{"a":{"type":"inner","b":[1,"s",{"c":"d"}]},"e":[]}`, `{"a":{"type":"","b":[0,"",{"c":""}]},"e":[]}`},
		{`not json`, ``},
	}
	for _, tt := range tests {
		if got := string(skeleton([]byte(tt.in))); got != tt.want {
			t.Errorf("skeleton(%s): got %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestLargeDocumentsAreStoredAsTheyAre writes a body over maxPackBytes
// first (it must not become the dictionary) and reads it back.
func TestLargeDocumentsAreStoredAsTheyAre(t *testing.T) {
	st, err := Open(t.TempDir(), dictSpecs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	body := fmt.Appendf(nil, `{"id":"big","tenantId":"p","type":"t","text":%q}`, bytes.Repeat([]byte("abc "), maxPackBytes/4+1))
	if _, err := st.Container("c").Create(context.Background(), "p", body); err != nil {
		t.Fatal(err)
	}
	if r, err := decodeRecord(storedBytes(t, st, "big")); err != nil || r.dict != 0 {
		t.Errorf("stored with dictionary %d (%v), want as it is", r.dict, err)
	}
	if n := len(st.codec.state.Load().all); n != 0 {
		t.Errorf("%d generations, want none", n)
	}
	it, err := st.Container("c").Read(context.Background(), "p", "big")
	if err != nil || !bytes.Equal(it.Body, body) {
		t.Errorf("read back %d bytes, %v; want %d", len(it.Body), err, len(body))
	}
}

// TestETagsAreSixteenHexDigitsInQuotes pins the ETag's form: the stored
// number, as the first format stored it in full.
func TestETagsAreSixteenHexDigitsInQuotes(t *testing.T) {
	for _, tt := range []struct {
		seq  uint64
		want string
	}{{0, `"0000000000000000"`}, {0x1f, `"000000000000001f"`}, {1<<64 - 1, `"ffffffffffffffff"`}} {
		if got := etagOf(tt.seq); got != tt.want || got != fmt.Sprintf(`"%016x"`, tt.seq) {
			t.Errorf("etagOf(%d) = %s, want %s", tt.seq, got, tt.want)
		}
	}
}
