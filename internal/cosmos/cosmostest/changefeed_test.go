//go:build unix

package cosmostest_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestChangeFeed pins the change feed the launcher serves, as azcosmos
// v1.5.0's ReadChangeFeed reads it: one feed range; documents in the order
// of their last write, each once in its latest version; deletions absent;
// the continuation token resumes after the last document returned; a page
// holds at most MaxItemCount; nothing new is an empty answer that keeps
// the position.
func TestChangeFeed(t *testing.T) {
	e := newEnv(t)
	c := e.container("feed", nil)
	ranges, err := c.ReadFeedRanges(e.ctx, nil)
	if err != nil || len(ranges) != 1 {
		t.Fatalf("ReadFeedRanges: %v, %v; want one range", ranges, err)
	}
	read := func(opts azcosmos.ChangeFeedOptions) ([]string, string) {
		t.Helper()
		resp, err := c.ReadChangeFeed(e.ctx, &opts)
		if err != nil {
			t.Fatalf("ReadChangeFeed: %v", err)
		}
		var ids []string
		for _, raw := range resp.Items {
			var it item
			if err := json.Unmarshal(raw, &it); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, it.ID+":"+it.Name)
		}
		if resp.ContinuationToken == "" {
			t.Fatal("no continuation token")
		}
		return ids, resp.ContinuationToken
	}
	e.create(c, item{ID: "a", TenantID: "t1", Name: "1"}, item{ID: "b", TenantID: "t2", Name: "1"}, item{ID: "c", TenantID: "t1", Name: "1"})

	got, token := read(azcosmos.ChangeFeedOptions{FeedRange: &ranges[0]})
	if want := []string{"a:1", "b:1", "c:1"}; !slices.Equal(got, want) {
		t.Fatalf("from the beginning: %v, want %v", got, want)
	}
	if got, again := read(azcosmos.ChangeFeedOptions{Continuation: &token}); len(got) != 0 {
		t.Fatalf("nothing new: %v", got)
	} else {
		token = again
	}

	// b updated (it moves to the end, once), d created, c deleted.
	if _, err := c.ReplaceItem(e.ctx, azcosmos.NewPartitionKeyString("t2"), "b", item{ID: "b", TenantID: "t2", Name: "2"}.json(t), nil); err != nil {
		t.Fatal(err)
	}
	e.create(c, item{ID: "d", TenantID: "t1", Name: "1"})
	if _, err := c.DeleteItem(e.ctx, azcosmos.NewPartitionKeyString("t1"), "c", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpsertItem(e.ctx, azcosmos.NewPartitionKeyString("t2"), item{ID: "b", TenantID: "t2", Name: "3"}.json(t), nil); err != nil {
		t.Fatal(err)
	}
	page, next := read(azcosmos.ChangeFeedOptions{Continuation: &token, MaxItemCount: 1})
	if want := []string{"d:1"}; !slices.Equal(page, want) {
		t.Fatalf("after the first read, one at a time: %v, want %v", page, want)
	}
	page, next = read(azcosmos.ChangeFeedOptions{Continuation: &next, MaxItemCount: 1})
	if want := []string{"b:3"}; !slices.Equal(page, want) {
		t.Fatalf("then: %v, want %v (b's latest version, once)", page, want)
	}
	if page, _ = read(azcosmos.ChangeFeedOptions{Continuation: &next}); len(page) != 0 {
		t.Fatalf("at the end: %v", page)
	}

	// StartFrom (If-Modified-Since, whole seconds) reads what was written
	// since then.
	earlier, later := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	if got, _ := read(azcosmos.ChangeFeedOptions{FeedRange: &ranges[0], StartFrom: &earlier}); !slices.Equal(got, []string{"a:1", "d:1", "b:3"}) {
		t.Errorf("from an hour ago: %v", got)
	}
	if got, _ := read(azcosmos.ChangeFeedOptions{FeedRange: &ranges[0], StartFrom: &later}); len(got) != 0 {
		t.Errorf("from an hour ahead: %v", got)
	}
}
