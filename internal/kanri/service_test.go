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
