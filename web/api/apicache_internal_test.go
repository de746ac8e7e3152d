package api

import (
	"fmt"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
)

func grantOf(tenantID, home string, at time.Time) *Grant {
	return &Grant{key: &kanri.APIKey{Doc: kanri.Doc{TenantID: tenantID}}, home: home, at: at}
}

// TestGrantCacheKeepsForTheTTL checks when a grant is served from memory.
func TestGrantCacheKeepsForTheTTL(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	var c grantCache
	c.put("h", grantOf("tenant_a", "tenant_a", t0), c.generation())
	for _, tc := range []struct {
		name string
		now  time.Time
		want bool
	}{
		{"at once", t0, true},
		{"just within the TTL", t0.Add(GrantTTL - time.Nanosecond), true},
		{"at the TTL", t0.Add(GrantTTL), false},
		{"the clock set back", t0.Add(-time.Second), false},
	} {
		if _, got := c.get("h", tc.now); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestGrantCacheForgets checks which grants a change forgets, and that a
// grant read across a change is not kept.
func TestGrantCacheForgets(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		e    audit.Entry
		want map[string]bool // kept after the change
	}{
		{"a key of tenant a", audit.Entry{TenantID: "tenant_a", Resource: kanri.AuditResource{Type: "APIKey"}},
			map[string]bool{"a": false, "b": true, "op": true}},
		{"a role in the operator's tenant", audit.Entry{TenantID: kanri.PrivilegedTenantID, Resource: kanri.AuditResource{Type: "RoleAssignment"}},
			map[string]bool{"a": true, "b": true, "op": false}},
		{"the service catalog", audit.Entry{TenantID: kanri.PrivilegedTenantID, Resource: kanri.AuditResource{Type: "Service"}},
			map[string]bool{"a": false, "b": false, "op": false}},
		{"a domain", audit.Entry{TenantID: "tenant_a", Resource: kanri.AuditResource{Type: "Domain"}},
			map[string]bool{"a": true, "b": true, "op": true}},
	} {
		var c grantCache
		c.put("a", grantOf("tenant_a", "tenant_a", t0), c.generation())
		c.put("b", grantOf("tenant_b", "tenant_b", t0), c.generation())
		c.put("op", grantOf("tenant_b", kanri.PrivilegedTenantID, t0), c.generation()) // made by the operator's staff
		c.heard(tc.e)
		for h, want := range tc.want {
			if _, got := c.get(h, t0); got != want {
				t.Errorf("%s: grant %s kept: got %v, want %v", tc.name, h, got, want)
			}
		}
	}
	var c grantCache
	gen := c.generation()
	c.forget("tenant_z") // a change heard while "a" was being read
	c.put("a", grantOf("tenant_a", "tenant_a", t0), gen)
	if _, got := c.get("a", t0); got {
		t.Error("a grant read across a change was kept")
	}
}

// TestGrantCacheIsBounded checks that the cache holds maxGrants at most.
func TestGrantCacheIsBounded(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	var c grantCache
	for i := range maxGrants + 10 {
		c.put(fmt.Sprint(i), grantOf("tenant_a", "tenant_a", t0), c.generation())
	}
	if got, want := len(c.by), maxGrants; got != want {
		t.Errorf("grants held: got %d, want %d", got, want)
	}
	if _, ok := c.get(fmt.Sprint(maxGrants+9), t0); !ok {
		t.Error("the newest grant was not kept")
	}
}
