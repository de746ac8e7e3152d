package apikey_test

import (
	"sync"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/kanri"
)

// TestIdempotencyKeys claims, answers, replays, refuses and frees
// Idempotency-Keys on both stores, with two instances of the service
// sharing the store.
func TestIdempotencyKeys(t *testing.T) {
	for _, tc := range stores {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.setup(t)
			one, two := f.keys, apikey.New(f.d) // two instances over one store
			k := &kanri.APIKey{Doc: kanri.Doc{ID: "apikey_a", TenantID: "tenant_acme"}}
			other := &kanri.APIKey{Doc: kanri.Doc{ID: "apikey_b", TenantID: "tenant_acme"}}
			globex := &kanri.APIKey{Doc: kanri.Doc{ID: "apikey_a", TenantID: "tenant_globex"}}

			rec, err := one.ClaimIdempotency(f.ctx, k, "k1", "fp1")
			if err != nil || rec.Done {
				t.Fatalf("first claim: %+v, %v", rec, err)
			}
			// While it is served: the same request is 409 on either
			// instance, another request with the key 422.
			for _, s := range []*apikey.Service{one, two} {
				if _, err := s.ClaimIdempotency(f.ctx, k, "k1", "fp1"); !kanri.IsCode(err, kanri.ECONFLICT) {
					t.Errorf("repeat while served: got %v, want ECONFLICT", err)
				}
				if _, err := s.ClaimIdempotency(f.ctx, k, "k1", "fp2"); !kanri.IsCode(err, kanri.EINVALID) {
					t.Errorf("another request while served: got %v, want EINVALID", err)
				}
			}
			// Another API key, or the same id in another tenant, has keys of its own.
			for _, o := range []*kanri.APIKey{other, globex} {
				if r, err := two.ClaimIdempotency(f.ctx, o, "k1", "fp9"); err != nil || r.Done {
					t.Errorf("%s/%s: claim of its own: %+v, %v", o.TenantID, o.ID, r, err)
				}
			}
			if err := one.FinishIdempotency(f.ctx, rec, 201, map[string]string{"Location": "/api/v1/users/user_1"}, []byte(`{"id":"user_1"}`)); err != nil {
				t.Fatal(err)
			}
			got, err := two.ClaimIdempotency(f.ctx, k, "k1", "fp1")
			if err != nil || !got.Done || got.Status != 201 || got.Header["Location"] != "/api/v1/users/user_1" || string(got.Body) != `{"id":"user_1"}` {
				t.Fatalf("replay: %+v, %v", got, err)
			}
			if _, err := two.ClaimIdempotency(f.ctx, k, "k1", "fp2"); !kanri.IsCode(err, kanri.EINVALID) {
				t.Errorf("another request after the answer: got %v, want EINVALID", err)
			}

			// A released claim (a 5xx) leaves the key free.
			rec, _ = one.ClaimIdempotency(f.ctx, k, "k2", "fp1")
			if err := one.ReleaseIdempotency(f.ctx, rec); err != nil {
				t.Fatal(err)
			}
			if r, err := two.ClaimIdempotency(f.ctx, k, "k2", "fp1"); err != nil || r.Done {
				t.Errorf("after a release: %+v, %v", r, err)
			}

			// A claim whose request never answers is taken over after its
			// lease; an answer is forgotten after 24 hours.
			f.clock.add(apikey.IdempotencyLease)
			if r, err := two.ClaimIdempotency(f.ctx, k, "k2", "fp3"); err != nil || r.Done {
				t.Errorf("after the lease: %+v, %v", r, err)
			}
			f.clock.add(kanri.TTLIdempotency*time.Second - apikey.IdempotencyLease)
			if r, err := two.ClaimIdempotency(f.ctx, k, "k1", "fp2"); err != nil || r.Done || r.Fingerprint != "fp2" {
				t.Errorf("after 24 hours: %+v, %v", r, err)
			}
			if rec.TTL != kanri.TTLIdempotency {
				t.Errorf("ttl %d, want %d", rec.TTL, kanri.TTLIdempotency)
			}
		})
	}
}

// TestIdempotencyKeyClaimedOnce lets one of many concurrent claims of a
// key, over two instances, have it; the others are told it is served.
func TestIdempotencyKeyClaimedOnce(t *testing.T) {
	f := setup(t)
	services := []*apikey.Service{f.keys, apikey.New(f.d)}
	k := &kanri.APIKey{Doc: kanri.Doc{ID: "apikey_a", TenantID: "tenant_acme"}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	claims, conflicts := 0, 0
	for i := range 16 {
		wg.Go(func() {
			_, err := services[i%2].ClaimIdempotency(f.ctx, k, "same", "fp")
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				claims++
			case kanri.IsCode(err, kanri.ECONFLICT):
				conflicts++
			default:
				t.Errorf("claim: %v", err)
			}
		})
	}
	wg.Wait()
	if claims != 1 || conflicts != 15 {
		t.Errorf("got %d claims and %d conflicts, want 1 and 15", claims, conflicts)
	}
}
