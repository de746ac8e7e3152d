package schedule

import (
	"errors"
	"strings"
	"time"

	cron "github.com/netresearch/go-cron"
)

// Cron is a parsed 5-field cron schedule (minute, hour, day of month,
// month, day of week), read in a time zone.
//
// It is parsed by github.com/netresearch/go-cron, the maintained fork of
// robfig/cron: robfig/cron skips a job whose time falls in a spring-forward
// gap, and the fork runs it once, right after the gap. Kanri adds the
// fall-back rule of ISC cron: a job at a fixed hour runs once when the
// clocks repeat that hour (the first time), while a job whose hour field
// is a wildcard or a step runs in both, as its interval says.
type Cron struct {
	spec      string
	sched     cron.Schedule
	fixedHour bool
}

// cronParser reads exactly five fields, with the classic meaning of day
// of month and day of week (either matches, as in Vixie and ISC cron).
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.DowOrDom)

// ErrCronFields is the error of a schedule without exactly five fields.
var ErrCronFields = errors.New("a schedule has five fields: minute hour day-of-month month day-of-week")

// ParseCron parses a 5-field cron schedule. The time zone is the
// tenant's, never part of the schedule.
func ParseCron(spec string) (*Cron, error) {
	spec = strings.TrimSpace(spec)
	fields := strings.Fields(spec)
	if len(fields) != 5 || strings.Contains(spec, "=") {
		return nil, ErrCronFields
	}
	sched, err := cronParser.Parse(spec)
	if err != nil {
		return nil, err
	}
	h := fields[1]
	return &Cron{spec: strings.Join(fields, " "), sched: sched, fixedHour: h != "*" && !strings.Contains(h, "/")}, nil
}

// String returns the schedule in its normal form (single spaces).
func (c *Cron) String() string { return c.spec }

// Next returns the first time after t, in loc, at which the schedule runs.
// A zero time means it never runs again.
func (c *Cron) Next(t time.Time, loc *time.Location) time.Time {
	next := c.sched.Next(t.In(loc))
	for c.fixedHour && !next.IsZero() && repeated(next, loc) {
		next = c.sched.Next(next)
	}
	return next
}

// NextN returns the next n times after t.
func (c *Cron) NextN(t time.Time, loc *time.Location, n int) []time.Time {
	out := make([]time.Time, 0, n)
	for len(out) < n {
		t = c.Next(t, loc)
		if t.IsZero() {
			break
		}
		out = append(out, t)
	}
	return out
}

// Interval returns the shortest gap between the schedule's next runs
// after t (over the next few), which tells how long a job may go without
// running before it is overdue.
func (c *Cron) Interval(t time.Time, loc *time.Location) time.Duration {
	runs := c.NextN(t, loc, 6)
	var gap time.Duration
	for i := 1; i < len(runs); i++ {
		if d := runs[i].Sub(runs[i-1]); gap == 0 || d < gap {
			gap = d
		}
	}
	return gap
}

// repeated reports whether t is the second reading of a wall-clock time
// that the clocks showed before, in the hour a fall-back repeats.
func repeated(t time.Time, loc *time.Location) bool {
	t = t.In(loc)
	for _, d := range []time.Duration{30 * time.Minute, time.Hour, 2 * time.Hour} {
		e := t.Add(-d).In(loc)
		if e.Hour() == t.Hour() && e.Minute() == t.Minute() && e.Day() == t.Day() {
			return true
		}
	}
	return false
}
