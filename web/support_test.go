package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/support"
)

// supportRecords returns the records of action in a tenant's audit log.
func (e *env) supportRecords(t *testing.T, tenantID, action string) []*kanri.AuditLog {
	t.Helper()
	recs, _, err := e.st.Tenant(tenantID).AuditLogs().Query(context.Background(), docstore.Query{Where: []docstore.Filter{docstore.Eq("action", action)}, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// supportSessions returns the support sessions recorded in a tenant.
func (e *env) supportSessions(t *testing.T, tenantID string) []*kanri.Session {
	t.Helper()
	all, err := e.st.Tenant(tenantID).Sessions().All(context.Background(), docstore.Query{})
	if err != nil {
		t.Fatal(err)
	}
	var out []*kanri.Session
	for _, r := range all {
		if r.Support != nil {
			out = append(out, r)
		}
	}
	return out
}

// openSupport opens a support session of the global administrator c as
// acme's administrator, and returns the page it lands on.
func (e *env) openSupport(t *testing.T, c *client, reason string) string {
	t.Helper()
	return e.openSupportAs(t, c, e.userIDOf(t, e.acme.ID, "admin"), reason)
}

// openSupportAs opens a support session of c as acme's user userID.
func (e *env) openSupportAs(t *testing.T, c *client, userID, reason string) string {
	t.Helper()
	path := "/t/" + e.acme.ID + "/users/" + userID + "/support"
	c.get(path)
	resp, _ := c.post(path, url.Values{"reason": {reason}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("opening a support session: status %d", resp.StatusCode)
	}
	return c.landing(resp)
}

// TestSupportSession: a global administrator opens acme as its
// administrator with a reason; every page says so; the session only reads,
// never reaches the user's account or another tenant; its start and end
// are in acme's audit log and the operator's; ending it gives the staff
// member their own session back.
func TestSupportSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	staff := e.client(t).signIn("privileged", adminEmail)
	adminID := e.userIDOf(t, e.acme.ID, "admin")
	path := "/t/" + e.acme.ID + "/users/" + adminID + "/support"

	if _, page := staff.get("/t/" + e.acme.ID + "/users/" + adminID + "/edit"); !strings.Contains(page, `data-testid="user-support"`) {
		t.Error("the user's page offers the global administrator no support access")
	}
	_, page := staff.get(path)
	if !strings.Contains(page, `data-testid="support-form"`) || !strings.Contains(page, `data-testid="support-read-only"`) {
		t.Fatal("the support page has no form saying the session only reads")
	}
	for _, c := range []struct {
		what, reason string
	}{{"no reason", "  "}, {"a reason too long", strings.Repeat("x", support.MaxReason+1)}} {
		resp, page := staff.post(path, url.Values{"reason": {c.reason}})
		wantStatus(t, c.what, resp, http.StatusUnprocessableEntity)
		if !strings.Contains(page, `data-testid="field-error-reason"`) {
			t.Errorf("%s: no error on the reason", c.what)
		}
	}
	own := "/t/" + kanri.PrivilegedTenantID + "/users/" + e.userIDOf(t, kanri.PrivilegedTenantID, adminEmail) + "/support"
	staff.get(own)
	resp, _ := staff.post(own, url.Values{"reason": {"looking at my own"}})
	if page := staff.landing(resp); !strings.Contains(page, "in your own, use your own account") {
		t.Error("support access to the staff member's own tenant is not refused with a reason")
	}
	if n := len(e.supportSessions(t, e.acme.ID)); n != 0 {
		t.Fatalf("refused requests opened %d support sessions", n)
	}

	page = e.openSupport(t, staff, "Ticket 4711: the user list looks empty")
	if !strings.Contains(page, `data-testid="support-banner"`) {
		t.Error("the first page of the support session has no banner")
	}
	sessions := e.supportSessions(t, e.acme.ID)
	if len(sessions) != 1 || sessions[0].UserID != adminID || sessions[0].Support.Writable || sessions[0].Support.Reason != "Ticket 4711: the user list looks empty" {
		t.Fatalf("support sessions recorded in acme: %+v", sessions)
	}
	if got, want := sessions[0].Support.ExpiresAt.Sub(e.clock.Now()), support.Duration; got > want || got < want-time.Minute {
		t.Errorf("the support session lasts %v, want %v", got, want)
	}
	_, page = staff.get("/t/" + e.acme.ID + "/users")
	if !strings.Contains(page, `data-testid="support-banner"`) || !strings.Contains(page, `data-testid="users-table"`) && !strings.Contains(page, "bob") {
		t.Error("the users page of the support session has no banner or no users")
	}
	for _, c := range []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, "/account", http.StatusForbidden},
		{http.MethodGet, "/account/2fa", http.StatusForbidden},
		{http.MethodPost, "/account/password", http.StatusForbidden},
		{http.MethodPost, "/t/" + e.acme.ID + "/users", http.StatusForbidden},
		{http.MethodPost, "/t/" + e.acme.ID + "/users/" + e.acmeBob.ID + "/deactivate", http.StatusForbidden},
		{http.MethodGet, "/t/" + e.acme.ID + "/api-keys/new", http.StatusForbidden},
		{http.MethodGet, "/t/" + e.globex.ID + "/users", http.StatusNotFound},
		{http.MethodGet, "/tenants", http.StatusNotFound},
		{http.MethodGet, path, http.StatusForbidden},
	} {
		var resp *http.Response
		if c.method == http.MethodGet {
			resp, _ = staff.get(c.path)
		} else {
			resp, _ = staff.post(c.path, url.Values{"username": {"eve"}, "email": {"eve@example.com"}, "displayName": {"Eve"}, "password": {password}})
		}
		wantStatus(t, c.method+" "+c.path+" in a read-only support session", resp, c.want)
	}
	if bob, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID); !bob.IsActive {
		t.Error("a read-only support session deactivated bob")
	}
	if us, _, _ := e.st.Tenant(e.acme.ID).Users().Query(context.Background(), docstore.Query{Where: []docstore.Filter{docstore.Eq("username", "eve")}, OrderBy: "username", Limit: 1}); len(us) != 0 {
		t.Error("a read-only support session created a user")
	}

	resp, _ = staff.post("/support/end", nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/t/"+e.acme.ID+"/users/"+adminID+"/edit" {
		t.Fatalf("ending the support session: status %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if page := staff.landing(resp); strings.Contains(page, `data-testid="support-banner"`) || !strings.Contains(page, `data-testid="user-support"`) {
		t.Error("after its end, the staff member is not back on the user's page as themselves")
	}
	if resp, _ := staff.get("/tenants"); resp.StatusCode != http.StatusOK {
		t.Errorf("after the support session, the staff member's own pages answer %d", resp.StatusCode)
	}
	if n := len(e.supportSessions(t, e.acme.ID)); n != 0 {
		t.Errorf("%d support sessions left in acme after the end", n)
	}
	for _, c := range []struct{ tenant, action string }{
		{e.acme.ID, support.ActionStart}, {kanri.PrivilegedTenantID, support.ActionStart},
		{e.acme.ID, support.ActionEnd}, {kanri.PrivilegedTenantID, support.ActionEnd},
	} {
		recs := e.supportRecords(t, c.tenant, c.action)
		if len(recs) != 1 {
			t.Errorf("%s records in %s: %d, want 1", c.action, c.tenant, len(recs))
			continue
		}
		if c.action == support.ActionStart && recs[0].Details.Reason != "Ticket 4711: the user list looks empty" {
			t.Errorf("%s in %s: reason %q", c.action, c.tenant, recs[0].Details.Reason)
		}
		if c.action == support.ActionEnd && (recs[0].Metadata.Support == nil || recs[0].Metadata.Support.TenantID != e.acme.ID || recs[0].UserID != adminID) {
			t.Errorf("%s in %s does not say it was support in acme as its administrator: %+v", c.action, c.tenant, recs[0])
		}
	}
}

// TestSupportChangesAndSecrets: where the tenant allows changes, a support
// session changes what its user could, each change recorded in the
// tenant's log and the operator's; secrets stay out of reach; where the
// tenant turned support access off, nothing opens.
func TestSupportChangesAndSecrets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	staff := e.client(t).signIn("privileged", adminEmail)
	e.setSupport(t, e.acme.ID, func(in *kanri.SettingsInput) { in.SupportChanges = true })
	e.openSupport(t, staff, "Ticket 12: deactivate bob for them")

	staff.get("/t/" + e.acme.ID + "/users/" + e.acmeBob.ID + "/edit")
	bob, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID)
	resp, _ := staff.post("/t/"+e.acme.ID+"/users/"+e.acmeBob.ID+"/deactivate", url.Values{"etag": {bob.ETag}, "state": {bob.State()}})
	wantStatus(t, "a change in a writable support session", resp, http.StatusSeeOther)
	if bob, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID); bob.IsActive {
		t.Fatal("the writable support session did not deactivate bob")
	}
	for _, tenantID := range []string{e.acme.ID, kanri.PrivilegedTenantID} {
		recs := e.supportRecords(t, tenantID, "user.deactivate")
		if len(recs) != 1 || recs[0].Metadata.Support == nil || recs[0].Metadata.Support.TenantID != e.acme.ID ||
			recs[0].Metadata.Support.Reason != "Ticket 12: deactivate bob for them" {
			t.Errorf("user.deactivate in %s: %+v, want one record saying it was support in acme", tenantID, recs)
		}
	}
	for _, c := range []struct{ method, path string }{
		{http.MethodPost, "/t/" + e.acme.ID + "/users/" + e.acmeBob.ID + "/password"},
		{http.MethodPost, "/t/" + e.acme.ID + "/users/" + e.acmeBob.ID + "/2fa/reset"},
		{http.MethodGet, "/t/" + e.acme.ID + "/api-keys/new"},
		{http.MethodPost, "/t/" + e.acme.ID + "/api-keys"},
		{http.MethodPost, "/account/password"},
		{http.MethodPost, "/account/passkeys/options"},
	} {
		var resp *http.Response
		if c.method == http.MethodGet {
			resp, _ = staff.get(c.path)
		} else {
			resp, _ = staff.post(c.path, url.Values{"password": {"Another-horse-7"}, "name": {"k"}})
		}
		wantStatus(t, c.method+" "+c.path+" in a writable support session", resp, http.StatusForbidden)
	}
	staff.post("/logout", nil) // signing out of a support session ends it, not the staff member's own
	if resp, _ := staff.get("/tenants"); resp.StatusCode != http.StatusOK {
		t.Errorf("after signing out of the support session, the staff member's own pages answer %d", resp.StatusCode)
	}
	if _, page := staff.get("/t/" + e.acme.ID + "/audit"); !strings.Contains(page, `data-testid="audit-support"`) || !strings.Contains(page, "Ticket 12: deactivate bob for them") {
		t.Error("acme's audit page does not say which records support made, and why")
	}

	e.setSupport(t, e.acme.ID, func(in *kanri.SettingsInput) { in.SupportAccess = kanri.SupportOff })
	adminID := e.userIDOf(t, e.acme.ID, "admin")
	path := "/t/" + e.acme.ID + "/users/" + adminID + "/support"
	if _, page := staff.get(path); !strings.Contains(page, `data-testid="support-off"`) || strings.Contains(page, `data-testid="support-form"`) {
		t.Error("the support page of a tenant that turned it off does not say so")
	}
	resp, _ = staff.post(path, url.Values{"reason": {"anyway"}})
	wantStatus(t, "support access to a tenant that turned it off", resp, http.StatusForbidden)
	if n := len(e.supportSessions(t, e.acme.ID)); n != 0 {
		t.Errorf("%d support sessions in a tenant that turned support access off", n)
	}
}

// TestSupportSessionExpires: past its time, the next request of a support
// session ends it and gives the staff member their own session back.
func TestSupportSessionExpires(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	staff := e.client(t).signIn("privileged", adminEmail)
	e.openSupport(t, staff, "Ticket 99")
	// In use all along: the cookie's idle timeout does not end it first.
	e.clock.Advance(support.Duration / 2)
	if resp, _ := staff.get("/t/" + e.acme.ID + "/users"); resp.StatusCode != http.StatusOK {
		t.Fatalf("a request halfway through the support session: status %d", resp.StatusCode)
	}
	e.clock.Advance(support.Duration/2 + time.Second)
	resp, _ := staff.get("/t/" + e.acme.ID + "/users")
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("a request of an expired support session: status %d", resp.StatusCode)
	}
	if page := staff.landing(resp); strings.Contains(page, `data-testid="support-banner"`) || !strings.Contains(page, "support session has run out") {
		t.Error("the staff member is not told that the support session ran out")
	}
	if recs := e.supportRecords(t, kanri.PrivilegedTenantID, support.ActionEnd); len(recs) != 1 || recs[0].Details.Reason != support.EndedExpired {
		t.Errorf("the operator's log has %+v, want one end by expiry", recs)
	}
}

// TestSupportReadOnlyRefusesEveryChange walks every state-changing route
// of the console: a read-only support session is refused each (403), but
// the few that end or shape the session itself.
func TestSupportReadOnlyRefusesEveryChange(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	staff := e.client(t).signIn("privileged", adminEmail)
	e.openSupport(t, staff, "Ticket 1: walking every route")
	allowed := map[string]bool{"/support/end": true, "/logout": true, "/lang": true, "/theme": true}
	checked := 0
	for _, r := range e.routes() {
		if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Name == "public" || strings.HasPrefix(r.Name, "api:") || allowed[r.Path] {
			continue
		}
		if !strings.HasPrefix(r.Path, "/t/:tenant") && !strings.HasPrefix(r.Path, "/account") {
			continue // the operator's pages do not exist for a tenant's user
		}
		path := concrete(r.Path, e, e.acme.ID)
		resp, _ := staff.send(r.Method, path, strings.NewReader(""), http.Header{"Tus-Resumable": {"1.0.0"}, "Content-Type": {"application/x-www-form-urlencoded"}})
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s %s in a read-only support session: status %d, want 403", r.Method, path, resp.StatusCode)
		}
		checked++
	}
	if checked < 50 {
		t.Errorf("checked only %d routes", checked)
	}
	if resp, _ := staff.get("/t/" + e.acme.ID + "/users"); resp.StatusCode != http.StatusOK {
		t.Errorf("after the walk, the support session's pages answer %d", resp.StatusCode)
	}
}

// TestSupportApproval: in a tenant that approves each support session,
// the staff member's reason becomes a request; only the tenant's own
// administrator approves or denies it; an approved request opens one
// session, within the hour, with its reason; every step is in both logs.
func TestSupportApproval(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setSupport(t, e.acme.ID, func(in *kanri.SettingsInput) { in.SupportAccess = kanri.SupportApproval })
	staff := e.client(t).signIn("privileged", adminEmail)
	admin := e.client(t).signIn("acme", "admin")
	bobPath := "/t/" + e.acme.ID + "/users/" + e.acmeBob.ID + "/support"
	requestsPath := "/t/" + e.acme.ID + "/support-requests"
	requests := func() []*kanri.SupportRequest {
		rs, _, err := store.Of[kanri.SupportRequest](e.st.Tenant(e.acme.ID), kanri.ContainerAuth, kanri.TypeSupportRequest).Query(context.Background(), docstore.Query{OrderBy: "requestedAt", Desc: true, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}

	if _, page := staff.get(bobPath); !strings.Contains(page, `data-testid="support-needs-approval"`) || !strings.Contains(page, `data-testid="support-ask"`) {
		t.Fatal("the support page of a tenant that approves each session does not offer to ask")
	}
	resp, page := staff.post(bobPath, url.Values{"reason": {""}})
	wantStatus(t, "a request without a reason", resp, http.StatusUnprocessableEntity)
	if !strings.Contains(page, `data-testid="field-error-reason"`) || len(requests()) != 0 {
		t.Error("a request without a reason is not refused on its field, or was recorded")
	}
	resp, _ = staff.post(bobPath, url.Values{"reason": {"Ticket 77: bob cannot upload"}})
	if page := staff.landing(resp); !strings.Contains(page, `data-testid="support-pending"`) {
		t.Fatal("after asking, the support page does not say the request waits")
	}
	rs := requests()
	if len(rs) != 1 || rs[0].Status != kanri.SupportPending || rs[0].Reason != "Ticket 77: bob cannot upload" {
		t.Fatalf("requests after asking: %+v", rs)
	}
	req := rs[0]
	resp, _ = staff.post(bobPath, url.Values{"request": {req.ID}})
	if page := staff.landing(resp); !strings.Contains(page, "still waiting") || len(e.supportSessions(t, e.acme.ID)) != 0 {
		t.Fatal("a pending request opened a session, or its refusal does not say why")
	}
	// The staff member cannot approve their own request.
	staff.get(requestsPath)
	if _, page := staff.get(requestsPath); strings.Contains(page, `data-testid="support-approve"`) {
		t.Error("the operator's staff are offered to approve their own request")
	}
	resp, _ = staff.post(requestsPath+"/"+req.ID+"/approve", url.Values{"etag": {req.ETag}})
	wantStatus(t, "the staff member approving their own request", resp, http.StatusForbidden)

	_, page = admin.get(requestsPath)
	if !strings.Contains(page, `data-testid="support-approve"`) || !strings.Contains(page, "Ticket 77: bob cannot upload") {
		t.Fatal("acme's administrator is not offered to approve the request")
	}
	resp, _ = admin.post(requestsPath+"/"+req.ID+"/approve", url.Values{"etag": {formETag(page)}})
	wantStatus(t, "approving", resp, http.StatusSeeOther)
	resp, _ = admin.post(requestsPath+"/"+req.ID+"/approve", url.Values{"etag": {""}})
	if page := admin.landing(resp); !strings.Contains(page, "already approved or denied") {
		t.Error("approving an approved request again is not refused with a reason")
	}

	_, page = staff.get(bobPath)
	if !strings.Contains(page, `data-testid="support-approved"`) {
		t.Fatal("the approved request is not shown to the staff member")
	}
	resp, _ = staff.post(bobPath, url.Values{"request": {req.ID}})
	if page := staff.landing(resp); !strings.Contains(page, `data-testid="support-banner"`) {
		t.Fatal("the approved request did not open a support session")
	}
	if ss := e.supportSessions(t, e.acme.ID); len(ss) != 1 || ss[0].UserID != e.acmeBob.ID || ss[0].Support.Reason != "Ticket 77: bob cannot upload" {
		t.Fatalf("support sessions: %+v", ss)
	}
	staff.post("/support/end", nil)
	staff.get(bobPath)
	resp, _ = staff.post(bobPath, url.Values{"request": {req.ID}})
	if page := staff.landing(resp); strings.Contains(page, `data-testid="support-banner"`) || len(e.supportSessions(t, e.acme.ID)) != 0 {
		t.Fatal("an approved request opened a second session")
	}

	// Denied, approved then withdrawn, and approved too long ago: none
	// opens.
	for _, c := range []struct {
		what    string
		decide  string
		advance time.Duration
	}{{"denied", "deny", 0}, {"withdrawn", "approve", 0}, {"approved over an hour ago", "approve", support.ApprovalValid + time.Minute}} {
		e.clock.Advance(time.Second) // the newest request is the one asked now
		staff.get(bobPath)
		staff.post(bobPath, url.Values{"reason": {"Ticket 78: " + c.what}})
		req := requests()[0]
		admin.get(requestsPath)
		if resp, _ := admin.post(requestsPath+"/"+req.ID+"/"+c.decide, url.Values{"etag": {req.ETag}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: deciding answered %d", c.what, resp.StatusCode)
		}
		if c.what == "withdrawn" {
			_, page := admin.get(requestsPath)
			if resp, _ := admin.post(requestsPath+"/"+req.ID+"/deny", url.Values{"etag": {formETag(page)}}); resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("withdrawing an approval answered %d", resp.StatusCode)
			}
		}
		if c.advance > 0 {
			e.clock.Advance(c.advance)
			staff = e.client(t).signIn("privileged", adminEmail) // the cookie idled out meanwhile
		}
		staff.get(bobPath)
		resp, _ := staff.post(bobPath, url.Values{"request": {req.ID}})
		staff.landing(resp)
		if n := len(e.supportSessions(t, e.acme.ID)); n != 0 {
			t.Errorf("a request %s opened %d sessions", c.what, n)
		}
	}
	if _, page := staff.get(bobPath); !strings.Contains(page, `data-testid="support-form"`) {
		t.Error("after a refusal, the staff member cannot ask again")
	}
	for _, c := range []struct {
		action string
		n      int
	}{{support.ActionRequest, 4}, {support.ActionApprove, 3}, {support.ActionDeny, 2}, {support.ActionStart, 1}} {
		for _, tenantID := range []string{e.acme.ID, kanri.PrivilegedTenantID} {
			if got := len(e.supportRecords(t, tenantID, c.action)); got != c.n {
				t.Errorf("%s records in %s: %d, want %d", c.action, tenantID, got, c.n)
			}
		}
	}
}

// TestSupportSessionEndsWhenItNoLongerHolds: a support session ends, and
// says so, when the tenant turns support access off, when its user is
// deactivated (the staff member gets their own session back), when the
// staff member is deactivated (signed out), and when its cookie idles
// out; each end is recorded. A tenant that takes back the right to change
// reaches a session already open.
func TestSupportSessionEndsWhenItNoLongerHolds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := system()
	users := "/t/" + e.acme.ID + "/users"
	ends := func() int { return len(e.supportRecords(t, kanri.PrivilegedTenantID, support.ActionEnd)) }

	staff := e.client(t).signIn("privileged", adminEmail)
	e.setSupport(t, e.acme.ID, func(in *kanri.SettingsInput) { in.SupportChanges = true })
	e.openSupport(t, staff, "Ticket 5")
	e.setSupport(t, e.acme.ID, func(in *kanri.SettingsInput) { in.SupportChanges = false })
	staff.get(users + "/" + e.acmeBob.ID + "/edit")
	bob, _ := e.users.Get(ctx, e.acme.ID, e.acmeBob.ID)
	resp, _ := staff.post(users+"/"+e.acmeBob.ID+"/deactivate", url.Values{"etag": {bob.ETag}, "state": {bob.State()}})
	wantStatus(t, "a change after the tenant took the right to change back", resp, http.StatusForbidden)
	e.setSupport(t, e.acme.ID, func(in *kanri.SettingsInput) { in.SupportAccess = kanri.SupportOff })
	resp, _ = staff.get(users)
	if page := staff.landing(resp); !strings.Contains(page, "changed its support access settings") || strings.Contains(page, `data-testid="support-banner"`) {
		t.Error("turning support access off does not end the open session, or does not say so")
	}
	e.setSupport(t, e.acme.ID, func(in *kanri.SettingsInput) { in.SupportAccess = kanri.SupportOn })

	e.openSupportAs(t, staff, e.acmeBob.ID, "Ticket 6")
	if _, err := e.users.SetActive(ctx, e.acme.ID, e.acmeBob.ID, kanri.Seen{}, false); err != nil {
		t.Fatal(err)
	}
	resp, _ = staff.get(users)
	if page := staff.landing(resp); !strings.Contains(page, "can no longer sign in") {
		t.Error("the deactivation of its user does not end the support session, or does not say so")
	}
	if resp, _ := staff.get("/tenants"); resp.StatusCode != http.StatusOK {
		t.Errorf("after its user's deactivation, the staff member's own pages answer %d", resp.StatusCode)
	}
	if _, err := e.users.SetActive(ctx, e.acme.ID, e.acmeBob.ID, kanri.Seen{}, true); err != nil {
		t.Fatal(err)
	}

	// A second global administrator, deactivated during their session.
	op := e.globalAdmin(t, "olivia")
	e.openSupport(t, op, "Ticket 7")
	opUser, _ := e.users.Get(ctx, kanri.PrivilegedTenantID, e.userIDOf(t, kanri.PrivilegedTenantID, "olivia"))
	if _, err := e.users.SetActive(ctx, kanri.PrivilegedTenantID, opUser.ID, kanri.Seen{}, false); err != nil {
		t.Fatal(err)
	}
	if resp, _ := op.get(users); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Errorf("a deactivated staff member's support session answers %d to %q, want the sign-in page", resp.StatusCode, resp.Header.Get("Location"))
	}

	// Idle until the cookie expires: the end is recorded when it is next used.
	before := ends()
	e.openSupport(t, staff, "Ticket 8")
	e.clock.Advance(support.Duration + time.Minute)
	staff.get(users)
	if got := ends(); got != before+1 {
		t.Errorf("support.end records after the cookie idled out: %d, want %d", got, before+1)
	}
	if got := ends(); got != 4 {
		t.Errorf("support.end records in the operator's log: %d, want 4 (turned off, user deactivated, staff deactivated, idle)", got)
	}
}

// TestSupportCopiesOnlyForGlobalAdmins: the operator's log holds what
// support did in other tenants; users of the operator's tenant who are
// not global administrators do not see those records.
func TestSupportCopiesOnlyForGlobalAdmins(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	staff := e.client(t).signIn("privileged", adminEmail)
	e.openSupport(t, staff, "Ticket 31337: secret customer matter")
	staff.post("/support/end", nil)
	viewer := e.operatorViewer(t, "pat")
	path := "/t/" + kanri.PrivilegedTenantID + "/audit"
	if _, page := viewer.get(path); strings.Contains(page, "Ticket 31337") || strings.Contains(page, "acme") {
		t.Error("a viewer of the operator's tenant reads what support did in acme")
	}
	if _, page := viewer.get(path + ".csv"); strings.Contains(page, "Ticket 31337") {
		t.Error("a viewer of the operator's tenant exports what support did in acme")
	}
	if _, page := staff.get(path); !strings.Contains(page, "Ticket 31337") {
		t.Error("the global administrator does not read what support did in acme")
	}
}

// operatorUser creates a user of the operator's tenant holding roleName
// of every service, and signs them in.
func (e *env) operatorUser(t *testing.T, username, roleName string) *client {
	t.Helper()
	ctx := system()
	priv, err := e.tenants.Get(ctx, kanri.PrivilegedTenantID)
	if err != nil {
		t.Fatal(err)
	}
	u, err := e.users.Create(ctx, priv.ID, kanri.UserInput{Username: username, Email: username + "@operator.test", DisplayName: username, Password: password})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range features.Roles().Services() {
		if _, _, err := e.roles.Assign(ctx, role.Grant{Tenant: priv, UserID: u.ID, ServiceID: s.ID, RoleName: roleName}); err != nil {
			t.Fatal(err)
		}
	}
	return e.client(t).signIn("privileged", username)
}

// globalAdmin is another global administrator of the operator's.
func (e *env) globalAdmin(t *testing.T, username string) *client {
	return e.operatorUser(t, username, role.GlobalAdmin)
}

// operatorViewer is a viewer of the operator's tenant, no global
// administrator.
func (e *env) operatorViewer(t *testing.T, username string) *client {
	return e.operatorUser(t, username, role.Viewer)
}

// TestSupportCopiesErased: the erasure of a person reaches the operator's
// copies of what support did as them or to them, which stay marked as
// the tenant's.
func TestSupportCopiesErased(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setSupport(t, e.acme.ID, func(in *kanri.SettingsInput) { in.SupportChanges = true })
	staff := e.client(t).signIn("privileged", adminEmail)
	e.openSupportAs(t, staff, e.acmeBob.ID, "Ticket 9: bob's profile")
	staff.post("/support/end", nil)
	copies := func() []*kanri.AuditLog {
		recs, _, err := e.st.Tenant(kanri.PrivilegedTenantID).AuditLogs().Query(context.Background(), docstore.Query{
			Where: []docstore.Filter{docstore.Eq("metadata.support.tenantId", e.acme.ID)}, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	if n := len(copies()); n < 2 {
		t.Fatalf("%d records of support in acme in the operator's log, want its start and end at least", n)
	}
	admin := e.client(t).signIn("acme", "admin")
	bobPath := "/t/" + e.acme.ID + "/users/" + e.acmeBob.ID
	admin.get(bobPath + "/erase")
	if resp, _ := admin.post(bobPath+"/erase", url.Values{"confirm": {"bob"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("erasing bob: status %d", resp.StatusCode)
	}
	got := copies()
	if len(got) < 2 {
		t.Fatalf("after the erasure, %d copies are still marked as acme's, want them all", len(got))
	}
	for _, r := range got {
		if b, _ := json.Marshal(r); strings.Contains(string(b), `"bob"`) || strings.Contains(string(b), "bob@") {
			t.Errorf("a copy in the operator's log still names bob: %s", b)
		}
	}
}

// setSupport changes a tenant's settings as one of its own users would:
// support access is the tenant's decision alone (tenant.OwnDecision).
func (e *env) setSupport(t *testing.T, tenantID string, set func(*kanri.SettingsInput)) {
	t.Helper()
	in := kanri.SettingsInputOf(e.fresh(t, tenantID))
	set(&in)
	own := audit.WithActor(context.Background(), audit.Actor{UserID: "user_own", TenantID: tenantID})
	if _, err := e.tenants.UpdateSettings(own, tenantID, "", nil, in); err != nil {
		t.Fatal(err)
	}
}

// TestSupportRulesAreTheTenants: the operator's staff cannot change a
// tenant's support access (its fields are disabled for them, and a forged
// form changes nothing), a support session cannot approve a request, and
// a session opened without approval ends when the tenant starts to ask
// for it.
func TestSupportRulesAreTheTenants(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	staff := e.client(t).signIn("privileged", adminEmail)
	path := "/t/" + e.acme.ID + "/settings"
	_, page := staff.get(path)
	if !strings.Contains(page, `data-testid="settings-support-own"`) {
		t.Error("the staff's settings page of acme does not say support access is acme's decision")
	}
	form := settingsForm(e.fresh(t, e.acme.ID), func(in *kanri.SettingsInput) { in.SupportChanges = true; in.Timezone = "UTC" })
	if resp, _ := staff.post(path, form); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the staff's save of acme's settings answered %d", resp.StatusCode)
	}
	if got := e.fresh(t, e.acme.ID); got.SupportWritable() || got.Settings.Timezone != "UTC" {
		t.Errorf("the staff's save: writable support %v, zone %q; want support unchanged and the zone saved", got.SupportWritable(), got.Settings.Timezone)
	}
	in := kanri.SettingsInputOf(e.fresh(t, e.acme.ID))
	in.SupportAccess = kanri.SupportOff
	if _, err := e.tenants.UpdateSettings(system(), e.acme.ID, "", nil, in); !kanri.IsCode(err, kanri.EFORBIDDEN) {
		t.Errorf("the operator turning acme's support access off: %v, want EFORBIDDEN", err)
	}

	e.setSupport(t, e.acme.ID, func(in *kanri.SettingsInput) { in.SupportChanges = true })
	e.openSupport(t, staff, "Ticket 10")
	e.setSupport(t, e.acme.ID, func(in *kanri.SettingsInput) { in.SupportAccess = kanri.SupportApproval })
	resp, _ := staff.get("/t/" + e.acme.ID + "/users")
	if page := staff.landing(resp); strings.Contains(page, `data-testid="support-banner"`) {
		t.Error("a session opened without approval outlives the tenant's asking for it")
	}

	// A session opened by an approved request cannot approve another.
	admin := e.client(t).signIn("acme", "admin")
	bobPath := "/t/" + e.acme.ID + "/users/" + e.acmeBob.ID + "/support"
	adminPath := "/t/" + e.acme.ID + "/users/" + e.userIDOf(t, e.acme.ID, "admin") + "/support"
	requestsPath := "/t/" + e.acme.ID + "/support-requests"
	for _, p := range []string{adminPath, bobPath} {
		e.clock.Advance(time.Second)
		staff.get(p)
		staff.post(p, url.Values{"reason": {"Ticket 11"}})
	}
	rs, _ := e.support.Requests(context.Background(), e.acme.ID)
	if len(rs) != 2 {
		t.Fatalf("%d requests, want 2", len(rs))
	}
	asAdmin, asBob := rs[1], rs[0]
	admin.get(requestsPath)
	admin.post(requestsPath+"/"+asAdmin.ID+"/approve", url.Values{"etag": {asAdmin.ETag}})
	staff.get(adminPath)
	resp, _ = staff.post(adminPath, url.Values{"request": {asAdmin.ID}})
	if page := staff.landing(resp); !strings.Contains(page, `data-testid="support-banner"`) {
		t.Fatal("the approved request did not open a session")
	}
	if _, page := staff.get(requestsPath); strings.Contains(page, `data-testid="support-approve"`) {
		t.Error("a support session is offered to approve requests")
	}
	resp, _ = staff.post(requestsPath+"/"+asBob.ID+"/approve", url.Values{"etag": {asBob.ETag}})
	wantStatus(t, "a support session approving a request", resp, http.StatusForbidden)
	if rs, _ := e.support.Requests(context.Background(), e.acme.ID); rs[0].Status != kanri.SupportPending {
		t.Errorf("the request approved in a support session is %s", rs[0].Status)
	}
}

// TestSupportApprovalOpensOneSession: two tabs that open a session with
// one approved request at once open one session between them.
func TestSupportApprovalOpensOneSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setSupport(t, e.acme.ID, func(in *kanri.SettingsInput) { in.SupportAccess = kanri.SupportApproval })
	staffID := e.userIDOf(t, kanri.PrivilegedTenantID, adminEmail)
	staff := support.Staff{TenantID: kanri.PrivilegedTenantID, UserID: staffID, Name: "Admin"}
	asStaff := audit.WithActor(context.Background(), audit.Actor{UserID: staffID, TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true})
	req, err := e.support.Ask(asStaff, staff, e.acme.ID, e.acmeBob.ID, "Ticket 13")
	if err != nil {
		t.Fatal(err)
	}
	asAdmin := audit.WithActor(context.Background(), audit.Actor{UserID: "user_admin", UserName: "admin", TenantID: e.acme.ID})
	if _, err := e.support.Decide(asAdmin, e.acme.ID, req.ID, "", true); err != nil {
		t.Fatal(err)
	}
	const tabs = 8
	errs := make(chan error, tabs)
	for i := range tabs {
		go func() {
			_, err := e.support.Start(asStaff, staff, support.Request{TenantID: e.acme.ID, UserID: e.acmeBob.ID, RequestID: req.ID, Token: fmt.Sprintf("tab-%d", i)})
			errs <- err
		}()
	}
	opened := 0
	for range tabs {
		switch err := <-errs; {
		case err == nil:
			opened++
		case !kanri.IsCode(err, kanri.ECONFLICT):
			t.Errorf("a tab that lost: %v, want ECONFLICT", err)
		}
	}
	if got := len(e.supportSessions(t, e.acme.ID)); opened != 1 || got != 1 {
		t.Errorf("%d tabs opened a session and %d sessions are recorded, want 1 and 1", opened, got)
	}
}
