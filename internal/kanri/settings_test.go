package kanri

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // every zone of the list, whatever the machine has
)

// TestFlagsDefaultOn: a tenant written before the flags existed, or with
// none set, has every feature on; a saved flag is kept as saved.
func TestFlagsDefaultOn(t *testing.T) {
	var old Tenant
	if err := json.Unmarshal([]byte(`{"id":"tenant_old","settings":{"timezone":"Asia/Tokyo"}}`), &old); err != nil {
		t.Fatal(err)
	}
	if !old.TwoFactorAvailable() || !old.APIAccessOn() || !old.AdvancedReportingOn() || old.TwoFactorRequired(true) ||
		!old.SupportAllowed() || old.SupportWritable() {
		t.Errorf("a tenant without flags: 2FA %v (required %v), API %v, reporting %v, support %v (writable %v)",
			old.TwoFactorAvailable(), old.TwoFactorRequired(true), old.APIAccessOn(), old.AdvancedReportingOn(), old.SupportAllowed(), old.SupportWritable())
	}
	in := SettingsInputOf(&old)
	if want := (SettingsInput{Timezone: "Asia/Tokyo", TwoFactorAuth: true, TwoFactorEnforcement: TwoFactorOff, APIAccess: true, AdvancedReporting: true, SupportAccess: SupportOn}); in != want {
		t.Errorf("the form of a tenant without flags: %+v, want %+v", in, want)
	}
	in.APIAccess, in.TwoFactorEnforcement, in.SupportAccess = false, TwoFactorAdmins, SupportOff
	in.Apply(&old.Settings)
	b, _ := json.Marshal(old.Settings)
	var back Tenant
	if err := json.Unmarshal([]byte(`{"settings":`+string(b)+`}`), &back); err != nil {
		t.Fatal(err)
	}
	if back.APIAccessOn() || !back.AdvancedReportingOn() || !back.TwoFactorRequired(true) || back.TwoFactorRequired(false) || back.SupportAllowed() {
		t.Errorf("saved settings read back: %s", b)
	}
	if SettingsInputOf(&Tenant{}).Timezone != DefaultTimeZone {
		t.Error("a tenant without a zone is not shown the default zone")
	}
}

func TestSettingsInputValidate(t *testing.T) {
	for _, c := range []struct {
		name  string
		in    SettingsInput
		field string // "" when valid
	}{
		{"tokyo", SettingsInput{Timezone: "Asia/Tokyo"}, ""},
		{"utc", SettingsInput{Timezone: "UTC"}, ""},
		{"an older alias", SettingsInput{Timezone: "US/Eastern"}, ""},
		{"spaces trimmed", SettingsInput{Timezone: " Europe/Paris ", Locale: " ja-JP "}, ""},
		{"no zone", SettingsInput{}, "timezone"},
		{"local", SettingsInput{Timezone: "Local"}, "timezone"},
		{"a path", SettingsInput{Timezone: "../../etc/passwd"}, "timezone"},
		{"absolute", SettingsInput{Timezone: "/etc/localtime"}, "timezone"},
		{"unknown", SettingsInput{Timezone: "Asia/Nowhere"}, "timezone"},
		{"a NUL", SettingsInput{Timezone: "UTC\x00"}, "timezone"},
		{"a locale", SettingsInput{Timezone: "UTC", Locale: "en-US"}, ""},
		{"another locale", SettingsInput{Timezone: "UTC", Locale: "fr-FR"}, "locale"},
		{"a level", SettingsInput{Timezone: "UTC", TwoFactorEnforcement: TwoFactorEveryone}, ""},
		{"another level", SettingsInput{Timezone: "UTC", TwoFactorEnforcement: "root"}, "twoFactorEnforcement"},
		{"support off", SettingsInput{Timezone: "UTC", SupportAccess: SupportOff}, ""},
		{"another support level", SettingsInput{Timezone: "UTC", SupportAccess: "always"}, "supportAccess"},
	} {
		in := c.in
		err := in.Validate()
		got := ""
		for f := range ErrorFields(err) {
			got = f
		}
		if got != c.field {
			t.Errorf("%s: error on %q (%v), want %q", c.name, got, err, c.field)
		}
		if err == nil && (in.TwoFactorEnforcement == "" || in.Timezone != strings.TrimSpace(in.Timezone) || in.Locale != strings.TrimSpace(in.Locale)) {
			t.Errorf("%s: not normalised: %+v", c.name, in)
		}
	}
}

// TestEveryListedZoneLoads: the settings page offers only zones that load.
func TestEveryListedZoneLoads(t *testing.T) {
	if len(TimeZones) < 300 {
		t.Fatalf("%d zones listed", len(TimeZones))
	}
	for i, z := range TimeZones {
		if !ValidTimeZone(z) {
			t.Errorf("listed zone %q does not load", z)
		}
		if i > 0 && TimeZones[i-1] >= z {
			t.Errorf("zones not sorted at %q", z)
		}
	}
}

// TestSubscriptionDates: the end date is the start of its day in the
// tenant's zone; the notice starts 14 days before it and the subscription
// ends at it.
func TestSubscriptionDates(t *testing.T) {
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	end, err := DateIn("2027-01-01", tokyo)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 12, 31, 15, 0, 0, 0, time.UTC); !end.Equal(want) {
		t.Fatalf("DateIn = %v, want %v", end, want)
	}
	if got := DateOf(end, tokyo); got != "2027-01-01" {
		t.Errorf("DateOf = %s", got)
	}
	ten := &Tenant{Subscription: Subscription{EndDate: end}}
	for _, c := range []struct {
		name        string
		now         time.Time
		soon, ended bool
	}{
		{"15 days before", end.Add(-15 * 24 * time.Hour), false, false},
		{"14 days before", end.Add(-ExpiryNotice), true, false},
		{"a second before", end.Add(-time.Second), true, false},
		{"at the end", end.Time, false, true},
		{"after", end.Add(time.Hour), false, true},
	} {
		if got := ten.SubscriptionEndsSoon(c.now); got != c.soon {
			t.Errorf("%s: ends soon %v, want %v", c.name, got, c.soon)
		}
		if got := ten.SubscriptionEnded(c.now); got != c.ended {
			t.Errorf("%s: ended %v, want %v", c.name, got, c.ended)
		}
	}
	none := &Tenant{}
	if none.SubscriptionEnded(time.Now()) || none.SubscriptionEndsSoon(time.Now()) {
		t.Error("a subscription without an end ends")
	}
}

func TestTenantInputDates(t *testing.T) {
	base := TenantInput{DisplayName: "X", Plan: PlanFree, MaxUsers: 5}
	for _, c := range []struct {
		start, end string
		field      string
	}{
		{"", "", ""},
		{"2026-01-01", "", ""},
		{"", "2027-01-01", ""},
		{"2026-01-01", "2027-01-01", ""},
		{"2026-01-01", "2026-01-01", "endDate"},
		{"2027-01-01", "2026-01-01", "endDate"},
		{"2026-02-30", "", "startDate"},
		{"", "tomorrow", "endDate"},
	} {
		in := base
		in.StartDate, in.EndDate = c.start, c.end
		got := ""
		for f := range ErrorFields(in.Validate(false)) {
			got = f
		}
		if got != c.field {
			t.Errorf("%q–%q: error on %q, want %q", c.start, c.end, got, c.field)
		}
	}
}

// TestDayEndIn: an expiry given as a date lasts to the last second of that
// day in the tenant's zone, on days the clocks change too.
func TestDayEndIn(t *testing.T) {
	zone := func(name string) *time.Location {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		return loc
	}
	for _, c := range []struct {
		date string
		loc  *time.Location
		want time.Time // zero: no expiry
	}{
		{"", time.UTC, time.Time{}},
		{"2027-01-01", time.UTC, time.Date(2027, 1, 1, 23, 59, 59, 0, time.UTC)},
		{"2027-01-01", zone("Asia/Tokyo"), time.Date(2027, 1, 1, 14, 59, 59, 0, time.UTC)},
		{" 2027-01-01 ", zone("Pacific/Kiritimati"), time.Date(2027, 1, 1, 9, 59, 59, 0, time.UTC)},
		// 23 and 25 hour days in New York.
		{"2027-03-14", zone("America/New_York"), time.Date(2027, 3, 15, 3, 59, 59, 0, time.UTC)},
		{"2027-11-07", zone("America/New_York"), time.Date(2027, 11, 8, 4, 59, 59, 0, time.UTC)},
		// Clocks that jump forward at midnight: the next day starts at
		// 01:00, so the day before ends at 00:59:59 by the new offset.
		{"2025-09-06", zone("America/Santiago"), time.Date(2025, 9, 7, 3, 59, 59, 0, time.UTC)},
		{"2025-09-07", zone("America/Santiago"), time.Date(2025, 9, 8, 2, 59, 59, 0, time.UTC)},
		{"2025-03-29", zone("Asia/Beirut"), time.Date(2025, 3, 29, 21, 59, 59, 0, time.UTC)},
		{"2025-03-30", zone("Asia/Beirut"), time.Date(2025, 3, 30, 20, 59, 59, 0, time.UTC)},
		{"2025-04-24", zone("Africa/Cairo"), time.Date(2025, 4, 24, 21, 59, 59, 0, time.UTC)},
		{"2025-04-25", zone("Africa/Cairo"), time.Date(2025, 4, 25, 20, 59, 59, 0, time.UTC)},
		// The end of a month and of a year.
		{"2027-02-28", zone("Asia/Tokyo"), time.Date(2027, 2, 28, 14, 59, 59, 0, time.UTC)},
		{"2027-12-31", zone("America/New_York"), time.Date(2028, 1, 1, 4, 59, 59, 0, time.UTC)},
	} {
		got, err := DayEndIn(c.date, c.loc)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("DayEndIn(%q, %s) = %v, %v; want %v", c.date, c.loc, got, err, c.want)
		}
		if d := strings.TrimSpace(c.date); d != "" {
			if got := DateOf(got, c.loc); got != d {
				t.Errorf("DateOf(DayEndIn(%q), %s) = %s", d, c.loc, got)
			}
		}
	}
	for _, bad := range []string{"tomorrow", "2027-02-30", "2027-1-1", "2027-01-01T00:00:00Z"} {
		if _, err := DayEndIn(bad, time.UTC); err == nil {
			t.Errorf("DayEndIn(%q) accepted", bad)
		}
	}
	// A day starts where the one before ends, also when it has no 00:00.
	for _, c := range []struct {
		date string
		loc  *time.Location
		want time.Time
	}{
		{"2025-09-07", zone("America/Santiago"), time.Date(2025, 9, 7, 4, 0, 0, 0, time.UTC)},
		{"2025-03-30", zone("Asia/Beirut"), time.Date(2025, 3, 29, 22, 0, 0, 0, time.UTC)},
		{"2027-01-01", zone("Asia/Tokyo"), time.Date(2026, 12, 31, 15, 0, 0, 0, time.UTC)},
	} {
		got, err := DateIn(c.date, c.loc)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("DateIn(%q, %s) = %v, %v; want %v", c.date, c.loc, got, err, c.want)
		}
		if d := DateOf(got, c.loc); d != c.date {
			t.Errorf("DateOf(DateIn(%q), %s) = %s", c.date, c.loc, d)
		}
	}
}
