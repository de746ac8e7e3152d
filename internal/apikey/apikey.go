// Package apikey manages tenants' API keys: their creation (the secret is
// shown once, only its hash is kept), rotation, revocation, the
// authentication of API requests, per-key rate limits, and the log and
// aggregates of API usage (docs/data-model.md, "API keys and usage").
package apikey

import (
	"context"
	"crypto/subtle"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// touchEvery is how often a key's lastUsedAt is written at most; the
// service remembers the last write of up to maxTouched keys.
const (
	touchEvery = time.Minute
	maxTouched = 10_000
)

// Service manages API keys.
type Service struct {
	app.Deps
	touchMu sync.Mutex
	touched map[string]time.Time // key id → when lastUsedAt was last written
}

// New returns an API key service.
func New(d app.Deps) *Service { return &Service{Deps: d, touched: map[string]time.Time{}} }

// Input is what the key form edits.
type Input struct {
	Name            string
	Scopes          []string
	RateLimit       string // a number, as typed
	RateLimitWindow string
	ExpiresAt       string // a date, the key's last day in the tenant's time zone; "" for none
}

// parse validates the input; loc is the tenant's time zone.
func (in *Input) parse(now time.Time, loc *time.Location) (limit int, expires kanri.Time, err error) {
	in.Name = strings.TrimSpace(in.Name)
	f := kanri.Fields{}
	if msg := kanri.CheckName(in.Name); msg != "" {
		f["name"] = msg
	}
	if len(in.Scopes) == 0 {
		f["scopes"] = "validation.scopes"
	}
	for _, s := range in.Scopes {
		if s != kanri.ScopeRead && s != kanri.ScopeWrite {
			f["scopes"] = "validation.scopes"
		}
	}
	limit = kanri.DefaultRateLimit
	if v := strings.TrimSpace(in.RateLimit); v != "" {
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 1 || n > kanri.MaxRateLimit {
			f["rateLimit"] = "validation.rate_limit"
		}
		limit = n
	}
	if in.RateLimitWindow == "" {
		in.RateLimitWindow = kanri.DefaultRateLimitWindow
	}
	if _, ok := kanri.RateLimitWindows[in.RateLimitWindow]; !ok {
		f["rateLimitWindow"] = "validation.rate_limit_window"
	}
	if e := strings.TrimSpace(in.ExpiresAt); e != "" {
		d, perr := kanri.DayEndIn(e, loc)
		if perr != nil {
			f["expiresAt"] = "validation.date"
		} else if expires = d; !expires.After(now) {
			f["expiresAt"] = "validation.expiry_past"
		}
	}
	if len(f) > 0 {
		return 0, kanri.Time{}, kanri.Invalid(f)
	}
	return limit, expires, nil
}

// List returns a tenant's keys, newest first.
func (s *Service) List(ctx context.Context, tenantID string) ([]*kanri.APIKey, error) {
	keys, err := s.Store.Tenant(tenantID).APIKeys().All(ctx, docstore.Query{})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(keys, func(a, b *kanri.APIKey) int { return b.CreatedAt.Compare(a.CreatedAt.Time) })
	return keys, nil
}

// Get returns one of a tenant's keys.
func (s *Service) Get(ctx context.Context, tenantID, id string) (*kanri.APIKey, error) {
	if !strings.HasPrefix(id, "apikey_") || docstore.CheckKey(tenantID, id) != nil {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return s.Store.Tenant(tenantID).APIKeys().Get(ctx, id)
}

// Create makes a key and returns it with its secret, which is shown once:
// only its hash is stored. The lookup entry (by hash) is written first, so
// that a crash between the two writes leaves at worst an entry that points
// to no key, which authenticates nothing.
func (s *Service) Create(ctx context.Context, tenantID string, in Input) (*kanri.APIKey, string, error) {
	t, err := s.OpenTenant(ctx, tenantID)
	if err != nil {
		return nil, "", err
	}
	limit, expires, err := in.parse(s.Now(), t.Location())
	if err != nil {
		return nil, "", err
	}
	secret := newSecret()
	now := kanri.NewTime(s.Now())
	k := &kanri.APIKey{
		Doc:  kanri.Doc{ID: "apikey_" + strings.ReplaceAll(uuid.NewString(), "-", "")},
		Name: in.Name, KeyHash: Hash(secret), KeyPrefix: Prefix(secret),
		Scopes: normalScopes(in.Scopes), RateLimit: limit, RateLimitWindow: in.RateLimitWindow,
		IsActive: true, CreatedBy: audit.ActorFrom(ctx).UserID, CreatedAt: now, ExpiresAt: expires, UpdatedAt: now,
	}
	if err := s.addLookup(ctx, tenantID, k.ID, k.KeyHash); err != nil {
		return nil, "", err
	}
	if err := s.Store.Tenant(tenantID).APIKeys().Create(ctx, k); err != nil {
		s.removeLookup(ctx, k.KeyHash)
		return nil, "", err
	}
	s.record(ctx, tenantID, k, "apikey.create", nil, fields(k, s.Now()))
	return k, secret, nil
}

// UpgradeExpiryDays names the upgrade MoveExpiryDays.
const UpgradeExpiryDays = "apikey-expiry-days"

// MoveExpiryDays moves the expiries an earlier version stored for a date
// to the end of that day in the tenant's time zone (app.MoveExpiryDays).
func (s *Service) MoveExpiryDays(ctx context.Context, tenantID string) error {
	return app.MoveExpiryDays(ctx, s.Deps, tenantID, s.Store.Tenant(tenantID).APIKeys(), func(d *kanri.APIKey) *kanri.Time { return &d.ExpiresAt })
}

func normalScopes(scopes []string) []string {
	out := []string{}
	for _, s := range []string{kanri.ScopeRead, kanri.ScopeWrite} {
		if slices.Contains(scopes, s) {
			out = append(out, s)
		}
	}
	return out
}

func lookups(st *store.Store) *store.Repo[kanri.APIKeyLookup, *kanri.APIKeyLookup] {
	return store.Of[kanri.APIKeyLookup](st.Tenant(kanri.SystemTenantID), kanri.ContainerAPI, kanri.TypeAPIKeyLookup)
}

// addLookup writes the lookup entry of a hash; writing it again for the
// same key (a retried rotation) is no error.
func (s *Service) addLookup(ctx context.Context, tenantID, keyID, hash string) error {
	err := lookups(s.Store).Create(ctx, &kanri.APIKeyLookup{Doc: kanri.Doc{ID: kanri.APIKeyLookupID(hash)}, KeyTenantID: tenantID, APIKeyID: keyID})
	if kanri.IsCode(err, kanri.ECONFLICT) {
		if l, gerr := lookups(s.Store).Get(ctx, kanri.APIKeyLookupID(hash)); gerr == nil && l.APIKeyID == keyID && l.KeyTenantID == tenantID {
			return nil
		}
	}
	return err
}

func (s *Service) removeLookup(ctx context.Context, hash string) {
	if err := lookups(s.Store).Delete(ctx, kanri.APIKeyLookupID(hash), ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
		s.Logger.Warn("api key lookup not removed; it authenticates nothing", "err", err)
	}
}

// SetActive deactivates or reactivates a key as seen. A revoked or expired
// key cannot be reactivated.
func (s *Service) SetActive(ctx context.Context, tenantID, id string, seen kanri.Seen, active bool) (*kanri.APIKey, error) {
	if active {
		if err := s.TenantOpen(ctx, tenantID); err != nil {
			return nil, err
		}
	}
	return s.change(ctx, tenantID, id, seen, func(k *kanri.APIKey) (string, error) {
		if st := k.StatusAt(s.Now()); st == kanri.KeyRevoked || st == kanri.KeyExpired {
			return "", kanri.E(kanri.ECONFLICT, "apikeys.cannot_reactivate")
		}
		if k.IsActive == active {
			return "", nil // already so: nothing to write
		}
		k.IsActive = active
		if active {
			return "apikey.reactivate", nil
		}
		return "apikey.deactivate", nil
	})
}

// Revoke ends a key for good, at once: its secrets (and a rotated one
// still in its grace) stop working.
func (s *Service) Revoke(ctx context.Context, tenantID, id string, seen kanri.Seen) (*kanri.APIKey, error) {
	k, err := s.change(ctx, tenantID, id, seen, func(k *kanri.APIKey) (string, error) {
		if !k.RevokedAt.IsZero() {
			return "", kanri.E(kanri.ECONFLICT, "apikeys.already_revoked")
		}
		k.RevokedAt, k.IsActive = kanri.NewTime(s.Now()), false
		return "apikey.revoke", nil
	})
	// The lookup entries stay, so that a call with the revoked secret is
	// told that it was revoked rather than that it is unknown.
	return k, err
}

// maxEarlier is how many earlier secrets, each still in its grace, a key
// keeps beside its previous one; a rotation beyond that stops the oldest.
const maxEarlier = 8

// Rotate gives a key a new secret, returned once. The secret it replaces
// keeps working for grace (so that clients can switch), then stops. A
// rotation within the grace of an earlier one stops nothing that is still
// in its grace: the secrets replaced before keep working until their own
// grace ends (up to maxEarlier of them).
func (s *Service) Rotate(ctx context.Context, tenantID, id string, seen kanri.Seen, grace time.Duration) (*kanri.APIKey, string, error) {
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, "", err
	}
	secret := newSecret()
	hash := Hash(secret)
	var ended []string
	k, err := s.change(ctx, tenantID, id, seen, func(k *kanri.APIKey) (string, error) {
		if st := k.StatusAt(s.Now()); st == kanri.KeyRevoked || st == kanri.KeyExpired {
			return "", kanri.E(kanri.ECONFLICT, "apikeys.cannot_rotate")
		}
		if err := s.addLookup(ctx, tenantID, k.ID, hash); err != nil {
			return "", err
		}
		ended = retire(k, s.Now())
		k.PreviousKeyHash, k.PreviousValidUntil = k.KeyHash, kanri.NewTime(s.Now().Add(grace))
		k.KeyHash, k.KeyPrefix = hash, Prefix(secret)
		return "apikey.rotate", nil
	})
	if err != nil {
		s.removeLookup(ctx, hash)
		return nil, "", err
	}
	for _, h := range ended {
		s.removeLookup(ctx, h) // secrets whose grace is over
	}
	return k, secret, nil
}

// retire moves k's previous secret, if it is still in its grace at now,
// among its earlier ones, and drops the earlier secrets whose grace has
// ended (and the oldest beyond maxEarlier). It returns the hashes that
// no longer work.
func retire(k *kanri.APIKey, now time.Time) (ended []string) {
	live := make([]kanri.RetiredSecret, 0, len(k.EarlierSecrets)+1)
	add := func(r kanri.RetiredSecret) {
		if now.Before(r.ValidUntil.Time) {
			live = append(live, r)
		} else {
			ended = append(ended, r.KeyHash)
		}
	}
	for _, r := range k.EarlierSecrets {
		add(r)
	}
	if k.PreviousKeyHash != "" {
		add(kanri.RetiredSecret{KeyHash: k.PreviousKeyHash, ValidUntil: k.PreviousValidUntil})
	}
	if n := len(live) - maxEarlier; n > 0 {
		for _, r := range live[:n] {
			ended = append(ended, r.KeyHash)
		}
		live = live[n:]
	}
	k.EarlierSecrets = nil
	if len(live) > 0 {
		k.EarlierSecrets = live
	}
	return ended
}

// change applies fn to a key as seen and saves it; fn returns the audit
// action.
//
// A write that loses a race (with the recording of lastUsedAt, say) is
// made again on the newer version, while that is still as seen.
func (s *Service) change(ctx context.Context, tenantID, id string, seen kanri.Seen, fn func(*kanri.APIKey) (string, error)) (*kanri.APIKey, error) {
	return store.Retry(ctx, func() (*kanri.APIKey, error) {
		k, err := s.Get(ctx, tenantID, id)
		if err != nil {
			return nil, err
		}
		if seen.Stale(k.ETag, k.StatusAt(s.Now())) {
			return nil, kanri.Stale()
		}
		before := fields(k, s.Now())
		action, err := fn(k)
		if err != nil {
			return nil, err
		}
		if action == "" {
			return k, nil // a change that changes nothing writes nothing
		}
		k.UpdatedAt = kanri.NewTime(s.Now())
		if err := s.Store.Tenant(tenantID).APIKeys().Replace(ctx, k); err != nil {
			return nil, store.Raced(err)
		}
		s.record(ctx, tenantID, k, action, before, fields(k, s.Now()))
		return k, nil
	})
}

// Authenticate returns the key a secret belongs to, if it may be used
// now. A malformed secret is refused before any store read; the error is
// always EUNAUTHENTICATED, saying no more than that.
func (s *Service) Authenticate(ctx context.Context, secret string) (*kanri.APIKey, error) {
	if !WellFormed(secret) {
		return nil, errDenied
	}
	hash := Hash(secret)
	l, err := lookups(s.Store).Get(ctx, kanri.APIKeyLookupID(hash))
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, errDenied
	} else if err != nil {
		return nil, err
	}
	k, err := s.Store.Tenant(l.KeyTenantID).APIKeys().Get(ctx, l.APIKeyID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, errDenied
	} else if err != nil {
		return nil, err
	}
	if err := Verify(k, hash, s.Now()); err != nil {
		return nil, err
	}
	return k, nil
}

// errDenied is the answer to a secret that is no key's.
var errDenied = kanri.E(kanri.EUNAUTHENTICATED, "api.key_invalid")

// Verify says whether the secret whose hash is given may use key k at
// now: it must be k's current secret, or one a rotation replaced whose
// grace has not ended, and k must be active, unexpired and unrevoked.
// It reads nothing, so that a key kept in memory is checked again at
// every call.
func Verify(k *kanri.APIKey, hash string, now time.Time) error {
	current := subtle.ConstantTimeCompare([]byte(hash), []byte(k.KeyHash)) == 1
	previous := k.PreviousKeyHash != "" && subtle.ConstantTimeCompare([]byte(hash), []byte(k.PreviousKeyHash)) == 1 && now.Before(k.PreviousValidUntil.Time)
	for _, r := range k.EarlierSecrets {
		if subtle.ConstantTimeCompare([]byte(hash), []byte(r.KeyHash)) == 1 && now.Before(r.ValidUntil.Time) {
			previous = true
		}
	}
	if !current && !previous {
		return errDenied
	}
	switch k.StatusAt(now) {
	case kanri.KeyExpired:
		return kanri.E(kanri.EUNAUTHENTICATED, "api.key_expired")
	case kanri.KeyRevoked:
		return kanri.E(kanri.EUNAUTHENTICATED, "api.key_revoked")
	case kanri.KeyInactive:
		return kanri.E(kanri.EUNAUTHENTICATED, "api.key_inactive")
	}
	return nil
}

// Touch records that a key was used at the given time, writing
// lastUsedAt at most once a minute per key (not once per request). The
// usage recorder calls it off the request path.
func (s *Service) Touch(ctx context.Context, tenantID, keyID string, at time.Time) {
	if !s.due(keyID, at) {
		return
	}
	_, err := s.Store.Tenant(tenantID).APIKeys().Modify(ctx, keyID, nil, func(k *kanri.APIKey) error {
		if !at.After(k.LastUsedAt.Time) {
			return errUnchanged
		}
		k.LastUsedAt = kanri.NewTime(at)
		return nil
	})
	if err != nil && err != errUnchanged && !kanri.IsCode(err, kanri.ENOTFOUND) {
		s.Logger.Warn("lastUsedAt not written", "key", keyID, "err", err)
	}
}

// errUnchanged stops a store.Repo.Modify that finds nothing to change.
var errUnchanged = errors.New("apikey: nothing to change")

// due reports whether a key's lastUsedAt is to be written for a use at
// at, and notes it. Keys not used for touchEvery are forgotten once
// maxTouched are remembered.
func (s *Service) due(keyID string, at time.Time) bool {
	s.touchMu.Lock()
	defer s.touchMu.Unlock()
	if last, ok := s.touched[keyID]; ok && at.Sub(last) < touchEvery {
		return false
	}
	if len(s.touched) >= maxTouched {
		for id, last := range s.touched {
			if at.Sub(last) >= touchEvery {
				delete(s.touched, id)
			}
		}
	}
	s.touched[keyID] = at
	return true
}

func fields(k *kanri.APIKey, now time.Time) map[string]any {
	return map[string]any{
		"name": k.Name, "scopes": k.Scopes, "rateLimit": k.RateLimit,
		"rateLimitWindow": k.RateLimitWindow, "status": k.StatusAt(now), "expiresAt": k.ExpiresAt.String(),
		"keyPrefix": k.KeyPrefix,
	}
}

func (s *Service) record(ctx context.Context, tenantID string, k *kanri.APIKey, action string, before, after map[string]any) {
	s.Audit.Change(ctx, tenantID, action, kanri.AuditResource{Type: kanri.AuditAPIKey, ID: k.ID, Name: k.Name}, before, after)
}
