package kanri

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"time"
)

// API key scopes: read lets a key call the GET endpoints, write the
// others.
const (
	ScopeRead  = "read"
	ScopeWrite = "write"
)

// Rate limit windows of API keys, and the default limit
// (docs/data-model.md, "API keys and usage").
const (
	DefaultRateLimit       = 1000
	MaxRateLimit           = 1_000_000
	DefaultRateLimitWindow = "1h"
)

// RateLimitWindows are the windows a key's rate limit may count over.
var RateLimitWindows = map[string]time.Duration{"1m": time.Minute, "1h": time.Hour, "1d": 24 * time.Hour}

// API key statuses, as pages show them.
const (
	KeyActive   = "active"
	KeyInactive = "inactive"
	KeyRevoked  = "revoked"
	KeyExpired  = "expired"
)

// APIKey lets a program call a tenant's APIs
// (docs/data-model.md, "API keys and usage"). Only the SHA-256 hash of the
// key and its prefix are stored (docs/data-model.md, "Secrets").
type APIKey struct {
	Doc
	Name            string   `json:"name"`
	KeyHash         string   `json:"keyHash"`
	KeyPrefix       string   `json:"keyPrefix"`
	Scopes          []string `json:"scopes"`
	RateLimit       int      `json:"rateLimit"`
	RateLimitWindow string   `json:"rateLimitWindow"`
	IsActive        bool     `json:"isActive"`
	CreatedBy       string   `json:"createdBy"`
	CreatedAt       Time     `json:"createdAt"`
	LastUsedAt      Time     `json:"lastUsedAt"`
	ExpiresAt       Time     `json:"expiresAt"`
	// RevokedAt is set when the key is revoked: for good, unlike a
	// deactivation.
	RevokedAt Time `json:"revokedAt"`
	// PreviousKeyHash is the hash of the secret a rotation replaced, which
	// keeps working until PreviousValidUntil.
	PreviousKeyHash    string `json:"previousKeyHash,omitempty"`
	PreviousValidUntil Time   `json:"previousValidUntil"`
	// EarlierSecrets are the secrets that rotations before the last one
	// replaced and whose grace has not ended: a second rotation within the
	// grace of the first does not stop the secret that clients still use.
	EarlierSecrets []RetiredSecret `json:"earlierSecrets,omitempty"`
	UpdatedAt      Time            `json:"updatedAt"`
}

// RetiredSecret is the hash of a secret that a rotation replaced and
// until when it keeps working.
type RetiredSecret struct {
	KeyHash    string `json:"keyHash"`
	ValidUntil Time   `json:"validUntil"`
}

// StatusAt returns the key's status at now.
func (k *APIKey) StatusAt(now time.Time) string {
	switch {
	case !k.RevokedAt.IsZero():
		return KeyRevoked
	case !k.ExpiresAt.IsZero() && !now.Before(k.ExpiresAt.Time):
		return KeyExpired
	case !k.IsActive:
		return KeyInactive
	}
	return KeyActive
}

// HasScope reports whether the key holds scope.
func (k *APIKey) HasScope(scope string) bool { return slices.Contains(k.Scopes, scope) }

// Window returns the key's rate limit window.
func (k *APIKey) Window() time.Duration {
	if w, ok := RateLimitWindows[k.RateLimitWindow]; ok {
		return w
	}
	return time.Hour
}

// TypeAPIKeyLookup is the type of the index entry, in the _system
// partition of the API container, that finds a key from the hash of its
// secret: a request carries only the secret, not its tenant.
const TypeAPIKeyLookup = "api_key_lookup"

// APIKeyLookup points from the hash of a secret to its key.
type APIKeyLookup struct {
	Doc
	KeyTenantID string `json:"keyTenantId"`
	APIKeyID    string `json:"apiKeyId"`
}

// APIKeyLookupID returns the id of the lookup entry of a key hash
// ("sha256:…").
func APIKeyLookupID(keyHash string) string { return "akl_" + strings.TrimPrefix(keyHash, "sha256:") }

// TypeRateCounter is the type of the shared counter of one key's calls in
// one rate limit window.
const TypeRateCounter = "rate_counter"

// RateCounter counts the calls granted to a key's instances in one window.
type RateCounter struct {
	Doc
	APIKeyID    string `json:"apiKeyId"`
	WindowStart Time   `json:"windowStart"`
	Granted     int    `json:"granted"`
	TTL         int    `json:"ttl,omitempty"`
}

// APIUsage is one API call (docs/data-model.md, "API keys and usage"). It
// expires after 90 days.
type APIUsage struct {
	Doc
	APIKeyID     string `json:"apiKeyId"`
	Endpoint     string `json:"endpoint"`
	Method       string `json:"method"`
	StatusCode   int    `json:"statusCode"`
	ResponseTime int    `json:"responseTime"`
	RequestSize  int64  `json:"requestSize"`
	ResponseSize int64  `json:"responseSize"`
	ClientIP     string `json:"clientIp"`
	UserAgent    string `json:"userAgent"`
	Timestamp    Time   `json:"timestamp"`
	TTL          int    `json:"ttl,omitempty"`
}

// APIUsageAggregate sums one API key's calls over one month
// (docs/data-model.md, "API keys and usage"). Endpoints and
// TotalResponseTime keep what the figures are derived from, so that the
// aggregate is kept current by adding to it.
type APIUsageAggregate struct {
	Doc
	APIKeyID          string           `json:"apiKeyId"`
	Period            string           `json:"period"`
	TotalCalls        int64            `json:"totalCalls"`
	SuccessCalls      int64            `json:"successCalls"`
	ErrorCalls        int64            `json:"errorCalls"`
	AvgResponseTime   int              `json:"avgResponseTime"`
	TotalBandwidth    int64            `json:"totalBandwidth"`
	TopEndpoints      []map[string]int `json:"topEndpoints"`
	TotalResponseTime int64            `json:"totalResponseTime"`
	Endpoints         map[string]int64 `json:"endpoints"`
	LastUpdated       Time             `json:"lastUpdated"`
}

// AggregateID returns the id of a key's aggregate of the month of t
// (aggregate_{YYYYMM}_{apiKeyId}:
// docs/data-model.md, "Ids and uniqueness").
func AggregateID(t time.Time, keyID string) string {
	return "aggregate_" + t.UTC().Format("200601") + "_" + keyID
}

// TypeAPIUsageDaily is the type of one key's usage on one day, from which
// the usage pages chart calls per day and read latency percentiles.
const TypeAPIUsageDaily = "api_usage_daily"

// LatencyBuckets are the upper bounds, in ms, of the latency histogram of
// daily usage; a last bucket counts the slower calls.
var LatencyBuckets = []int{5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000}

// APIUsageDaily sums one key's calls on one day (UTC).
type APIUsageDaily struct {
	Doc
	APIKeyID  string  `json:"apiKeyId"`
	Date      string  `json:"date"` // 2026-01-20
	Calls     int64   `json:"calls"`
	Errors    int64   `json:"errors"`
	Bandwidth int64   `json:"bandwidth"`
	Latency   []int64 `json:"latency"` // counts per LatencyBuckets, and one more
	TTL       int     `json:"ttl,omitempty"`
}

// DailyID returns the id of a key's usage on the day of t.
func DailyID(t time.Time, keyID string) string {
	return "daily_" + t.UTC().Format("20060102") + "_" + keyID
}

// TypeIdempotencyRecord is the type of the record of a POST sent to the
// API with an Idempotency-Key: it claims the key while the request is
// served, then holds its answer for the key's repeats.
const TypeIdempotencyRecord = "idempotency_record"

// TTLIdempotency is how long an Idempotency-Key is remembered, in
// seconds: 24 hours.
const TTLIdempotency = 24 * 60 * 60

// IdempotencyRecord is one Idempotency-Key of one API key: the request it
// was first sent with (a hash of its method, path and body) and, once
// that is answered, the answer. It lives in the API container of the
// key's tenant and expires after TTLIdempotency.
type IdempotencyRecord struct {
	Doc
	APIKeyID    string `json:"apiKeyId"`
	Fingerprint string `json:"fingerprint"`
	CreatedAt   Time   `json:"createdAt"`
	// Done is set when the answer is recorded; until then the key is
	// claimed by the request being served.
	Done   bool              `json:"done"`
	Status int               `json:"status,omitempty"`
	Header map[string]string `json:"header,omitempty"`
	Body   []byte            `json:"body,omitempty"`
	TTL    int               `json:"ttl,omitempty"`
}

// TTLField implements Expiring.
func (r *IdempotencyRecord) TTLField() (*int, int) { return &r.TTL, TTLIdempotency }

// IdempotencyRecordID returns the id of the record of an API key's
// Idempotency-Key: a hash, as the key is the client's text.
func IdempotencyRecordID(apiKeyID, key string) string {
	sum := sha256.Sum256([]byte(apiKeyID + "\x00" + key))
	return "idem_" + hex.EncodeToString(sum[:])
}
