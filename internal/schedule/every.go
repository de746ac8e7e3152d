package schedule

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/kanri/kanri/internal/pause"
)

// SystemClock is the machine's clock.
type SystemClock struct{}

// Now returns the current time.
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep waits until the machine's clock reads until, or ctx ends.
func (SystemClock) Sleep(ctx context.Context, until time.Time) error {
	return pause.For(ctx, time.Until(until))
}

// Periodic is work the operator's instances do once per interval between
// them all: the slots are the interval's multiples since the Unix epoch,
// and each slot is claimed by one instance.
type Periodic struct {
	// Name names the work in run documents and leases.
	Name string
	// Every is the interval.
	Every time.Duration
	// Run does the work once.
	Run func(ctx context.Context) error
}

// Every runs p once per slot across every instance until ctx ends. At start
// it runs the current slot if no instance ran it yet, so work missed while
// no instance was up runs once, not once per missed slot. The run holds
// the lease named after the work, so runs never overlap even when one
// takes longer than the interval (the next slot is then skipped). An
// interval of zero or less runs nothing.
func (s *Scheduler) Every(ctx context.Context, log *slog.Logger, p Periodic) error {
	if p.Every <= 0 {
		return nil
	}
	if log == nil {
		log = slog.Default()
	}
	for {
		slot := s.clock.Now().Truncate(p.Every)
		ran, err := s.runSlot(ctx, p, slot)
		outcome := RunDone
		switch {
		case ctx.Err() != nil:
			return nil
		case err == nil && !ran:
			outcome = RunElsewhere
		case err == nil:
		case errors.Is(err, ErrHeld):
			outcome = RunSkipped
			log.Info("scheduled work skipped: its last run is still going", "work", p.Name, "slot", slot.UTC(), "err", err)
		default:
			outcome = RunFailed
			log.Error("scheduled work failed", "work", p.Name, "slot", slot.UTC(), "err", err)
		}
		if s.count != nil {
			s.count(p.Name, outcome)
		}
		if err := s.clock.Sleep(ctx, slot.Add(p.Every)); err != nil {
			return nil
		}
	}
}

// runSlot runs p's slot if this instance claims it and the lease is free;
// it reports whether this instance claimed it.
func (s *Scheduler) runSlot(ctx context.Context, p Periodic, slot time.Time) (bool, error) {
	ok, err := s.Claim(ctx, System, p.Name, slot)
	if err != nil || !ok {
		return false, err
	}
	term := min(max(p.Every, time.Minute), 10*time.Minute)
	l, err := s.Acquire(ctx, System, p.Name, "scheduled", term)
	if err != nil {
		// A run of an earlier slot is still going: this slot is skipped.
		return true, err
	}
	return true, l.Hold(ctx, p.Run)
}
