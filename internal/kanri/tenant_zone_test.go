package kanri

import "testing"

// TestLoadZoneKeepsWhatExists: a zone is loaded once and then the same
// one returned; a name that is no zone is an error each time, never kept.
func TestLoadZoneKeepsWhatExists(t *testing.T) {
	first, err := LoadZone("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	again, err := LoadZone("Asia/Tokyo")
	if err != nil || again != first {
		t.Errorf("the second load = %p, %v; want the first, %p", again, err, first)
	}
	if got, want := first.String(), "Asia/Tokyo"; got != want {
		t.Errorf("zone %s, want %s", got, want)
	}
	for range 2 {
		if _, err := LoadZone("Mars/Olympus_Mons"); err == nil {
			t.Fatal("a zone that does not exist loaded")
		}
	}
	if _, kept := zones.Load("Mars/Olympus_Mons"); kept {
		t.Error("a name that is no zone was kept")
	}
}
