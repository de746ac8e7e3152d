package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// TestAPersonsDataIsExportedAndErased drives the privacy pages: a person
// downloads their data and asks to be erased; their administrator sees
// the request, downloads their data, is refused a wrong confirmation
// (input kept, nothing erased), then erases them: their page is gone and
// so is their session. Another tenant's administrator reaches none of it.
func TestAPersonsDataIsExportedAndErased(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bob := e.client(t).signIn("acme", "bob")
	admin := e.client(t).signIn("acme", "admin")
	bobPath := "/t/" + e.acme.ID + "/users/" + e.acmeBob.ID

	resp, body := bob.get("/account/export")
	wantStatus(t, "own export", resp, http.StatusOK)
	if !strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment") || !strings.Contains(body, "bob@acme.test") {
		t.Errorf("own export: %s %q", resp.Header.Get("Content-Disposition"), body)
	}
	var export struct {
		Sections []struct {
			Type  string           `json:"type"`
			Items []map[string]any `json:"items"`
		} `json:"sections"`
	}
	if err := json.Unmarshal([]byte(body), &export); err != nil || len(export.Sections) == 0 || export.Sections[0].Type != "user" {
		t.Errorf("own export: %v, %+v", err, export)
	}
	if strings.Contains(body, "passwordHash") || strings.Contains(body, "$2a$") {
		t.Error("the export holds the password hash")
	}
	for _, c := range []struct {
		who  *client
		path string
	}{{bob, "/account/export.zip"}, {admin, bobPath + "/export.zip"}} {
		resp, body := c.who.get(c.path)
		wantStatus(t, c.path, resp, http.StatusOK)
		if !strings.HasPrefix(body, "PK") || resp.Header.Get("Content-Type") != "application/zip" || !strings.Contains(body, "personal-data.json") {
			t.Errorf("%s: %s, %d bytes: not a zip of the data", c.path, resp.Header.Get("Content-Type"), len(body))
		}
	}
	if _, page := bob.get("/account"); !strings.Contains(page, `data-testid="account-request-erasure"`) {
		t.Fatal("the account page offers no erasure request")
	}
	resp, _ = bob.post("/account/erasure", nil)
	wantStatus(t, "request", resp, http.StatusSeeOther)
	if _, page := bob.get("/account"); !strings.Contains(page, `data-testid="account-erasure-requested"`) {
		t.Error("the account page does not say the erasure was asked for")
	}
	if _, page := admin.get(bobPath + "/edit"); !strings.Contains(page, `data-testid="erasure-requested"`) || !strings.Contains(page, `data-testid="user-erase"`) {
		t.Error("bob's page does not show his request and the erasure to his administrator")
	}
	resp, body = admin.get(bobPath + "/export")
	wantStatus(t, "admin's export", resp, http.StatusOK)
	if recs, _, err := e.st.Tenant(e.acme.ID).AuditLogs().Query(t.Context(), docstore.Query{Where: []docstore.Filter{docstore.Eq("action", "user.export")}}); err != nil || len(recs) < 2 {
		t.Errorf("exports audited: %d records (%v); want bob's own and his admin's", len(recs), err)
	}
	if !strings.Contains(body, "bob@acme.test") {
		t.Errorf("admin's export of bob: %q", body)
	}

	// Another tenant's administrator: none of it exists.
	other := e.client(t).signIn("globex", "admin")
	for _, p := range []string{bobPath + "/export", bobPath + "/export.zip", bobPath + "/erase", "/t/" + e.globex.ID + "/users/" + e.acmeBob.ID + "/erase"} {
		resp, _ := other.get(p)
		wantStatus(t, "globex GET "+p, resp, http.StatusNotFound)
	}
	resp, _ = other.post(bobPath+"/erase", url.Values{"confirm": {"bob"}})
	wantStatus(t, "globex erases bob", resp, http.StatusNotFound)

	resp, body = admin.post(bobPath+"/erase", url.Values{"confirm": {"robert"}})
	wantStatus(t, "wrong confirmation", resp, http.StatusUnprocessableEntity)
	if !strings.Contains(body, `data-testid="field-error-confirm"`) || !strings.Contains(body, `value="robert"`) {
		t.Error("the wrong confirmation is not shown with its input")
	}
	if resp, _ := admin.get(bobPath + "/edit"); resp.StatusCode != http.StatusOK {
		t.Fatalf("bob after a refused erasure: %d", resp.StatusCode)
	}
	resp, _ = admin.post("/t/"+e.acme.ID+"/users/"+e.acmeAdmin.ID+"/erase", url.Values{"confirm": {"admin"}})
	wantStatus(t, "erasing oneself", resp, http.StatusForbidden)

	resp, _ = admin.post(bobPath+"/erase", url.Values{"confirm": {"bob"}})
	wantStatus(t, "erasure", resp, http.StatusSeeOther)
	if page := admin.landing(resp); !strings.Contains(page, "erased-") {
		t.Error("the users page does not report the erasure with the pseudonym")
	}
	resp, _ = admin.get(bobPath + "/edit")
	wantStatus(t, "bob's page after", resp, http.StatusNotFound)
	if resp, _ := bob.get("/account"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("bob's session after his erasure: status %d, want a redirect to sign in", resp.StatusCode)
	}
	if _, err := e.users.Get(t.Context(), e.acme.ID, e.acmeBob.ID); err == nil {
		t.Error("bob's user document is still there")
	}
}

// TestADeletedPersonIsErased: a deleted user, whose data the tenant still
// holds, is offered for erasure in the list of deleted users and erased.
func TestADeletedPersonIsErased(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: e.acmeAdmin.ID, UserName: "admin", TenantID: e.acme.ID})
	u, err := e.users.Create(ctx, e.acme.ID, kanri.UserInput{Username: "dana", Email: "dana@acme.test", DisplayName: "Dana", Password: password})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.users.Delete(ctx, e.acme.ID, u.ID, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	admin := e.client(t).signIn("acme", "admin")
	if _, page := admin.get("/t/" + e.acme.ID + "/users?status=deleted"); !strings.Contains(page, `data-testid="user-erase-dana"`) {
		t.Fatal("the list of deleted users offers no erasure of dana")
	}
	path := "/t/" + e.acme.ID + "/users/" + u.ID + "/erase"
	if resp, page := admin.get(path); resp.StatusCode != http.StatusOK || !strings.Contains(page, "status=deleted") {
		t.Fatalf("the erasure page of a deleted user: %d", resp.StatusCode)
	}
	resp, _ := admin.post(path, url.Values{"confirm": {"dana"}})
	wantStatus(t, "erasure", resp, http.StatusSeeOther)
	if _, err := e.users.Get(ctx, e.acme.ID, u.ID); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("dana after her erasure: %v, want not found", err)
	}
}
