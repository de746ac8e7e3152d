package web_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/scim"
)

func scimPatch(ops ...map[string]any) map[string]any {
	return map[string]any{"schemas": []string{scim.SchemaPatchOp}, "Operations": ops}
}

func adminRolesOf(t *testing.T, e *env, tenantID, userID string) []string {
	t.Helper()
	ras, err := e.st.Tenant(tenantID).RoleAssignments().All(t.Context(), docstore.Query{Where: []docstore.Filter{docstore.Eq("userId", userID)}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ra := range ras {
		if ra.RoleName == role.Admin || ra.RoleName == role.GlobalAdmin {
			out = append(out, ra.ServiceID+"/"+ra.RoleName)
		}
	}
	return out
}

// The provider changes users it never provisioned: the tenant's
// administrator (console-made, never matched by SCIM) gets a new e-mail
// address (which single sign-on then links to whoever the provider
// asserts it for), and is deprovisioned.
func TestSCIMLeavesAdministratorsAlone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	c := e.scim(t, e.acme.ID, e.scimToken(t, admin, e.acme.ID))
	c.want("PATCH", "/Users/"+e.acmeAdmin.ID, scimPatch(map[string]any{"op": "replace", "path": "emails[type eq \"work\"].value", "value": "mallory@acme.test"}), 403)
	c.want("PUT", "/Users/"+e.acmeAdmin.ID, map[string]any{"userName": "admin", "emails": []map[string]any{{"value": "mallory@acme.test"}}}, 403)
	// A second administrator, then SCIM deprovisions the first.
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system"})
	if _, _, err := e.roles.Assign(ctx, role.Grant{Tenant: e.acme, UserID: e.acmeBob.ID, ServiceID: kanri.AuthServiceID, RoleName: role.Admin}); err != nil {
		t.Fatal(err)
	}
	c.want("DELETE", "/Users/"+e.acmeAdmin.ID, nil, 403)
	if u, _ := e.users.Get(t.Context(), e.acme.ID, e.acmeAdmin.ID); !u.IsActive || u.Email != "admin@acme.test" {
		t.Errorf("the administrator changed: active %v, e-mail %q", u.IsActive, u.Email)
	}
}

// The last administrator's deprovisioning is refused, but as a 409
// "uniqueness", which says a userName or e-mail is taken.
func TestSCIMLastAdministratorIsNoConflict(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	c := e.scim(t, e.acme.ID, e.scimToken(t, admin, e.acme.ID))
	resp, out := c.do("DELETE", "/Users/"+e.acmeAdmin.ID, nil)
	if resp.StatusCode != http.StatusForbidden || out["scimType"] == "uniqueness" {
		t.Errorf("the last administrator's deprovisioning is reported as uniqueness: %v", out)
	}
	resp, out = c.do("PATCH", "/Users/"+e.acmeAdmin.ID, scimPatch(map[string]any{"op": "replace", "value": map[string]any{"active": "False"}}))
	if out["scimType"] == "uniqueness" {
		t.Errorf("PATCH active false of the last administrator: %d %v", resp.StatusCode, out)
	}
}

// A tenant left without an active administrator (an operator confirmed
// it) has its next SCIM-created user made 管理者 of every service.
func TestSCIMNeverMakesTheFirstAdministrator(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	c := e.scim(t, e.acme.ID, e.scimToken(t, admin, e.acme.ID))
	op := audit.WithActor(context.Background(), audit.Actor{UserID: "operator", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true})
	if _, err := e.users.SetActive(op, e.acme.ID, e.acmeAdmin.ID, kanri.Seen{LastAdmin: true}, false); err != nil {
		t.Fatal(err)
	}
	u := c.want("POST", "/Users", map[string]any{"schemas": []string{scim.SchemaUser}, "userName": "idp.user@acme.test"}, 201)
	if roles := adminRolesOf(t, e, e.acme.ID, u["id"].(string)); len(roles) > 0 {
		t.Errorf("a user the provider created is the tenant's administrator: %v", roles)
	}
}

// The privileged (operator's) tenant can have a token: the provider then
// creates operator-tenant users and reads its staff.
func TestSCIMNotOnTheOperatorsTenant(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	staff := e.client(t).signIn("privileged", adminEmail)
	staff.get("/t/" + kanri.PrivilegedTenantID + "/sso")
	if _, page := staff.get("/t/" + kanri.PrivilegedTenantID + "/sso"); strings.Contains(page, `data-testid="scim-panel"`) {
		t.Error("the operator's single sign-on page offers provisioning")
	}
	resp, page := staff.post("/t/"+kanri.PrivilegedTenantID+"/sso/scim/token", nil)
	if resp.StatusCode != http.StatusForbidden || newTokenPattern.MatchString(page) {
		t.Fatalf("a token for the operator's tenant: %d, want 403 and none", resp.StatusCode)
	}
}

// A reload of the page that showed the token (the browser POSTs the form
// again, with the same etag) rotates again: the token pasted in the
// provider stops an hour later.
func TestSCIMTokenReloadMakesNoSecond(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	_, page := admin.get("/t/" + e.acme.ID + "/sso")
	form := url.Values{}
	if i := strings.Index(page, `data-testid="scim-panel"`); i < 0 {
		t.Fatal("no SCIM panel")
	} else if m := regexp.MustCompile(`name="etag" value="([^"]*)"`).FindStringSubmatch(page[i:]); m != nil {
		form.Set("etag", html.UnescapeString(m[1]))
	}
	resp, page := admin.post("/t/"+e.acme.ID+"/sso/scim/token", form)
	first := newTokenPattern.FindStringSubmatch(page)
	if first == nil {
		t.Fatalf("no token: %d", resp.StatusCode)
	}
	if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, "no-store") {
		t.Errorf("the page with the token: Cache-Control %q", cc)
	}
	// The reload: the same form again.
	resp, page = admin.post("/t/"+e.acme.ID+"/sso/scim/token", form)
	if newTokenPattern.MatchString(page) {
		t.Errorf("a resubmission of the same form (same etag) rotated the token again: %d", resp.StatusCode)
	}
	e.clock.Advance(scim.RotationGrace + time.Minute)
	if resp, _ := e.scim(t, e.acme.ID, first[1]).do("GET", "/Users?count=1", nil); resp.StatusCode != 200 {
		t.Errorf("the token the administrator copied stopped after the reload: %d", resp.StatusCode)
	}
}

// If-Match: * matches any current version (RFC 7232, 3.1).
func TestSCIMIfMatchStar(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	c := e.scim(t, e.acme.ID, e.scimToken(t, admin, e.acme.ID))
	u := c.want("POST", "/Users", map[string]any{"schemas": []string{scim.SchemaUser}, "userName": "star@acme.test"}, 201)
	resp, out := c.do("PATCH", "/Users/"+u["id"].(string), scimPatch(map[string]any{"op": "replace", "path": "title", "value": "x"}), "If-Match", "*")
	if resp.StatusCode != 200 {
		t.Errorf("If-Match: *: %d %v", resp.StatusCode, out["detail"])
	}
	cur := c.want("GET", "/Users/"+u["id"].(string), nil, 200)
	resp, _ = c.do("GET", "/Users/"+u["id"].(string), nil, "If-None-Match", cur["meta"].(map[string]any)["version"].(string))
	if resp.StatusCode != 304 || resp.Header.Get("ETag") == "" {
		t.Errorf("304 without its ETag (RFC 7232, 4.1)")
	}
}

// Paging by startIndex counts deprovisioned users that it does not
// return: the next page repeats a user, and totalResults counts them.
func TestSCIMPagingSkipsTheDeprovisioned(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	c := e.scim(t, e.acme.ID, e.scimToken(t, admin, e.acme.ID))
	u := c.want("POST", "/Users", map[string]any{"schemas": []string{scim.SchemaUser}, "userName": "aaa@acme.test"}, 201)
	c.want("DELETE", "/Users/"+u["id"].(string), nil, 204)
	seen := map[string]int{}
	total := 0.0
	for start := 1; start <= 5; {
		page := c.want("GET", fmt.Sprintf("/Users?startIndex=%d&count=2", start), nil, 200)
		total = page["totalResults"].(float64)
		rs := page["Resources"].([]any)
		for _, r := range rs {
			seen[r.(map[string]any)["userName"].(string)]++
		}
		if len(rs) == 0 {
			break
		}
		start += len(rs)
	}
	for n, k := range seen {
		if k > 1 {
			t.Errorf("%s on %d pages", n, k)
		}
	}
	if int(total) != len(seen) {
		t.Errorf("totalResults %v, but %d users listed: %v", total, len(seen), seen)
	}
}

// Hostile input: no 500, errors in SCIM's format.
func TestSCIMHostileInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	c := e.scim(t, e.acme.ID, e.scimToken(t, admin, e.acme.ID))
	deep := strings.Repeat(`{"name":`, 12000) + `1` + strings.Repeat(`}`, 12000)
	long := strings.Repeat("x", 5000)
	for _, r := range []struct{ method, path, body string }{
		{"POST", "/Users", deep},
		{"POST", "/Users", `{"userName":"a@acme.test","emails":[{"value":"a@acme.test","primary":null}]}`},
		{"POST", "/Users", `{"userName":"` + long + `"}`},
		{"POST", "/Users", `{"userName":"nul\u0000x"}`},
		{"POST", "/Users", `{"userName":"ext@acme.test","externalId":"` + long + `"}`},
		{"POST", "/Users", `null`},
		{"POST", "/Users", `[]`},
		{"PATCH", "/Users/" + e.acmeBob.ID, `{"Operations":[{"op":"add","value":null}]}`},
		{"PATCH", "/Users/" + e.acmeBob.ID, `{"Operations":[{"op":"remove","path":"name"}]}`},
		{"PATCH", "/Users/" + e.acmeBob.ID, `{"Operations":[{"op":"remove","path":"emails"}]}`},
		{"PATCH", "/Users/" + e.acmeBob.ID, `{"Operations":[{"op":"replace","path":"displayName","value":"` + long + `"}]}`},
		{"PATCH", "/Users/" + e.acmeBob.ID, `{"Operations":[{"op":"replace","path":"externalId","value":"` + long + `"}]}`},
		{"GET", "/Users?filter=" + url.QueryEscape(`userName eq "`+long+`"`), ""},
		{"GET", "/Users?filter=" + url.QueryEscape(`externalId eq "`+long+`"`), ""},
		{"GET", "/Users?startIndex=9223372036854775807&count=9223372036854775807", ""},
		{"GET", "/Users?startIndex=-5&count=-1", ""},
		{"GET", "/Users/user_%2F..", ""},
		{"GET", "/Users/" + strings.Repeat("u", 3000), ""},
		{"OPTIONS", "/Users", ""},
		{"HEAD", "/Users", ""},
		{"GET", "/Nope", ""},
		{"PUT", "/Users", "{}"},
	} {
		var body any
		if r.body != "" {
			body = r.body
		}
		resp, out := c.do(r.method, r.path, body)
		p := r.path
		if len(p) > 60 {
			p = p[:60]
		}
		b := r.body
		if len(b) > 60 {
			b = b[:60]
		}
		t.Logf("%s %s %s: %d %v %v", r.method, p, b, resp.StatusCode, out["scimType"], out["detail"])
		if resp.StatusCode >= 500 {
			t.Errorf("%s %s %s: %d", r.method, p, b, resp.StatusCode)
		}
	}
	// The unauthenticated: SCIM errors too.
	anon := e.scim(t, e.acme.ID, "")
	for _, p := range []string{"/Users", "/Nope"} {
		if resp, out := anon.do("GET", p, nil); resp.StatusCode != http.StatusUnauthorized || out["status"] != "401" {
			t.Errorf("anonymous GET %s: %d %v, want SCIM's 401", p, resp.StatusCode, out)
		}
	}
	lower := e.scim(t, e.acme.ID, "")
	if resp, _ := lower.do("GET", "/Users", nil, "Authorization", "bearer "+c.token); resp.StatusCode != http.StatusOK {
		t.Errorf("the scheme in lower case (case-insensitive, RFC 9110 11.1): %d", resp.StatusCode)
	}
}

// The externalId filter after a deprovisioning and a new user with the
// same externalId.
func TestSCIMExternalIDIsUnique(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	c := e.scim(t, e.acme.ID, e.scimToken(t, admin, e.acme.ID))
	// externalId is set on bob (not provisioned by SCIM): a provider
	// matching by externalId, and a second user with the same one.
	c.want("PATCH", "/Users/"+e.acmeBob.ID, scimPatch(map[string]any{"op": "add", "path": "externalId", "value": "E1"}), 200)
	c.want("POST", "/Users", map[string]any{"schemas": []string{scim.SchemaUser}, "userName": "dup@acme.test", "externalId": "E1"}, 409)
	if out := c.want("GET", "/Users?filter="+url.QueryEscape(`externalId eq "E1"`), nil, 200); out["totalResults"] != 1.0 {
		t.Errorf("externalId E1: %v users, want bob alone", out["totalResults"])
	}
}

// Revive on POST is by userName alone: a different person (another
// externalId) with a reused userName gets the old account, its
// password and its roles.
func TestSCIMRevivesOnlyItsOwn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	c := e.scim(t, e.acme.ID, e.scimToken(t, admin, e.acme.ID))
	// bob (a console user with a password) is matched and deprovisioned.
	c.want("PATCH", "/Users/"+e.acmeBob.ID, scimPatch(map[string]any{"op": "add", "path": "externalId", "value": "old-bob"}), 200)
	c.want("DELETE", "/Users/"+e.acmeBob.ID, nil, 204)
	c.want("POST", "/Users", map[string]any{"schemas": []string{scim.SchemaUser}, "userName": "bob", "externalId": "new-person", "emails": []map[string]any{{"value": "robert.new@acme.test", "primary": true}}}, 409)
	// One SCIM created and deprovisioned comes back to the same person only.
	u := c.want("POST", "/Users", map[string]any{"schemas": []string{scim.SchemaUser}, "userName": "dana@acme.test", "externalId": "dana-1"}, 201)
	c.want("DELETE", "/Users/"+u["id"].(string), nil, 204)
	c.want("POST", "/Users", map[string]any{"schemas": []string{scim.SchemaUser}, "userName": "dana@acme.test", "externalId": "someone-else"}, 409)
	if back := c.want("POST", "/Users", map[string]any{"schemas": []string{scim.SchemaUser}, "userName": "dana@acme.test", "externalId": "dana-1"}, 201); back["id"] != u["id"] {
		t.Errorf("dana came back as %v, want %v", back["id"], u["id"])
	}
}
