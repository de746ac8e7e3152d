package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/archive"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
)

// oldAudit writes an audit record of acme's bob made 88 days ago: within
// a week of its expiry.
func (e *env) oldAudit(t testing.TB, id string) {
	t.Helper()
	body := fmt.Sprintf(`{"id":%q,"tenantId":%q,"type":"audit_log","schemaVersion":"1.0","timestamp":%q,"userId":%q,"userName":"bob","action":"file.update","resource":{"type":"File","id":"file_1","name":"plan.txt"},"status":"success"}`,
		id, e.acme.ID, kanri.FormatTime(e.clock.Now().Add(-88*24*time.Hour)), e.acmeBob.ID)
	if _, err := e.st.Port().Container(kanri.ContainerAudit).Create(context.Background(), e.acme.ID, []byte(body)); err != nil {
		t.Fatal(err)
	}
}

// matrixArchive gives acme an archive of one record, available (rehydrated)
// or in the archive tier, and returns its id.
func (e *env) matrixArchive(t testing.TB, n int64, available bool) string {
	t.Helper()
	e.assignBackups(t, e.acme.ID)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: e.acmeAdmin.ID, TenantID: e.acme.ID})
	if _, err := e.archives.SaveSettings(ctx, e.acme.ID, archive.SettingsInput{Enabled: true, Days: 7}, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	e.oldAudit(t, fmt.Sprintf("audit_matrix_%d", n))
	done, err := e.archives.Tenant(ctx, e.acme.ID)
	if err != nil || len(done) != 1 {
		t.Fatalf("archive: %d, %v", len(done), err)
	}
	if available {
		if _, err := e.archives.Rehydrate(ctx, e.acme.ID, done[0].ID); err != nil {
			t.Fatal(err)
		}
	}
	return done[0].ID
}

// TestArchivesInTheConsole: acme's administrator turns archiving on, keeps
// the input of a bad number of days, archives now, rehydrates the archive
// and reads and downloads it; globex's administrator reaches none of it.
func TestArchivesInTheConsole(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignBackups(t, e.acme.ID)
	e.assignBackups(t, e.globex.ID)
	admin := e.client(t).signIn("acme", "admin")
	path := "/t/" + e.acme.ID + "/archives"

	_, body := admin.get(path)
	for _, want := range []string{`data-testid="archives-none"`, `data-testid="archive-enabled"`, `data-testid="archive-optional-message"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	resp, body := admin.post(path+"/settings", url.Values{"enabled": {"1"}, "days": {"45"}, "optional": {"message"}})
	wantStatus(t, "days 45", resp, http.StatusUnprocessableEntity)
	if !strings.Contains(body, `data-testid="field-error-days"`) || !strings.Contains(body, `value="45"`) || !strings.Contains(body, `value="message" checked`) {
		t.Errorf("the refused form does not say why or keep its input")
	}
	resp, _ = admin.post(path+"/settings", url.Values{"enabled": {"1"}, "days": {"7"}})
	wantStatus(t, "save", resp, http.StatusSeeOther)

	e.oldAudit(t, "audit_page_1")
	e.oldAudit(t, "audit_page_2")
	resp, _ = admin.post(path+"/run", nil)
	if page := admin.landing(resp); !strings.Contains(page, "2 records archived") || !strings.Contains(page, `data-state="archived"`) {
		t.Fatalf("archive now: the page does not list the archive of 2 records")
	}
	list, _, err := e.archives.List(context.Background(), e.acme.ID, 10, "")
	if err != nil || len(list) != 1 {
		t.Fatalf("archives: %d, %v", len(list), err)
	}
	id := list[0].ID

	// Globex's administrator: neither the archive nor its actions.
	other := e.client(t).signIn("globex", "admin")
	for _, p := range []string{"/t/" + e.globex.ID + "/archives/" + id, "/t/" + e.globex.ID + "/archives/" + id + "/download", path, path + "/" + id} {
		if resp, body := other.get(p); resp.StatusCode == http.StatusOK && strings.Contains(body, "plan.txt") {
			t.Errorf("GET %s by globex's administrator shows acme's archive", p)
		} else if resp.StatusCode == http.StatusOK && p != "/t/"+e.globex.ID+"/archives" {
			t.Errorf("GET %s by globex's administrator: 200", p)
		}
	}
	if resp, _ := other.post("/t/"+e.globex.ID+"/archives/"+id+"/rehydrate", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("globex rehydrates acme's archive: %d", resp.StatusCode)
	}

	_, body = admin.get(path + "/" + id)
	if !strings.Contains(body, `data-testid="archive-offline"`) || strings.Contains(body, `data-testid="archive-download"`) {
		t.Errorf("an archived archive's page should say it is offline, with no download")
	}
	resp, _ = admin.post(path+"/"+id+"/rehydrate", nil)
	page := admin.landing(resp)
	if !strings.Contains(page, `data-state="available"`) || strings.Count(page, `data-testid="archive-record"`) != 2 || !strings.Contains(page, "plan.txt") {
		t.Errorf("the rehydrated archive's page does not show its 2 records")
	}
	resp, body = admin.get(path + "/" + id + "/download")
	wantStatus(t, "download", resp, http.StatusOK)
	if strings.Count(body, "\n") != 2 || !strings.Contains(body, `"audit_page_1"`) {
		t.Errorf("download: %q", body)
	}
	resp, _ = admin.post(path+"/"+id+"/rehydrate", nil)
	wantStatus(t, "a second rehydration", resp, http.StatusSeeOther)
	if page := admin.landing(resp); !strings.Contains(page, "needs no rehydration") {
		t.Errorf("a second rehydration is not refused on the page")
	}
}
