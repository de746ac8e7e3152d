//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

const settingsPath = "/t/" + tenantID + "/settings"

// settingsSteps are the steps of a tenant's settings: alice sets the
// organisation's time zone and sees the audit log's times change to it,
// then sets it back (later steps read times in Tokyo's zone).
func (s *suite) settingsSteps(t *testing.T) {
	s.step(t, "tenant_settings_time_zone", []string{"tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.alice), func(t *testing.T) {
		// The newest record's time, in the default zone (Tokyo).
		s.open(t, s.alice, "/t/"+tenantID+"/audit", 200)
		s.containsText(t, s.alice, "audit-zone", "Asia/Tokyo")
		row := s.alice.tid("audit-row").First()
		id, err := row.GetAttribute("data-id")
		if err != nil {
			t.Fatal(err)
		}
		tokyoText := s.auditTime(t, row)
		if !strings.HasSuffix(tokyoText, " JST") {
			t.Fatalf("the audit time %q is not in Tokyo's zone", tokyoText)
		}

		s.setZone(t, "America/New_York")
		s.open(t, s.alice, "/t/"+tenantID+"/audit", 200)
		s.containsText(t, s.alice, "audit-zone", "America/New_York")
		nyText := s.auditTime(t, s.alice.page.Locator(`[data-testid="audit-row"][data-id="`+id+`"]`))
		if !strings.HasSuffix(nyText, " EST") && !strings.HasSuffix(nyText, " EDT") {
			t.Errorf("after the change the record's time %q is not in New York's zone", nyText)
		}
		tokyo, _ := time.LoadLocation("Asia/Tokyo")
		ny, _ := time.LoadLocation("America/New_York")
		before, err1 := time.ParseInLocation("2006-01-02 15:04:05", tokyoText[:19], tokyo)
		after, err2 := time.ParseInLocation("2006-01-02 15:04:05", nyText[:19], ny)
		if err1 != nil || err2 != nil || !before.Equal(after) {
			t.Errorf("the record's time moved: %q in Tokyo, %q in New York (%v, %v)", tokyoText, nyText, err1, err2)
		}
		// The change itself is in the log.
		if actions := s.filterAudit(t, s.alice, "tenant.update"); len(actions) == 0 {
			t.Error("the time zone change is not in the audit log")
		}
		s.containsText(t, s.alice, "audit-table", "America/New_York")

		s.setZone(t, "Asia/Tokyo")
		s.open(t, s.alice, "/t/"+tenantID+"/audit", 200)
		if got := s.auditTime(t, s.alice.page.Locator(`[data-testid="audit-row"][data-id="`+id+`"]`)); got != tokyoText {
			t.Errorf("back in Tokyo the record's time is %q, want %q", got, tokyoText)
		}
	})
}

// auditTime returns the time shown in an audit row.
func (s *suite) auditTime(t *testing.T, row playwright.Locator) string {
	t.Helper()
	text, err := row.GetByTestId("audit-time").TextContent()
	if err != nil {
		t.Fatalf("the audit row's time: %v", err)
	}
	return strings.TrimSpace(text)
}

// setZone sets acme's time zone on its settings page, as alice.
func (s *suite) setZone(t *testing.T, zone string) {
	t.Helper()
	s.click(t, s.alice, "nav-settings")
	s.atPath(t, s.alice, settingsPath)
	if _, err := s.alice.tid("settings-timezone").SelectOption(playwright.SelectOptionValues{Values: &[]string{zone}}); err != nil {
		t.Fatalf("choosing %s: %v", zone, err)
	}
	s.submitStatus(t, s.alice, s.alice.tid("settings-save"), settingsPath, 303)
	s.atPath(t, s.alice, settingsPath)
	s.containsText(t, s.alice, "flash", zone)
	s.hasValue(t, s.alice, "settings-timezone", zone)
	s.visible(t, s.alice, "settings-timezone-now") // the time now in the zone
}
