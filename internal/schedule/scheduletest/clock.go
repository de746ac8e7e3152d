package scheduletest

import (
	"context"
	"sync"
	"time"
)

// Clock is a clock that moves only when told to: Advance releases the
// sleepers whose time has come. It implements schedule.Clock.
type Clock struct {
	mu       sync.Mutex
	now      time.Time
	sleepers []sleeper
}

type sleeper struct {
	until time.Time
	wake  chan struct{}
}

// NewClock returns a clock that reads now.
func NewClock(now time.Time) *Clock { return &Clock{now: now} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep waits until Advance moves the clock to until or past it.
func (c *Clock) Sleep(ctx context.Context, until time.Time) error {
	c.mu.Lock()
	if !c.now.Before(until) {
		c.mu.Unlock()
		return nil
	}
	s := sleeper{until: until, wake: make(chan struct{})}
	c.sleepers = append(c.sleepers, s)
	c.mu.Unlock()
	select {
	case <-s.wake:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		for i, o := range c.sleepers {
			if o.wake == s.wake {
				c.sleepers = append(c.sleepers[:i], c.sleepers[i+1:]...)
				break
			}
		}
		c.mu.Unlock()
		return ctx.Err()
	}
}

// Advance moves the clock by d and wakes the sleepers whose time came.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.sleepers[:0]
	for _, s := range c.sleepers {
		if c.now.Before(s.until) {
			kept = append(kept, s)
		} else {
			close(s.wake)
		}
	}
	c.sleepers = kept
}

// Sleepers returns how many goroutines sleep on the clock.
func (c *Clock) Sleepers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sleepers)
}
