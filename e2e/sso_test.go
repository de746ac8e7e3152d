//go:build e2e

package e2e

import (
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
)

// The person the OpenID provider signs in.
const (
	ssoUsername = "pat"
	ssoPassword = "Pat-at-the-provider-1"
	ssoEmail    = "pat@acme.example"
)

// ssoUsers are the provider's users: Pat, whose verified address is in
// acme's verified domain.
type ssoUsers struct{}

func (ssoUsers) GetUserByID(id string) *storage.User {
	if id == ssoUsername {
		return &storage.User{ID: ssoUsername, Username: ssoUsername, Password: ssoPassword, FirstName: "Pat", LastName: "Provider", Email: ssoEmail, EmailVerified: true}
	}
	return nil
}

func (u ssoUsers) GetUserByUsername(name string) *storage.User { return u.GetUserByID(name) }

func (ssoUsers) ExampleClientID() string { return "service" }

// startProvider runs zitadel/oidc's example OpenID provider (its own
// sign-in page, the code flow with PKCE, ID tokens, UserInfo) on a free
// port until the test ends, with Kanri's server as a web client of id
// "kanri", and returns its issuer.
func startProvider(t *testing.T, kanriURL string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer := "http://" + l.Addr().String() + "/"
	storage.RegisterClients(storage.WebClient("kanri", "kanri-client-secret", kanriURL+"/login/sso/callback"))
	router := exampleop.SetupServer(issuer, storage.NewStorage(ssoUsers{}), slog.New(slog.DiscardHandler), false)
	srv := &http.Server{Handler: router}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return issuer
}

// ssoSteps: alice adds her organisation's OpenID provider, tests it and
// lets it create users; Pat, who has no user yet, signs in through the
// provider's own page from Kanri's sign-in page and lands signed in; alice
// sees Pat's user with the linked identity.
func (s *suite) ssoSteps(t *testing.T) {
	s.step(t, "sso_signs_in_through_the_organisations_provider", []string{"domain_verified_by_dns"}, s.pagesOf(&s.alice), func(t *testing.T) {
		issuer := startProvider(t, s.srv.URL)
		ssoPath := "/t/" + tenantID + "/sso"
		s.open(t, s.alice, ssoPath, 200)
		s.visible(t, s.alice, "sso-providers-none")
		s.containsText(t, s.alice, "sso-callback-url", s.srv.URL+"/login/sso/callback")
		s.click(t, s.alice, "sso-provider-new")
		s.atPath(t, s.alice, ssoPath+"/providers/new")
		// A wrong issuer is said, the input kept; the secret never comes back.
		s.fill(t, s.alice, "sso-name", "Acme ID")
		s.fill(t, s.alice, "sso-issuer", "acme-id")
		s.fill(t, s.alice, "sso-client-id", "kanri")
		s.fill(t, s.alice, "sso-client-secret", "kanri-client-secret")
		s.submitStatus(t, s.alice, s.alice.tid("sso-provider-save"), ssoPath+"/providers", 422)
		s.visible(t, s.alice, "field-error-issuer")
		s.hasValue(t, s.alice, "sso-name", "Acme ID")
		s.hasValue(t, s.alice, "sso-client-secret", "")
		s.fill(t, s.alice, "sso-issuer", issuer)
		s.fill(t, s.alice, "sso-client-secret", "kanri-client-secret")
		s.submitStatus(t, s.alice, s.alice.tid("sso-provider-save"), ssoPath+"/providers", 303)
		s.atPath(t, s.alice, ssoPath)
		s.containsText(t, s.alice, "flash", "Acme ID")
		edit, err := s.alice.tid("sso-edit-Acme ID").GetAttribute("href")
		if err != nil {
			t.Fatal(err)
		}
		s.submitStatus(t, s.alice, s.alice.tid("sso-test-Acme ID"), strings.TrimSuffix(edit, "/edit")+"/test", 200)
		s.visible(t, s.alice, "sso-check-ok")
		s.click(t, s.alice, "sso-create-users")
		s.submitStatus(t, s.alice, s.alice.tid("sso-settings-save"), ssoPath+"/settings", 303)
		s.containsText(t, s.alice, "flash", "saved")

		// Pat signs in through the provider's page.
		pat := s.newSession(t, "pat", nil)
		s.open(t, pat, "/login", 200)
		s.click(t, pat, "sso-link")
		s.atPath(t, pat, "/login/sso")
		s.fill(t, pat, "sso-org", "someone@acme.example") // the organisation by its verified domain
		s.click(t, pat, "sso-find")
		s.visible(t, pat, "sso-start-Acme ID")
		s.click(t, pat, "sso-start-Acme ID")
		if err := waitURL(pat, func(u string) bool { return strings.HasPrefix(u, issuer) }); err != nil {
			t.Fatalf("pat: not at the provider's sign-in page: %v (at %s)", err, pat.page.URL())
		}
		for sel, v := range map[string]string{"#username": ssoUsername, "#password": ssoPassword} {
			if err := pat.page.Locator(sel).Fill(v); err != nil {
				t.Fatalf("pat: the provider's %s: %v", sel, err)
			}
		}
		if err := pat.page.Locator("button[type=submit]").Click(); err != nil {
			t.Fatalf("pat: the provider's Login: %v", err)
		}
		if err := waitURL(pat, func(u string) bool { return strings.HasPrefix(u, s.srv.URL) && !strings.Contains(u, "/login") }); err != nil {
			t.Fatalf("pat: not back signed in: %v (at %s)", err, pat.page.URL())
		}
		s.visible(t, pat, "user-menu")
		s.containsText(t, pat, "user-menu", "Pat Provider")

		// Alice sees Pat's user, created with the linked identity.
		s.open(t, s.alice, usersPath+"?q=pat", 200)
		s.visible(t, s.alice, "user-row-"+ssoEmail)
		s.click(t, s.alice, "user-edit-"+ssoEmail)
		s.visible(t, s.alice, "identity-"+ssoEmail)
		s.screenshot(t, s.alice.page, "desktop-sso.png")

		// Pat goes, and his place with him (the tenant's users are few).
		patEdit := strings.TrimPrefix(s.alice.page.URL(), s.srv.URL)
		s.submitStatus(t, s.alice, s.alice.tid("user-delete"), strings.TrimSuffix(patEdit, "/edit")+"/delete", 303)
	})
}

// scimSteps: alice creates the provisioning token (shown once); the
// provider, here the test with Entra ID's requests, creates Quinn, who
// appears in alice's list, then deprovisions them: Quinn is inactive.
func (s *suite) scimSteps(t *testing.T) {
	s.step(t, "scim_provisions_then_deprovisions_a_user", []string{"tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.alice), func(t *testing.T) {
		ssoPath := "/t/" + tenantID + "/sso"
		s.open(t, s.alice, ssoPath, 200)
		s.containsText(t, s.alice, "scim-base-url", s.srv.URL+"/scim/v2/"+tenantID)
		s.submitStatus(t, s.alice, s.alice.tid("scim-token-new"), ssoPath+"/scim/token", 200)
		s.visible(t, s.alice, "scim-new-token")
		token, err := s.alice.tid("scim-new-token").TextContent()
		if err != nil || !strings.HasPrefix(token, "kscim_") {
			t.Fatalf("the new token: %q, %v", token, err)
		}
		call := func(method, path, body string, want int) map[string]any {
			t.Helper()
			req, _ := http.NewRequest(method, s.srv.URL+"/scim/v2/"+tenantID+path, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", "application/scim+json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var out map[string]any
			json.NewDecoder(resp.Body).Decode(&out)
			if resp.StatusCode != want {
				t.Fatalf("SCIM %s %s: %d %v, want %d", method, path, resp.StatusCode, out, want)
			}
			return out
		}
		created := call("POST", "/Users", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"externalId":"e-quinn","userName":"quinn@acme.example",
			"active":true,"emails":[{"primary":true,"type":"work","value":"quinn@acme.example"}],"name":{"givenName":"Quinn","familyName":"Scim"}}`, 201)
		id, _ := created["id"].(string)
		s.open(t, s.alice, usersPath+"?q=quinn", 200)
		s.containsText(t, s.alice, "user-row-quinn@acme.example", "Quinn Scim")
		s.hasText(t, s.alice, "user-status-quinn@acme.example", "Active")
		// The provider pushes a group with Quinn; alice maps it to a role.
		g := call("POST", "/Groups", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],"displayName":"Kanri Viewers","members":[{"value":"`+id+`"}]}`, 201)
		gid, _ := g["id"].(string)
		s.open(t, s.alice, ssoPath, 200)
		s.hasText(t, s.alice, "scim-group-members", "1")
		viewer := "scim-group-role-Kanri Viewers-file-service/閲覧者"
		s.click(t, s.alice, viewer)
		s.submitStatus(t, s.alice, s.alice.tid("scim-group-save-Kanri Viewers"), ssoPath+"/scim/groups/"+gid, 303)
		s.containsText(t, s.alice, "flash", "roles")
		if err := s.expect.Locator(s.alice.tid(viewer)).ToBeChecked(); err != nil {
			t.Fatalf("the group's role is not kept: %v", err)
		}
		call("PATCH", "/Users/"+id, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"Replace","path":"active","value":"False"}]}`, 200)
		// Deprovisioning deletes, as alice chooses (the tenant's users are
		// few): Quinn goes.
		s.open(t, s.alice, ssoPath, 200)
		s.click(t, s.alice, "scim-delete-users")
		s.submitStatus(t, s.alice, s.alice.tid("scim-settings-save"), ssoPath+"/scim/settings", 303)
		s.containsText(t, s.alice, "flash", "saved")
		call("DELETE", "/Users/"+id, "", 204)
		call("GET", "/Users/"+id, "", 404)
		s.open(t, s.alice, usersPath+"?q=quinn", 200)
		s.absent(t, s.alice, "user-row-quinn@acme.example")
		// The page shows the token no more.
		s.open(t, s.alice, ssoPath, 200)
		s.absent(t, s.alice, "scim-new-token")
		s.visible(t, s.alice, "scim-last-used")
	})
}
