package bolt

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/docstore"
)

// planSpec is a container whose indexes give the planner every kind of
// plan to choose: equality prefixes, an Or across two indexes, a range of
// a leading field to expand, array elements, and a leading field without
// the sort field (collect).
var planSpec = docstore.Spec{Name: "c", Indexes: []docstore.Index{
	{Name: "by_time", Type: "ev", Fields: []string{"time"}},
	{Name: "by_user_time", Type: "ev", Fields: []string{"user", "time"}},
	{Name: "by_name_time", Type: "ev", Fields: []string{"name", "time"}},
	{Name: "by_action_time", Type: "ev", Fields: []string{"action", "time"}},
	{Name: "by_code_time", Type: "ev", Fields: []string{"code", "time"}},
	{Name: "by_user_code_time", Type: "ev", Fields: []string{"user", "code", "time"}},
	{Name: "by_terms_time", Type: "ev", Fields: []string{"terms[]", "time"}},
	{Name: "by_flag_terms", Type: "ev", Fields: []string{"flag", "terms[]"}}, // holds no document without terms
	{Name: "by_flag", Type: "ev", Fields: []string{"flag"}},
	{Name: "by_room_time", Type: "ev", Fields: []string{"room", "time"}, Hashed: []string{"room"}},
	{Name: "by_room_terms_time", Type: "ev", Fields: []string{"room", "terms[]", "time"}, Hashed: []string{"room"}},
}}

// plannedPair returns the same documents in a container with planSpec's
// indexes and in one without any (which scans and sorts every query: the
// reference).
func plannedPair(t *testing.T, n int) (planned, reference docstore.Container) {
	t.Helper()
	a, err := Open(t.TempDir(), []docstore.Spec{planSpec}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(t.TempDir(), []docstore.Spec{{Name: "c"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	var ops []docstore.Op
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha", "alps", "beta", "bet", "gamma", "日本", "日本語", "delta"}
	for i := range n {
		doc := map[string]any{
			"id": fmt.Sprintf("e%04d", i), "tenantId": "t", "type": "ev",
			"time":   fmt.Sprintf("2026-01-%02dT00:00:%02dZ", 1+r.IntN(28), r.IntN(60)),
			"user":   fmt.Sprintf("u%d", r.IntN(5)),
			"name":   fmt.Sprintf("n%d", r.IntN(5)),
			"action": []string{"user.create", "user.update", "user.delete", "tenant.update", "role.assign"}[r.IntN(5)],
			"code":   float64([]int{200, 201, 204, 400, 404, 409, 500}[r.IntN(7)]),
			"terms":  []string{words[r.IntN(len(words))], words[r.IntN(len(words))]},
			"room":   fmt.Sprintf("room_%d", r.IntN(4)),
		}
		if r.IntN(8) == 0 {
			doc["terms"] = []string{}
		}
		if r.IntN(10) == 0 {
			doc["flag"] = true
		}
		if r.IntN(20) == 0 {
			delete(doc, "time") // ordered last (undefined), never lost
		}
		if i%7 == 0 {
			doc["type"] = "other"
		}
		body, _ := json.Marshal(doc)
		ops = append(ops, docstore.Op{Kind: docstore.OpCreate, Body: body})
	}
	for _, c := range []docstore.Container{a.Container("c"), b.Container("c")} {
		batches(t, c, ops)
	}
	return a.Container("c"), b.Container("c")
}

// pageThrough returns the ids of every page of q, following tokens.
func pageThrough(t *testing.T, c docstore.Container, q docstore.Query) []string {
	t.Helper()
	var ids []string
	for range 1000 {
		page, err := c.Query(context.Background(), "t", q)
		if err != nil {
			t.Fatalf("%+v: %v", q.Where, err)
		}
		for _, it := range page.Items {
			ids = append(ids, it.ID)
		}
		if page.Continuation == "" {
			return ids
		}
		q.Continuation = page.Continuation
	}
	t.Fatal("more than 1000 pages")
	return nil
}

// TestPlansAgreeWithAScan runs queries of every shape the planner serves
// in the container with indexes and in the one without, page by page in
// both directions, and compares the results one by one.
func TestPlansAgreeWithAScan(t *testing.T) {
	planned, reference := plannedPair(t, 300)
	tests := []struct {
		name   string
		where  []docstore.Filter
		access string
	}{
		{"nothing", nil, docstore.AccessIndex},
		{"one user", []docstore.Filter{docstore.Eq("user", "u1")}, docstore.AccessIndex},
		{"user or name", []docstore.Filter{docstore.Or(docstore.Eq("user", "u1"), docstore.Eq("name", "n2"))}, docstore.AccessIndex},
		{"user or same user", []docstore.Filter{docstore.Or(docstore.Eq("user", "u1"), docstore.Eq("user", "u1"))}, docstore.AccessIndex},
		{"users in", []docstore.Filter{docstore.In("user", "u0", "u3", "nobody")}, docstore.AccessIndex},
		{"action prefix", []docstore.Filter{docstore.Prefix("action", "user.")}, docstore.AccessIndex},
		{"action prefix and user", []docstore.Filter{docstore.Prefix("action", "user."), docstore.Or(docstore.Eq("user", "u2"), docstore.Eq("name", "n2"))}, docstore.AccessIndex},
		{"codes 4xx", []docstore.Filter{docstore.Gte("code", 400), docstore.Lt("code", 500)}, docstore.AccessIndex},
		{"user and codes 4xx", []docstore.Filter{docstore.Eq("user", "u4"), docstore.Gte("code", 400), docstore.Lt("code", 500)}, docstore.AccessIndex},
		{"time range", []docstore.Filter{docstore.Gte("time", "2026-01-10"), docstore.Lt("time", "2026-01-20")}, docstore.AccessIndex},
		{"user and time range", []docstore.Filter{docstore.Eq("user", "u1"), docstore.Gt("time", "2026-01-10T00:00:30Z"), docstore.Lte("time", "2026-01-20T00:00:10Z")}, docstore.AccessIndex},
		{"term prefix", []docstore.Filter{docstore.ArrayPrefix("terms", "al")}, docstore.AccessIndex},
		{"term prefix japanese", []docstore.Filter{docstore.ArrayPrefix("terms", "日本")}, docstore.AccessIndex},
		{"term", []docstore.Filter{docstore.ArrayContains("terms", "beta")}, docstore.AccessIndex},
		{"flag", []docstore.Filter{docstore.Eq("flag", true)}, docstore.AccessIndexSort},
		{"flag and user", []docstore.Filter{docstore.Eq("flag", true), docstore.Eq("user", "u1")}, docstore.AccessIndex},
		{"no flag", []docstore.Filter{docstore.Defined("flag", false)}, docstore.AccessIndexSort},
		{"nothing matches", []docstore.Filter{docstore.Eq("user", "nobody")}, docstore.AccessIndex},
		{"hashed room", []docstore.Filter{docstore.Eq("room", "room_2")}, docstore.AccessIndex},
		{"hashed rooms in", []docstore.Filter{docstore.In("room", "room_0", "room_3", "room_9")}, docstore.AccessIndex},
		{"hashed room and term", []docstore.Filter{docstore.Eq("room", "room_1"), docstore.ArrayContains("terms", "beta")}, docstore.AccessIndex},
		{"hashed room and term prefix", []docstore.Filter{docstore.Eq("room", "room_1"), docstore.ArrayPrefix("terms", "al")}, docstore.AccessIndex},
	}
	for _, tt := range tests {
		for _, desc := range []bool{false, true} {
			for _, limit := range []int{4, 100} {
				q := docstore.Query{Type: "ev", Where: tt.where, OrderBy: "time", Desc: desc, Limit: limit}
				got, want := pageThrough(t, planned, q), pageThrough(t, reference, q)
				if !slices.Equal(got, want) {
					t.Errorf("%s (desc %t, limit %d): got %d ids %v…, want %d %v…", tt.name, desc, limit, len(got), head(got), len(want), head(want))
				}
			}
		}
		plan, err := planned.(docstore.Explainer).Explain("t", docstore.Query{Type: "ev", Where: tt.where, OrderBy: "time"})
		if err != nil {
			t.Fatal(err)
		}
		if plan.Access != tt.access || (len(tt.where) > 0 && !plan.Narrowed) {
			t.Errorf("%s: plan %+v, want access %s, narrowed", tt.name, plan, tt.access)
		}
	}
}

func head(ids []string) []string { return ids[:min(5, len(ids))] }

// TestAHashedFieldIsFixedByEqualityOnly checks that a range on a field an
// index hashes is not served by that index (its keys hold hashes, in no
// order), and that queries without an order find the same documents
// through a hashed index as a scan does.
func TestAHashedFieldIsFixedByEqualityOnly(t *testing.T) {
	planned, reference := plannedPair(t, 300)
	rangeOf := []docstore.Filter{docstore.Gte("room", "room_1"), docstore.Lt("room", "room_3")}
	for _, q := range []docstore.Query{
		{Type: "ev", Where: rangeOf, OrderBy: "time"},
		{Type: "ev", Where: rangeOf},
		{Type: "ev", Where: []docstore.Filter{docstore.Eq("room", "room_2")}},
		{Type: "ev", Where: []docstore.Filter{docstore.Eq("room", "room_2"), docstore.ArrayContains("terms", "beta")}},
	} {
		got, want := pageThrough(t, planned, q), pageThrough(t, reference, q)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) || len(want) == 0 {
			t.Errorf("%+v: got %d ids %v…, want %d %v…", q.Where, len(got), head(got), len(want), head(want))
		}
	}
	plan, err := planned.(docstore.Explainer).Explain("t", docstore.Query{Type: "ev", Where: rangeOf, OrderBy: "time"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range plan.Ranges {
		if strings.HasPrefix(r, "by_room") {
			t.Errorf("a range of rooms is served by %s: %+v", r, plan)
		}
	}
}

// TestTokensResumeAcrossPlans checks that a page made by one plan is
// continued by another: a token holds only a position in the order.
func TestTokensResumeAcrossPlans(t *testing.T) {
	planned, reference := plannedPair(t, 300)
	q := docstore.Query{Type: "ev", Where: []docstore.Filter{docstore.Eq("user", "u1")}, OrderBy: "time", Limit: 5}
	first, err := reference.Query(context.Background(), "t", q) // a partition scan's token
	if err != nil {
		t.Fatal(err)
	}
	q.Continuation = first.Continuation
	q.Limit = 1000
	rest, err := planned.Query(context.Background(), "t", q) // resumed by a merge
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range append(first.Items, rest.Items...) {
		got = append(got, it.ID)
	}
	want := pageThrough(t, reference, docstore.Query{Type: "ev", Where: q.Where, OrderBy: "time", Limit: 1000})
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestWidePlansGiveWay checks the bounds: a prefix with more distinct
// values than maxBranches, and a collect over more than maxCollect
// entries, give way to the next plan and still answer exactly.
func TestWidePlansGiveWay(t *testing.T) {
	st, err := Open(t.TempDir(), []docstore.Spec{planSpec}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := st.Container("c")
	n := max(maxBranches, maxCollect) + 50
	var ops []docstore.Op
	for i := range n {
		body := fmt.Sprintf(`{"id":"e%05d","tenantId":"t","type":"ev","time":"%05d","action":"x.%05d","flag":true}`, i, n-i, i)
		ops = append(ops, docstore.Op{Kind: docstore.OpCreate, Body: []byte(body)})
	}
	batches(t, c, ops)
	for _, f := range []docstore.Filter{docstore.Prefix("action", "x."), docstore.Eq("flag", true)} {
		q := docstore.Query{Type: "ev", Where: []docstore.Filter{f}, OrderBy: "time", Limit: 100}
		ids := pageThrough(t, c, q)
		if len(ids) != n || ids[0] != fmt.Sprintf("e%05d", n-1) || !slices.IsSortedFunc(ids, func(a, b string) int { return strings.Compare(b, a) }) {
			t.Errorf("%s: got %d ids from %v, want %d in descending id order", describe(f), len(ids), head(ids), n)
		}
	}
}

// TestACommonFilterCostsAPage checks that a filter most documents pass,
// served by a collect plan (an index of the filter's field without the
// sort field), reads about a page of documents by walking the sort
// field's index instead of every document the filter's range holds; and
// that a rare one is still served by its range.
func TestACommonFilterCostsAPage(t *testing.T) {
	st, err := Open(t.TempDir(), []docstore.Spec{planSpec}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := st.Container("c")
	const n = 1000
	var ops []docstore.Op
	for i := range n {
		// Every document but every 100th has the flag; those have a code.
		flag, code := "true", "0"
		if i%100 == 0 {
			flag, code = "false", "7"
		}
		body := fmt.Sprintf(`{"id":"e%05d","tenantId":"t","type":"ev","time":"%05d","flag":%s,"code":%s}`, i, i, flag, code)
		ops = append(ops, docstore.Op{Kind: docstore.OpCreate, Body: []byte(body)})
	}
	batches(t, c, ops)
	for _, tc := range []struct {
		what     string
		f        docstore.Filter
		access   string
		matching int
		most     int64 // documents read for the first page
	}{
		{"common", docstore.Eq("flag", true), "index-sort", n - n/100, probeFactor*21 + probeSlack},
		{"rare", docstore.Eq("flag", false), "index-sort", n / 100, n / 100},
	} {
		q := docstore.Query{Type: "ev", Where: []docstore.Filter{tc.f}, OrderBy: "time", Limit: 20}
		plan, err := c.(docstore.Explainer).Explain("t", q)
		if err != nil || plan.Access != tc.access {
			t.Fatalf("%s: plan %+v (%v), want access %s: the test no longer tests the collect plan", tc.what, plan, err, tc.access)
		}
		before := st.evaluated.Load()
		if _, err := c.Query(context.Background(), "t", q); err != nil {
			t.Fatal(err)
		}
		if got := st.evaluated.Load() - before; got > tc.most {
			t.Errorf("%s: the first page read %d documents, want at most %d", tc.what, got, tc.most)
		}
		if ids := pageThrough(t, c, q); len(ids) != tc.matching || !slices.IsSorted(ids) {
			t.Errorf("%s: paged through %d ids (%v…), want %d in order", tc.what, len(ids), head(ids), tc.matching)
		}
	}
}

// TestMultiValueIndexFollowsTheArray checks that an element index keeps
// one entry per distinct element and follows changes of the array.
func TestMultiValueIndexFollowsTheArray(t *testing.T) {
	st, err := Open(t.TempDir(), []docstore.Spec{planSpec}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := st.Container("c")
	ctx := context.Background()
	put := func(terms string) {
		body := `{"id":"a","tenantId":"t","type":"ev","time":"1","terms":` + terms + `}`
		if _, err := c.Upsert(ctx, "t", []byte(body), ""); err != nil {
			t.Fatal(err)
		}
	}
	find := func(prefix string) int {
		page, err := c.Query(ctx, "t", docstore.Query{Type: "ev", Where: []docstore.Filter{docstore.ArrayPrefix("terms", prefix)}, OrderBy: "time"})
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Items)
	}
	put(`["red","red","rose"]`)
	if got, want := find("r"), 1; got != want {
		t.Errorf("after [red red rose], r: got %d, want %d", got, want)
	}
	put(`["blue"]`)
	if got, want := find("r")+10*find("bl"), 10; got != want {
		t.Errorf("after [blue]: got %d, want %d (none for r, one for bl)", got, want)
	}
	put(`[]`)
	if got := find("bl"); got != 0 {
		t.Errorf("after []: got %d for bl, want 0", got)
	}
}

// batches applies ops to partition "t" of c, as many batches as it takes.
func batches(t *testing.T, c docstore.Container, ops []docstore.Op) {
	t.Helper()
	for chunk := range slices.Chunk(ops, docstore.MaxBatchOps) {
		if _, err := c.Batch(context.Background(), "t", chunk); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAppendingContainersFillTheirPages checks that a container declared
// to receive its keys in order leaves its pages nearly full, and that one
// not declared so keeps bbolt's even splits (which suit random keys).
func TestAppendingContainersFillTheirPages(t *testing.T) {
	for _, tc := range []struct {
		appends bool
		least   float64
		most    float64
	}{
		{true, 0.8, 1},
		{false, 0, 0.6},
	} {
		spec := docstore.Spec{Name: "c", Appends: tc.appends, Indexes: []docstore.Index{{Name: "by_time", Type: "ev", Fields: []string{"time"}}}}
		st, err := Open(t.TempDir(), []docstore.Spec{spec}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var ops []docstore.Op
		for i := range 5000 {
			body := fmt.Sprintf(`{"id":"e%06d","tenantId":"t","type":"ev","time":"2026-11-27T00:00:%06d","text":"a message of a few words","ttl":86400}`, i, i)
			ops = append(ops, docstore.Op{Kind: docstore.OpCreate, Body: []byte(body)})
		}
		batches(t, st.Container("c"), ops)
		rep, err := st.Check(false)
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		p := rep.Pages["c"]
		if fill := float64(p.InUse) / float64(p.Alloc); fill < tc.least || fill > tc.most {
			t.Errorf("appends %v: pages %.2f full, want between %.2f and %.2f", tc.appends, fill, tc.least, tc.most)
		}
		// Expiry keys arrive in order whatever the container, in blocks:
		// 5,000 of them fit a page or two.
		if e := rep.ExpiryPages; e.Alloc > 2*int64(os.Getpagesize()) {
			t.Errorf("appends %v: 5,000 expiry keys take %d bytes of pages (%d in use), want at most 2 pages", tc.appends, e.Alloc, e.InUse)
		}
	}
}
