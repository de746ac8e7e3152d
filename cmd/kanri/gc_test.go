package main

import "testing"

func TestGCPercentFollowsHowOftenTheCollectorRuns(t *testing.T) {
	tests := []struct {
		name    string
		percent int
		cycles  uint64
		want    int
	}{
		{"quiet stays quiet", quietGCPercent, 0, quietGCPercent},
		{"a busy second at 100", quietGCPercent, fastGCs + 1, busyGCPercent},
		{"in between keeps 100", quietGCPercent, fastGCs, quietGCPercent},
		{"in between keeps 400", busyGCPercent, slowGCs, busyGCPercent},
		{"busy stays busy", busyGCPercent, fastGCs + 5, busyGCPercent},
		{"a quiet second at 400", busyGCPercent, slowGCs - 1, quietGCPercent},
	}
	for _, tt := range tests {
		if got := gcPercentFor(tt.percent, tt.cycles); got != tt.want {
			t.Errorf("%s: gcPercentFor(%d, %d) = %d, want %d", tt.name, tt.percent, tt.cycles, got, tt.want)
		}
	}
}
