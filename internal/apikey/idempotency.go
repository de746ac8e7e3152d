package apikey

import (
	"context"
	"time"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// Idempotency keys (Idempotency-Key on the API's POSTs, after Stripe and
// draft-ietf-httpapi-idempotency-key-header): the first request with a
// key claims it in the store, with create-if-absent, before it is served,
// and records its answer when it is answered; a repeat within
// kanri.TTLIdempotency gets that answer. Keys are an API key's own: two
// keys of one tenant may use the same Idempotency-Key for different
// requests. The records live in the store, so every instance sees them.

// IdempotencyLease is how long a request may hold the Idempotency-Key it
// claimed before answering: past it, the claim is taken to be of a
// request that will never answer (its instance stopped), and a repeat
// claims the key in its place.
const IdempotencyLease = 2 * time.Minute

// ClaimIdempotency claims an API key's Idempotency-Key for a request
// whose method, path and body hash to fingerprint. It returns the record
// of the claim (Done false: serve the request, then FinishIdempotency or
// ReleaseIdempotency) or, when the key has been answered already, the
// record of that answer (Done true: give it again). The key sent with
// another request is EINVALID; a key claimed by a request still being
// served is ECONFLICT.
func (s *Service) ClaimIdempotency(ctx context.Context, k *kanri.APIKey, key, fingerprint string) (*kanri.IdempotencyRecord, error) {
	repo := idempotencyRecords(s.Store, k.TenantID)
	id := kanri.IdempotencyRecordID(k.ID, key)
	for range 4 {
		now := s.Now()
		claim := &kanri.IdempotencyRecord{Doc: kanri.Doc{ID: id}, APIKeyID: k.ID, Fingerprint: fingerprint, CreatedAt: kanri.NewTime(now)}
		cur, err := repo.Get(ctx, id)
		switch {
		case kanri.IsCode(err, kanri.ENOTFOUND):
			err = repo.Create(ctx, claim)
			if kanri.IsCode(err, kanri.ECONFLICT) {
				continue // another request claimed it first: read its claim
			}
			return claim, err
		case err != nil:
			return nil, err
		}
		expired := !now.Before(cur.CreatedAt.Add(kanri.TTLIdempotency * time.Second))
		abandoned := !cur.Done && !now.Before(cur.CreatedAt.Add(IdempotencyLease))
		if expired || abandoned {
			claim.ETag = cur.ETag // only if nobody took it over first
			err = repo.Replace(ctx, claim)
			if kanri.IsCode(err, kanri.ESTALE) || kanri.IsCode(err, kanri.ENOTFOUND) {
				continue
			}
			return claim, err
		}
		if cur.Fingerprint != fingerprint {
			return nil, kanri.E(kanri.EINVALID, "api.idempotency_mismatch")
		}
		if !cur.Done {
			return nil, kanri.E(kanri.ECONFLICT, "api.idempotency_in_progress")
		}
		return cur, nil
	}
	return nil, kanri.E(kanri.EBUSY, "error.busy")
}

// FinishIdempotency records the answer of the request that claimed rec,
// for the key's repeats.
func (s *Service) FinishIdempotency(ctx context.Context, rec *kanri.IdempotencyRecord, status int, header map[string]string, body []byte) error {
	rec.Done, rec.Status, rec.Header, rec.Body = true, status, header, body
	return idempotencyRecords(s.Store, rec.TenantID).Replace(ctx, rec)
}

// ReleaseIdempotency gives up the claim rec, so that a repeat is served
// afresh: the request failed on the server's side (5xx), which must not
// decide the key's answer.
func (s *Service) ReleaseIdempotency(ctx context.Context, rec *kanri.IdempotencyRecord) error {
	err := idempotencyRecords(s.Store, rec.TenantID).Delete(ctx, rec.ID, rec.ETag)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil
	}
	return err
}

func idempotencyRecords(st *store.Store, tenantID string) *store.Repo[kanri.IdempotencyRecord, *kanri.IdempotencyRecord] {
	return store.Of[kanri.IdempotencyRecord](st.Tenant(tenantID), kanri.ContainerAPI, kanri.TypeIdempotencyRecord)
}
