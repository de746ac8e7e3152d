//go:build unix

package cosmostest_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/kanri/kanri/internal/cosmos/cosmostest"
)

type item struct {
	ID       string `json:"id"`
	TenantID string `json:"tenantId"`
	Name     string `json:"name,omitempty"`
	TTL      *int   `json:"ttl,omitempty"`
}

func ttl(n int) *int { return &n }

func (it item) json(t *testing.T) []byte {
	t.Helper()
	b, err := json.Marshal(it)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// env is one server with one database.
type env struct {
	t   *testing.T
	ctx context.Context
	db  *azcosmos.DatabaseClient
}

func newEnv(t *testing.T) *env {
	t.Helper()
	s := cosmostest.Start(t)
	cred, err := azcosmos.NewKeyCredential(s.Key())
	if err != nil {
		t.Fatal(err)
	}
	client, err := azcosmos.NewClientWithKey(s.Endpoint, cred, &azcosmos.ClientOptions{
		ClientOptions: azcore.ClientOptions{Transport: s.HTTPClient()},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	ctx := t.Context()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "kanri"}, nil); err != nil {
		t.Fatalf("CreateDatabase: %v", err)
	}
	db, err := client.NewDatabase("kanri")
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, ctx: ctx, db: db}
}

// container creates a container partitioned by /tenantId; defaultTTL nil
// leaves TTL off.
func (e *env) container(id string, defaultTTL *int32) *azcosmos.ContainerClient {
	e.t.Helper()
	props := azcosmos.ContainerProperties{
		ID:                     id,
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/tenantId"}},
		DefaultTimeToLive:      defaultTTL,
	}
	if _, err := e.db.CreateContainer(e.ctx, props, nil); err != nil {
		e.t.Fatalf("CreateContainer(%s): %v", id, err)
	}
	c, err := e.db.NewContainer(id)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// create creates items and returns their ETags by id.
func (e *env) create(c *azcosmos.ContainerClient, items ...item) map[string]azcore.ETag {
	e.t.Helper()
	etags := map[string]azcore.ETag{}
	for _, it := range items {
		resp, err := c.CreateItem(e.ctx, azcosmos.NewPartitionKeyString(it.TenantID), it.json(e.t), nil)
		if err != nil {
			e.t.Fatalf("CreateItem(%s): %v", it.ID, err)
		}
		etags[it.ID] = resp.ETag
	}
	return etags
}

// read returns the item, or the HTTP status code of the failed read.
func (e *env) read(c *azcosmos.ContainerClient, tenant, id string) (item, azcore.ETag, int) {
	e.t.Helper()
	resp, err := c.ReadItem(e.ctx, azcosmos.NewPartitionKeyString(tenant), id, nil)
	if err != nil {
		return item{}, "", statusCode(e.t, err)
	}
	var it item
	if err := json.Unmarshal(resp.Value, &it); err != nil {
		e.t.Fatal(err)
	}
	return it, resp.ETag, http.StatusOK
}

// query returns the ids of the items the query finds, all pages.
func (e *env) query(c *azcosmos.ContainerClient, tenant, sql string, params ...azcosmos.QueryParameter) []string {
	e.t.Helper()
	pager := c.NewQueryItemsPager(sql, azcosmos.NewPartitionKeyString(tenant),
		&azcosmos.QueryOptions{QueryParameters: params, PageSizeHint: 2})
	var ids []string
	for pager.More() {
		page, err := pager.NextPage(e.ctx)
		if err != nil {
			e.t.Fatalf("query %q: %v", sql, err)
		}
		for _, raw := range page.Items {
			var it item
			if err := json.Unmarshal(raw, &it); err != nil {
				e.t.Fatal(err)
			}
			ids = append(ids, it.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// statusCode is the HTTP status of an *azcore.ResponseError (fatal if err is
// anything else).
func statusCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return http.StatusOK
	}
	var respErr *azcore.ResponseError
	if !errors.As(err, &respErr) {
		t.Fatalf("got error %v, want an *azcore.ResponseError", err)
	}
	return respErr.StatusCode
}

func TestStart(t *testing.T) {
	t.Parallel()
	servers := make([]*cosmostest.Server, 3)
	t.Run("group", func(t *testing.T) {
		for i := range servers {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				servers[i] = cosmostest.Start(t)
				resp, err := servers[i].HTTPClient().Get(servers[i].Endpoint)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if got, want := resp.StatusCode, http.StatusOK; got != want {
					t.Errorf("GET %s: got status %d, want %d", servers[i].Endpoint, got, want)
				}
			})
		}
	})
	seen := map[string]bool{}
	for _, s := range servers {
		if !strings.HasPrefix(s.Endpoint, "https://127.0.0.1:") || !strings.HasSuffix(s.Endpoint, "/") {
			t.Errorf("got endpoint %q, want https://127.0.0.1:PORT/", s.Endpoint)
		}
		if seen[s.Endpoint] {
			t.Errorf("endpoint %s used by two servers", s.Endpoint)
		}
		seen[s.Endpoint] = true
		if _, err := base64.StdEncoding.DecodeString(s.Key()); err != nil {
			t.Errorf("Key() is not base64: %v", err)
		}
	}
}

// Fix A: missing items are 404, also when the id lives in another partition.
func TestNotFound(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.container("items", nil)
	e.create(c, item{ID: "a", TenantID: "t1", Name: "A"})
	t1, t2 := azcosmos.NewPartitionKeyString("t1"), azcosmos.NewPartitionKeyString("t2")
	body := item{ID: "a", TenantID: "t2", Name: "B"}.json(t)
	missing := item{ID: "missing", TenantID: "t1"}.json(t)
	var patch azcosmos.PatchOperations
	patch.AppendSet("/name", "P")

	tests := []struct {
		name string
		op   func() error
		want int
	}{
		{"read existing", func() error { _, err := c.ReadItem(e.ctx, t1, "a", nil); return err }, 200},
		{"read missing", func() error { _, err := c.ReadItem(e.ctx, t1, "missing", nil); return err }, 404},
		{"read other partition", func() error { _, err := c.ReadItem(e.ctx, t2, "a", nil); return err }, 404},
		{"replace missing", func() error { _, err := c.ReplaceItem(e.ctx, t1, "missing", missing, nil); return err }, 404},
		{"replace other partition", func() error { _, err := c.ReplaceItem(e.ctx, t2, "a", body, nil); return err }, 404},
		{"delete missing", func() error { _, err := c.DeleteItem(e.ctx, t1, "missing", nil); return err }, 404},
		{"delete other partition", func() error { _, err := c.DeleteItem(e.ctx, t2, "a", nil); return err }, 404},
		{"patch missing", func() error { _, err := c.PatchItem(e.ctx, t1, "missing", patch, nil); return err }, 404},
		{"patch other partition", func() error { _, err := c.PatchItem(e.ctx, t2, "a", patch, nil); return err }, 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := statusCode(t, tt.op()); got != tt.want {
				t.Errorf("got status %d, want %d", got, tt.want)
			}
		})
	}
	if got, _, _ := e.read(c, "t1", "a"); got.Name != "A" {
		t.Errorf("item a after the failed writes: got name %q, want %q", got.Name, "A")
	}
}

// Fix B: a batch applies all of its operations.
func TestBatchSuccess(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.container("items", nil)
	etags := e.create(c,
		item{ID: "u", TenantID: "t1", Name: "old"},
		item{ID: "r", TenantID: "t1", Name: "old"},
		item{ID: "d", TenantID: "t1", Name: "old"},
		item{ID: "x", TenantID: "t1", Name: "x"},
	)

	b := c.NewTransactionalBatch(azcosmos.NewPartitionKeyString("t1"))
	b.CreateItem(item{ID: "c", TenantID: "t1", Name: "new"}.json(t), nil)
	b.UpsertItem(item{ID: "u", TenantID: "t1", Name: "new"}.json(t), nil)
	b.UpsertItem(item{ID: "u2", TenantID: "t1", Name: "new"}.json(t), nil)
	b.ReplaceItem("r", item{ID: "r", TenantID: "t1", Name: "new"}.json(t), &azcosmos.TransactionalBatchItemOptions{IfMatchETag: ptr(etags["r"])})
	b.DeleteItem("d", &azcosmos.TransactionalBatchItemOptions{IfMatchETag: ptr(etags["d"])})
	b.ReadItem("x", nil)
	resp, err := c.ExecuteTransactionalBatch(e.ctx, b, nil)
	if err != nil {
		t.Fatalf("ExecuteTransactionalBatch: %v", err)
	}
	if !resp.Success {
		t.Fatalf("got Success false, want true; results %+v", resp.OperationResults)
	}
	wantCodes := []int32{201, 200, 201, 200, 204, 200}
	if got := codes(resp); !slices.Equal(got, wantCodes) {
		t.Errorf("got status codes %v, want %v", got, wantCodes)
	}
	for i, r := range resp.OperationResults[:4] {
		if r.ETag == "" {
			t.Errorf("result %d: got empty ETag, want the new ETag", i)
		}
	}
	var read item
	if err := json.Unmarshal(resp.OperationResults[5].ResourceBody, &read); err != nil || read.Name != "x" {
		t.Errorf("read result: got %s (%v), want item x", resp.OperationResults[5].ResourceBody, err)
	}

	// The batch's results carry the new ETags (indexes into OperationResults).
	resultOf := map[string]int{"c": 0, "u": 1, "u2": 2, "r": 3}
	for _, tt := range []struct {
		id       string
		wantCode int
		wantName string
	}{
		{"c", 200, "new"}, {"u", 200, "new"}, {"u2", 200, "new"}, {"r", 200, "new"}, {"d", 404, ""}, {"x", 200, "x"},
	} {
		got, etag, code := e.read(c, "t1", tt.id)
		if code != tt.wantCode || got.Name != tt.wantName {
			t.Errorf("item %s after the batch: got %d %q, want %d %q", tt.id, code, got.Name, tt.wantCode, tt.wantName)
		}
		if i, ok := resultOf[tt.id]; ok && etag != resp.OperationResults[i].ETag {
			t.Errorf("item %s: got ETag %s, want the batch's %s", tt.id, etag, resp.OperationResults[i].ETag)
		}
	}

	// Without a Read and without EnableContentResponseOnWrite, the SDK asks
	// for minimal responses: writes return no body, as in real Cosmos.
	b = c.NewTransactionalBatch(azcosmos.NewPartitionKeyString("t1"))
	b.CreateItem(item{ID: "m", TenantID: "t1"}.json(t), nil)
	resp, err = c.ExecuteTransactionalBatch(e.ctx, b, nil)
	if err != nil || !resp.Success {
		t.Fatalf("minimal batch: got %v, success %v", err, resp.Success)
	}
	if got := resp.OperationResults[0].ResourceBody; got != nil {
		t.Errorf("minimal batch: got body %s, want none", got)
	}
	resp, err = c.ExecuteTransactionalBatch(e.ctx, func() azcosmos.TransactionalBatch {
		b := c.NewTransactionalBatch(azcosmos.NewPartitionKeyString("t1"))
		b.CreateItem(item{ID: "m2", TenantID: "t1"}.json(t), nil)
		return b
	}(), &azcosmos.TransactionalBatchOptions{EnableContentResponseOnWrite: true})
	if err != nil || !resp.Success {
		t.Fatalf("batch with content: got %v, success %v", err, resp.Success)
	}
	if got := resp.OperationResults[0].ResourceBody; !strings.Contains(string(got), `"m2"`) {
		t.Errorf("batch with content: got body %s, want item m2", got)
	}
}

func ptr[T any](v T) *T { return &v }

func codes(resp azcosmos.TransactionalBatchResponse) []int32 {
	var out []int32
	for _, r := range resp.OperationResults {
		out = append(out, r.StatusCode)
	}
	return out
}

// Fix B: a batch with a failing operation applies nothing.
func TestBatchRollback(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	seed := []item{
		{ID: "u", TenantID: "t1", Name: "old"},
		{ID: "r", TenantID: "t1", Name: "old"},
		{ID: "d", TenantID: "t1", Name: "old"},
		{ID: "x", TenantID: "t1", Name: "old"},
	}
	// The same four writes lead every batch; then comes the failing operation.
	writes := func(b *azcosmos.TransactionalBatch, etags map[string]azcore.ETag) {
		b.CreateItem(item{ID: "c", TenantID: "t1", Name: "new"}.json(t), nil)
		b.UpsertItem(item{ID: "u", TenantID: "t1", Name: "new"}.json(t), nil)
		b.ReplaceItem("r", item{ID: "r", TenantID: "t1", Name: "new"}.json(t), &azcosmos.TransactionalBatchItemOptions{IfMatchETag: ptr(etags["r"])})
		b.DeleteItem("d", nil)
	}
	stale := azcore.ETag("stale")
	tests := []struct {
		name  string
		build func(b *azcosmos.TransactionalBatch, etags map[string]azcore.ETag)
		want  []int32
	}{
		{"stale ifMatch on replace", func(b *azcosmos.TransactionalBatch, etags map[string]azcore.ETag) {
			writes(b, etags)
			b.ReplaceItem("x", item{ID: "x", TenantID: "t1", Name: "new"}.json(t), &azcosmos.TransactionalBatchItemOptions{IfMatchETag: &stale})
		}, []int32{424, 424, 424, 424, 412}},
		{"stale ifMatch on delete", func(b *azcosmos.TransactionalBatch, etags map[string]azcore.ETag) {
			writes(b, etags)
			b.DeleteItem("x", &azcosmos.TransactionalBatchItemOptions{IfMatchETag: &stale})
		}, []int32{424, 424, 424, 424, 412}},
		{"stale ifMatch on upsert", func(b *azcosmos.TransactionalBatch, etags map[string]azcore.ETag) {
			writes(b, etags)
			b.UpsertItem(item{ID: "x", TenantID: "t1", Name: "new"}.json(t), &azcosmos.TransactionalBatchItemOptions{IfMatchETag: &stale})
		}, []int32{424, 424, 424, 424, 412}},
		{"create of an existing id", func(b *azcosmos.TransactionalBatch, etags map[string]azcore.ETag) {
			writes(b, etags)
			b.CreateItem(item{ID: "x", TenantID: "t1", Name: "new"}.json(t), nil)
		}, []int32{424, 424, 424, 424, 409}},
		{"create of an id created earlier in the batch", func(b *azcosmos.TransactionalBatch, etags map[string]azcore.ETag) {
			writes(b, etags)
			b.CreateItem(item{ID: "c", TenantID: "t1", Name: "again"}.json(t), nil)
		}, []int32{424, 424, 424, 424, 409}},
		{"read of a missing id", func(b *azcosmos.TransactionalBatch, etags map[string]azcore.ETag) {
			writes(b, etags)
			b.ReadItem("missing", nil)
		}, []int32{424, 424, 424, 424, 404}},
		{"replace of a missing id", func(b *azcosmos.TransactionalBatch, etags map[string]azcore.ETag) {
			writes(b, etags)
			b.ReplaceItem("missing", item{ID: "missing", TenantID: "t1"}.json(t), nil)
		}, []int32{424, 424, 424, 424, 404}},
		{"delete of an id deleted earlier in the batch", func(b *azcosmos.TransactionalBatch, etags map[string]azcore.ETag) {
			writes(b, etags)
			b.DeleteItem("d", nil)
		}, []int32{424, 424, 424, 424, 404}},
		{"item of another partition", func(b *azcosmos.TransactionalBatch, etags map[string]azcore.ETag) {
			writes(b, etags)
			b.CreateItem(item{ID: "y", TenantID: "t2"}.json(t), nil)
		}, []int32{424, 424, 424, 424, 400}},
		{"failure in the middle", func(b *azcosmos.TransactionalBatch, etags map[string]azcore.ETag) {
			b.CreateItem(item{ID: "c", TenantID: "t1", Name: "new"}.json(t), nil)
			b.CreateItem(item{ID: "x", TenantID: "t1"}.json(t), nil)
			b.DeleteItem("d", nil)
		}, []int32{424, 409, 424}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := e.container(fmt.Sprintf("rollback%d", i), nil)
			etags := e.create(c, seed...)
			b := c.NewTransactionalBatch(azcosmos.NewPartitionKeyString("t1"))
			tt.build(&b, etags)
			resp, err := c.ExecuteTransactionalBatch(e.ctx, b, nil)
			if err != nil {
				t.Fatalf("ExecuteTransactionalBatch: %v", err)
			}
			if resp.Success {
				t.Errorf("got Success true, want false")
			}
			if got := codes(resp); !slices.Equal(got, tt.want) {
				t.Errorf("got status codes %v, want %v", got, tt.want)
			}
			// Nothing applied: the seed is untouched and "c" does not exist.
			for _, it := range seed {
				got, etag, code := e.read(c, it.TenantID, it.ID)
				if code != 200 || got.Name != it.Name || etag != etags[it.ID] {
					t.Errorf("item %s: got %d %q %s, want 200 %q %s", it.ID, code, got.Name, etag, it.Name, etags[it.ID])
				}
			}
			if _, _, code := e.read(c, "t1", "c"); code != 404 {
				t.Errorf("item c: got status %d, want 404 (the batch's create is rolled back)", code)
			}
			if got, want := e.query(c, "t1", "SELECT * FROM c WHERE c.tenantId = 't1'"), []string{"d", "r", "u", "x"}; !slices.Equal(got, want) {
				t.Errorf("query: got ids %v, want %v", got, want)
			}
		})
	}
}

// Fix C: items expire after their TTL.
func TestTTL(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// Poll until every one of ids reads 404. The deadline only guards
	// against a hang: the items expire after 1 s.
	const hang = time.Minute
	waitGone := func(t *testing.T, c *azcosmos.ContainerClient, ids ...string) {
		t.Helper()
		deadline := time.Now().Add(hang)
		for _, id := range ids {
			for {
				_, _, code := e.read(c, "t1", id)
				if code == 404 {
					break
				}
				if code != 200 || time.Now().After(deadline) {
					t.Fatalf("item %s: got status %d, want 404 within %v", id, code, hang)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	}
	mustRead := func(t *testing.T, c *azcosmos.ContainerClient, ids ...string) {
		t.Helper()
		for _, id := range ids {
			if _, _, code := e.read(c, "t1", id); code != 200 {
				t.Errorf("item %s: got status %d, want 200 (not expired)", id, code)
			}
		}
	}
	// unexpired returns the status of each of ids that does not read 200.
	unexpired := func(c *azcosmos.ContainerClient, ids ...string) []string {
		var bad []string
		for _, id := range ids {
			if _, _, code := e.read(c, "t1", id); code != 200 {
				bad = append(bad, fmt.Sprintf("%s: %d", id, code))
			}
		}
		return bad
	}
	// inTime reports whether checks of items written at or after written
	// with a ttl of 1 s ended within that second. The emulator's clock is
	// the wall clock: on a machine too busy for that the items may have
	// expired, so the checks prove nothing and are logged, not failed.
	// The items' expiry is checked either way.
	inTime := func(t *testing.T, written time.Time) bool {
		if d := time.Since(written); d >= time.Second {
			t.Logf("the checks before expiry took %v, longer than the items' ttl: not checked", d)
			return false
		}
		return true
	}
	query := "SELECT * FROM c WHERE c.tenantId = @t"
	tenant := azcosmos.QueryParameter{Name: "@t", Value: "t1"}

	t.Run("item ttl, container without default", func(t *testing.T) {
		t.Parallel()
		c := e.container("ttl-item", ptr[int32](-1))
		written := time.Now()
		e.create(c,
			item{ID: "keep", TenantID: "t1"},
			item{ID: "replace-me", TenantID: "t1", TTL: ttl(1)},
			item{ID: "delete-me", TenantID: "t1", TTL: ttl(1)},
			item{ID: "short", TenantID: "t1", TTL: ttl(1)}, // last: the others expire first
		)
		bad := unexpired(c, "short", "replace-me", "delete-me")
		got, want := e.query(c, "t1", query, tenant), []string{"delete-me", "keep", "replace-me", "short"}
		if inTime(t, written) {
			if len(bad) > 0 {
				t.Errorf("before expiry: got %v, want every item to read 200", bad)
			}
			if !slices.Equal(got, want) {
				t.Errorf("query before expiry: got %v, want %v", got, want)
			}
		}
		waitGone(t, c, "short")
		if got, want := e.query(c, "t1", query, tenant), []string{"keep"}; !slices.Equal(got, want) {
			t.Errorf("query after expiry: got %v, want %v", got, want)
		}
		pk := azcosmos.NewPartitionKeyString("t1")
		_, err := c.ReplaceItem(e.ctx, pk, "replace-me", item{ID: "replace-me", TenantID: "t1"}.json(t), nil)
		if got := statusCode(t, err); got != 404 {
			t.Errorf("replace of an expired item: got status %d, want 404", got)
		}
		_, err = c.DeleteItem(e.ctx, pk, "delete-me", nil)
		if got := statusCode(t, err); got != 404 {
			t.Errorf("delete of an expired item: got status %d, want 404", got)
		}
		_, err = c.CreateItem(e.ctx, pk, item{ID: "short", TenantID: "t1", Name: "again"}.json(t), nil)
		if got := statusCode(t, err); got != 200 {
			t.Errorf("create over an expired item: got %v, want success", err)
		}
		if got, _, _ := e.read(c, "t1", "short"); got.Name != "again" {
			t.Errorf("recreated item: got name %q, want %q", got.Name, "again")
		}
		mustRead(t, c, "keep")
	})

	t.Run("container default ttl", func(t *testing.T) {
		t.Parallel()
		c := e.container("ttl-default", ptr[int32](1))
		written := time.Now()
		e.create(c,
			item{ID: "never", TenantID: "t1", TTL: ttl(-1)},
			item{ID: "hour", TenantID: "t1", TTL: ttl(3600)},
			item{ID: "default", TenantID: "t1"},
		)
		if bad := unexpired(c, "default"); inTime(t, written) && len(bad) > 0 {
			t.Errorf("before expiry: got %v, want the item to read 200", bad)
		}
		waitGone(t, c, "default")
		mustRead(t, c, "never", "hour")
		if got, want := e.query(c, "t1", query, tenant), []string{"hour", "never"}; !slices.Equal(got, want) {
			t.Errorf("query after expiry: got %v, want %v", got, want)
		}
	})

	t.Run("ttl off", func(t *testing.T) {
		t.Parallel()
		// Without a container default, TTL is off and item ttl is ignored.
		c := e.container("ttl-off", nil)
		e.create(c, item{ID: "ignored", TenantID: "t1", TTL: ttl(1)})
		time.Sleep(1500 * time.Millisecond) // past the ttl, however busy the machine
		mustRead(t, c, "ignored")
	})
}

// Deliberately unfixed defect (see launcher.js): the server ignores the
// partition key of a query, so only the SQL's tenant filter keeps a query
// inside the tenant. Real Azure would return t1's items only in both cases.
// If this test fails, the server was fixed: drop the test.
func TestQueryIgnoresPartitionKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.container("items", nil)
	e.create(c,
		item{ID: "a", TenantID: "t1"}, item{ID: "b", TenantID: "t1"}, item{ID: "c", TenantID: "t1"},
		item{ID: "z", TenantID: "t2"},
	)
	tests := []struct {
		name   string
		sql    string
		params []azcosmos.QueryParameter
		want   []string
	}{
		{"no tenant filter leaks other partitions", "SELECT * FROM c", nil, []string{"a", "b", "c", "z"}},
		{"tenant filter", "SELECT * FROM c WHERE c.tenantId = @tenantId",
			[]azcosmos.QueryParameter{{Name: "@tenantId", Value: "t1"}}, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := e.query(c, "t1", tt.sql, tt.params...); !slices.Equal(got, tt.want) {
				t.Errorf("query %q with partition key t1: got ids %v, want %v", tt.sql, got, tt.want)
			}
		})
	}
}
