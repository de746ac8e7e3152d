package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/netguard"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/webhook"
)

// hookReceiver is a webhook endpoint on loopback that keeps what it is
// sent, with the headers.
type hookReceiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []*http.Request
	bodies [][]byte
}

func newHookReceiver(t *testing.T) *hookReceiver {
	r := &hookReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got, r.bodies = append(r.got, req), append(r.bodies, b)
		r.mu.Unlock()
		io.WriteString(w, "thanks")
	}))
	t.Cleanup(r.Close)
	return r
}

// verified returns the types of the messages received, and fails for
// any from the from-th on whose signature secret does not verify.
func (r *hookReceiver) verified(t *testing.T, secret string, from int) []string {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var types []string
	for i, req := range r.got {
		if err := wh.VerifyIgnoringTimestamp(r.bodies[i], req.Header); err != nil && i >= from {
			t.Errorf("message %d does not verify: %v", i, err)
		}
		m := regexp.MustCompile(`"type":"([^"]+)"`).FindSubmatch(r.bodies[i])
		types = append(types, string(m[1]))
	}
	return types
}

var secretOnPage = regexp.MustCompile(`data-testid="webhook-secret">(whsec_[A-Za-z0-9+/=]+)<`)

func TestWebhookPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.webhooks.AllowPrivate, e.webhooks.Client = true, netguard.NewClient(true, 10*time.Second) // the receiver is on loopback
	e.webhooks.Settle = 0
	rcv := newHookReceiver(t)
	admin := e.client(t).signIn("acme", "admin")
	base := "/t/" + e.acme.ID + "/webhooks"

	_, body := admin.get(base)
	if !strings.Contains(body, `data-testid="webhooks-none"`) {
		t.Error("no empty state")
	}
	// Refused input is shown with what was typed.
	resp, body := admin.post(base, url.Values{"url": {rcv.URL + "/hook"}, "events": {"user.*"}, "description": {"SIEM"}})
	wantStatus(t, "bad event types", resp, http.StatusUnprocessableEntity)
	for _, want := range []string{`data-testid="field-error-events"`, `value="user.*"`, `value="SIEM"`, `value="` + rcv.URL + `/hook"`} {
		if !strings.Contains(body, want) {
			t.Errorf("refused form: no %s", want)
		}
	}

	// Added: the secret is shown once, on the page the form leads to.
	resp, _ = admin.post(base, url.Values{"url": {rcv.URL + "/hook"}, "events": {"user., webhook.rotate"}, "description": {"SIEM"}})
	wantStatus(t, "add", resp, http.StatusSeeOther)
	secretPage := resp.Header.Get("Location")
	resp, body = admin.get(secretPage)
	wantStatus(t, "secret page", resp, http.StatusOK)
	m := secretOnPage.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no secret on %s", secretPage)
	}
	secret := m[1]
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("secret page Cache-Control %q", cc)
	}
	resp, body = admin.get(secretPage)
	wantStatus(t, "secret page again", resp, http.StatusSeeOther)
	if strings.Contains(body, secret) {
		t.Error("the secret is shown twice")
	}
	page := strings.TrimSuffix(secretPage, "/secret")
	id := page[strings.LastIndex(page, "/")+1:]
	ep, err := e.webhooks.Get(context.Background(), e.acme.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ep.Secret, strings.TrimPrefix(secret, "whsec_")) {
		t.Error("the secret is stored in the clear")
	}
	_, body = admin.get(base)
	if !strings.Contains(body, `data-testid="webhook-row" data-url="`+rcv.URL+`/hook" data-state="enabled"`) {
		t.Error("the endpoint is not listed, enabled")
	}

	// A test event, shown at the top of the log.
	_, body = admin.get(page)
	if !strings.Contains(body, `data-testid="deliveries-none"`) {
		t.Error("no empty delivery log")
	}
	resp, _ = admin.post(page+"/test", url.Values{"etag": {ep.ETag}, "state": {"enabled"}})
	wantStatus(t, "send test", resp, http.StatusSeeOther)
	_, body = admin.get(page)
	if !strings.Contains(body, `data-testid="delivery-row" data-ok="true" data-event="webhook.test" data-trigger="test"`) || !strings.Contains(body, "thanks") {
		t.Error("the test event is not in the log, answered")
	}

	// Users' events are delivered by the periodic run, signed.
	e.clock.Advance(time.Second)
	resp, _ = admin.post("/t/"+e.acme.ID+"/users", url.Values{"username": {"hook1"}, "email": {"hook1@acme.test"}, "displayName": {"Hook"}, "password": {password}})
	wantStatus(t, "create a user", resp, http.StatusSeeOther)
	e.clock.Advance(time.Second)
	if err := e.webhooks.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(rcv.verified(t, secret, 0), " "), "webhook.test user.create"; got != want {
		t.Errorf("received %q, want %q", got, want)
	}

	// Rotated: both secrets sign for the overlap.
	ep, _ = e.webhooks.Get(context.Background(), e.acme.ID, id)
	resp, _ = admin.post(page+"/rotate", url.Values{"etag": {ep.ETag}, "state": {"enabled"}})
	wantStatus(t, "rotate", resp, http.StatusSeeOther)
	_, body = admin.get(resp.Header.Get("Location"))
	m = secretOnPage.FindStringSubmatch(body)
	if m == nil || m[1] == secret || !strings.Contains(body, `data-testid="webhook-rotated-overlap"`) {
		t.Fatal("no new secret shown")
	}
	e.clock.Advance(time.Second)
	if err := e.webhooks.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := rcv.verified(t, m[1], 2); len(got) != 3 || got[2] != "webhook.rotate" {
		t.Errorf("after the rotation: %v", got)
	}
	rcv.verified(t, secret, 0) // the old one still verifies all three

	// Replay: a bad time is refused on the page, a good one moves the
	// cursor back.
	ep, _ = e.webhooks.Get(context.Background(), e.acme.ID, id)
	resp, body = admin.post(page+"/replay", url.Values{"etag": {ep.ETag}, "state": {"enabled"}, "since": {"yesterday"}})
	wantStatus(t, "replay since nothing", resp, http.StatusUnprocessableEntity)
	if !strings.Contains(body, `data-testid="field-error-since"`) || !strings.Contains(body, `value="yesterday"`) {
		t.Error("the replay's refusal is not shown with its input")
	}
	since := e.clock.Now().Add(-time.Hour).Truncate(time.Minute)
	resp, _ = admin.post(page+"/replay", url.Values{"etag": {ep.ETag}, "state": {"enabled"}, "since": {since.In(time.UTC).Format("2006-01-02T15:04")}})
	wantStatus(t, "replay", resp, http.StatusSeeOther)
	if err := e.webhooks.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Every record selected since then, in order: the users newEnv made
	// too.
	ep, _ = e.webhooks.Get(context.Background(), e.acme.ID, id)
	recs, _ := e.webhooks.Audit.After(context.Background(), e.acme.ID, since, "", e.clock.Now(), 1000)
	want := []string{"webhook.test", "user.create", "webhook.rotate"}
	for _, r := range recs {
		if ep.Wants(r.Action) {
			want = append(want, r.Action)
		}
	}
	sent := len(want)
	if got := rcv.verified(t, m[1], 2); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("after the replay: got %v, want %v", got, want)
	}

	// Failed only: none.
	_, body = admin.get(page + "?failed=1")
	if !strings.Contains(body, `data-testid="deliveries-none"`) {
		t.Error("failed filter lists answered deliveries")
	}

	// Another tenant's administrator finds nothing.
	gl := e.client(t).signIn("globex", "admin")
	for _, path := range []string{page, "/t/" + e.globex.ID + "/webhooks/" + id} {
		resp, _ = gl.get(path)
		wantStatus(t, "globex reads "+path, resp, http.StatusNotFound)
		resp, _ = gl.post(path+"/test", nil)
		wantStatus(t, "globex sends a test to "+path, resp, http.StatusNotFound)
		resp, _ = gl.post(path+"/delete", nil)
		wantStatus(t, "globex deletes "+path, resp, http.StatusNotFound)
	}
	if n := len(rcv.verified(t, m[1], 2)); n != sent {
		t.Errorf("globex's requests sent %d messages", n-sent)
	}

	// Disabled, enabled and deleted, each from the page's own forms.
	_, body = admin.get(page)
	for _, want := range []string{`data-confirm="` + i18n.Translate("en", "webhooks.confirm_delete") + `"`, `data-testid="webhook-disable"`} {
		if !strings.Contains(body, want) {
			t.Errorf("endpoint page: no %s", want)
		}
	}
	ep, _ = e.webhooks.Get(context.Background(), e.acme.ID, id)
	resp, _ = admin.post(page+"/disable", url.Values{"etag": {ep.ETag}, "state": {ep.State()}})
	wantStatus(t, "disable", resp, http.StatusSeeOther)
	admin.post(page+"/delete", url.Values{"etag": {ep.ETag}, "state": {ep.State()}})
	if _, err := e.webhooks.Get(context.Background(), e.acme.ID, id); err != nil {
		t.Errorf("deleted as seen before it was disabled: %v", err)
	}
	ep, _ = e.webhooks.Get(context.Background(), e.acme.ID, id)
	resp, _ = admin.post(page+"/delete", url.Values{"etag": {ep.ETag}, "state": {ep.State()}})
	wantStatus(t, "delete", resp, http.StatusSeeOther)
	resp, _ = admin.get(page)
	wantStatus(t, "deleted endpoint", resp, http.StatusNotFound)
	recs, _, _ = e.st.Tenant(e.acme.ID).AuditLogs().Query(context.Background(), docstore.Query{Where: []docstore.Filter{docstore.Prefix("action", "webhook.")}})
	if len(recs) < 5 {
		t.Errorf("audit: %d webhook records", len(recs))
	}
}

// matrixWebhook returns a new endpoint of acme's and a delivery of it,
// for the permission matrix: the endpoint is on loopback, where the
// server's guarded client refuses to connect, so that its test events
// fail at once.
func (e *env) matrixWebhook(t *testing.T, n int64) (id, delivery string) {
	t.Helper()
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system"})
	open := webhook.New(e.webhooks.Deps, e.signIns.Sealer(), nil, true)
	// The earlier checks' go first: a tenant has at most MaxEndpoints.
	old, err := open.List(ctx, e.acme.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range old {
		if _, err := open.Delete(ctx, e.acme.ID, o.ID, kanri.Seen{}); err != nil {
			t.Fatal(err)
		}
	}
	ep, _, err := open.Create(ctx, e.acme.ID, webhook.Input{URL: fmt.Sprintf("http://127.0.0.1:1/m%d", n), Events: "*"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := e.webhooks.SendTest(ctx, e.acme.ID, ep.ID)
	if err != nil || d.Error != "address_private" {
		t.Fatalf("matrix test event: %+v, %v", d, err)
	}
	return ep.ID, d.ID
}

// Sending the audit log elsewhere takes the right to read it: a tenant
// management administrator who may change the settings, but not read the
// audit log, may neither add an endpoint nor download a file.
func TestWebhooksNeedTheAuditLog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID})
	u, err := e.users.Create(ctx, e.acme.ID, kanri.UserInput{Username: "tm", Email: "tm@acme.test", DisplayName: "TM", Password: password})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.roles.Assign(ctx, role.Grant{Tenant: e.acme, UserID: u.ID, ServiceID: kanri.TenantManagementID, RoleName: role.Admin}); err != nil {
		t.Fatal(err)
	}
	tm := e.client(t).signIn("acme", "tm")
	base := "/t/" + e.acme.ID + "/webhooks"
	resp, body := tm.get(base)
	wantStatus(t, "the page", resp, http.StatusOK)
	if strings.Contains(body, `data-testid="webhook-add"`) || strings.Contains(body, `data-testid="audit-files-enable"`) {
		t.Error("the page offers what the user may not do")
	}
	for path, form := range map[string]url.Values{
		base:                   {"url": {"https://hooks.example.com/"}, "events": {"*"}},
		base + "/files/enable": nil,
	} {
		resp, _ = tm.post(path, form)
		wantStatus(t, "POST "+path, resp, http.StatusForbidden)
	}
	resp, _ = tm.get(base + "/files/2026-11-27")
	wantStatus(t, "a file", resp, http.StatusForbidden)
	if es, _ := e.webhooks.List(ctx, e.acme.ID); len(es) != 0 {
		t.Errorf("%d endpoints made", len(es))
	}
}
