package apikey

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// Limiter enforces keys' rate limits: rateLimit calls per window (1m, 1h
// or 1d, aligned to UTC). Instances lease blocks of calls from a counter
// shared in the store (one document per key and window, written with its
// ETag) and spend them locally, so a store write happens once per block,
// not per request. What is leased is counted as used: together, however
// many instances, the calls admitted in a window never exceed the limit.
// On one instance the limit is exact; with several, calls an instance
// leased but did not spend are lost to the others, so a busy key may be
// held at most (instances × block) short of its limit.
type Limiter struct {
	st  *store.Store
	now func() time.Time
	mu  sync.Mutex
	by  map[string]*bucket // by key id
}

// bucket is one key's local state in the current window.
type bucket struct {
	mu      sync.Mutex
	window  time.Time
	local   int // leased and not yet spent
	granted int // the shared counter as last written here
	spent   bool
	refused bool // a call was refused in this window
	// last is the shared counter as this instance last wrote it, with its
	// ETag: the next lease writes at that ETag without reading first,
	// and reads only when another instance wrote since.
	last *kanri.RateCounter
}

// NewLimiter returns a limiter whose counters live in st.
func NewLimiter(st *store.Store, now func() time.Time) *Limiter {
	return &Limiter{st: st, now: now, by: map[string]*bucket{}}
}

// Decision is the answer for one call, with what the RateLimit headers
// tell the client.
type Decision struct {
	Allowed   bool
	Limit     int
	Remaining int
	Reset     time.Duration // until the window ends
	// FirstRefused marks the first refusal of the window on this
	// instance, the one worth logging.
	FirstRefused bool
}

// maxBuckets is how many keys' buckets a limiter keeps before it drops
// those of windows that ended a day ago or more.
const maxBuckets = 10_000

// prune drops the buckets of keys not used for a day (their window ended
// long ago): a key seen again starts a new window anyway. l.mu is held.
func (l *Limiter) prune() {
	cutoff := l.now().Add(-24 * time.Hour)
	for id, b := range l.by {
		if b.mu.TryLock() {
			if b.window.Before(cutoff) {
				delete(l.by, id)
			}
			b.mu.Unlock()
		}
	}
}

// block is how many calls an instance leases at once: a fiftieth of the
// limit, between 1 and 100.
func block(limit int) int { return min(100, max(1, limit/50)) }

// Allow spends one call of k's limit, or says when calls are possible again.
func (l *Limiter) Allow(ctx context.Context, k *kanri.APIKey) (Decision, error) {
	l.mu.Lock()
	b := l.by[k.ID]
	if b == nil {
		if len(l.by) >= maxBuckets {
			l.prune()
		}
		b = &bucket{}
		l.by[k.ID] = b
	}
	l.mu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	// The clock is read under the bucket's lock, so that a call that
	// waited for it cannot take the bucket back to a window that ended.
	now := l.now()
	win := k.Window()
	start := now.UTC().Truncate(win)
	if start.After(b.window) {
		b.window, b.local, b.granted, b.spent, b.refused, b.last = start, 0, 0, false, false, nil
	}
	if b.local == 0 && !b.spent {
		n, granted, err := l.lease(ctx, k, b, start, win)
		if err != nil {
			return Decision{}, err
		}
		b.local, b.granted, b.spent = n, granted, n == 0
	}
	d := Decision{Limit: k.RateLimit, Reset: start.Add(win).Sub(now)}
	if b.local > 0 {
		b.local--
		d.Allowed = true
	} else {
		d.FirstRefused, b.refused = !b.refused, true
	}
	d.Remaining = max(0, k.RateLimit-b.granted+b.local)
	return d, nil
}

// lease takes up to a block of calls from the shared counter of k's
// window; it returns how many it took and the counter's total after. When
// this instance wrote the counter last, that is one write at the ETag it
// got; otherwise (or when that write finds the counter changed) one read
// and one write, retried on a lost race.
func (l *Limiter) lease(ctx context.Context, k *kanri.APIKey, b *bucket, start time.Time, win time.Duration) (int, int, error) {
	repo := store.Of[kanri.RateCounter](l.st.Tenant(k.TenantID), kanri.ContainerAPI, kanri.TypeRateCounter)
	if c := b.last; c != nil {
		n := min(block(k.RateLimit), k.RateLimit-c.Granted)
		if n <= 0 {
			return 0, c.Granted, nil // granted only grows: the window's calls are all granted
		}
		next := *c
		next.Granted += n
		err := repo.Replace(ctx, &next)
		if err == nil {
			b.last = &next
			return n, next.Granted, nil
		}
		if !kanri.IsCode(err, kanri.ESTALE) && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return 0, 0, err
		}
	}
	n, granted := 0, 0
	c, err := repo.Modify(ctx, fmt.Sprintf("rate_%s_%d", k.ID, start.Unix()),
		func() *kanri.RateCounter {
			return &kanri.RateCounter{APIKeyID: k.ID, WindowStart: kanri.NewTime(start), TTL: int((2*win + time.Minute) / time.Second)}
		},
		func(c *kanri.RateCounter) error {
			n, granted = min(block(k.RateLimit), k.RateLimit-c.Granted), c.Granted
			if n <= 0 {
				n = 0
				return errUnchanged // the window's calls are all granted
			}
			c.Granted += n
			granted = c.Granted
			return nil
		})
	if err == errUnchanged {
		return 0, granted, nil
	}
	b.last = c
	return n, granted, err
}
