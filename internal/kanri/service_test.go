package kanri

import "testing"

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
