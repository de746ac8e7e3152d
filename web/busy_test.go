package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// faultStore is the tests' document store: it passes everything to the
// embedded store, except that a write of a document whose id contend
// names always loses its race (ESTALE), as if another writer kept coming
// first.
type faultStore struct {
	docstore.Store
	mu      sync.Mutex
	contend map[string]bool
}

// contendOn makes every write of the document id lose its race until the
// test ends.
func (s *faultStore) contendOn(t testing.TB, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.contend == nil {
		s.contend = map[string]bool{}
	}
	s.contend[id] = true
	t.Cleanup(func() { s.mu.Lock(); delete(s.contend, id); s.mu.Unlock() })
}

func (s *faultStore) contended(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.contend[id]
}

func (s *faultStore) Container(name string) docstore.Container {
	return faultContainer{s.Store.Container(name), s}
}

type faultContainer struct {
	docstore.Container
	s *faultStore
}

var errLost = kanri.E(kanri.ESTALE, "stale.title")

func (c faultContainer) Replace(ctx context.Context, pk, id string, body []byte, ifMatch string) (string, error) {
	if c.s.contended(id) {
		return "", errLost
	}
	return c.Container.Replace(ctx, pk, id, body, ifMatch)
}

func (c faultContainer) Batch(ctx context.Context, pk string, ops []docstore.Op) ([]docstore.Result, error) {
	for _, op := range ops {
		if op.Kind != docstore.OpRead && c.s.contended(op.ID) {
			return nil, errLost
		}
	}
	return c.Container.Batch(ctx, pk, ops)
}

func TestContentionThatOutlastsTheRetriesIsBusy(t *testing.T) {
	e := newEnv(t)
	_, rw := e.apiKey(t, e.acme.ID, "read", "write")
	bob := "/api/v1/users/" + e.acmeBob.ID
	e.faults.contendOn(t, e.acmeBob.ID)

	// The API: 503 with Retry-After, as a problem document.
	a := e.api(t, http.MethodPatch, bob, rw, map[string]string{"displayName": "Robert"})
	wantProblem(t, "PATCH of a contended user", a, http.StatusServiceUnavailable, "unavailable")
	if got, want := a.resp.Header.Get("Retry-After"), "1"; got != want {
		t.Errorf("Retry-After: got %q, want %q", got, want)
	}

	// The console: the page it came from says so, translated.
	for _, lang := range []struct{ name, want string }{
		{"en", "Too many changes at once"},
		{"ja", "同時に多数の変更が行われています"},
	} {
		c := e.client(t).signIn("acme", "admin")
		c.post("/lang", url.Values{"lang": {lang.name}})
		resp, _ := c.post("/t/"+e.acme.ID+"/users/"+e.acmeBob.ID+"/deactivate", nil)
		wantStatus(t, lang.name+": deactivation of a contended user", resp, http.StatusSeeOther)
		body := ""
		for loc := resp.Header.Get("Location"); loc != ""; loc = resp.Header.Get("Location") {
			resp, body = c.get(loc)
		}
		if !strings.Contains(body, lang.want) {
			t.Errorf("%s: the page after the refused deactivation does not say %q", lang.name, lang.want)
		}
	}

	// Nothing changed.
	if u, err := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID); err != nil || u.DisplayName != "Bob" || !u.IsActive {
		t.Errorf("bob after the refused changes: %+v, %v", u, err)
	}
}
