package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/kanri"
)

// TestAPIActorIDsResolve checks that the ids of who made a change through
// the API, an API key's, say so (uploadedByKind, createdByKind,
// assignedByKind, userKind) and are read with GET /keys/{key}: in the
// key's tenant only (another tenant's key is not found, as a user's id
// is), and never with the key's secret or hash.
func TestAPIActorIDsResolve(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	k, rw := e.apiKey(t, e.acme.ID, "read", "write")
	_, globex := e.apiKey(t, e.globex.ID, "read", "write")

	e.clock.Advance(time.Second) // the audit log's newest record is the API's
	folder := e.api(t, http.MethodPost, "/api/v1/folders", rw, map[string]string{"name": "Reports"})
	role := e.api(t, http.MethodPost, "/api/v1/users/"+e.acmeBob.ID+"/roles", rw, map[string]string{"serviceId": kanri.AuthServiceID, "role": "admin"})
	audit := e.api(t, http.MethodGet, "/api/v1/audit?action=role.&limit=1", rw, nil)
	var f struct{ CreatedBy, CreatedByKind string }
	var ra struct{ AssignedBy, AssignedByKind string }
	var recs struct {
		Items []struct{ UserID, UserKind string }
	}
	folder.decode(&f)
	role.decode(&ra)
	audit.decode(&recs)
	if len(recs.Items) != 1 {
		t.Fatalf("audit: %s", audit.body)
	}
	for _, got := range [][2]string{{f.CreatedBy, f.CreatedByKind}, {ra.AssignedBy, ra.AssignedByKind}, {recs.Items[0].UserID, recs.Items[0].UserKind}} {
		if want := [2]string{k.ID, "apiKey"}; got != want {
			t.Errorf("who did it: got %q, want %q", got, want)
		}
	}

	read := e.api(t, http.MethodGet, "/api/v1/keys/"+k.ID, rw, nil)
	var doc map[string]any
	read.decode(&doc)
	if read.status != http.StatusOK || doc["id"] != k.ID || doc["name"] != k.Name || doc["status"] != kanri.KeyActive || doc["prefix"] != k.KeyPrefix {
		t.Errorf("GET /keys/%s: %d %s", k.ID, read.status, read.body)
	}
	for _, secret := range []string{rw, k.KeyHash, "hash", "secret"} {
		if secret != "" && strings.Contains(strings.ToLower(string(read.body)), strings.ToLower(secret)) {
			t.Errorf("GET /keys/%s says %q: %s", k.ID, secret, read.body)
		}
	}
	for _, tc := range []struct{ name, secret, id string }{
		{"another tenant's key", globex, k.ID},
		{"an unknown key", rw, "apikey_0123456789abcdef0123456789abcdef"},
		{"a user's id", rw, e.acmeBob.ID},
	} {
		if a := e.api(t, http.MethodGet, "/api/v1/keys/"+tc.id, tc.secret, nil); a.status != http.StatusNotFound {
			t.Errorf("%s: got %d, want 404: %s", tc.name, a.status, a.body)
		}
	}
}
