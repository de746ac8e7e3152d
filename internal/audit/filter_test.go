package audit_test

import (
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
)

func TestParseFilter(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	tests := []struct {
		name     string
		query    string
		loc      *time.Location
		want     audit.Filter
		wantErrs kanri.Fields
	}{
		{"nothing", "", time.UTC, audit.Filter{}, kanri.Fields{}},
		{"names", "action=user.create&user=bob&resource=user", time.UTC,
			audit.Filter{Action: "user.create", User: "bob", ResourceType: "user"}, kanri.Fields{}},
		{"one day, to inclusive", "from=2026-11-27&to=2026-11-27", time.UTC,
			audit.Filter{From: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)}, kanri.Fields{}},
		{"days of the zone", "from=2026-11-27", tokyo,
			audit.Filter{From: time.Date(2026, 11, 27, 0, 0, 0, 0, tokyo)}, kanri.Fields{}},
		{"not dates", "from=27/11/2026&to=yesterday", time.UTC,
			audit.Filter{To: time.Time{}.AddDate(0, 0, 1)}, kanri.Fields{"from": "validation.date", "to": "validation.date"}},
		{"the end before the start", "from=2026-11-27&to=2026-11-26", time.UTC,
			audit.Filter{From: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)}, kanri.Fields{"to": "validation.date_order"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			got, gotErrs := audit.ParseFilter(q, tt.loc)
			if !got.From.Equal(tt.want.From) || !got.To.Equal(tt.want.To) || got.Action != tt.want.Action || got.User != tt.want.User || got.ResourceType != tt.want.ResourceType {
				t.Errorf("filter: got %+v, want %+v", got, tt.want)
			}
			if !reflect.DeepEqual(gotErrs, tt.wantErrs) {
				t.Errorf("errors: got %v, want %v", gotErrs, tt.wantErrs)
			}
		})
	}
}
