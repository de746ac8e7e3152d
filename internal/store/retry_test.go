package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/kanri"
)

func TestRetry(t *testing.T) {
	race := kanri.E(kanri.ESTALE, "stale.title")
	refused := kanri.E(kanri.ECONFLICT, "error.user_limit")
	tests := []struct {
		name         string
		lose         int   // how many attempts lose a race before the outcome
		outcome      error // of the attempt after them
		wantAttempts int
		wantCode     string
	}{
		{"first attempt wins", 0, nil, 1, ""},
		{"wins after lost races", 3, nil, 4, ""},
		{"wins on the last attempt", retryAttempts - 1, nil, retryAttempts, ""},
		{"a refusal is returned at once", 0, refused, 1, kanri.ECONFLICT},
		{"a stale edit not marked as a race is returned at once", 0, kanri.Stale(), 1, kanri.ESTALE},
		{"a refusal after lost races", 2, refused, 3, kanri.ECONFLICT},
		{"always losing gives up after the bound", 1 << 30, nil, retryAttempts, kanri.EBUSY},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			attempts := 0
			got, err := Retry(t.Context(), func() (int, error) {
				attempts++
				if attempts <= tt.lose {
					return 0, LostRace(race)
				}
				return 42, tt.outcome
			})
			if attempts != tt.wantAttempts {
				t.Errorf("attempts: got %d, want %d", attempts, tt.wantAttempts)
			}
			if code := kanri.ErrorCode(err); code != tt.wantCode {
				t.Fatalf("error: got %v (code %q), want code %q", err, code, tt.wantCode)
			}
			if err == nil && got != 42 {
				t.Errorf("value: got %d, want 42", got)
			}
		})
	}
}

func TestRetryGivesUpWithBusyAndTheLastRaceAsCause(t *testing.T) {
	race := kanri.E(kanri.ESTALE, "stale.title")
	err := RetryErr(t.Context(), func() error { return Raced(race) })
	if got, want := kanri.ErrorCode(err), kanri.EBUSY; got != want {
		t.Fatalf("code: got %q, want %q (%v)", got, want, err)
	}
	if key, _ := kanri.ErrorMessage(err); key != "error.busy" {
		t.Errorf("message: got %q, want error.busy", key)
	}
	if !errors.Is(err, race) {
		t.Errorf("cause: got %v, want the last race", err)
	}
}

func TestRetryStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	attempts := 0
	start := time.Now()
	err := RetryErr(ctx, func() error {
		attempts++
		cancel() // the client leaves during the first attempt
		return LostRace(kanri.Stale())
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error: got %v, want context.Canceled", err)
	}
	if attempts != 1 {
		t.Errorf("attempts: got %d, want 1", attempts)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("returned after %v: it waited out its backoff", d)
	}
}

func TestBackoffGrowsWithinItsCap(t *testing.T) {
	for _, unit := range []time.Duration{retryBase, 100 * time.Millisecond} {
		limit := max(retryCap, 8*unit)
		for n := 1; n < 40; n++ {
			want := min(unit<<(n-1), limit)
			if n > 30 {
				want = limit // the shift overflows
			}
			for range 100 {
				if d := backoff(n, unit); d <= 0 || d > want+1 {
					t.Fatalf("backoff(%d, %v): got %v, want in (0, %v]", n, unit, d, want)
				}
			}
		}
	}
}

func TestRacedMarksOnlyStaleWrites(t *testing.T) {
	var lost *lostRace
	tests := []struct {
		err  error
		want bool
	}{
		{kanri.E(kanri.ESTALE, "stale.title"), true},
		{kanri.E(kanri.ECONFLICT, "error.conflict"), false},
		{kanri.E(kanri.ENOTFOUND, "error.not_found"), false},
		{errors.New("disk on fire"), false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := errors.As(Raced(tt.err), &lost); got != tt.want {
			t.Errorf("Raced(%v) is a lost race: got %v, want %v", tt.err, got, tt.want)
		}
	}
	if LostRace(nil) != nil {
		t.Error("LostRace(nil): got an error, want nil")
	}
}

// TestPatch: a stale change is read and made again when it was not
// conditional, and is the answer when it was.
func TestPatch(t *testing.T) {
	for _, c := range []struct {
		conditional bool
		wantCalls   int
		wantStale   bool
	}{{false, 3, false}, {true, 1, true}} {
		calls := 0
		got, err := Patch(t.Context(), func() (int, bool, error) {
			if calls++; calls < 3 {
				return 0, c.conditional, kanri.Stale()
			}
			return 42, c.conditional, nil
		})
		if calls != c.wantCalls || kanri.IsCode(err, kanri.ESTALE) != c.wantStale || !c.wantStale && got != 42 {
			t.Errorf("conditional %v: %d calls, %v, %v; want %d calls, stale %v", c.conditional, calls, got, err, c.wantCalls, c.wantStale)
		}
	}
}
