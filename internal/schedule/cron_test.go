package schedule_test

import (
	"testing"
	"time"
	_ "time/tzdata" // the zones below, whatever the machine has

	"github.com/kanri/kanri/internal/schedule"
)

func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// runsOn counts the runs from from up to (not including) until whose
// local date is day.
func runsOn(c *schedule.Cron, loc *time.Location, from, until time.Time, day string) []string {
	var got []string
	for t := c.Next(from, loc); !t.IsZero() && t.Before(until); t = c.Next(t, loc) {
		if t.In(loc).Format("2006-01-02") == day {
			got = append(got, t.In(loc).Format("15:04 MST"))
		}
	}
	return got
}

// TestCronDST checks the schedule computation across the clock changes
// of 2026: a job in a spring-forward gap runs once that day, a fixed-hour
// job in a fall-back hour runs once, and an interval job keeps its
// interval through both.
func TestCronDST(t *testing.T) {
	cases := []struct {
		name, spec, zone, day string
		want                  []string
	}{
		{"spring gap, New York", "30 2 * * *", "America/New_York", "2026-03-08", []string{"03:30 EDT"}},
		{"spring gap, Berlin", "30 2 * * *", "Europe/Berlin", "2026-03-29", []string{"03:30 CEST"}},
		{"fall-back hour, New York", "30 1 * * *", "America/New_York", "2026-11-01", []string{"01:30 EDT"}},
		{"fall-back hour, Berlin", "30 2 * * *", "Europe/Berlin", "2026-10-25", []string{"02:30 CEST"}},
		{"fall-back hour, two minutes", "0,30 1 * * *", "America/New_York", "2026-11-01", []string{"01:00 EDT", "01:30 EDT"}},
		{"interval through fall-back", "*/30 1 * * *", "America/New_York", "2026-11-01", []string{"01:00 EDT", "01:30 EDT"}},
		{"hourly through fall-back", "15 * * * *", "America/New_York", "2026-11-01", []string{
			"00:15 EDT", "01:15 EDT", "01:15 EST", "02:15 EST", "03:15 EST", "04:15 EST", "05:15 EST", "06:15 EST",
			"07:15 EST", "08:15 EST", "09:15 EST", "10:15 EST", "11:15 EST", "12:15 EST", "13:15 EST", "14:15 EST",
			"15:15 EST", "16:15 EST", "17:15 EST", "18:15 EST", "19:15 EST", "20:15 EST", "21:15 EST", "22:15 EST", "23:15 EST"}},
		{"no DST, Tokyo", "30 2 * * *", "Asia/Tokyo", "2026-03-08", []string{"02:30 JST"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			loc := zone(t, c.zone)
			cr, err := schedule.ParseCron(c.spec)
			if err != nil {
				t.Fatal(err)
			}
			day, _ := time.ParseInLocation("2006-01-02", c.day, loc)
			got := runsOn(cr, loc, day.Add(-48*time.Hour), day.Add(72*time.Hour), c.day)
			if len(got) != len(c.want) {
				t.Fatalf("runs on %s = %v, want %v", c.day, got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("runs on %s = %v, want %v", c.day, got, c.want)
					break
				}
			}
		})
	}
}

// TestCronEveryDayAcrossAYear checks that a daily job runs exactly once on
// every day of 2026 in zones with and without clock changes.
func TestCronEveryDayAcrossAYear(t *testing.T) {
	for _, name := range []string{"America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Tokyo", "UTC"} {
		for _, spec := range []string{"30 2 * * *", "0 1 * * *", "45 0 * * *"} {
			loc := zone(t, name)
			cr, _ := schedule.ParseCron(spec)
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, loc)
			days := map[string]int{}
			for tm := cr.Next(start.Add(-time.Nanosecond), loc); tm.Year() == 2026; tm = cr.Next(tm, loc) {
				days[tm.In(loc).Format("01-02")]++
			}
			if got, want := len(days), 365; got != want {
				t.Errorf("%s in %s: runs on %d days, want %d", spec, name, got, want)
			}
			for d, n := range days {
				if n != 1 {
					t.Errorf("%s in %s: %d runs on %s, want 1", spec, name, n, d)
				}
			}
		}
	}
}

func TestParseCron(t *testing.T) {
	for _, c := range []struct {
		spec string
		ok   bool
	}{
		{"0 3 * * *", true},
		{" */15  *  * * 1-5 ", true},
		{"0 0 1 1 *", true},
		{"0 3 * * SUN", true},
		{"", false},
		{"* * * *", false},
		{"* * * * * *", false},
		{"61 * * * *", false},
		{"0 24 * * *", false},
		{"0 0 32 * *", false},
		{"@daily", false},
		{"CRON_TZ=UTC 0 3 * * *", false},
		{"TZ=Asia/Tokyo 0 3 * *", false},
		{"a b c d e", false},
	} {
		_, err := schedule.ParseCron(c.spec)
		if got := err == nil; got != c.ok {
			t.Errorf("ParseCron(%q) error = %v, want ok=%v", c.spec, err, c.ok)
		}
	}
}

func TestCronNextNAndInterval(t *testing.T) {
	loc := zone(t, "Asia/Tokyo")
	cr, err := schedule.ParseCron("0 3 * * *")
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2026, 11, 26, 12, 0, 0, 0, loc)
	got := cr.NextN(from, loc, 5)
	want := []string{"11-27 03:00", "11-28 03:00", "11-29 03:00", "11-30 03:00", "12-01 03:00"}
	if len(got) != len(want) {
		t.Fatalf("NextN = %v, want %v", got, want)
	}
	for i := range got {
		if g := got[i].In(loc).Format("01-02 15:04"); g != want[i] {
			t.Errorf("run %d = %s, want %s", i, g, want[i])
		}
	}
	if got, want := cr.Interval(from, loc), 24*time.Hour; got != want {
		t.Errorf("Interval = %v, want %v", got, want)
	}
}
