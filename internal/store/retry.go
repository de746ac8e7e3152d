package store

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/pause"
)

// The bound and backoff of Retry. Twenty attempts with waits doubling from
// 2 ms (or from the longest attempt's time, when the store is slower), each
// a uniformly random time up to its step ("full jitter") and capped at
// 250 ms (or 8 attempts' time), wait at most about 3.25 s in all and 1.6 s
// on average on a fast store.
// A write that loses a race to another request's write almost always wins
// one of the next attempts, even with ten writers on one document on a busy
// machine (twelve attempts left about one change in a thousand undone with
// ten clients patching one user under the race detector); a document that
// twenty attempts spread over seconds could not write is hot enough that
// the caller is better told to come back (EBUSY, a 503 with Retry-After)
// than kept waiting. The small base keeps the usual single retry (and the
// tests) fast.
const (
	retryAttempts = 20
	retryBase     = 2 * time.Millisecond
	retryCap      = 250 * time.Millisecond
)

// lostRace marks the error of an attempt whose write another write beat.
type lostRace struct{ err error }

func (e *lostRace) Error() string { return "lost a race with another write: " + e.err.Error() }
func (e *lostRace) Unwrap() error { return e.err }

// LostRace returns err marked as a lost race, which Retry runs again.
// err is the store's error (an ETag that no longer matches, or a create
// beaten by another); nil stays nil.
func LostRace(err error) error {
	if err == nil {
		return nil
	}
	return &lostRace{err: err}
}

// Raced returns err marked as a lost race (LostRace) when it is ESTALE,
// the store's report of a write at an ETag that no longer matches, and err
// as it is otherwise. (A create beaten by another is ECONFLICT: where
// that is a lost race, the caller says so with LostRace.)
func Raced(err error) error {
	if kanri.IsCode(err, kanri.ESTALE) {
		return LostRace(err)
	}
	return err
}

// Patch is Retry for a change a request may make conditional: attempt
// reads, decides whether its change applies to the version read only
// (conditional: a change made since is stale, the answer) or to the
// version current when written, and changes. A stale change that was not
// conditional lost a race: it is read and made again, so that a change
// made meanwhile is neither refused nor undone.
func Patch[T any](ctx context.Context, attempt func() (v T, conditional bool, err error)) (T, error) {
	return Retry(ctx, func() (T, error) {
		v, conditional, err := attempt()
		if !conditional && kanri.IsCode(err, kanri.ESTALE) {
			return v, LostRace(err)
		}
		return v, err
	})
}

// Retry runs attempt, a read-modify-write, until it returns an error that
// is not a lost race (see LostRace), nil included. Between attempts it
// waits a jittered, exponentially growing time, so that writers racing for
// one document spread out. After a bounded number of lost races it gives
// up with EBUSY ("error.busy"), whose cause is the last race; when ctx ends
// first, it returns ctx's error.
func Retry[T any](ctx context.Context, attempt func() (T, error)) (T, error) {
	var zero T
	var lost *lostRace
	unit := retryBase
	for n := range retryAttempts {
		if n > 0 {
			if err := pause.For(ctx, backoff(n, unit)); err != nil {
				return zero, err
			}
		}
		start := time.Now()
		v, err := attempt()
		if !errors.As(err, &lost) {
			return v, err
		}
		unit = max(unit, time.Since(start))
	}
	return zero, kanri.Wrap(kanri.EBUSY, "error.busy", lost)
}

// RetryErr is Retry for an attempt that returns only an error.
func RetryErr(ctx context.Context, attempt func() error) error {
	_, err := Retry(ctx, func() (struct{}, error) { return struct{}{}, attempt() })
	return err
}

// backoff returns the wait before attempt n (n ≥ 1): a uniformly random
// time up to unit·2ⁿ⁻¹ ("full jitter"), capped at retryCap or 8 units if
// that is longer. unit is retryBase, or the longest attempt so far when
// that is longer: when the store (or the machine) is slow, the writers
// racing for one document spread over windows wider than an attempt
// takes, so that they stop meeting, whatever the machine's speed.
func backoff(n int, unit time.Duration) time.Duration {
	limit := max(retryCap, 8*unit)
	d := unit << (n - 1)
	if d <= 0 || d > limit || n > 30 {
		d = limit
	}
	return rand.N(d) + 1
}
