package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// leaseDoc is the stored form of a lease.
type leaseDoc struct {
	kanri.Doc
	Name      string     `json:"name"`
	Holder    string     `json:"holder"`
	Purpose   string     `json:"purpose,omitempty"`
	ExpiresAt kanri.Time `json:"expiresAt"`
	// TTL removes a lease its holder never released (a crash) a day after
	// it expired; until then an expired lease is simply taken over.
	TTL int `json:"ttl"`
}

// LeaseID returns the id of the lease document named name.
func LeaseID(name string) string { return "lease_" + name }

// Lease is a lease this instance holds. Its methods are safe for
// concurrent use.
type Lease struct {
	s     *Scheduler
	scope string
	name  string
	term  time.Duration

	mu      sync.Mutex
	etag    string
	expires time.Time
	purpose string
}

// LeaseInfo describes who holds a lease.
type LeaseInfo struct {
	Holder    string
	Purpose   string
	ExpiresAt time.Time
}

// HeldError is ErrHeld with who holds the lease.
type HeldError struct{ LeaseInfo }

func (e *HeldError) Error() string {
	return fmt.Sprintf("schedule: the lease is held by %s (%s) until %s", e.Holder, e.Purpose, e.ExpiresAt.Format(time.RFC3339))
}

// Is makes errors.Is(err, ErrHeld) true.
func (e *HeldError) Is(target error) bool { return target == ErrHeld }

// Acquire takes the lease named name in partition scope for term, if
// nobody holds it or its holder let it expire. purpose says what it is
// taken for (shown to people waiting for it). An error wrapping ErrHeld (a
// *HeldError) means someone else holds it.
func (s *Scheduler) Acquire(ctx context.Context, scope, name, purpose string, term time.Duration) (*Lease, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	// A write that loses a race (to another acquire, a renewal or a
	// release) looks again: the lease may be free now, as when its holder
	// released it between the read and the write.
	for range acquireTries {
		l, err := s.tryAcquire(ctx, scope, name, purpose, term)
		if !errors.Is(err, errRaced) {
			return l, err
		}
	}
	return nil, s.held(ctx, scope, name)
}

// acquireTries is how many times Acquire reads and writes a lease whose
// writes keep losing races.
const acquireTries = 3

// errRaced is tryAcquire's: another write to the lease came between its
// read and its write.
var errRaced = errors.New("schedule: the lease changed meanwhile")

// tryAcquire is one read and write of Acquire.
func (s *Scheduler) tryAcquire(ctx context.Context, scope, name, purpose string, term time.Duration) (*Lease, error) {
	l := &Lease{s: s, scope: scope, name: name, term: term, purpose: purpose}
	it, err := s.c.Read(ctx, scope, LeaseID(name))
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		body, expires, err := l.body()
		if err != nil {
			return nil, err
		}
		etag, err := s.c.Create(ctx, scope, body)
		if kanri.IsCode(err, kanri.ECONFLICT) {
			return nil, errRaced
		}
		if err != nil {
			return nil, fmt.Errorf("acquire lease %s: %w", name, err)
		}
		l.etag, l.expires = etag, expires
		return l, nil
	}
	if err != nil {
		return nil, fmt.Errorf("acquire lease %s: %w", name, err)
	}
	var cur leaseDoc
	if err := json.Unmarshal(it.Body, &cur); err != nil {
		return nil, err
	}
	if s.clock.Now().Before(cur.ExpiresAt.Time) {
		return nil, &HeldError{LeaseInfo{Holder: cur.Holder, Purpose: cur.Purpose, ExpiresAt: cur.ExpiresAt.Time}}
	}
	body, expires, err := l.body()
	if err != nil {
		return nil, err
	}
	etag, err := s.c.Replace(ctx, scope, LeaseID(name), body, it.ETag)
	if kanri.IsCode(err, kanri.ESTALE) || kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, errRaced
	}
	if err != nil {
		return nil, fmt.Errorf("acquire lease %s: %w", name, err)
	}
	l.etag, l.expires = etag, expires
	return l, nil
}

// Holding returns who holds the lease named name, or nil when nobody does
// (never taken, released, or expired).
func (s *Scheduler) Holding(ctx context.Context, scope, name string) (*LeaseInfo, error) {
	it, err := s.c.Read(ctx, scope, LeaseID(name))
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var cur leaseDoc
	if err := json.Unmarshal(it.Body, &cur); err != nil {
		return nil, err
	}
	if !s.clock.Now().Before(cur.ExpiresAt.Time) {
		return nil, nil
	}
	return &LeaseInfo{Holder: cur.Holder, Purpose: cur.Purpose, ExpiresAt: cur.ExpiresAt.Time}, nil
}

// held is the error of a lost race for the lease: who holds it now.
func (s *Scheduler) held(ctx context.Context, scope, name string) error {
	info, err := s.Holding(ctx, scope, name)
	if err != nil {
		return err
	}
	if info == nil {
		info = &LeaseInfo{Holder: "another instance"}
	}
	return &HeldError{*info}
}

func (l *Lease) body() ([]byte, time.Time, error) {
	expires := l.s.clock.Now().Add(l.term)
	b, err := json.Marshal(leaseDoc{
		Doc:  kanri.Doc{ID: LeaseID(l.name), TenantID: l.scope, Type: TypeLease, SchemaVersion: "1.0"},
		Name: l.name, Holder: l.s.holder, Purpose: l.purpose, ExpiresAt: kanri.NewTime(expires),
		TTL: int((l.term + 24*time.Hour) / time.Second),
	})
	return b, expires, err
}

// Expires returns when the lease ends unless renewed.
func (l *Lease) Expires() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.expires
}

// Renew extends the lease by its term from now. ErrLost if it expired and
// someone else took it, or it was removed.
func (l *Lease) Renew(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	body, expires, err := l.body()
	if err != nil {
		return err
	}
	etag, err := l.s.c.Replace(ctx, l.scope, LeaseID(l.name), body, l.etag)
	if kanri.IsCode(err, kanri.ESTALE) || kanri.IsCode(err, kanri.ENOTFOUND) {
		return ErrLost
	}
	if err != nil {
		return fmt.Errorf("renew lease %s: %w", l.name, err)
	}
	l.etag, l.expires = etag, expires
	return nil
}

// Release gives the lease up. ErrLost if it had already been taken over.
func (l *Lease) Release(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.s.c.Delete(ctx, l.scope, LeaseID(l.name), l.etag)
	if kanri.IsCode(err, kanri.ESTALE) || kanri.IsCode(err, kanri.ENOTFOUND) {
		return ErrLost
	}
	return err
}

// Hold runs fn while holding the lease: it renews the lease every third of
// its term and releases it when fn returns. fn's context ends if the lease
// is lost (a renewal found it taken over), so that two holders never work
// at once for longer than a renewal's delay.
func (l *Lease) Hold(ctx context.Context, fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := make(chan struct{})
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		for {
			if err := l.s.clock.Sleep(ctx, l.s.clock.Now().Add(l.term/3)); err != nil {
				return
			}
			select {
			case <-done:
				return
			default:
			}
			if err := l.Renew(ctx); err != nil {
				if ctx.Err() == nil {
					cancel(fmt.Errorf("lease %s: %w", l.name, err))
				}
				return
			}
		}
	}()
	err := fn(ctx)
	close(done)
	cause := context.Cause(ctx)
	cancel(nil)
	<-renewed
	// Released even when ctx ended: the server's shutdown should not leave
	// the lease to expire.
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer rcancel()
	rerr := l.Release(rctx)
	switch {
	case cause != nil && !errors.Is(cause, context.Canceled) && !errors.Is(cause, context.DeadlineExceeded):
		// The lease was lost: that is why fn stopped.
		return cause
	case err != nil:
		return err
	default:
		return rerr
	}
}

// ForgetLeases removes every lease named name, in every partition, and
// returns how many. It is only for a store that one process owns, at its
// start (the embedded store): whoever holds such a lease then is a process
// that is gone, and its work would otherwise wait for the lease to expire.
func (s *Scheduler) ForgetLeases(ctx context.Context, name string) (int, error) {
	n, next := 0, ""
	for {
		page, err := s.c.QueryAcrossPartitions(ctx, docstore.Query{
			Type: TypeLease, Where: []docstore.Filter{docstore.Eq("name", name)}, Limit: 100, Continuation: next,
		})
		if err != nil {
			return n, err
		}
		for _, it := range page.Items {
			if err := s.c.Delete(ctx, it.PartitionKey, it.ID, ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
				return n, err
			}
			n++
		}
		if next = page.Continuation; next == "" {
			return n, nil
		}
	}
}
