package web_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/web"
	"github.com/kanri/kanri/web/httpkit"
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

// Read fails, as Cosmos DB's SDK does, when the request's context has
// ended (its client went away).
func (c faultContainer) Read(ctx context.Context, pk, id string) (docstore.Item, error) {
	if err := ctx.Err(); err != nil {
		return docstore.Item{}, fmt.Errorf("read %s: %w", id, err)
	}
	return c.Container.Read(ctx, pk, id)
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
	t.Parallel()
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

// TestAClientThatWentAwayIsNoServerError makes an API call whose context
// ends while it is served: when its client went away, the request log says
// 499 at info level and the usage log counts no 5xx; when the server is
// stopping (the cause web.ErrStopping), the client is still there and is
// answered 503, logged as a warning, not an error.
func TestAClientThatWentAwayIsNoServerError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		cause      error
		wantLog    string // in the request's log line
		wantStatus int    // in the usage log
	}{
		{"the client went away", context.Canceled, `"level":"INFO","msg":"request","method":"GET","path":"/api/v1/users/`, 499},
		{"the server is stopping", httpkit.ErrStopping, `"level":"WARN","msg":"request","method":"GET","path":"/api/v1/users/`, 503},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			k, secret := e.apiKey(t, e.acme.ID, "read")
			var log bytes.Buffer
			cfg := e.config
			cfg.Deps.Logger = slog.New(slog.NewJSONHandler(&log, nil))
			h := web.New(cfg)
			call := func(ctx context.Context) *httptest.ResponseRecorder {
				req := httptest.NewRequest(http.MethodGet, "/api/v1/users/"+e.acmeBob.ID, nil).WithContext(ctx)
				req.Header.Set("Authorization", "Bearer "+secret)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				return rec
			}
			call(context.Background()) // the key's grant is kept: then only the handler reads the store
			log.Reset()
			e.clock.Advance(time.Second) // the usage log orders calls by time
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(tc.cause)
			rec := call(ctx)
			if got, want := rec.Code, http.StatusServiceUnavailable; got != want {
				t.Errorf("status sent %d, want %d (read only if the client is still there)", got, want)
			}
			if !strings.Contains(log.String(), tc.wantLog) || strings.Contains(log.String(), `"level":"ERROR"`) {
				t.Errorf("log:\n%s\nwant a line with %s, and no error", log.String(), tc.wantLog)
			}
			if got, want := strings.Contains(log.String(), `"status":503`), tc.wantStatus == 503; got != want {
				t.Errorf("log:\n%s\nsays 503: %v, want %v", log.String(), got, want)
			}
			stop, done := context.WithCancel(context.Background())
			done()
			if err := e.usage.Run(stop); err != nil {
				t.Fatal(err)
			}
			calls, _, err := e.keys.Calls(context.Background(), e.acme.ID, apikey.CallFilter{KeyID: k.ID})
			if err != nil || len(calls) != 2 {
				t.Fatalf("logged calls: %v, %v", calls, err)
			}
			if got := calls[0].StatusCode; got != tc.wantStatus {
				t.Errorf("usage log: status %d, want %d", got, tc.wantStatus)
			}
		})
	}
}
