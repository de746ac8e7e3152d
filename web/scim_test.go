package web_test

import (
	"bytes"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/scim"
)

// scimClient calls a tenant's SCIM endpoint with a bearer token.
type scimClient struct {
	t     *testing.T
	base  string
	token string
}

var etagField = regexp.MustCompile(`name="etag" value="([^"]*)"`)

var newTokenPattern = regexp.MustCompile(`data-testid="scim-new-token">(kscim_[A-Za-z0-9_-]+)<`)

// scimToken creates (or rotates) a tenant's provisioning token on its
// single sign-on page, as its administrator does, and returns it.
func (e *env) scimToken(t *testing.T, admin *client, tenantID string) string {
	t.Helper()
	_, page := admin.get("/t/" + tenantID + "/sso")
	form := url.Values{}
	if i := strings.Index(page, `data-testid="scim-panel"`); i >= 0 {
		if m := etagField.FindStringSubmatch(page[i:]); m != nil {
			form.Set("etag", html.UnescapeString(m[1])) // the settings as the page shows them
		}
	}
	resp, page := admin.post("/t/"+tenantID+"/sso/scim/token", form)
	m := newTokenPattern.FindStringSubmatch(page)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("creating a SCIM token: %d, token shown: %v", resp.StatusCode, m != nil)
	}
	return m[1]
}

func (e *env) scim(t *testing.T, tenantID, token string) *scimClient {
	return &scimClient{t: t, base: e.srv.URL + "/scim/v2/" + tenantID, token: token}
}

// do sends a request; body, when not nil, is sent as JSON.
func (c *scimClient) do(method, path string, body any, h ...string) (*http.Response, map[string]any) {
	c.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		if s, ok := body.(string); ok {
			b = []byte(s)
		}
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.base+path, r)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	req.Header.Set("Content-Type", "application/scim+json")
	for i := 0; i+1 < len(h); i += 2 {
		req.Header.Set(h[i], h[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	b, _ := io.ReadAll(resp.Body)
	if len(b) > 0 {
		if err := json.Unmarshal(b, &out); err != nil {
			c.t.Fatalf("%s %s: %d, not JSON: %s", method, path, resp.StatusCode, b)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/scim+json" {
			c.t.Errorf("%s %s: Content-Type %q, want application/scim+json", method, path, ct)
		}
	}
	return resp, out
}

func (c *scimClient) want(method, path string, body any, status int, h ...string) map[string]any {
	c.t.Helper()
	resp, out := c.do(method, path, body, h...)
	if resp.StatusCode != status {
		c.t.Fatalf("%s %s: %d %v, want %d", method, path, resp.StatusCode, out, status)
	}
	if status >= 400 {
		if s, _ := out["schemas"].([]any); len(s) != 1 || s[0] != scim.SchemaError || out["status"] != itoa(status) {
			c.t.Errorf("%s %s: the error is not SCIM's: %v", method, path, out)
		}
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestSCIMEntraSequence replays the requests Microsoft Entra ID's
// provisioning sends (its SCIM validator's sequence): a lookup by
// userName, the creation with the enterprise extension, a lookup that
// finds it, PATCHes with "Replace" and filtered paths, a disable with
// "False" as a string, and the deletion.
func TestSCIMEntraSequence(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	c := e.scim(t, e.acme.ID, e.scimToken(t, admin, e.acme.ID))
	const upn = "Test_User_dfeef4c5@acme.test"
	if out := c.want("GET", "/Users?filter="+url.QueryEscape(`userName eq "Test_User_dfeef4c5@acme.test"`), nil, 200); out["totalResults"] != 0.0 {
		t.Fatalf("lookup before creation: %v", out)
	}
	created := c.want("POST", "/Users", map[string]any{
		"schemas":    []string{scim.SchemaUser, scim.SchemaEnterprise},
		"externalId": "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef", "userName": upn, "active": true,
		"emails":              []map[string]any{{"primary": true, "type": "work", "value": "Test_User_11bb6097@acme.test"}},
		"meta":                map[string]string{"resourceType": "User"},
		"name":                map[string]string{"formatted": "givenName familyName", "familyName": "familyName", "givenName": "givenName"},
		"roles":               []any{},
		scim.SchemaEnterprise: map[string]any{"department": "Sales", "manager": map[string]string{"value": "x"}},
	}, 201)
	id, _ := created["id"].(string)
	if created["userName"] != upn || created["externalId"] != "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef" || created["displayName"] != "givenName familyName" {
		t.Fatalf("created: %v", created)
	}
	if got := c.want("GET", "/Users/"+id, nil, 200); got["active"] != true || got[scim.SchemaEnterprise].(map[string]any)["department"] != "Sales" {
		t.Errorf("GET: %v", got)
	}
	if out := c.want("GET", "/Users?filter="+url.QueryEscape(`userName eq "`+upn+`"`), nil, 200); out["totalResults"] != 1.0 || len(out["Resources"].([]any)) != 1 {
		t.Fatalf("lookup after creation: %v", out)
	}
	if out := c.want("GET", "/Users?filter="+url.QueryEscape(`externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"`), nil, 200); out["totalResults"] != 1.0 {
		t.Fatalf("lookup by externalId: %v", out)
	}
	patched := c.want("PATCH", "/Users/"+id, map[string]any{
		"schemas": []string{scim.SchemaPatchOp},
		"Operations": []map[string]any{
			{"op": "Replace", "path": `emails[type eq "work"].value`, "value": "updatedEmail@acme.test"},
			{"op": "Replace", "path": "name.familyName", "value": "updatedFamilyName"},
			{"op": "Add", "path": "title", "value": "Engineer"},
			{"op": "Replace", "path": "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", "value": "Research"},
		},
	}, 200)
	if patched["emails"].([]any)[0].(map[string]any)["value"] != "updatedEmail@acme.test" || patched["name"].(map[string]any)["familyName"] != "updatedFamilyName" || patched["title"] != "Engineer" {
		t.Fatalf("patched: %v", patched)
	}
	if got := c.want("PATCH", "/Users/"+id, map[string]any{"schemas": []string{scim.SchemaPatchOp}, "Operations": []map[string]any{{"op": "Replace", "path": "active", "value": "False"}}}, 200); got["active"] != false {
		t.Fatalf("disabled: %v", got)
	}
	u, _ := e.users.Get(t.Context(), e.acme.ID, id)
	if u.IsActive || u.Email != "updatedEmail@acme.test" || u.Profile.Department != "Research" {
		t.Errorf("stored: active %v, e-mail %q, department %q", u.IsActive, u.Email, u.Profile.Department)
	}
	c.want("DELETE", "/Users/"+id, nil, 204)
	c.want("GET", "/Users/"+id, nil, 404)
	if out := c.want("GET", "/Users?filter="+url.QueryEscape(`userName eq "`+upn+`"`), nil, 200); out["totalResults"] != 0.0 {
		t.Errorf("lookup after deletion: %v", out)
	}
	if u, _ := e.users.Get(t.Context(), e.acme.ID, id); u == nil || !u.DeletedAt.IsZero() {
		t.Error("deprovisioning deleted the user; the tenant's setting says deactivate")
	}
	// Assigned again: the same user comes back, active.
	again := c.want("POST", "/Users", map[string]any{"schemas": []string{scim.SchemaUser}, "userName": upn, "active": true, "emails": []map[string]any{{"primary": true, "value": "updatedEmail@acme.test"}}}, 201)
	if again["id"] != id || again["active"] != true {
		t.Errorf("re-created: %v, want the same user active", again)
	}
}

// TestSCIMOktaSequence replays Okta's: a lookup with paging parameters,
// the creation, a PUT of the whole user, and a deactivation by a
// "replace" without a path.
func TestSCIMOktaSequence(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	c := e.scim(t, e.acme.ID, e.scimToken(t, admin, e.acme.ID))
	c.want("GET", `/Users?filter=userName%20eq%20%22okta.user%40acme.test%22&startIndex=1&count=100`, nil, 200)
	user := map[string]any{
		"schemas": []string{scim.SchemaUser}, "userName": "okta.user@acme.test",
		"name":        map[string]string{"givenName": "Okta", "familyName": "User"},
		"emails":      []map[string]any{{"primary": true, "value": "okta.user@acme.test", "type": "work"}},
		"displayName": "Okta User", "locale": "en-US", "externalId": "00u1abc", "groups": []any{}, "password": "ignored-Pass-1", "active": true,
	}
	created := c.want("POST", "/Users", user, 201)
	id := created["id"].(string)
	etag := created["meta"].(map[string]any)["version"].(string)
	user["displayName"], user["name"] = "Okta Person", map[string]string{"givenName": "Okta", "familyName": "Person"}
	put := c.want("PUT", "/Users/"+id, user, 200, "If-Match", etag)
	if put["displayName"] != "Okta Person" {
		t.Fatalf("PUT: %v", put)
	}
	// The version before the PUT is stale now.
	c.want("PUT", "/Users/"+id, user, 412, "If-Match", etag)
	user["userName"] = "renamed@acme.test"
	c.want("PUT", "/Users/"+id, user, 400)
	off := c.want("PATCH", "/Users/"+id, map[string]any{"schemas": []string{scim.SchemaPatchOp}, "Operations": []map[string]any{{"op": "replace", "value": map[string]any{"active": false}}}}, 200)
	if off["active"] != false {
		t.Fatalf("deactivated: %v", off)
	}
	list := c.want("GET", "/Users?startIndex=1&count=2", nil, 200)
	if list["itemsPerPage"] != 2.0 || list["totalResults"].(float64) < 3 {
		t.Errorf("a page of 2: %v", list)
	}
	c.want("GET", "/Users?filter=displayName+co+%22x%22", nil, 400)
	c.want("PATCH", "/Users/"+id, map[string]any{"Operations": []map[string]any{{"op": "replace", "path": "nosuch", "value": "x"}}}, 400)
	c.want("POST", "/Users", `{"userName": 12`, 400)
	c.want("POST", "/Users", map[string]any{"schemas": []string{scim.SchemaUser}, "userName": "okta.user@acme.test", "emails": []map[string]any{{"value": "other@acme.test"}}}, 409)
	for _, p := range []string{"/ServiceProviderConfig", "/ResourceTypes", "/Schemas", "/Schemas/" + scim.SchemaUser} {
		c.want("GET", p, nil, 200)
	}
	c.want("GET", "/Nope", nil, 404)
}

// TestSCIMTokensAndIsolation: no token, another tenant's token, a
// revoked one and a rotated one past its grace are all refused alike; a
// token never reaches another tenant's users; deprovisioning signs the
// user out.
func TestSCIMTokensAndIsolation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	glob := e.client(t).signIn("globex", "admin")
	acmeToken, globToken := e.scimToken(t, admin, e.acme.ID), e.scimToken(t, glob, e.globex.ID)
	for name, c := range map[string]*scimClient{
		"no token":               e.scim(t, e.acme.ID, ""),
		"a made-up token":        e.scim(t, e.acme.ID, "kscim_madeup"),
		"globex's token at acme": e.scim(t, e.acme.ID, globToken),
		"acme's token at globex": e.scim(t, e.globex.ID, acmeToken),
		"an unknown tenant":      e.scim(t, "tenant_nosuch", acmeToken),
	} {
		if resp, _ := c.do("GET", "/Users", nil); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", name, resp.StatusCode)
		}
	}
	c := e.scim(t, e.acme.ID, acmeToken)
	c.want("GET", "/Users/"+e.globUsr.ID, nil, 404)
	c.want("PATCH", "/Users/"+e.globUsr.ID, map[string]any{"Operations": []map[string]any{{"op": "replace", "path": "active", "value": false}}}, 404)
	c.want("DELETE", "/Users/"+e.globUsr.ID, nil, 404)
	if u, _ := e.users.Get(t.Context(), e.globex.ID, e.globUsr.ID); !u.IsActive {
		t.Fatal("acme's token deactivated globex's user")
	}

	// Deprovisioning signs bob out.
	bob := e.client(t).signIn("acme", "bob")
	c.want("DELETE", "/Users/"+e.acmeBob.ID, nil, 204)
	if resp, _ := bob.get("/account"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("bob after deprovisioning: %d, want sent to sign in", resp.StatusCode)
	}

	// A rotation: the old token works for its grace, then stops.
	rotated := e.scimToken(t, admin, e.acme.ID)
	c.want("GET", "/Users?count=1", nil, 200)
	e.clock.Advance(scim.RotationGrace + time.Minute)
	if resp, _ := c.do("GET", "/Users", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the rotated token past its grace: %d, want 401", resp.StatusCode)
	}
	admin = e.client(t).signIn("acme", "admin") // the clock idled the session out
	e.scim(t, e.acme.ID, rotated).want("GET", "/Users?count=1", nil, 200)
	admin.get("/t/" + e.acme.ID + "/sso")
	if resp, _ := admin.post("/t/"+e.acme.ID+"/sso/scim/revoke", nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke: %d", resp.StatusCode)
	}
	if resp, _ := e.scim(t, e.acme.ID, rotated).do("GET", "/Users", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a revoked token: %d, want 401", resp.StatusCode)
	}
	if _, page := admin.get("/t/" + e.acme.ID + "/sso"); strings.Contains(page, rotated) {
		t.Error("the page shows the token again")
	}
}
