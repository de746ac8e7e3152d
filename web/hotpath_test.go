package web_test

import (
	"net/http"
	"testing"

	"github.com/kanri/kanri/internal/docstore"
)

// TestAPIUsagePageRoundTrips counts the calls the API usage pages make
// to the API container: the keys, the 30 days in one query, the month's
// aggregate and a page of the log.
func TestAPIUsagePageRoundTrips(t *testing.T) {
	e := newEnv(t)
	k, _ := e.apiKey(t, e.acme.ID, "read")
	admin := e.client(t).signIn("acme", "admin")
	for _, tc := range []struct {
		name, path string
	}{
		{"the tenant's usage", "/t/" + e.acme.ID + "/api-keys/usage"},
		{"a key's usage", "/t/" + e.acme.ID + "/api-keys/" + k.ID},
	} {
		before := e.calls.CallsTo(docstore.API)
		resp, body := admin.get(tc.path)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", tc.name, resp.StatusCode, body)
		}
		got := e.calls.CallsTo(docstore.API).Sub(before)
		want := docstore.Calls{Query: 3, Read: 1}
		if tc.name == "a key's usage" {
			want.Read++ // the key itself
		}
		if got != want {
			t.Errorf("%s: got %v, want %v", tc.name, got, want)
		}
	}
}
