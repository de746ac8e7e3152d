// Package scheduletest is the contract suite of the scheduler: what every
// document store backend must let it do, run by each backend's tests.
package scheduletest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/schedule"
)

// Run runs the suite. newStore returns an empty store for one case; the
// schedulers of a case share it, as instances share a database.
func Run(t *testing.T, newStore func(t *testing.T) docstore.Store) {
	t.Run("ClaimOnce", func(t *testing.T) { testClaimOnce(t, newStore(t)) })
	t.Run("LeaseExclusive", func(t *testing.T) { testLeaseExclusive(t, newStore(t)) })
	t.Run("LeaseRace", func(t *testing.T) { testLeaseRace(t, newStore(t)) })
	t.Run("HoldRenews", func(t *testing.T) { testHoldRenews(t, newStore(t)) })
	t.Run("EveryOncePerSlot", func(t *testing.T) { testEveryOncePerSlot(t, newStore(t)) })
	t.Run("MissedSlotsRunOnce", func(t *testing.T) { testMissedSlotsRunOnce(t, newStore(t)) })
	t.Run("NoOverlap", func(t *testing.T) { testNoOverlap(t, newStore(t)) })
	t.Run("ForgetLeases", func(t *testing.T) { testForgetLeases(t, newStore(t)) })
	t.Run("AcquireAfterARaceWithARelease", func(t *testing.T) { testAcquireAfterARaceWithARelease(t, newStore(t)) })
}

// testAcquireAfterARaceWithARelease checks that an Acquire whose write
// loses to the holder's release (between its read of the expired lease
// and its write) looks again and takes the lease, rather than reporting
// it held by nobody: the scheduled work of that slot would be skipped.
func testAcquireAfterARaceWithARelease(t *testing.T, ds docstore.Store) {
	ctx := t.Context()
	clock := NewClock(start)
	holder := schedule.New(ds, "holder", clock)
	l, err := holder.Acquire(ctx, "t1", "backup", "", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute) // expired, not yet released
	racing := &releasing{Store: ds, release: func() {
		if err := l.Release(ctx); err != nil {
			t.Errorf("Release: %v", err)
		}
	}}
	if _, err := schedule.New(racing, "next", clock).Acquire(ctx, "t1", "backup", "", time.Minute); err != nil {
		t.Fatalf("Acquire after a release came between its read and its write: %v", err)
	}
	if info, err := holder.Holding(ctx, "t1", "backup"); err != nil || info == nil || info.Holder != "next" {
		t.Errorf("the lease is held by %+v (%v), want next", info, err)
	}
}

// releasing is a store whose first write to a lease is preceded by
// release: the holder's release, between a reader's read and its write.
type releasing struct {
	docstore.Store
	release func()
	once    sync.Once
}

func (r *releasing) Container(name string) docstore.Container {
	return releasingContainer{Container: r.Store.Container(name), r: r}
}

type releasingContainer struct {
	docstore.Container
	r *releasing
}

func (c releasingContainer) Replace(ctx context.Context, pk, id string, body []byte, ifMatch string) (string, error) {
	c.r.once.Do(c.r.release)
	return c.Container.Replace(ctx, pk, id, body, ifMatch)
}

func (c releasingContainer) Create(ctx context.Context, pk string, body []byte) (string, error) {
	c.r.once.Do(c.r.release)
	return c.Container.Create(ctx, pk, body)
}

func testForgetLeases(t *testing.T, ds docstore.Store) {
	ctx := t.Context()
	s := schedule.New(ds, "gone", NewClock(start))
	for _, scope := range []string{"t1", "t2", "t3"} {
		if _, err := s.Acquire(ctx, scope, "backup", "", time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Acquire(ctx, "t1", "other", "", time.Hour); err != nil {
		t.Fatal(err)
	}
	n, err := schedule.New(ds, "restarted", NewClock(start)).ForgetLeases(ctx, "backup")
	if err != nil || n != 3 {
		t.Fatalf("ForgetLeases = %d, %v; want 3", n, err)
	}
	for _, scope := range []string{"t1", "t2", "t3"} {
		if info, err := s.Holding(ctx, scope, "backup"); err != nil || info != nil {
			t.Errorf("%s's backup lease after ForgetLeases: %+v, %v", scope, info, err)
		}
	}
	if info, _ := s.Holding(ctx, "t1", "other"); info == nil {
		t.Error("ForgetLeases removed a lease of another name")
	}
}

var start = time.Date(2026, 11, 26, 12, 0, 30, 0, time.UTC)

// instances returns n schedulers on ds sharing clock.
func instances(ds docstore.Store, clock schedule.Clock, n int) []*schedule.Scheduler {
	out := make([]*schedule.Scheduler, n)
	for i := range out {
		out[i] = schedule.New(ds, fmt.Sprintf("instance-%d", i), clock)
	}
	return out
}

func testClaimOnce(t *testing.T, ds docstore.Store) {
	ctx := t.Context()
	ss := instances(ds, NewClock(start), 8)
	for _, scope := range []string{schedule.System, "t1"} {
		for slot := range 3 {
			at := start.Truncate(time.Minute).Add(time.Duration(slot) * time.Minute)
			var wins atomic.Int32
			var winner atomic.Value
			var wg sync.WaitGroup
			for _, s := range ss {
				wg.Go(func() {
					ok, err := s.Claim(ctx, scope, "backup-job1", at)
					if err != nil {
						t.Error(err)
					}
					if ok {
						wins.Add(1)
						winner.Store(s.Holder())
					}
				})
			}
			wg.Wait()
			if got, want := wins.Load(), int32(1); got != want {
				t.Fatalf("%s slot %v: %d instances claimed it, want %d", scope, at, got, want)
			}
			r, err := ss[0].Claimed(ctx, scope, "backup-job1", at)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := r.ClaimedBy, winner.Load().(string); got != want {
				t.Errorf("run document says %s claimed it, want %s", got, want)
			}
			if !r.Slot.Equal(at) {
				t.Errorf("run document's slot = %v, want %v", r.Slot, at)
			}
		}
	}
	// Another tenant's partition is another slot space.
	ok, err := ss[0].Claim(ctx, "t2", "backup-job1", start.Truncate(time.Minute))
	if err != nil || !ok {
		t.Errorf("claim in another partition = %v, %v; want true", ok, err)
	}
}

func testLeaseExclusive(t *testing.T, ds docstore.Store) {
	ctx := t.Context()
	clock := NewClock(start)
	ss := instances(ds, clock, 2)
	a, b := ss[0], ss[1]
	la, err := a.Acquire(ctx, "t1", "backup", "backup of job1", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Acquire(ctx, "t1", "backup", "restore", time.Minute)
	var held *schedule.HeldError
	if !errors.As(err, &held) || !errors.Is(err, schedule.ErrHeld) {
		t.Fatalf("second Acquire = %v, want ErrHeld", err)
	}
	if got, want := held.Holder, "instance-0"; got != want {
		t.Errorf("held by %q, want %q", got, want)
	}
	if got, want := held.Purpose, "backup of job1"; got != want {
		t.Errorf("held for %q, want %q", got, want)
	}
	// Another name, or another partition, is another lease.
	if _, err := b.Acquire(ctx, "t2", "backup", "", time.Minute); err != nil {
		t.Errorf("lease in another partition: %v", err)
	}
	// A renewal extends it past the first term.
	clock.Advance(50 * time.Second)
	if err := la.Renew(ctx); err != nil {
		t.Fatal(err)
	}
	clock.Advance(50 * time.Second)
	if _, err := b.Acquire(ctx, "t1", "backup", "", time.Minute); !errors.Is(err, schedule.ErrHeld) {
		t.Fatalf("Acquire after a renewal = %v, want ErrHeld", err)
	}
	info, err := b.Holding(ctx, "t1", "backup")
	if err != nil || info == nil || info.Holder != "instance-0" {
		t.Errorf("Holding = %+v, %v; want instance-0", info, err)
	}
	// Once expired, it is taken over, and the old holder learns it lost it.
	clock.Advance(11 * time.Second)
	if info, err := b.Holding(ctx, "t1", "backup"); err != nil || info != nil {
		t.Errorf("Holding of an expired lease = %+v, %v; want nil", info, err)
	}
	lb, err := b.Acquire(ctx, "t1", "backup", "restore", time.Minute)
	if err != nil {
		t.Fatalf("Acquire of an expired lease: %v", err)
	}
	if err := la.Renew(ctx); !errors.Is(err, schedule.ErrLost) {
		t.Errorf("Renew of a lease taken over = %v, want ErrLost", err)
	}
	if err := la.Release(ctx); !errors.Is(err, schedule.ErrLost) {
		t.Errorf("Release of a lease taken over = %v, want ErrLost", err)
	}
	if err := lb.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if info, err := a.Holding(ctx, "t1", "backup"); err != nil || info != nil {
		t.Errorf("Holding of a released lease = %+v, %v; want nil", info, err)
	}
	if _, err := a.Acquire(ctx, "t1", "backup", "", time.Minute); err != nil {
		t.Errorf("Acquire after a release: %v", err)
	}
}

func testLeaseRace(t *testing.T, ds docstore.Store) {
	ctx := t.Context()
	clock := NewClock(start)
	ss := instances(ds, clock, 8)
	for round := range 2 {
		// Round 0 races on a missing lease, round 1 on an expired one.
		var wins atomic.Int32
		var wg sync.WaitGroup
		for _, s := range ss {
			wg.Go(func() {
				_, err := s.Acquire(ctx, "t1", "backup", "", time.Minute)
				switch {
				case err == nil:
					wins.Add(1)
				case !errors.Is(err, schedule.ErrHeld):
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if got, want := wins.Load(), int32(1); got != want {
			t.Fatalf("round %d: %d instances acquired the lease, want %d", round, got, want)
		}
		clock.Advance(2 * time.Minute)
	}
}

func testHoldRenews(t *testing.T, ds docstore.Store) {
	ctx := t.Context()
	clock := NewClock(start)
	ss := instances(ds, clock, 2)
	l, err := ss[0].Acquire(ctx, "t1", "backup", "", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- l.Hold(ctx, func(ctx context.Context) error {
			<-release
			return nil
		})
	}()
	// Three terms pass, a third of one at a time: the holder renews each
	// time, so the lease never lapses.
	for range 9 {
		waitFor(t, "the renewer to sleep", func() bool { return clock.Sleepers() == 1 })
		before := l.Expires()
		clock.Advance(21 * time.Second)
		waitFor(t, "a renewal", func() bool { return l.Expires().After(before) })
		if _, err := ss[1].Acquire(ctx, "t1", "backup", "", time.Minute); !errors.Is(err, schedule.ErrHeld) {
			t.Fatalf("Acquire while held = %v, want ErrHeld", err)
		}
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatalf("Hold = %v", err)
	}
	if _, err := ss[1].Acquire(ctx, "t1", "backup", "", time.Minute); err != nil {
		t.Errorf("Acquire after Hold returned: %v", err)
	}
}

func testEveryOncePerSlot(t *testing.T, ds docstore.Store) {
	ctx, cancel := context.WithCancel(t.Context())
	clock := NewClock(start)
	ss := instances(ds, clock, 2)
	var mu sync.Mutex
	runs := map[time.Time][]string{}
	var total atomic.Int32
	outcomes := map[string]int{} // what CountRuns heard, under mu
	var wg sync.WaitGroup
	for _, s := range ss {
		s.CountRuns(func(work, outcome string) {
			mu.Lock()
			outcomes[work+" "+outcome]++
			mu.Unlock()
		})
		wg.Go(func() {
			_ = s.Every(ctx, nil, schedule.Periodic{Name: "health", Every: time.Minute, Run: func(context.Context) error {
				mu.Lock()
				slot := clock.Now().Truncate(time.Minute)
				runs[slot] = append(runs[slot], s.Holder())
				mu.Unlock()
				total.Add(1)
				return nil
			}})
		})
	}
	const minutes = 5
	for m := range minutes + 1 {
		waitFor(t, fmt.Sprintf("the run of minute %d", m), func() bool {
			return total.Load() == int32(m+1) && clock.Sleepers() == 2
		})
		if m < minutes {
			clock.Advance(time.Minute)
		}
	}
	cancel()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if got, want := len(runs), minutes+1; got != want {
		t.Errorf("ran in %d slots, want %d: %v", got, want, runs)
	}
	for slot, by := range runs {
		if len(by) != 1 {
			t.Errorf("slot %v ran %d times (%v), want once", slot, len(by), by)
		}
	}
	// Each slot: done by one instance, claimed elsewhere for the other.
	if got, want := outcomes, map[string]int{"health " + schedule.RunDone: minutes + 1, "health " + schedule.RunElsewhere: minutes + 1}; !maps.Equal(got, want) {
		t.Errorf("runs counted: got %v, want %v", got, want)
	}
}

func testMissedSlotsRunOnce(t *testing.T, ds docstore.Store) {
	ctx := t.Context()
	clock := NewClock(start)
	s := schedule.New(ds, "instance-0", clock)
	if ok, err := s.Claim(ctx, schedule.System, "recheck", start.Truncate(time.Minute)); !ok || err != nil {
		t.Fatalf("Claim = %v, %v", ok, err)
	}
	// Five slots pass with no instance up; then two start in the sixth.
	clock.Advance(5 * time.Minute)
	var total atomic.Int32
	for i := range 2 {
		ctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = schedule.New(ds, fmt.Sprintf("restarted-%d", i), clock).Every(ctx, nil, schedule.Periodic{
				Name: "recheck", Every: time.Minute, Run: func(context.Context) error { total.Add(1); return nil },
			})
		}()
		waitFor(t, "the instance to sleep", func() bool { return clock.Sleepers() == 1 })
		cancel()
		<-done
	}
	if got, want := total.Load(), int32(1); got != want {
		t.Errorf("missed slots ran %d times at start, want %d", got, want)
	}
}

func testNoOverlap(t *testing.T, ds docstore.Store) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	clock := NewClock(start)
	ss := instances(ds, clock, 2)
	var running, most, total atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Go(func() {
			_ = s.Every(ctx, nil, schedule.Periodic{Name: "cleanup", Every: time.Minute, Run: func(ctx context.Context) error {
				n := running.Add(1)
				defer running.Add(-1)
				if n > most.Load() {
					most.Store(n)
				}
				total.Add(1)
				select {
				case <-release:
				case <-ctx.Done():
				}
				return nil
			}})
		})
	}
	// The first run outlasts its slot: the next slot is claimed, but its
	// run is refused while the first holds the lease.
	waitFor(t, "the first run", func() bool { return total.Load() == 1 })
	waitFor(t, "the idle instance to sleep", func() bool { return clock.Sleepers() == 2 }) // renewer + idle instance
	// To the next slot (12:01), within the first run's lease term.
	clock.Advance(30 * time.Second)
	waitFor(t, "the second slot to be passed over", func() bool { return clock.Sleepers() == 2 && total.Load() == 1 })
	close(release)
	cancel()
	wg.Wait()
	if got := most.Load(); got != 1 {
		t.Errorf("%d runs at once, want 1", got)
	}
	if got := total.Load(); got != 1 {
		t.Errorf("%d runs, want 1 (the second slot came while the first ran)", got)
	}
}

// waitFor waits until cond holds, failing the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
