package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
)

func TestAuditPageAndCSV(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(t).signIn("acme", "admin")
	c.post("/t/"+e.acme.ID+"/users/"+e.acmeBob.ID+"/deactivate", url.Values{"etag": {""}})
	resp, body := c.get("/t/" + e.acme.ID + "/audit?action=user.")
	wantStatus(t, "audit page", resp, http.StatusOK)
	for _, want := range []string{`data-action="user.create"`, `data-action="user.deactivate"`} {
		if !strings.Contains(body, want) {
			t.Errorf("audit page lacks %s", want)
		}
	}
	if strings.Contains(body, `data-action="auth.login"`) {
		t.Error("the action filter let auth.login through")
	}
	resp, body = c.get("/t/" + e.acme.ID + "/audit.csv")
	wantStatus(t, "csv", resp, http.StatusOK)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Errorf("csv content type: %q", ct)
	}
	if !strings.HasPrefix(body, "\xEF\xBB\xBFtimestamp,action,status") || !strings.Contains(body, "user.deactivate") || !strings.Contains(body, "auth.login") {
		t.Errorf("csv body: %.300s", body)
	}
	if strings.Contains(body, "$2a$") {
		t.Error("the CSV contains a password hash")
	}
	_, body = c.get("/t/" + e.acme.ID + "/audit?user=admin")
	if !strings.Contains(body, `data-action="user.deactivate"`) {
		t.Error("filter by username: admin's deactivation is missing")
	}
	_, body = c.get("/t/" + e.acme.ID + "/audit?user=nobody")
	if !strings.Contains(body, `data-testid="audit-empty"`) {
		t.Error("filter by an unknown username: records shown")
	}
	resp, _ = c.get("/t/" + e.acme.ID + "/audit?from=yesterday")
	wantStatus(t, "bad date", resp, http.StatusUnprocessableEntity)
}

// TestAuditChangesReadAsText checks that the audit page shows recorded
// values as text (escaped by the template, not as JSON), creations as "set
// to", and the username a failed sign-in tried.
func TestAuditChangesReadAsText(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(t).signIn("acme", "admin")
	resp, _ := c.post("/t/"+e.acme.ID+"/users", url.Values{"username": {"xss"}, "email": {"xss@acme.test"}, "displayName": {`<img src=x onerror="alert(1)">`}, "password": {password}})
	wantStatus(t, "create", resp, http.StatusSeeOther)
	e.client(t).signInErr("acme", "mallory", "Wrong-pass-99")
	_, page := c.get("/t/" + e.acme.ID + "/audit")
	for _, want := range []string{
		`Display name: set to &lt;img src=x onerror=&#34;alert(1)&#34;&gt;`,
		`mallory (tried)`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the audit page lacks %s", want)
		}
	}
	for _, unwanted := range []string{`\u003c`, "null →", `<img src=x`} {
		if strings.Contains(page, unwanted) {
			t.Errorf("the audit page shows %s", unwanted)
		}
	}
}

// TestAuditPageSaysWhatChanged checks that the Changes column says what a
// person changed, in words and in the reader's language, without the
// bookkeeping; that the resource filter offers every recorded type; and
// that From after To shows the date error, not "No records match".
func TestAuditPageSaysWhatChanged(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(t).signIn("acme", "admin")
	c.post("/t/"+e.acme.ID+"/users/"+e.acmeBob.ID+"/deactivate", url.Values{"etag": {""}})
	resp, _ := c.post("/t/"+e.acme.ID+"/users/"+e.acmeBob.ID+"/roles", url.Values{"service": {"auth-service"}, "role": {"viewer"}})
	if resp.StatusCode >= 400 {
		t.Fatalf("assign a role: got %d", resp.StatusCode)
	}
	e.client(t).signInErr("acme", "admin", "Wrong-pass-99")
	_, page := c.get("/t/" + e.acme.ID + "/audit")
	for _, want := range []string{">Deactivated<", "Role: set to Viewer", "Wrong password"} {
		if !strings.Contains(page, want) {
			t.Errorf("the English audit page lacks %q", want)
		}
	}
	for _, unwanted := range []string{"isActive", "passwordChangedAt", "deleted:", "locked:", "閲覧者", "wrong password"} {
		if strings.Contains(page, unwanted) {
			t.Errorf("the English audit page shows %q", unwanted)
		}
	}
	for _, typ := range []string{"Tenant", "User", "RoleAssignment", "Service", "ServiceAssignment", "APIKey", "Domain"} {
		if !strings.Contains(page, `<option value="`+typ+`"`) {
			t.Errorf("the resource filter does not offer %s", typ)
		}
	}
	c.post("/lang", url.Values{"lang": {"ja"}, "next": {"/"}})
	_, page = c.get("/t/" + e.acme.ID + "/audit")
	for _, want := range []string{">無効化<", "ロール: 閲覧者 に設定", "パスワードの誤り"} {
		if !strings.Contains(page, want) {
			t.Errorf("the Japanese audit page lacks %q", want)
		}
	}
	if strings.Contains(page, "Wrong password") || strings.Contains(page, "set to") {
		t.Error("the Japanese audit page shows English")
	}
	resp, page = c.get("/t/" + e.acme.ID + "/audit?from=2026-11-20&to=2026-11-10")
	wantStatus(t, "From after To", resp, http.StatusUnprocessableEntity)
	if !strings.Contains(page, `data-testid="field-error-to"`) {
		t.Error("From after To: no date error")
	}
	if strings.Contains(page, `data-testid="audit-empty"`) {
		t.Error("From after To: says no records match")
	}
}

// TestAuditFilterOffersEveryResourceType: the resource type filter offers
// every type the records name, channels and messages too, and finds the
// records of each.
func TestAuditFilterOffersEveryResourceType(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	channelID, _ := e.matrixChannel(t, e.acme.ID, e.acmeAdmin.ID, 1)
	page := "/t/" + e.acme.ID + "/audit"
	_, body := admin.get(page)
	for _, typ := range kanri.AuditResourceTypes() {
		if !strings.Contains(body, `<option value="`+typ+`"`) {
			t.Errorf("the filter does not offer %s", typ)
		}
	}
	for _, typ := range []string{kanri.AuditChannel, kanri.AuditChannelMember} {
		_, body = admin.get(page + "?resource=" + typ)
		if !strings.Contains(body, `data-testid="audit-row"`) || strings.Contains(body, `data-action="user.`) {
			t.Errorf("filtered by %s: no rows, or rows of users", typ)
		}
	}
	if _, body = admin.get(page + "?resource=" + kanri.AuditChannel); !strings.Contains(body, `data-action="channel.create"`) {
		t.Errorf("filtered by channel: no channel.create of %s", channelID)
	}
}

// TestAuditRecordsNamesNotIDsOrCounters: a file moved into a folder is
// recorded with the folder's path, not its id, and a deleted user's record
// holds no count of the role assignments its deletion removed.
func TestAuditRecordsNamesNotIDsOrCounters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	acme := "/t/" + e.acme.ID
	f := e.uploadFile(t, e.acme.ID, "", "a.txt", []byte("hello"))
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: e.acmeAdmin.ID, TenantID: e.acme.ID})
	docs, err := e.files.CreateFolder(ctx, e.acme.ID, "", "Docs")
	if err != nil {
		t.Fatal(err)
	}
	resp, _ := admin.post(acme+"/files/"+f.ID+"/move", url.Values{"target": {docs.ID}, "etag": {f.ETag}, "state": {f.State()}})
	wantStatus(t, "move", resp, http.StatusSeeOther)
	resp, _ = admin.post(acme+"/users/"+e.acmeBob.ID+"/delete", url.Values{"etag": {""}})
	wantStatus(t, "delete", resp, http.StatusSeeOther)
	_, page := admin.get(acme + "/audit")
	for _, want := range []string{"Folder: / → /Docs"} {
		if !strings.Contains(html.UnescapeString(page), want) {
			t.Errorf("the audit page lacks %q", want)
		}
	}
	for _, unwanted := range []string{docs.ID, "roleAssignments"} {
		if strings.Contains(page, unwanted) {
			t.Errorf("the audit page shows %q", unwanted)
		}
	}
	recs, _, err := e.config.Services.Deps.Audit.Query(ctx, e.acme.ID, audit.Filter{Action: "user.delete"})
	if err != nil || len(recs) != 1 {
		t.Fatalf("user.delete records: %d, %v", len(recs), err)
	}
	if _, ok := recs[0].Details.Changes["roleAssignments"]; ok {
		t.Errorf("the deletion records a count of role assignments: %v", recs[0].Details.Changes)
	}
}

// TestAuditNamesActionsInThePagesLanguage: an action shows as words in the
// page's language, its code in the title (and data-action); a failure's
// badge, and a service assignment by its service's name, too.
func TestAuditNamesActionsInThePagesLanguage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	e.client(t).signInErr("acme", "admin", "Wrong-pass-99")
	admin := e.client(t).signIn("acme", "admin")
	admin.post("/lang", url.Values{"lang": {"ja"}, "next": {"/"}})
	_, page := admin.get("/t/" + e.acme.ID + "/audit")
	for _, want := range []string{
		`<span title="user.create" data-testid="audit-action">ユーザー作成</span>`,
		`<span title="auth.login_failed" data-testid="audit-action">サインイン失敗</span> <span class="badge deleted">失敗</span>`,
		`サービス割り当て: <span title="file-service">` + i18n.Translate("ja", "service.file-service"),
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the Japanese audit page lacks %s", want)
		}
	}
	if strings.Contains(page, `<span class="mono">user.create</span>`) {
		t.Error("the Japanese audit page shows an action's code as its text")
	}
}

// TestOperatorAuditByTenant: what a global administrator does in acme
// (a user deactivated, the tenant suspended) is in the operator's audit
// log too, named by its tenant; the log filters by a tenant's sign-in name
// or id, pages with the filter kept, and exports what it shows.
func TestOperatorAuditByTenant(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	staff := e.staffDeactivates(t, e.acme.ID, e.acmeBob.ID)
	resp, _ := staff.post("/tenants/"+e.globex.ID+"/suspend", url.Values{"etag": {e.fresh(t, e.globex.ID).ETag}})
	wantStatus(t, "suspending globex", resp, http.StatusSeeOther)
	path := "/t/" + kanri.PrivilegedTenantID + "/audit"

	tests := []struct {
		name, query string
		want        []string // the rows' actions and tenants
		unwanted    []string
	}{
		{"every tenant", "", []string{
			`data-action="user.deactivate"`, `data-tenant="` + e.acme.ID + `"`,
			`data-action="tenant.suspend"`, `data-tenant="` + e.globex.ID + `"`,
		}, nil},
		{"acme by its sign-in name", "?tenant=acme", []string{`data-action="user.deactivate"`, `data-tenant="` + e.acme.ID + `"`, `value="acme"`},
			[]string{`data-action="tenant.suspend"`, `data-tenant="` + e.globex.ID + `"`, `data-action="auth.login"`}},
		{"globex by its id", "?tenant=" + e.globex.ID, []string{`data-action="tenant.suspend"`},
			[]string{`data-action="user.deactivate"`}},
		{"a tenant nobody acted in", "?tenant=initech", []string{`data-testid="audit-empty"`}, []string{`data-testid="audit-row"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := staff.get(path + tt.query)
			wantStatus(t, "the operator's audit log", resp, http.StatusOK)
			for _, want := range append(tt.want, `data-testid="audit-filter-tenant"`) {
				if !strings.Contains(body, want) {
					t.Errorf("got no %s", want)
				}
			}
			for _, unwanted := range tt.unwanted {
				if strings.Contains(body, unwanted) {
					t.Errorf("got %s", unwanted)
				}
			}
		})
	}
	// The copy names acme and links to acme's own log, which keeps what
	// changed.
	_, body := staff.get(path + "?tenant=acme")
	if want := `href="/t/` + e.acme.ID + `/audit?action=user.deactivate"`; !strings.Contains(body, want) {
		t.Errorf("the row does not link to acme's log: no %s", want)
	}
	if _, body := staff.get("/t/" + e.acme.ID + "/audit?action=user.deactivate"); !strings.Contains(body, `data-action="user.deactivate"`) {
		t.Error("acme's own log lacks the deactivation")
	}

	// Paging keeps the filter.
	for range 25 {
		resp, _ := staff.post("/t/"+e.acme.ID+"/users/"+e.acmeBob.ID+"/reactivate", url.Values{"etag": {""}})
		wantStatus(t, "reactivating bob", resp, http.StatusSeeOther)
		staff.post("/t/"+e.acme.ID+"/users/"+e.acmeBob.ID+"/deactivate", url.Values{"etag": {""}})
	}
	_, body = staff.get(path + "?tenant=acme&size=20")
	if n := strings.Count(body, `data-testid="audit-row"`); n != 20 {
		t.Errorf("the first page: got %d rows, want 20", n)
	}
	m := regexp.MustCompile(`href="([^"]+)" rel="next"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("the first page has no link to the next")
	}
	next := html.UnescapeString(m[1])
	if !strings.Contains(next, "tenant=acme") {
		t.Fatalf("the next page's link %q drops the tenant filter", next)
	}
	_, body = staff.get(next)
	if n := strings.Count(body, `data-testid="audit-row"`); n == 0 || strings.Contains(body, `data-tenant="`+e.globex.ID+`"`) {
		t.Errorf("the second page: %d rows, or globex's among them", n)
	}

	resp, csv := staff.get(path + ".csv?tenant=acme")
	wantStatus(t, "the operator's export by tenant", resp, http.StatusOK)
	if !strings.Contains(csv, "targetTenantId") || !strings.Contains(csv, ","+e.acme.ID) || strings.Contains(csv, e.globex.ID) {
		t.Errorf("the export by tenant: %.400s", csv)
	}
}

// staffDeactivates signs the operator's global administrator in, has them
// deactivate a tenant's user, and returns their client.
func (e *env) staffDeactivates(t *testing.T, tenantID, userID string) *client {
	t.Helper()
	staff := e.client(t).signIn("privileged", adminEmail)
	resp, _ := staff.post("/t/"+tenantID+"/users/"+userID+"/deactivate", url.Values{"etag": {""}})
	wantStatus(t, "the operator's administrator deactivating "+userID, resp, http.StatusSeeOther)
	return staff
}
