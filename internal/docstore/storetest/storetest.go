// Package storetest is the contract suite of the document store port. Every
// backend runs it; a backend is correct when the whole suite passes.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// ShortTTL is a container whose documents live one second by default; the
// suite adds it to the containers it opens, to test default expiry.
const ShortTTL = "storetest-short-ttl"

// Opener opens a fresh store of the backend under test with the given
// containers. The store is closed by the suite.
type Opener func(t testing.TB, specs []docstore.Spec) docstore.Store

// Indexed is a container whose "thing" documents are indexed by v and by
// g then v, for the cases of index-backed queries.
const Indexed = "storetest-indexed"

// Specs returns the containers the suite needs: Kanri's own plus ShortTTL
// and Indexed.
func Specs() []docstore.Spec {
	return append(features.Specs(),
		docstore.Spec{Name: ShortTTL, DefaultTTL: time.Second},
		docstore.Spec{Name: Indexed, Indexes: []docstore.Index{
			{Name: "thing_v", Type: "thing", Fields: []string{"v"}},
			{Name: "thing_g_v", Type: "thing", Fields: []string{"g", "v"}},
		}})
}

// Run runs the whole contract suite against the backend that open opens.
// All subtests share one store and use partitions of their own.
func Run(t *testing.T, open Opener) {
	st := open(t, Specs())
	t.Cleanup(func() { st.Close() })
	h := &harness{st: st}
	tests := []struct {
		name string
		fn   func(t *testing.T, h *harness)
	}{
		{"CreateReadReplaceUpsertDelete", testCRUD},
		{"ConflictOnDuplicateID", testConflict},
		{"DeterministicUnicodeIDs", testDeterministicIDs},
		{"StaleETagRejected", testStale},
		{"ConcurrentReplaceOneWins", testConcurrentReplace},
		{"BadDocumentsRejected", testBadDocuments},
		{"Paging", testPaging},
		{"PagingOrdered", testPagingOrdered},
		{"BadContinuationRejected", testBadContinuation},
		{"Filters", testFilters},
		{"Ordering", testOrdering},
		{"TTL", testTTL},
		{"BatchCommits", testBatchCommits},
		{"BatchIsAtomic", testBatchAtomic},
		{"BatchIsBounded", testBatchBounded},
		{"TenantIsolation", testTenantIsolation},
		{"HostileFilterValues", testHostileValues},
		{"QueryAcrossPartitions", testAcrossPartitions},
		{"ErrorsAreTheSameOnEveryBackend", testErrors},
		{"IndexFollowsEveryWrite", testIndexConsistency},
		{"IndexPagingWithEqualValues", testIndexEqualValues},
		{"IndexPagingWhileWritersInsert", testIndexConcurrentInserts},
		{"IndexDescendingAndFiltered", testIndexDescending},
		{"DumpPartition", testDump},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, h) })
	}
}

type harness struct{ st docstore.Store }

func (h *harness) c(name string) docstore.Container { return h.st.Container(name) }

// partition returns a partition key no other test uses.
func partition(t testing.TB) string {
	b := make([]byte, 6)
	rand.Read(b)
	return "tenant_" + hex.EncodeToString(b)
}

// doc returns the JSON of a test document.
func doc(pk, id string, fields map[string]any) []byte {
	m := map[string]any{"id": id, "tenantId": pk, "type": "thing"}
	maps.Copy(m, fields)
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

func ctx(t testing.TB) context.Context { return t.Context() }

func wantCode(t testing.TB, what string, err error, code string) {
	t.Helper()
	if got := kanri.ErrorCode(err); got != code {
		t.Fatalf("%s: got error code %q (%v), want %q", what, got, err, code)
	}
}

func must(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// field decodes one field of an item.
func field(t testing.TB, it docstore.Item, name string) any {
	t.Helper()
	var m map[string]any
	must(t, "decode "+it.ID, json.Unmarshal(it.Body, &m))
	return m[name]
}

func ids(items []docstore.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

// queryAll follows continuation tokens to the end and returns every page.
func queryAll(t testing.TB, c docstore.Container, pk string, q docstore.Query) [][]docstore.Item {
	t.Helper()
	var pages [][]docstore.Item
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatal("query did not end after 1000 pages")
		}
		var p docstore.Page
		var err error
		if pk == "" {
			p, err = c.QueryAcrossPartitions(ctx(t), q)
		} else {
			p, err = c.Query(ctx(t), pk, q)
		}
		must(t, "query", err)
		pages = append(pages, p.Items)
		if p.Continuation == "" {
			return pages
		}
		q.Continuation = p.Continuation
	}
}

func flatten(pages [][]docstore.Item) []string {
	var out []string
	for _, p := range pages {
		out = append(out, ids(p)...)
	}
	return out
}

func testCRUD(t *testing.T, h *harness) {
	c, pk := h.c(kanri.ContainerAuth), partition(t)
	etag, err := c.Create(ctx(t), pk, doc(pk, "a", map[string]any{"name": "Ａlpha 管理"}))
	must(t, "create", err)
	if etag == "" {
		t.Fatal("create returned an empty ETag")
	}
	it, err := c.Read(ctx(t), pk, "a")
	must(t, "read", err)
	if got, want := field(t, it, "name"), "Ａlpha 管理"; got != want {
		t.Errorf("read name: got %v, want %v", got, want)
	}
	if it.ETag != etag || it.ID != "a" || it.PartitionKey != pk {
		t.Errorf("read: got id %q pk %q etag %q, want a %q %q", it.ID, it.PartitionKey, it.ETag, pk, etag)
	}

	etag2, err := c.Replace(ctx(t), pk, "a", doc(pk, "a", map[string]any{"name": "beta"}), etag)
	must(t, "replace", err)
	if etag2 == etag {
		t.Error("replace kept the old ETag")
	}
	it, err = c.Read(ctx(t), pk, "a")
	must(t, "read after replace", err)
	if got, want := field(t, it, "name"), "beta"; got != want {
		t.Errorf("after replace: got name %v, want %v", got, want)
	}

	_, err = c.Upsert(ctx(t), pk, doc(pk, "b", map[string]any{"n": 1}), "")
	must(t, "upsert new", err)
	etag3, err := c.Upsert(ctx(t), pk, doc(pk, "a", map[string]any{"name": "gamma"}), etag2)
	must(t, "upsert existing with ETag", err)
	it, _ = c.Read(ctx(t), pk, "a")
	if got, want := field(t, it, "name"), "gamma"; got != want || it.ETag != etag3 {
		t.Errorf("after upsert: got name %v etag %q, want %v %q", got, it.ETag, want, etag3)
	}

	must(t, "delete", c.Delete(ctx(t), pk, "a", ""))
	_, err = c.Read(ctx(t), pk, "a")
	wantCode(t, "read deleted", err, kanri.ENOTFOUND)
	_, err = c.Read(ctx(t), pk, "never-existed")
	wantCode(t, "read missing", err, kanri.ENOTFOUND)
	_, err = c.Replace(ctx(t), pk, "a", doc(pk, "a", nil), "")
	wantCode(t, "replace missing", err, kanri.ENOTFOUND)
	wantCode(t, "delete missing", c.Delete(ctx(t), pk, "a", ""), kanri.ENOTFOUND)
	if _, err := c.Read(ctx(t), pk, "b"); err != nil {
		t.Errorf("the other document went with the delete: %v", err)
	}
}

func testConflict(t *testing.T, h *harness) {
	c, pk := h.c(kanri.ContainerAuth), partition(t)
	_, err := c.Create(ctx(t), pk, doc(pk, "dup", map[string]any{"v": 1}))
	must(t, "create", err)
	_, err = c.Create(ctx(t), pk, doc(pk, "dup", map[string]any{"v": 2}))
	wantCode(t, "second create", err, kanri.ECONFLICT)
	it, _ := c.Read(ctx(t), pk, "dup")
	if got, want := field(t, it, "v"), 1.0; got != want {
		t.Errorf("after conflict: got v %v, want %v", got, want)
	}
	// The same id in another container or partition is not a conflict.
	pk2 := partition(t)
	_, err = c.Create(ctx(t), pk2, doc(pk2, "dup", nil))
	must(t, "same id in another partition", err)
	_, err = h.c(kanri.ContainerTenant).Create(ctx(t), pk, doc(pk, "dup", nil))
	must(t, "same id in another container", err)
}

func testStale(t *testing.T, h *harness) {
	c, pk := h.c(kanri.ContainerAuth), partition(t)
	old, err := c.Create(ctx(t), pk, doc(pk, "s", map[string]any{"v": 1}))
	must(t, "create", err)
	cur, err := c.Replace(ctx(t), pk, "s", doc(pk, "s", map[string]any{"v": 2}), old)
	must(t, "replace", err)

	_, err = c.Replace(ctx(t), pk, "s", doc(pk, "s", map[string]any{"v": 3}), old)
	wantCode(t, "replace with stale ETag", err, kanri.ESTALE)
	_, err = c.Upsert(ctx(t), pk, doc(pk, "s", map[string]any{"v": 3}), old)
	wantCode(t, "upsert with stale ETag", err, kanri.ESTALE)
	wantCode(t, "delete with stale ETag", c.Delete(ctx(t), pk, "s", old), kanri.ESTALE)

	it, err := c.Read(ctx(t), pk, "s")
	must(t, "read", err)
	if got, want := field(t, it, "v"), 2.0; got != want || it.ETag != cur {
		t.Errorf("after stale writes: got v %v etag %q, want %v %q", got, it.ETag, want, cur)
	}
	must(t, "delete with current ETag", c.Delete(ctx(t), pk, "s", cur))
}

func testConcurrentReplace(t *testing.T, h *harness) {
	c, pk := h.c(kanri.ContainerTenant), partition(t)
	etag, err := c.Create(ctx(t), pk, doc(pk, "counter", map[string]any{"n": 0}))
	must(t, "create", err)
	const writers = 8
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() {
			_, errs[i] = c.Replace(ctx(t), pk, "counter", doc(pk, "counter", map[string]any{"n": i + 1}), etag)
		})
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		switch kanri.ErrorCode(err) {
		case "":
			wins++
		case kanri.ESTALE:
		default:
			t.Errorf("concurrent replace: unexpected error %v", err)
		}
	}
	if wins != 1 {
		t.Errorf("concurrent replaces with one ETag: got %d winners, want 1", wins)
	}
}

func testBadDocuments(t *testing.T, h *harness) {
	c, pk := h.c(kanri.ContainerAuth), partition(t)
	tests := []struct {
		name string
		pk   string
		body []byte
	}{
		{"not JSON", pk, []byte("{")},
		{"other tenant", pk, doc("tenant_other", "x", nil)},
		{"no id", pk, []byte(`{"tenantId":"` + pk + `","type":"thing"}`)},
		{"slash in id", pk, doc(pk, "a/b", nil)},
		{"hash in id", pk, doc(pk, "a#b", nil)},
		{"long id", pk, doc(pk, strings.Repeat("x", docstore.MaxIDLength+1), nil)},
		{"zero ttl", pk, doc(pk, "z", map[string]any{"ttl": 0})},
		{"ttl past the limit", pk, doc(pk, "z", map[string]any{"ttl": docstore.MaxTTL + 1})},
		{"huge ttl", pk, []byte(`{"id":"z","tenantId":"` + pk + `","type":"thing","ttl":1e300}`)},
		{"fractional ttl", pk, doc(pk, "z", map[string]any{"ttl": 1.5})},
		{"ttl as text", pk, doc(pk, "z", map[string]any{"ttl": "60"})},
		{"id not a string", pk, []byte(`{"id":7,"tenantId":"` + pk + `","type":"thing"}`)},
		{"an array", pk, []byte(`[]`)},
		{"null", pk, []byte(`null`)},
		{"indexed value too long", pk, []byte(`{"id":"long","tenantId":"` + pk + `","type":"user","username":"` + strings.Repeat("x", docstore.MaxIndexedBytes+1) + `"}`)},
		{"indexed element too long", pk, []byte(`{"id":"long","tenantId":"` + pk + `","type":"user","searchTerms":["a","` + strings.Repeat("x", docstore.MaxIndexedBytes+1) + `"]}`)},
		{"empty partition", "", doc("", "x", nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Create(ctx(t), tt.pk, tt.body)
			wantCode(t, "create", err, kanri.EINVALID)
		})
	}
	p, err := c.Query(ctx(t), pk, docstore.Query{Type: "thing"})
	must(t, "query", err)
	if len(p.Items) != 0 {
		t.Errorf("bad documents were stored: %v", ids(p.Items))
	}
}

// seed creates n documents "d00".."dNN" with a few fields to filter on.
func seed(t testing.TB, c docstore.Container, pk string, n int) {
	t.Helper()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		_, err := c.Create(ctx(t), pk, doc(pk, fmt.Sprintf("d%02d", i), map[string]any{
			"n":         i,
			"status":    []string{"active", "suspended", "deleted"}[i%3],
			"createdAt": kanri.FormatTime(base.Add(time.Duration((i*7)%n) * time.Hour)),
		}))
		must(t, "seed", err)
	}
}

func testPaging(t *testing.T, h *harness) {
	c, pk := h.c(kanri.ContainerAuth), partition(t)
	seed(t, c, pk, 25)
	pages := queryAll(t, c, pk, docstore.Query{Type: "thing", Limit: 10})
	var sizes []int
	for _, p := range pages {
		sizes = append(sizes, len(p))
	}
	if got, want := sizes, []int{10, 10, 5}; !slices.Equal(got, want) {
		t.Errorf("page sizes: got %v, want %v", got, want)
	}
	got := flatten(pages)
	sort.Strings(got)
	if len(got) != 25 || len(slices.Compact(slices.Clone(got))) != 25 {
		t.Errorf("pages: got %d ids (%v), want 25 distinct", len(got), got)
	}
	// An exact multiple of the page size.
	pages = queryAll(t, c, pk, docstore.Query{Type: "thing", Limit: 5, Where: []docstore.Filter{docstore.Lt("n", 20)}})
	if got := len(flatten(pages)); got != 20 {
		t.Errorf("20 items in pages of 5: got %d", got)
	}
}

func testPagingOrdered(t *testing.T, h *harness) {
	c, pk := h.c(kanri.ContainerAuth), partition(t)
	seed(t, c, pk, 25)
	for _, desc := range []bool{false, true} {
		pages := queryAll(t, c, pk, docstore.Query{Type: "thing", OrderBy: "createdAt", Desc: desc, Limit: 7})
		if got, want := len(pages), 4; got != want {
			t.Errorf("desc=%v: got %d pages, want %d", desc, got, want)
		}
		var got []string
		for _, p := range pages {
			for _, it := range p {
				got = append(got, field(t, it, "createdAt").(string))
			}
		}
		want := slices.Clone(got)
		sort.Strings(want)
		if desc {
			slices.Reverse(want)
		}
		if len(got) != 25 || !slices.Equal(got, want) {
			t.Errorf("desc=%v: got order %v, want %v", desc, got, want)
		}
	}
}

func testBadContinuation(t *testing.T, h *harness) {
	c, pk := h.c(kanri.ContainerAuth), partition(t)
	seed(t, c, pk, 5)
	for _, tok := range []string{"garbage", "eyJ4IjoxfQ", "%%%", strings.Repeat("A", 5000)} {
		_, err := c.Query(ctx(t), pk, docstore.Query{Type: "thing", Limit: 2, Continuation: tok})
		wantCode(t, fmt.Sprintf("token %.20q", tok), err, kanri.EINVALID)
	}
}

func testFilters(t *testing.T, h *harness) {
	c, pk := h.c(kanri.ContainerAuth), partition(t)
	docs := []map[string]any{
		{"id": "u1", "name": "Alice Smith", "status": "active", "n": 1, "active": true, "tags": []string{"x", "y"}, "words": []string{"alice", "smith"}, "at": "2026-01-01T00:00:00.0000000Z", "metadata": map[string]any{"country": "JP"}},
		{"id": "u2", "name": "bob SMITHERS", "status": "suspended", "n": 2, "active": false, "tags": []string{"y"}, "words": []string{"bob", "smithers"}, "at": "2026-01-02T00:00:00.0000000Z", "metadata": map[string]any{"country": "US"}},
		{"id": "u3", "name": "山田 太郎", "status": "active", "n": 3, "active": true, "tags": []string{}, "words": []string{"山田", "太郎"}, "at": "2026-01-03T00:00:00.0000000Z"},
		{"id": "u4", "name": "Carol", "status": "deleted", "n": 4, "active": false, "at": "2026-01-04T00:00:00.0000000Z", "extra": "here"},
	}
	for _, d := range docs {
		id := d["id"].(string)
		delete(d, "id")
		_, err := c.Create(ctx(t), pk, doc(pk, id, d))
		must(t, "create", err)
	}
	// A document of another type is never returned by a query for "thing".
	_, err := c.Create(ctx(t), pk, []byte(`{"id":"o1","tenantId":"`+pk+`","type":"other","name":"Alice Smith","status":"active"}`))
	must(t, "create other type", err)

	tests := []struct {
		name  string
		where []docstore.Filter
		want  []string
	}{
		{"none", nil, []string{"u1", "u2", "u3", "u4"}},
		{"eq string", []docstore.Filter{docstore.Eq("status", "active")}, []string{"u1", "u3"}},
		{"eq bool", []docstore.Filter{docstore.Eq("active", false)}, []string{"u2", "u4"}},
		{"eq number", []docstore.Filter{docstore.Eq("n", 3)}, []string{"u3"}},
		{"ne", []docstore.Filter{docstore.Ne("status", "active")}, []string{"u2", "u4"}},
		{"in", []docstore.Filter{docstore.In("status", "suspended", "deleted")}, []string{"u2", "u4"}},
		{"contains ignores case", []docstore.Filter{docstore.Contains("name", "SMITH")}, []string{"u1", "u2"}},
		{"contains unicode", []docstore.Filter{docstore.Contains("name", "太郎")}, []string{"u3"}},
		{"prefix", []docstore.Filter{docstore.Prefix("name", "Ca")}, []string{"u4"}},
		{"prefix is case-sensitive", []docstore.Filter{docstore.Prefix("name", "ca")}, nil},
		{"time range", []docstore.Filter{docstore.Gte("at", "2026-01-02T00:00:00.0000000Z"), docstore.Lt("at", "2026-01-04T00:00:00.0000000Z")}, []string{"u2", "u3"}},
		{"time range with kanri.Time", []docstore.Filter{docstore.Gt("at", kanri.NewTime(time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC)))}, []string{"u4"}},
		{"number range", []docstore.Filter{docstore.Gt("n", 1), docstore.Lte("n", 3)}, []string{"u2", "u3"}},
		{"array contains", []docstore.Filter{docstore.ArrayContains("tags", "y")}, []string{"u1", "u2"}},
		{"array prefix", []docstore.Filter{docstore.ArrayPrefix("words", "smi")}, []string{"u1", "u2"}},
		{"array prefix japanese", []docstore.Filter{docstore.ArrayPrefix("words", "太")}, []string{"u3"}},
		{"array prefix of no element", []docstore.Filter{docstore.ArrayPrefix("words", "lice")}, nil},
		{"ids in", []docstore.Filter{docstore.In("id", "u4", "u1", "nope", "o1")}, []string{"u1", "u4"}},
		{"nested field", []docstore.Filter{docstore.Eq("metadata.country", "JP")}, []string{"u1"}},
		{"defined", []docstore.Filter{docstore.Defined("extra", true)}, []string{"u4"}},
		{"not defined", []docstore.Filter{docstore.Defined("metadata", false)}, []string{"u3", "u4"}},
		{"or", []docstore.Filter{docstore.Or(docstore.Contains("name", "carol"), docstore.Eq("n", 1))}, []string{"u1", "u4"}},
		{"and of or", []docstore.Filter{docstore.Eq("status", "active"), docstore.Or(docstore.Contains("name", "alice"), docstore.Contains("name", "carol"))}, []string{"u1"}},
		{"no match", []docstore.Filter{docstore.Eq("status", "nope")}, nil},
		{"id prefix", []docstore.Filter{docstore.Prefix("id", "u"), docstore.Eq("active", true)}, []string{"u1", "u3"}},
		{"id equals", []docstore.Filter{docstore.Eq("id", "u2")}, []string{"u2"}},
		{"id prefix of another type", []docstore.Filter{docstore.Prefix("id", "o")}, nil},
		{"type mismatch", []docstore.Filter{docstore.Eq("n", "1")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := flatten(queryAll(t, c, pk, docstore.Query{Type: "thing", Where: tt.where}))
			sort.Strings(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func testOrdering(t *testing.T, h *harness) {
	c, pk := h.c(kanri.ContainerAuth), partition(t)
	for i, name := range []string{"delta", "alpha", "charlie", "bravo"} {
		_, err := c.Create(ctx(t), pk, doc(pk, fmt.Sprint("o", i), map[string]any{"name": name, "n": 10 - i}))
		must(t, "create", err)
	}
	tests := []struct {
		by   string
		desc bool
		want []string
	}{
		{"name", false, []string{"o1", "o3", "o2", "o0"}},
		{"name", true, []string{"o0", "o2", "o3", "o1"}},
		{"n", false, []string{"o3", "o2", "o1", "o0"}},
		{"n", true, []string{"o0", "o1", "o2", "o3"}},
	}
	for _, tt := range tests {
		got := flatten(queryAll(t, c, pk, docstore.Query{Type: "thing", OrderBy: tt.by, Desc: tt.desc, Limit: 3}))
		if !slices.Equal(got, tt.want) {
			t.Errorf("order by %s desc=%v: got %v, want %v", tt.by, tt.desc, got, tt.want)
		}
	}
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t testing.TB, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not true after %v", what, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func testTTL(t *testing.T, h *harness) {
	t.Parallel()
	pk := partition(t)
	auth, short := h.c(kanri.ContainerAuth), h.c(ShortTTL)
	_, err := auth.Create(ctx(t), pk, doc(pk, "brief", map[string]any{"ttl": 1}))
	must(t, "create brief", err)
	_, err = auth.Create(ctx(t), pk, doc(pk, "forever", nil))
	must(t, "create forever", err)
	_, err = short.Create(ctx(t), pk, doc(pk, "default", nil))
	must(t, "create default", err)
	_, err = short.Create(ctx(t), pk, doc(pk, "pinned", map[string]any{"ttl": -1}))
	must(t, "create pinned", err)

	gone := func(c docstore.Container, id string) func() bool {
		return func() bool {
			_, err := c.Read(ctx(t), pk, id)
			return kanri.IsCode(err, kanri.ENOTFOUND)
		}
	}
	eventually(t, "item ttl expiry", 10*time.Second, gone(auth, "brief"))
	eventually(t, "container default ttl expiry", 10*time.Second, gone(short, "default"))

	if got := flatten(queryAll(t, auth, pk, docstore.Query{Type: "thing"})); !slices.Equal(got, []string{"forever"}) {
		t.Errorf("query after expiry: got %v, want [forever]", got)
	}
	if got := flatten(queryAll(t, short, pk, docstore.Query{Type: "thing"})); !slices.Equal(got, []string{"pinned"}) {
		t.Errorf("ttl -1 in a container with a default: got %v, want [pinned]", got)
	}
	_, err = auth.Replace(ctx(t), pk, "brief", doc(pk, "brief", nil), "")
	wantCode(t, "replace expired", err, kanri.ENOTFOUND)
	_, err = auth.Create(ctx(t), pk, doc(pk, "brief", map[string]any{"again": true}))
	must(t, "re-create an expired id", err)
}

func testBatchCommits(t *testing.T, h *harness) {
	c, pk := h.c(kanri.ContainerAuth), partition(t)
	etag, err := c.Create(ctx(t), pk, doc(pk, "r", map[string]any{"v": 1}))
	must(t, "create", err)
	_, err = c.Create(ctx(t), pk, doc(pk, "gone", nil))
	must(t, "create", err)
	res, err := c.Batch(ctx(t), pk, []docstore.Op{
		{Kind: docstore.OpCreate, Body: doc(pk, "new", map[string]any{"v": 1})},
		{Kind: docstore.OpUpsert, Body: doc(pk, "up", map[string]any{"v": 1})},
		{Kind: docstore.OpReplace, ID: "r", Body: doc(pk, "r", map[string]any{"v": 2}), IfMatch: etag},
		{Kind: docstore.OpDelete, ID: "gone"},
		{Kind: docstore.OpRead, ID: "new"},
	})
	must(t, "batch", err)
	if len(res) != 5 {
		t.Fatalf("batch results: got %d, want 5", len(res))
	}
	if res[0].ETag == "" || res[2].ETag == "" || res[2].ETag == etag {
		t.Errorf("batch ETags: got %+v", res)
	}
	if got := field(t, docstore.Item{ID: "new", Body: res[4].Body}, "v"); got != 1.0 {
		t.Errorf("batch read: got v %v, want 1", got)
	}
	got := flatten(queryAll(t, c, pk, docstore.Query{Type: "thing"}))
	sort.Strings(got)
	if want := []string{"new", "r", "up"}; !slices.Equal(got, want) {
		t.Errorf("after batch: got %v, want %v", got, want)
	}
	it, _ := c.Read(ctx(t), pk, "r")
	if got := field(t, it, "v"); got != 2.0 {
		t.Errorf("batch replace: got v %v, want 2", got)
	}
}

// testBatchBounded: a batch of more than docstore.MaxBatchOps operations
// is refused whole, one of exactly that many commits.
func testBatchBounded(t *testing.T, h *harness) {
	c, pk := h.c(kanri.ContainerAuth), partition(t)
	creates := func(n int, prefix string) []docstore.Op {
		ops := make([]docstore.Op, n)
		for i := range ops {
			ops[i] = docstore.Op{Kind: docstore.OpCreate, Body: doc(pk, fmt.Sprintf("%s%03d", prefix, i), nil)}
		}
		return ops
	}
	_, err := c.Batch(ctx(t), pk, creates(docstore.MaxBatchOps+1, "over"))
	wantCode(t, "a batch over the limit", err, kanri.EINVALID)
	if got := flatten(queryAll(t, c, pk, docstore.Query{Type: "thing"})); len(got) != 0 {
		t.Errorf("a refused batch wrote %v", got)
	}
	res, err := c.Batch(ctx(t), pk, creates(docstore.MaxBatchOps, "at"))
	must(t, "a batch at the limit", err)
	if got, want := len(res), docstore.MaxBatchOps; got != want {
		t.Errorf("results of a batch at the limit: got %d, want %d", got, want)
	}
}

func testBatchAtomic(t *testing.T, h *harness) {
	c := h.c(kanri.ContainerAuth)
	tests := []struct {
		name string
		last func(pk, etag string) docstore.Op
		code string
	}{
		{"duplicate create", func(pk, _ string) docstore.Op {
			return docstore.Op{Kind: docstore.OpCreate, Body: doc(pk, "keep", nil)}
		}, kanri.ECONFLICT},
		{"stale replace", func(pk, _ string) docstore.Op {
			return docstore.Op{Kind: docstore.OpReplace, ID: "keep", Body: doc(pk, "keep", nil), IfMatch: `"stale"`}
		}, kanri.ESTALE},
		{"delete missing", func(pk, _ string) docstore.Op {
			return docstore.Op{Kind: docstore.OpDelete, ID: "missing"}
		}, kanri.ENOTFOUND},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pk := partition(t)
			etag, err := c.Create(ctx(t), pk, doc(pk, "keep", map[string]any{"v": 1}))
			must(t, "create", err)
			_, err = c.Batch(ctx(t), pk, []docstore.Op{
				{Kind: docstore.OpCreate, Body: doc(pk, "b1", nil)},
				{Kind: docstore.OpUpsert, Body: doc(pk, "b2", nil)},
				{Kind: docstore.OpReplace, ID: "keep", Body: doc(pk, "keep", map[string]any{"v": 2}), IfMatch: etag},
				tt.last(pk, etag),
			})
			wantCode(t, "batch", err, tt.code)
			got := flatten(queryAll(t, c, pk, docstore.Query{Type: "thing"}))
			if !slices.Equal(got, []string{"keep"}) {
				t.Errorf("after failed batch: got %v, want [keep]", got)
			}
			it, err := c.Read(ctx(t), pk, "keep")
			must(t, "read", err)
			if got := field(t, it, "v"); got != 1.0 || it.ETag != etag {
				t.Errorf("after failed batch: got v %v etag %q, want 1 %q", got, it.ETag, etag)
			}
		})
	}
}

func testTenantIsolation(t *testing.T, h *harness) {
	c := h.c(kanri.ContainerAuth)
	a, b := partition(t), partition(t)
	etags := map[string]string{}
	for _, pk := range []string{a, b} {
		for _, id := range []string{"same-1", "same-2"} {
			etag, err := c.Create(ctx(t), pk, doc(pk, id, map[string]any{"owner": pk, "status": "active", "name": "shared name"}))
			must(t, "create", err)
			etags[pk+id] = etag
		}
	}
	_, err := c.Create(ctx(t), b, doc(b, "only-b", map[string]any{"owner": b, "status": "active"}))
	must(t, "create only-b", err)

	it, err := c.Read(ctx(t), a, "same-1")
	must(t, "read a", err)
	if got := field(t, it, "owner"); got != a {
		t.Errorf("read in A: got owner %v, want %v", got, a)
	}
	_, err = c.Read(ctx(t), a, "only-b")
	wantCode(t, "read B's id in A", err, kanri.ENOTFOUND)
	_, err = c.Replace(ctx(t), a, "only-b", doc(a, "only-b", nil), "")
	wantCode(t, "replace B's id in A", err, kanri.ENOTFOUND)
	wantCode(t, "delete B's id in A", c.Delete(ctx(t), a, "only-b", ""), kanri.ENOTFOUND)
	_, err = c.Replace(ctx(t), a, "same-1", doc(a, "same-1", map[string]any{"owner": a}), etags[b+"same-1"])
	wantCode(t, "replace in A with B's ETag", err, kanri.ESTALE)

	for _, q := range []docstore.Query{
		{Type: "thing"},
		{Type: "thing", Where: []docstore.Filter{docstore.Eq("status", "active")}},
		{Type: "thing", Where: []docstore.Filter{docstore.Contains("name", "shared")}},
		{Type: "thing", OrderBy: "owner", Limit: 1},
		{Type: "thing", Where: []docstore.Filter{docstore.Or(docstore.Eq("owner", b), docstore.Eq("status", "active"))}},
	} {
		for _, it := range flattenItems(queryAll(t, c, a, q)) {
			if got := field(t, it, "owner"); got != a {
				t.Errorf("query %+v in A returned %s owned by %v", q.Where, it.ID, got)
			}
		}
	}
	must(t, "delete in A", c.Delete(ctx(t), a, "same-2", ""))
	if _, err := c.Read(ctx(t), b, "same-2"); err != nil {
		t.Errorf("delete in A removed B's document: %v", err)
	}
}

func flattenItems(pages [][]docstore.Item) []docstore.Item {
	var out []docstore.Item
	for _, p := range pages {
		out = append(out, p...)
	}
	return out
}

func testHostileValues(t *testing.T, h *harness) {
	c := h.c(kanri.ContainerAuth)
	a, b := partition(t), partition(t)
	_, err := c.Create(ctx(t), a, doc(a, "mine", map[string]any{"name": `O'Brien "the" \ admin`, "owner": a}))
	must(t, "create", err)
	_, err = c.Create(ctx(t), b, doc(b, "theirs", map[string]any{"name": "secret", "owner": b}))
	must(t, "create", err)
	hostile := []string{
		`'`, `"`, `' OR 1=1 --`, `" OR "1"="1`, `") OR (c.tenantId != "`, `x' OR c.tenantId != '`,
		`\`, `%`, `_`, `*`, `; DROP`, "\u0000", "🙂 管理 ñ", strings.Repeat("長", 5000), `{"$gt":""}`,
		`O'Brien "the" \ admin`,
	}
	for _, v := range hostile {
		for _, f := range []docstore.Filter{
			docstore.Eq("name", v), docstore.Contains("name", v), docstore.Prefix("name", v),
			docstore.In("name", v, "x"), docstore.Gte("name", v), docstore.ArrayContains("tags", v),
			docstore.Eq("owner", v), docstore.Ne("owner", v),
		} {
			for _, it := range flattenItems(queryAll(t, c, a, docstore.Query{Type: "thing", Where: []docstore.Filter{f}})) {
				if got := field(t, it, "owner"); got != a {
					t.Fatalf("filter %v %.30q leaked %s of %v", f.Op, v, it.ID, got)
				}
			}
		}
		if _, err := c.Read(ctx(t), a, "theirs"); !kanri.IsCode(err, kanri.ENOTFOUND) {
			t.Fatalf("read of another tenant's id: got %v, want not found", err)
		}
	}
	// The value with quotes and a backslash matches itself exactly.
	got := flatten(queryAll(t, c, a, docstore.Query{Type: "thing", Where: []docstore.Filter{docstore.Eq("name", `O'Brien "the" \ admin`)}}))
	if !slices.Equal(got, []string{"mine"}) {
		t.Errorf("exact match of a quoted value: got %v, want [mine]", got)
	}
	// Hostile ids and partition keys are rejected or simply not found.
	for _, v := range []string{`' OR 1=1 --`, "🙂", strings.Repeat("x", 300), "a/b", "../x"} {
		_, err := c.Read(ctx(t), a, v)
		if code := kanri.ErrorCode(err); code != kanri.ENOTFOUND && code != kanri.EINVALID {
			t.Errorf("read id %.20q: got %v, want not found or invalid", v, err)
		}
		if _, err := c.Query(ctx(t), v, docstore.Query{Type: "thing"}); err == nil {
			p, _ := c.Query(ctx(t), v, docstore.Query{Type: "thing"})
			if len(p.Items) != 0 {
				t.Errorf("query in partition %.20q returned %v", v, ids(p.Items))
			}
		}
	}
}

func testAcrossPartitions(t *testing.T, h *harness) {
	c := h.c(kanri.ContainerTenant)
	marker := partition(t) // a value only this test's documents carry
	var want []string
	for range 3 {
		pk := partition(t)
		for i := range 3 {
			id := fmt.Sprint("x", i)
			_, err := c.Create(ctx(t), pk, doc(pk, id, map[string]any{"marker": marker, "i": i}))
			must(t, "create", err)
			want = append(want, pk+"/"+id)
		}
	}
	q := docstore.Query{Type: "thing", Where: []docstore.Filter{docstore.Eq("marker", marker)}, Limit: 4}
	pages := queryAll(t, c, "", q)
	var got []string
	for _, it := range flattenItems(pages) {
		got = append(got, it.PartitionKey+"/"+it.ID)
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("across partitions: got %v, want %v", got, want)
	}
	if len(pages) < 3 {
		t.Errorf("across partitions in pages of 4: got %d pages, want at least 3", len(pages))
	}
	_, err := c.QueryAcrossPartitions(ctx(t), docstore.Query{Type: "thing", OrderBy: "i"})
	wantCode(t, "ordered query across partitions", err, kanri.EINVALID)
}

// testDeterministicIDs covers role assignment ids
// (docs/data-model.md, "Ids and uniqueness"), which hold Japanese role
// names: the second create of one id is a conflict, and the id reads back
// on every backend.
func testDeterministicIDs(t *testing.T, h *harness) {
	c, pk := h.c(kanri.ContainerAuth), partition(t)
	id := kanri.RoleAssignmentID("user_550e8400-e29b-41d4-a716-446655440000", "tenant-management", "管理者")
	body := doc(pk, id, map[string]any{"roleName": "管理者"})
	_, err := c.Create(ctx(t), pk, body)
	must(t, "first assignment", err)
	_, err = c.Create(ctx(t), pk, body)
	wantCode(t, "second assignment of the same role", err, kanri.ECONFLICT)
	it, err := c.Read(ctx(t), pk, id)
	must(t, "read by deterministic id", err)
	if got := field(t, it, "roleName"); got != "管理者" {
		t.Errorf("roleName: got %v, want 管理者", got)
	}
	got := flatten(queryAll(t, c, pk, docstore.Query{Type: "thing", Where: []docstore.Filter{docstore.Eq("roleName", "管理者")}}))
	if !slices.Equal(got, []string{id}) {
		t.Errorf("query by role name: got %v, want [%s]", got, id)
	}
	must(t, "delete by deterministic id", c.Delete(ctx(t), pk, id, ""))
}

// testErrors checks that every backend reports each kind of failure with
// the same code and message key (the cause, for the log, is the backend's
// own).
func testErrors(t *testing.T, h *harness) {
	c, pk := h.c(kanri.ContainerAuth), partition(t)
	_, err := c.Create(ctx(t), pk, doc(pk, "e1", nil))
	must(t, "create", err)
	_, missing := c.Read(ctx(t), pk, "nope")
	_, conflict := c.Create(ctx(t), pk, doc(pk, "e1", nil))
	_, stale := c.Replace(ctx(t), pk, "e1", doc(pk, "e1", nil), `"stale"`)
	_, unknownOp := c.Query(ctx(t), pk, docstore.Query{Type: "thing", Where: []docstore.Filter{{Field: "v", Op: 99, Value: 1}}})
	_, unknownInOr := c.Query(ctx(t), pk, docstore.Query{Type: "thing", Where: []docstore.Filter{docstore.Or(docstore.Eq("v", 1), docstore.Filter{Field: "v", Op: 99})}})
	_, badToken := c.Query(ctx(t), pk, docstore.Query{Type: "thing", Continuation: "garbage"})
	_, badBatch := c.Batch(ctx(t), pk, []docstore.Op{{Kind: docstore.OpReplace, ID: "e1", IfMatch: `"stale"`, Body: doc(pk, "e1", nil)}})
	tests := []struct {
		name      string
		err       error
		code, key string
	}{
		{"read of a missing document", missing, kanri.ENOTFOUND, "error.not_found"},
		{"create of an existing id", conflict, kanri.ECONFLICT, "error.conflict"},
		{"replace at an old ETag", stale, kanri.ESTALE, "stale.title"},
		{"unknown filter operator", unknownOp, kanri.EINVALID, "error.invalid_request"},
		{"unknown filter operator inside OR", unknownInOr, kanri.EINVALID, "error.invalid_request"},
		{"bad continuation token", badToken, kanri.EINVALID, "validation.continuation"},
		{"batch with a stale operation", badBatch, kanri.ESTALE, "stale.title"},
	}
	for _, tt := range tests {
		key, _ := kanri.ErrorMessage(tt.err)
		if got := kanri.ErrorCode(tt.err); got != tt.code || key != tt.key {
			t.Errorf("%s: got %s %q (%v), want %s %q", tt.name, got, key, tt.err, tt.code, tt.key)
		}
	}
}

// orderedIDs pages through q in pages of size, following continuation
// tokens, and returns the ids in order.
func orderedIDs(t *testing.T, c docstore.Container, pk string, q docstore.Query, size int) []string {
	t.Helper()
	q.Limit = size
	var out []string
	for range 1000 {
		p, err := c.Query(ctx(t), pk, q)
		must(t, "query", err)
		out = append(out, ids(p.Items)...)
		if p.Continuation == "" {
			return out
		}
		q.Continuation = p.Continuation
	}
	t.Fatal("paging does not end")
	return nil
}

func testIndexConsistency(t *testing.T, h *harness) {
	c, pk := h.c(Indexed), partition(t)
	put := func(id string, v any, g string) {
		_, err := c.Upsert(ctx(t), pk, doc(pk, id, map[string]any{"v": v, "g": g}), "")
		must(t, "upsert "+id, err)
	}
	byV := docstore.Query{Type: "thing", OrderBy: "v"}
	inG := func(g string) docstore.Query {
		return docstore.Query{Type: "thing", Where: []docstore.Filter{docstore.Eq("g", g)}, OrderBy: "v"}
	}
	check := func(what string, q docstore.Query, want ...string) {
		t.Helper()
		if got := orderedIDs(t, c, pk, q, 2); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: got %v, want %v", what, got, want)
		}
	}
	put("a", 3.0, "x")
	put("b", 1.0, "y")
	_, err := c.Create(ctx(t), pk, doc(pk, "c", map[string]any{"v": 2.0, "g": "x"}))
	must(t, "create c", err)
	check("after creates", byV, "b", "c", "a")
	check("group x after creates", inG("x"), "c", "a")
	// Replace moves a document in both indexes.
	_, err = c.Replace(ctx(t), pk, "a", doc(pk, "a", map[string]any{"v": 0.5, "g": "y"}), "")
	must(t, "replace a", err)
	check("after a replace", byV, "a", "b", "c")
	check("group x after a replace", inG("x"), "c")
	check("group y after a replace", inG("y"), "a", "b")
	// Upsert of an existing document, and delete.
	put("b", 9.0, "y")
	must(t, "delete c", c.Delete(ctx(t), pk, "c", ""))
	check("after an upsert and a delete", byV, "a", "b")
	// A batch that fails changes no index.
	_, err = c.Batch(ctx(t), pk, []docstore.Op{
		{Kind: docstore.OpCreate, Body: doc(pk, "d", map[string]any{"v": 0.1, "g": "x"})},
		{Kind: docstore.OpReplace, ID: "a", Body: doc(pk, "a", map[string]any{"v": 100.0, "g": "x"})},
		{Kind: docstore.OpDelete, ID: "missing"},
	})
	if err == nil {
		t.Fatal("a batch with a missing delete succeeded")
	}
	check("after a failed batch", byV, "a", "b")
	check("group x after a failed batch", inG("x"))
	// An expired document is never returned.
	_, err = c.Create(ctx(t), pk, doc(pk, "e", map[string]any{"v": 5.0, "g": "y", "ttl": 1}))
	must(t, "create e", err)
	check("a live document with a ttl", byV, "a", "e", "b")
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if got := orderedIDs(t, c, pk, byV, 2); fmt.Sprint(got) == "[a b]" {
			return
		}
		time.Sleep(100 * time.Millisecond) // waiting for the clock, not for the store
	}
	t.Errorf("an expired document stays in the index order: %v", orderedIDs(t, c, pk, byV, 2))
}

func testIndexEqualValues(t *testing.T, h *harness) {
	c, pk := h.c(Indexed), partition(t)
	for i := range 25 {
		_, err := c.Create(ctx(t), pk, doc(pk, fmt.Sprintf("same%02d", i), map[string]any{"v": 7.0, "g": "x"}))
		must(t, "create", err)
	}
	for _, desc := range []bool{false, true} {
		got := orderedIDs(t, c, pk, docstore.Query{Type: "thing", OrderBy: "v", Desc: desc}, 7)
		if len(got) != 25 || len(slices.Compact(slices.Sorted(slices.Values(got)))) != 25 {
			t.Errorf("desc=%v: 25 equal values in pages of 7: got %d ids, %v", desc, len(got), got)
		}
	}
}

func testIndexConcurrentInserts(t *testing.T, h *harness) {
	c, pk := h.c(Indexed), partition(t)
	for i := range 30 {
		_, err := c.Create(ctx(t), pk, doc(pk, fmt.Sprintf("old%02d", i), map[string]any{"v": float64(i * 10), "g": "x"}))
		must(t, "create", err)
	}
	q := docstore.Query{Type: "thing", OrderBy: "v", Limit: 10}
	seen := map[string]bool{}
	for page := 0; ; page++ {
		p, err := c.Query(ctx(t), pk, q)
		must(t, "query", err)
		for _, id := range ids(p.Items) {
			if seen[id] {
				t.Errorf("%s returned twice", id)
			}
			seen[id] = true
		}
		// Another writer inserts before and after the position reached.
		for _, v := range []float64{float64(page*100 + 5), float64(page*10 + 1)} {
			_, err := c.Create(ctx(t), pk, doc(pk, fmt.Sprintf("new%d_%v", page, v), map[string]any{"v": v, "g": "x"}))
			must(t, "insert", err)
		}
		if p.Continuation == "" {
			break
		}
		q.Continuation = p.Continuation
	}
	for i := range 30 {
		if id := fmt.Sprintf("old%02d", i); !seen[id] {
			t.Errorf("%s, there before the first page, was skipped", id)
		}
	}
}

func testIndexDescending(t *testing.T, h *harness) {
	c, pk := h.c(Indexed), partition(t)
	for i := range 12 {
		g := "even"
		if i%2 == 1 {
			g = "odd"
		}
		_, err := c.Create(ctx(t), pk, doc(pk, fmt.Sprintf("n%02d", i), map[string]any{"v": float64(i), "g": g, "name": fmt.Sprintf("Name %d", i)}))
		must(t, "create", err)
	}
	got := orderedIDs(t, c, pk, docstore.Query{Type: "thing", Where: []docstore.Filter{docstore.Eq("g", "odd")}, OrderBy: "v", Desc: true}, 4)
	if want := []string{"n11", "n09", "n07", "n05", "n03", "n01"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("odd, descending: got %v, want %v", got, want)
	}
	// A filter no index serves is checked on the way.
	got = orderedIDs(t, c, pk, docstore.Query{Type: "thing", Where: []docstore.Filter{docstore.Contains("name", "NAME 1")}, OrderBy: "v"}, 1)
	if want := []string{"n01", "n10", "n11"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("contains 'name 1', by v: got %v, want %v", got, want)
	}
	// A token belongs to its query.
	p, err := c.Query(ctx(t), pk, docstore.Query{Type: "thing", OrderBy: "v", Limit: 2})
	must(t, "query", err)
	_, err = c.Query(ctx(t), pk, docstore.Query{Type: "thing", Where: []docstore.Filter{docstore.Eq("g", "odd")}, OrderBy: "v", Limit: 2, Continuation: p.Continuation})
	wantCode(t, "a token of another query", err, kanri.EINVALID)
	_, err = c.Query(ctx(t), partition(t), docstore.Query{Type: "thing", OrderBy: "v", Limit: 2, Continuation: p.Continuation})
	wantCode(t, "a token of another partition", err, kanri.EINVALID)
}

func testDump(t *testing.T, h *harness) {
	pk, other := partition(t), partition(t)
	want := map[string]string{} // container/id -> name
	for i, name := range []string{kanri.ContainerAuth, kanri.ContainerMessaging} {
		for j := range 120 {
			id := fmt.Sprintf("d%03d", j)
			_, err := h.c(name).Create(ctx(t), pk, doc(pk, id, map[string]any{"name": fmt.Sprintf("%d-%d", i, j)}))
			must(t, "create", err)
			want[name+"/"+id] = fmt.Sprintf("%d-%d", i, j)
		}
	}
	// Another partition, another container, and deleted documents are not
	// dumped.
	_, err := h.c(kanri.ContainerAuth).Create(ctx(t), other, doc(other, "x", nil))
	must(t, "create in another partition", err)
	_, err = h.c(kanri.ContainerFiles).Create(ctx(t), pk, doc(pk, "f", nil))
	must(t, "create in another container", err)
	must(t, "delete", h.c(kanri.ContainerAuth).Delete(ctx(t), pk, "d007", ""))
	delete(want, kanri.ContainerAuth+"/d007")

	got := map[string]string{}
	_, err = h.st.Dump(ctx(t), pk, []string{kanri.ContainerAuth, kanri.ContainerMessaging}, func(container string, it docstore.Item) error {
		var m map[string]any
		if err := json.Unmarshal(it.Body, &m); err != nil {
			return err
		}
		for k := range m {
			if strings.HasPrefix(k, "_") {
				t.Errorf("%s/%s: dumped with the system property %s", container, it.ID, k)
			}
		}
		if m["id"] != it.ID || m["tenantId"] != pk {
			t.Errorf("%s/%s: body says id %v tenant %v", container, it.ID, m["id"], m["tenantId"])
		}
		got[container+"/"+it.ID], _ = m["name"].(string)
		return nil
	})
	must(t, "dump", err)
	if len(got) != len(want) {
		t.Errorf("dumped %d documents, want %d", len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("dumped %s = %q, want %q", k, got[k], v)
		}
	}
	// An error from fn ends the dump with that error.
	stop := errors.New("stop")
	n := 0
	_, err = h.st.Dump(ctx(t), pk, []string{kanri.ContainerAuth}, func(string, docstore.Item) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("dump with a failing fn: %v after %d documents, want stop after 1", err, n)
	}
}
