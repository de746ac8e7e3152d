package kanri

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestServiceAccess(t *testing.T) {
	for _, c := range []struct{ id, want string }{
		{TenantManagementID, AccessIncluded},
		{AuthServiceID, AccessIncluded},
		{ServiceSettingID, AccessIncluded},
		{APIServiceID, AccessAssigned},
		{FileServiceID, AccessAssigned},
		{MessagingServiceID, AccessAssigned},
		{BackupServiceID, AccessAssigned},
		{"crm-service", AccessAssigned}, // one the operator added
	} {
		if got := ServiceAccess(c.id); got != c.want {
			t.Errorf("ServiceAccess(%q) = %q, want %q", c.id, got, c.want)
		}
	}
}

// TestStatesAreSafeInAPage: the states forms carry in hidden fields hold
// no NUL (HTML cannot carry one: the browser sends U+FFFD back, and every
// edit would look stale) and change with what they stand for.
func TestStatesAreSafeInAPage(t *testing.T) {
	c := &Channel{Name: "general", Description: "a"}
	j := &BackupJob{Name: "Nightly", Schedule: "0 3 * * *"}
	f := &File{Name: "a.txt"}
	for _, s := range []string{c.State(), j.State(), f.State()} {
		if strings.ContainsRune(s, 0) || strings.ContainsRune(s, utf8.RuneError) {
			t.Errorf("state %q cannot go into a page", s)
		}
	}
	before := c.State()
	c.Description = "b"
	if c.State() == before {
		t.Error("a channel's state did not change with its description")
	}
}

// TestSizes: settings read the data model's suffixes and their IEC names
// (both binary) and are written back with the data model's; sizes shown
// for reading say they are binary.
func TestSizes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"10MB", 10 << 20}, {"10 mb", 10 << 20}, {"10MiB", 10 << 20}, {"10 MiB", 10 << 20},
		{"512KB", 512 << 10}, {"1GiB", 1 << 30}, {"2TB", 2 << 40}, {"7B", 7},
	} {
		if got, err := ParseSize(c.in); err != nil || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "MB", "-1MB", "10 MBs", "1.5GB", "10XB"} {
		if got, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", bad, got)
		}
	}
	for _, c := range []struct {
		n                int64
		stored, readable string
	}{
		{0, "0B", "0 B"}, {1023, "1023B", "1023 B"}, {1536, "1536B", "1.5 KiB"}, {10 << 20, "10MB", "10 MiB"}, {1536 << 20, "1536MB", "1.5 GiB"}, {3 << 40, "3TB", "3 TiB"},
	} {
		if got := FormatSize(c.n); got != c.stored {
			t.Errorf("FormatSize(%d) = %q, want %q", c.n, got, c.stored)
		}
		if got := HumanSize(c.n); got != c.readable {
			t.Errorf("HumanSize(%d) = %q, want %q", c.n, got, c.readable)
		}
	}
}
