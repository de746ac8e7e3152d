package web_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/user"

	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/emaildomain"
	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/sso"
	"github.com/kanri/kanri/internal/store"
	webscim "github.com/kanri/kanri/web/scim"
)

// persona is a kind of signed-in user of the matrix.
type persona struct {
	name         string
	tenant, user string // how they sign in
	home         string // their tenant id
	perms        role.Set
	operator     bool
}

var seq atomic.Int64

// TestPermissionMatrix walks every route of the console as every kind of
// user and checks that each is allowed exactly what its roles permit, in its
// own tenant only. A route added without declaring what it needs fails here,
// and so does any answer in the 5xx range, whoever asks.
func TestPermissionMatrix(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID})
	admins, _ := e.roles.ForUser(ctx, e.acme.ID, e.acmeAdmin.ID)
	for _, name := range []string{"vera", "nora"} {
		u, err := e.users.Create(ctx, e.acme.ID, kanri.UserInput{Username: name, Email: name + "@acme.test", DisplayName: name, Password: password})
		if err != nil {
			t.Fatal(err)
		}
		if name == "vera" {
			for _, s := range features.Roles().Services() {
				if _, _, err := e.roles.Assign(ctx, role.Grant{Tenant: e.acme, UserID: u.ID, ServiceID: s.ID, RoleName: role.Viewer}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// An operator's administrator who is not a global administrator.
	priv, _ := e.tenants.Get(ctx, kanri.PrivilegedTenantID)
	op, err := e.users.Create(ctx, priv.ID, kanri.UserInput{Username: "opadmin", Email: "op@example.com", DisplayName: "Op", Password: password})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range features.Roles().Services() {
		if _, _, err := e.roles.Assign(ctx, role.Grant{Tenant: priv, UserID: op.ID, ServiceID: s.ID, RoleName: role.Admin}); err != nil {
			t.Fatal(err)
		}
	}
	opRoles, _ := e.roles.ForUser(ctx, priv.ID, op.ID)
	viewerPerms := role.Set{}
	for _, s := range features.Roles().Services() {
		d, _ := features.Roles().Find(s.ID, role.Viewer)
		for _, p := range d.Permissions {
			viewerPerms[p] = true
		}
	}
	all := role.Set{}
	for _, p := range features.Roles().AllPermissions() {
		all[p] = true
	}
	personas := []persona{
		{name: "global admin", tenant: "privileged", user: adminEmail, home: kanri.PrivilegedTenantID, perms: all, operator: true},
		{name: "tenant admin", tenant: "acme", user: "admin", home: e.acme.ID, perms: features.Roles().Effective(admins)},
		{name: "viewer", tenant: "acme", user: "vera", home: e.acme.ID, perms: viewerPerms},
		{name: "no role", tenant: "acme", user: "nora", home: e.acme.ID, perms: role.Set{}},
		{name: "other tenant's admin", tenant: "globex", user: "admin", home: e.globex.ID, perms: all},
		{name: "operator admin, not global", tenant: "privileged", user: "opadmin", home: kanri.PrivilegedTenantID, perms: features.Roles().Effective(opRoles)},
	}
	clients := map[string]*client{}
	for _, p := range personas {
		clients[p.name] = e.client(t).signIn(p.tenant, p.user)
	}

	// staffRefused are the routes of a tenant that the operator's staff
	// may not use, whatever their permissions, and why.
	staffRefused := map[string]string{
		"POST /t/:tenant/support-requests/:id/approve": "the operator's staff never approve their own support requests (tenant.OwnDecision)",
		"POST /t/:tenant/support-requests/:id/deny":    "the operator's staff never decide their own support requests (tenant.OwnDecision)",
	}
	checked := 0
	for _, r := range e.routes() {
		key := r.Method + " " + r.Path
		switch {
		case r.Name == "public" || strings.HasPrefix(r.Name, "api:") || r.Name == webscim.RouteName: // the API and SCIM have their own tests
			continue
		case r.Name == "signed-in":
		case strings.HasPrefix(r.Name, "perm:"):
			if !slices.Contains(features.Roles().AllPermissions(), strings.TrimPrefix(r.Name, "perm:")) {
				t.Errorf("%s declares an unknown permission %q", key, r.Name)
			}
		default:
			t.Errorf("%s declares no permission (route name %q): declare one in routes.go", key, r.Name)
			continue
		}
		perm := strings.TrimPrefix(r.Name, "perm:")
		for _, p := range personas {
			path, form := e.target(t, r.Path, e.userIDOf(t, p.home, p.user))
			var want string
			switch {
			case r.Name == "signed-in":
				want = "allowed"
			case strings.HasPrefix(r.Path, "/t/:tenant"):
				switch {
				case p.home != e.acme.ID && !p.operator:
					want = "not found"
				case staffRefused[key] != "" && p.home != e.acme.ID:
					want = "forbidden"
				case p.perms.Has(perm):
					want = "allowed"
				default:
					want = "forbidden"
				}
			default: // the operator's pages
				switch {
				case !p.operator:
					want = "not found"
				case p.perms.Has(perm):
					want = "allowed"
				default:
					want = "forbidden"
				}
			}
			c := clients[p.name]
			var resp *http.Response
			switch r.Method {
			case http.MethodGet:
				resp, _ = c.get(path)
			case http.MethodPost:
				resp, _ = c.post(path, form)
			default: // the tus routes of uploads
				resp, _ = c.send(r.Method, path, nil, http.Header{"Tus-Resumable": {"1.0.0"}})
			}
			got := "allowed"
			switch {
			case resp.StatusCode == http.StatusForbidden:
				got = "forbidden"
			case resp.StatusCode == http.StatusNotFound:
				got = "not found"
			case resp.StatusCode >= 500: // a failure, never a permission
				got = "server error"
			}
			if got != want {
				t.Errorf("%s as %s: got %s (%d), want %s", key, p.name, got, resp.StatusCode, want)
			}
			checked++
			if r.Path == "/logout" {
				clients[p.name] = e.client(t).signIn(p.tenant, p.user)
			}
		}
	}
	t.Logf("checked %d route × persona pairs", checked)
	if checked < 100 {
		t.Errorf("checked only %d pairs", checked)
	}
}

// target returns a concrete path for a route, with fresh documents to act
// on so that one check's action (a delete, say) cannot change the next
// check's outcome, and a plausible form.
func (e *env) target(t *testing.T, path, actorID string) (string, url.Values) {
	t.Helper()
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID})
	n := seq.Add(1)
	form := url.Values{
		"displayName": {"Changed"}, "email": {fmt.Sprintf("m%d@acme.test", n)}, "plan": {"free"}, "maxUsers": {"50"},
		"username": {fmt.Sprintf("m%d", n)}, "password": {"Another-pass-9"}, "name": {fmt.Sprintf("mx%d", n)},
		"service": {kanri.FileServiceID}, "role": {"viewer"},
	}
	svc := kanri.AuthServiceID
	if strings.HasPrefix(path, "/t/:tenant/services/:service") || strings.HasPrefix(path, "/services/:id") {
		// A fresh external service (assigned to acme) for each check.
		s, err := e.catalog.Create(ctx, fmt.Sprintf("matrix-%d", n), kanri.ServiceInput{Name: "M"})
		if err != nil {
			t.Fatal(err)
		}
		svc = s.ID
		if strings.HasPrefix(path, "/t/") {
			if _, _, err := e.catalog.Assign(ctx, e.acme.ID, kanri.AssignmentInput{ServiceID: svc}); err != nil {
				t.Fatal(err)
			}
		}
	}
	upload := ""
	if strings.HasPrefix(path, "/t/:tenant/files") || strings.HasPrefix(path, "/t/:tenant/uploads") {
		e.assignFiles(t, e.acme.ID)
		if strings.Contains(path, ":upload") {
			up, err := e.files.CreateUpload(ctx, e.acme.ID, files.UploadInput{Name: fmt.Sprintf("u%d.txt", n), Size: 10})
			if err != nil {
				t.Fatal(err)
			}
			upload = up.ID
		}
	}
	var channel, message string
	if strings.HasPrefix(path, "/t/:tenant/channels") || strings.HasPrefix(path, "/t/:tenant/events") {
		// A public channel of the actor's with a message of theirs: what
		// their rights allow there, they may do.
		channel, message = e.matrixChannel(t, e.acme.ID, actorID, n)
		form.Set("userId", e.acmeBob.ID)
		form.Set("role", kanri.RoleMember)
		form.Set("content", "hello")
		form.Set("emoji", kanri.Reactions[0])
		form.Set("seq", "1")
		form.Set("name", fmt.Sprintf("mx%d", n))
	}
	if strings.HasPrefix(path, "/t/:tenant/settings") {
		// The settings as they are: a save changes nothing that the next
		// checks depend on (a flag left off would take pages away).
		form.Set("timezone", kanri.DefaultTimeZone)
		form.Set("twoFactorAuth", "on")
		form.Set("twoFactorEnforcement", kanri.TwoFactorOff)
		form.Set("apiAccess", "on")
		form.Set("advancedReporting", "on")
	}
	if path == "/account/avatar" {
		for _, tid := range []string{e.acme.ID, e.globex.ID, kanri.PrivilegedTenantID} {
			if _, err := e.files.StoreAvatar(ctx, tid, actorID, bytes.NewReader(pngImage(t, 8, 8))); err != nil {
				t.Fatal(err)
			}
		}
	}
	session := ""
	if strings.Contains(path, ":session") {
		// Another session of the actor's, in whichever tenant is theirs.
		session = fmt.Sprintf("session_m%d", n)
		for _, tid := range []string{e.acme.ID, e.globex.ID, kanri.PrivilegedTenantID} {
			r := &kanri.Session{Doc: kanri.Doc{ID: session}, UserID: actorID, TTL: 3600}
			if err := e.st.Tenant(tid).Sessions().Create(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
	}
	passkey := ""
	if strings.Contains(path, ":passkey") {
		// A passkey of the actor's, in whichever tenant is theirs.
		passkey = fmt.Sprintf("passkey_m%d", n)
		for _, tid := range []string{e.acme.ID, e.globex.ID, kanri.PrivilegedTenantID} {
			k := &kanri.Passkey{Doc: kanri.Doc{ID: passkey}, UserID: actorID, Name: "matrix"}
			if err := store.Of[kanri.Passkey](e.st.Tenant(tid), kanri.ContainerAuth, kanri.TypePasskey).Create(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
	}
	if strings.HasPrefix(path, "/t/:tenant/archives") {
		// The archives are the backup service's: assigned whatever route
		// the matrix checked before (routes come in no fixed order).
		e.assignBackups(t, e.acme.ID)
	}
	var job, run, restore string
	if strings.HasPrefix(path, "/t/:tenant/backups") {
		job, run, restore = e.matrixBackup(t, n)
		form.Set("schedule", "0 3 * * *")
		form.Set("parts", kanri.PartUsers)
		form.Set("retentionDays", "7")
	}
	imp := ""
	if strings.Contains(path, ":import") {
		imp = e.matrixImport(t)
	}
	if strings.Contains(path, ":day") {
		// A day's audit file of acme's (internal/webhook's name for it).
		if _, err := e.blobs.Put(ctx, "auditfiles/"+e.acme.ID+"/2026-11-27.ndjson", strings.NewReader("{}\n")); err != nil {
			t.Fatal(err)
		}
	}
	r := strings.NewReplacer(":day", "2026-11-27", ":import", imp, ":format", "csv", ":tenant", e.acme.ID, ":service", svc, ":role", "admin", ":upload", upload, ":msg", message, ":user", e.acmeBob.ID,
		":job", job, ":restore", restore, ":session", session, ":passkey", passkey)
	if strings.HasPrefix(path, "/t/:tenant/backups/history/:id") {
		path = strings.Replace(path, ":id", run, 1)
	}
	if strings.HasPrefix(path, "/t/:tenant/channels/:id") {
		path = strings.Replace(path, ":id", channel, 1)
	}
	if strings.HasPrefix(path, "/t/:tenant/archives/:id") {
		path = strings.Replace(path, ":id", e.matrixArchive(t, n, !strings.HasSuffix(path, "/rehydrate")), 1)
	}
	if strings.Contains(path, ":id") {
		id := ""
		if strings.HasPrefix(path, "/services/") {
			id = svc
		} else if strings.HasPrefix(path, "/t/:tenant/api-keys/") {
			k, _, err := e.keys.Create(ctx, e.acme.ID, apikey.Input{Name: fmt.Sprintf("k%d", n), Scopes: []string{"read"}})
			if err != nil {
				t.Fatal(err)
			}
			id = k.ID
		} else if strings.HasPrefix(path, "/t/:tenant/domains/") {
			d, err := e.domains.Add(ctx, e.acme.ID, fmt.Sprintf("m%d.example.com", n))
			if err != nil {
				t.Fatal(err)
			}
			e.dns.Set(emaildomain.RecordName(d.Domain), d.VerificationToken)
			id = d.ID
		} else if strings.HasPrefix(path, "/t/:tenant/files/folders/") {
			f, err := e.files.CreateFolder(ctx, e.acme.ID, "", fmt.Sprintf("folder%d", n))
			if err != nil {
				t.Fatal(err)
			}
			id = f.ID
		} else if strings.HasPrefix(path, "/t/:tenant/files/") {
			f := e.uploadFile(t, e.acme.ID, "", fmt.Sprintf("f%d.png", n), pngImage(t, 4, 3))
			if strings.HasSuffix(path, "/restore") || strings.HasSuffix(path, "/purge") {
				if _, err := e.files.TrashFile(ctx, e.acme.ID, f.ID, kanri.Seen{}); err != nil {
					t.Fatal(err)
				}
			}
			id = f.ID
		} else if strings.HasPrefix(path, "/t/:tenant/sso/providers/") {
			// A provider at an address the server refuses to reach: its
			// test answers at once, saying so. The earlier checks' go first
			// (a tenant has at most kanri.ProvidersMax).
			old, err := e.sso.Providers(ctx, e.acme.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range old {
				if err := e.sso.RemoveProvider(ctx, e.acme.ID, p.ID, ""); err != nil {
					t.Fatal(err)
				}
			}
			p, err := e.sso.AddProvider(ctx, e.acme.ID, sso.ProviderInput{Name: fmt.Sprintf("idp%d", n), Issuer: "https://127.0.0.1:1", ClientID: "c", ClientSecret: "s"})
			if err != nil {
				t.Fatal(err)
			}
			id = p.ID
			form.Set("issuer", p.Issuer)
			form.Set("clientId", "c")
		} else if strings.HasPrefix(path, "/t/:tenant/webhooks/") {
			var delivery string
			id, delivery = e.matrixWebhook(t, n)
			path = strings.Replace(path, ":delivery", delivery, 1)
			form.Set("url", fmt.Sprintf("https://hooks%d.example.com/", n))
			form.Set("events", "*")
		} else if strings.HasPrefix(path, "/t/:tenant/sso/scim/groups/") {
			g := &kanri.SCIMGroup{Doc: kanri.Doc{ID: fmt.Sprintf("group_m%d", n)}, DisplayName: fmt.Sprintf("g%d", n)}
			if err := store.Of[kanri.SCIMGroup](e.st.Tenant(e.acme.ID), kanri.ContainerAuth, kanri.TypeSCIMGroup).Create(ctx, g); err != nil {
				t.Fatal(err)
			}
			id = g.ID
			form.Set("etag", g.ETag)
		} else if strings.HasPrefix(path, "/t/:tenant/support-requests/") {
			req := &kanri.SupportRequest{
				Doc: kanri.Doc{ID: fmt.Sprintf("supreq_m%d", n)}, UserID: e.acmeBob.ID, Username: "bob",
				StaffTenantID: kanri.PrivilegedTenantID, StaffUserID: "user_staff", StaffName: "Staff", Reason: "matrix",
				Status: kanri.SupportPending, RequestedAt: kanri.NewTime(time.Now()), TTL: kanri.SupportRequestTTL,
			}
			if err := store.Of[kanri.SupportRequest](e.st.Tenant(e.acme.ID), kanri.ContainerAuth, kanri.TypeSupportRequest).Create(ctx, req); err != nil {
				t.Fatal(err)
			}
			id = req.ID
		} else if strings.HasPrefix(path, "/tenants/") {
			ten, err := e.tenants.Create(ctx, kanri.TenantInput{Name: fmt.Sprintf("matrix%d", n), DisplayName: "M", Plan: kanri.PlanFree, MaxUsers: 5})
			if err != nil {
				t.Fatal(err)
			}
			id = ten.ID
		} else {
			u, err := e.users.Create(ctx, e.acme.ID, kanri.UserInput{Username: fmt.Sprintf("target%d", n), Email: fmt.Sprintf("t%d@acme.test", n), DisplayName: "T", Password: password})
			if err != nil {
				t.Fatal(err)
			}
			id = u.ID
			if strings.Contains(path, ":identity") {
				l := &kanri.Identity{Doc: kanri.Doc{ID: kanri.IdentityID("idp_m", fmt.Sprint(n))}, UserID: id, ProviderID: "idp_m", Subject: fmt.Sprint(n)}
				if err := store.Of[kanri.Identity](e.st.Tenant(e.acme.ID), kanri.ContainerAuth, kanri.TypeIdentity).Create(ctx, l); err != nil {
					t.Fatal(err)
				}
				path = strings.Replace(path, ":identity", l.ID, 1)
			}
			if strings.HasSuffix(path, "/avatar") {
				if _, err := e.files.StoreAvatar(ctx, e.acme.ID, id, bytes.NewReader(pngImage(t, 8, 8))); err != nil {
					t.Fatal(err)
				}
			}
		}
		path = strings.ReplaceAll(path, ":id", id)
	}
	if strings.HasPrefix(path, "/switch") {
		path += "?tenant=" + e.acme.ID
	}
	return r.Replace(path), form
}

func TestViewerSeesListsButNoActions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID})
	vera, _ := e.users.Create(ctx, e.acme.ID, kanri.UserInput{Username: "vera", Email: "vera@acme.test", DisplayName: "Vera", Password: password})
	for _, s := range features.Roles().Services() {
		e.roles.Assign(ctx, role.Grant{Tenant: e.acme, UserID: vera.ID, ServiceID: s.ID, RoleName: role.Viewer})
	}
	c := e.client(t).signIn("acme", "vera")
	resp, body := c.get("/t/" + e.acme.ID + "/users")
	wantStatus(t, "viewer's user list", resp, http.StatusOK)
	if !strings.Contains(body, `data-testid="user-row-bob"`) {
		t.Error("the viewer does not see the users")
	}
	for _, hidden := range []string{`data-testid="users-new"`, `data-testid="user-edit-`, `data-testid="nav-tenants"`} {
		if strings.Contains(body, hidden) {
			t.Errorf("the viewer sees %s", hidden)
		}
	}
	_, body = c.get("/t/" + e.acme.ID + "/users/" + e.acmeBob.ID + "/roles")
	if strings.Contains(body, `data-testid="role-assign-`) || strings.Contains(body, `data-testid="role-remove-`) {
		t.Error("the viewer sees role buttons")
	}
	resp, _ = c.post("/t/"+e.acme.ID+"/users/"+e.acmeBob.ID+"/deactivate", nil)
	wantStatus(t, "forged deactivate", resp, http.StatusForbidden)
	resp, _ = c.post("/t/"+e.acme.ID+"/users/"+vera.ID+"/roles", url.Values{"service": {kanri.AuthServiceID}, "role": {"admin"}})
	wantStatus(t, "viewer grants herself admin", resp, http.StatusForbidden)
	bob, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID)
	ras, _ := e.roles.ForUser(context.Background(), e.acme.ID, vera.ID)
	if !bob.IsActive || len(ras) != len(features.Roles().Services()) {
		t.Errorf("forged requests changed data: bob active %v, vera has %d roles", bob.IsActive, len(ras))
	}
}

func TestGrantTakesEffectOnTheNextRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	bob := e.client(t).signIn("acme", "bob")
	resp, _ := bob.get("/t/" + e.acme.ID + "/users")
	wantStatus(t, "bob without roles", resp, http.StatusForbidden)

	path := "/t/" + e.acme.ID + "/users/" + e.acmeBob.ID + "/roles"
	admin.get(path)
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+path, strings.NewReader(url.Values{"service": {kanri.AuthServiceID}, "role": {"viewer"}, "_csrf": {admin.csrf}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	hx, err := admin.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	hx.Body.Close()
	wantStatus(t, "htmx assign", hx, http.StatusOK)
	resp, body := bob.get("/t/" + e.acme.ID + "/users")
	wantStatus(t, "bob after the grant", resp, http.StatusOK)
	if strings.Contains(body, `data-testid="users-new"`) {
		t.Error("a viewer sees the new user button")
	}
	resp, _ = admin.post(path+"/remove", url.Values{"service": {kanri.AuthServiceID}, "role": {"viewer"}})
	wantStatus(t, "remove", resp, http.StatusSeeOther)
	resp, _ = bob.get("/t/" + e.acme.ID + "/users")
	wantStatus(t, "bob after the removal", resp, http.StatusForbidden)

	// The last admin cannot lose the role; the page says why.
	resp, body = admin.post("/t/"+e.acme.ID+"/users/"+e.acmeAdmin.ID+"/roles/remove", url.Values{"service": {kanri.AuthServiceID}, "role": {"admin"}})
	wantStatus(t, "remove the last admin", resp, http.StatusConflict)
	if !strings.Contains(body, "last administrator") {
		t.Error("the refusal does not say why")
	}
}

func TestOnlyGlobalAdminsChangeGlobalAdmins(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID})
	priv, _ := e.tenants.Get(ctx, kanri.PrivilegedTenantID)
	op, _ := e.users.Create(ctx, priv.ID, kanri.UserInput{Username: "opadmin", Email: "op@example.com", DisplayName: "Op", Password: password})
	for _, s := range features.Roles().Services() {
		e.roles.Assign(ctx, role.Grant{Tenant: priv, UserID: op.ID, ServiceID: s.ID, RoleName: role.Admin})
	}
	root, _, _ := e.users.List(ctx, priv.ID, user.ListFilter{Search: adminEmail})
	// Their start page is their own tenant's users, not the operator's list.
	probe := e.client(t)
	probe.get("/login")
	resp, _ := probe.post("/login", url.Values{"tenant": {"privileged"}, "username": {"opadmin"}, "password": {password}})
	if loc := resp.Header.Get("Location"); loc != "/t/"+priv.ID+"/users" {
		t.Errorf("operator admin's start page: %q, want their tenant's users", loc)
	}
	c := e.client(t).signIn("privileged", "opadmin")
	base := "/t/" + priv.ID + "/users/" + root[0].ID
	for _, path := range []string{"/password", "/deactivate", "/delete", "/unlock", ""} {
		resp, _ := c.post(base+path, url.Values{"password": {"Taken-over-123"}, "email": {"x@example.com"}, "displayName": {"x"}})
		wantStatus(t, "operator admin: POST "+path+" on the global admin", resp, http.StatusForbidden)
	}
	resp, _ = c.post(base+"/roles/remove", url.Values{"service": {kanri.AuthServiceID}, "role": {"global_admin"}})
	wantStatus(t, "operator admin removes global admin", resp, http.StatusForbidden)
	// Their own tenant's ordinary users they do manage; other tenants do not exist for them.
	resp, _ = c.get("/t/" + priv.ID + "/users")
	wantStatus(t, "operator admin lists the operator's users", resp, http.StatusOK)
	resp, _ = c.get("/t/" + e.acme.ID + "/users")
	wantStatus(t, "operator admin on a customer tenant", resp, http.StatusNotFound)
	resp, _ = c.get("/tenants")
	wantStatus(t, "operator admin on the tenant list", resp, http.StatusNotFound)
	if _, _, err := (e.client(t)).signInErr("privileged", adminEmail, password); err != nil {
		t.Errorf("the global admin's password changed: %v", err)
	}
}
