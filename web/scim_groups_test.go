package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/scim"
)

// holds reports whether the user holds the role, and who assigned it.
func (e *env) holds(t *testing.T, tenantID, userID, serviceID, roleName string) (bool, string) {
	t.Helper()
	ras, err := e.roles.ForUser(context.Background(), tenantID, userID)
	if err != nil {
		t.Fatal(err)
	}
	for _, ra := range ras {
		if ra.ServiceID == serviceID && ra.RoleName == roleName {
			return true, ra.AssignedBy
		}
	}
	return false, ""
}

// TestSCIMGroupsGiveTheirRoles: the provider pushes a group (Entra ID's
// requests), alice's administrator maps it to a role, its members get the
// role and lose it when removed (Entra's and Okta's removals) or when the
// group goes; a role given by hand stays.
func TestSCIMGroupsGiveTheirRoles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	c := e.scim(t, e.acme.ID, e.scimToken(t, admin, e.acme.ID))
	viewer := kanri.FileServiceID + "/" + role.Viewer
	g := c.want("POST", "/Groups", map[string]any{"schemas": []string{scim.SchemaGroup}, "displayName": "Kanri Viewers", "externalId": "g-1", "members": []any{}}, 201)
	gid := g["id"].(string)
	if out := c.want("GET", "/Groups?filter="+url.QueryEscape(`displayName eq "Kanri Viewers"`), nil, 200); out["totalResults"] != 1.0 {
		t.Fatalf("the group by name: %v", out)
	}
	c.want("POST", "/Groups", map[string]any{"displayName": "kanri viewers"}, 409)
	c.want("PATCH", "/Groups/"+gid, scimPatch(map[string]any{"op": "Add", "path": "members", "value": []map[string]string{{"value": e.acmeBob.ID}}}), 200)
	if has, _ := e.holds(t, e.acme.ID, e.acmeBob.ID, kanri.FileServiceID, role.Viewer); has {
		t.Fatal("a group mapped to nothing gave bob a role")
	}

	// The administrator maps it: bob gets the role, by provisioning.
	_, page := admin.get("/t/" + e.acme.ID + "/sso")
	i := strings.Index(page, `data-testid="scim-group-Kanri Viewers"`)
	if i < 0 {
		t.Fatal("the page lists no provisioned group")
	}
	m := etagField.FindStringSubmatch(page[i:])
	resp, _ := admin.post("/t/"+e.acme.ID+"/sso/scim/groups/"+gid, url.Values{"etag": {html.UnescapeString(m[1])}, "roles": {viewer}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("mapping the group: %d", resp.StatusCode)
	}
	if has, by := e.holds(t, e.acme.ID, e.acmeBob.ID, kanri.FileServiceID, role.Viewer); !has || by != scim.Provisioned {
		t.Fatalf("bob after the mapping: holds %v by %q, want by %q", has, by, scim.Provisioned)
	}

	// Entra's removal (a list of values) takes it away.
	c.want("PATCH", "/Groups/"+gid, scimPatch(map[string]any{"op": "Remove", "path": "members", "value": []map[string]string{{"value": e.acmeBob.ID}}}), 200)
	if has, _ := e.holds(t, e.acme.ID, e.acmeBob.ID, kanri.FileServiceID, role.Viewer); has {
		t.Fatal("bob kept the role after leaving the group")
	}
	// Okta's removal (a filtered path) too.
	c.want("PATCH", "/Groups/"+gid, scimPatch(map[string]any{"op": "add", "path": "members", "value": []map[string]string{{"value": e.acmeBob.ID}}}), 200)
	c.want("PATCH", "/Groups/"+gid, scimPatch(map[string]any{"op": "remove", "path": `members[value eq "` + e.acmeBob.ID + `"]`}), 200)
	if has, _ := e.holds(t, e.acme.ID, e.acmeBob.ID, kanri.FileServiceID, role.Viewer); has {
		t.Fatal("bob kept the role after Okta's removal")
	}

	// A role given by hand stays when the group goes.
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: e.acmeAdmin.ID})
	if _, _, err := e.roles.Assign(ctx, role.Grant{Tenant: e.acme, UserID: e.acmeBob.ID, ServiceID: kanri.FileServiceID, RoleName: role.Viewer}); err != nil {
		t.Fatal(err)
	}
	c.want("PATCH", "/Groups/"+gid, scimPatch(map[string]any{"op": "add", "path": "members", "value": []map[string]string{{"value": e.acmeBob.ID}}}), 200)
	c.want("DELETE", "/Groups/"+gid, nil, 204)
	c.want("GET", "/Groups/"+gid, nil, 404)
	if has, by := e.holds(t, e.acme.ID, e.acmeBob.ID, kanri.FileServiceID, role.Viewer); !has || by != e.acmeAdmin.ID {
		t.Errorf("bob's role given by hand after the group went: holds %v by %q", has, by)
	}

	// Members are the tenant's users only.
	c.want("POST", "/Groups", map[string]any{"displayName": "Other", "members": []map[string]string{{"value": e.globUsr.ID}}}, 400)
	c.want("GET", "/Groups?filter="+url.QueryEscape(`members eq "x"`), nil, 400)
}
