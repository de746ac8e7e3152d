package web_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/views"
)

// assignBackups assigns the backup service to a tenant.
func (e *env) assignBackups(t testing.TB, tenantID string) {
	e.assign(t, tenantID, kanri.BackupServiceID)
}

// matrixBackup gives acme a fresh job with a successful run, and a
// finished restore, for one check of the matrix.
func (e *env) matrixBackup(t *testing.T, n int64) (job, run, restore string) {
	t.Helper()
	e.assignBackups(t, e.acme.ID)
	b := e.config.Services.Backups
	b.Wait()
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: e.acmeAdmin.ID, TenantID: e.acme.ID})
	j, err := b.CreateJob(ctx, e.acme.ID, kanri.BackupJobInput{Name: fmt.Sprintf("job%d", n), Schedule: "0 3 * * *", Parts: []string{kanri.PartUsers}, RetentionDays: 7, IsActive: true})
	if err != nil {
		t.Fatal(err)
	}
	h, err := b.RunNow(ctx, e.acme.ID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	b.Wait()
	r := &kanri.BackupRestore{Doc: kanri.Doc{ID: fmt.Sprintf("restore_m%d", n)}, HistoryID: h.ID, SourceTenantID: e.acme.ID, Status: kanri.RestoreDone}
	if err := e.st.Tenant(e.acme.ID).BackupRestores().Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	return j.ID, h.ID, r.ID
}

// TestBackupsInTheConsole drives the backup pages as a tenant
// administrator: a refused schedule keeps the input and says why; a job
// is created with its next runs in the tenant's time zone; run now ends
// in a success with its size; the archive downloads as a tar; a user is
// deleted, the dry run shows it coming back, a wrong confirmation is
// refused, and the restore brings the user back.
func TestBackupsInTheConsole(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignBackups(t, e.acme.ID)
	admin := e.client(t).signIn("acme", "admin")
	base := "/t/" + e.acme.ID + "/backups"

	resp, body := admin.get(base)
	wantStatus(t, "backups page", resp, http.StatusOK)
	for _, want := range []string{`data-testid="backup-jobs-none"`, `data-testid="backup-runs-none"`, `data-testid="nav-backups"`} {
		if !strings.Contains(body, want) {
			t.Errorf("empty backups page lacks %s", want)
		}
	}
	resp, body = admin.get(base + "/schedule?schedule=" + url.QueryEscape("30 2 * * *"))
	wantStatus(t, "schedule preview", resp, http.StatusOK)
	if got := strings.Count(body, "<li>"); got != 5 || !strings.Contains(body, "02:30 JST") {
		t.Errorf("preview of 30 2 * * * in Tokyo: %d runs, body %s", got, body)
	}
	form := url.Values{"name": {"Nightly <b>"}, "schedule": {"61 * * *"}, "parts": {"users", "audit"}, "retentionDays": {"30"}, "isActive": {"1"}}
	resp, body = admin.post(base, form)
	wantStatus(t, "bad schedule", resp, http.StatusUnprocessableEntity)
	if !strings.Contains(body, `data-testid="field-error-schedule"`) || !strings.Contains(body, `value="61 * * *"`) || !strings.Contains(body, "A schedule has 5 fields (minute hour day month weekday), not 4.") {
		t.Errorf("a refused schedule is not explained with the input kept: %s", excerpt(body, "schedule"))
	}
	form.Set("schedule", "0 3 * * *")
	resp, _ = admin.post(base, form)
	wantStatus(t, "create job", resp, http.StatusSeeOther)
	_, body = admin.get(base)
	if !strings.Contains(body, "Backup job Nightly &lt;b&gt; created.") {
		t.Errorf("creating a job is not confirmed: %s", excerpt(body, "flash"))
	}
	if !strings.Contains(body, `data-testid="backup-job-Nightly &lt;b&gt;"`) || !strings.Contains(body, " 03:00 JST") {
		t.Fatalf("the job is not listed, escaped, with its next run in Tokyo time: %s", excerpt(body, "backup-job"))
	}
	jobs, _, _ := e.config.Services.Backups.Jobs(context.Background(), e.acme.ID, 10, "")
	job := jobs[0]
	resp, _ = admin.post(base+"/jobs/"+job.ID+"/run", nil)
	wantStatus(t, "run now", resp, http.StatusSeeOther)
	e.config.Services.Backups.Wait()
	// A live refresh of the page the person left, arriving before the
	// page the action redirects to, leaves the message for that page.
	admin.send(http.MethodGet, base, nil, http.Header{"HX-Request": {"true"}, views.LiveRefresh: {"1"}})
	_, body = admin.get(base)
	if !strings.Contains(body, "Backup of Nightly &lt;b&gt; started.") {
		t.Errorf("Run now is not confirmed: %s", excerpt(body, "flash"))
	}
	// The live refresh of the runs leaves the page's message; a reload the
	// person asked for in place clears it.
	for _, c := range []struct {
		h     http.Header
		clear bool
	}{
		{http.Header{"HX-Request": {"true"}, views.LiveRefresh: {"1"}}, false},
		{http.Header{"HX-Request": {"true"}}, true},
	} {
		_, part := admin.send(http.MethodGet, base, nil, c.h)
		if got := strings.Contains(part, `<div id="flash" hx-swap-oob="true"></div>`); got != c.clear {
			t.Errorf("%v: the message cleared %v, want %v", c.h, got, c.clear)
		}
	}
	// The jobs' last runs come with the live refresh of the runs (the
	// same answer, its part #backup-jobs-panel).
	if !strings.Contains(body, `hx-select-oob="#backup-jobs-panel,#restore-status" hx-headers="{&#34;Kanri-Live-Refresh&#34;: &#34;1&#34;}"`) || !strings.Contains(body, `id="backup-jobs-panel"`) || !strings.Contains(body, `data-testid="backup-job-last-status"`) {
		t.Errorf("the jobs' last runs are not refreshed with the runs: %s", excerpt(body, "backup-jobs-panel"))
	}
	_, body = admin.get(base + "/history?status=success")
	if !strings.Contains(body, `data-status="success"`) || strings.Contains(body, `data-running`) {
		t.Fatalf("the run did not succeed: %s", excerpt(body, "backup-run-row"))
	}
	runs, _, _ := e.config.Services.Backups.Histories(context.Background(), e.acme.ID, "", 10, "")
	run := runs[0]
	if run.BackupSize <= 0 || run.ItemsBackedUp == 0 {
		t.Errorf("run %+v has no size or items", run)
	}
	_, body = admin.get(base + "/history?status=failed")
	if !strings.Contains(body, `data-testid="backup-runs-none"`) {
		t.Error("the failed filter shows a successful run")
	}
	resp, body = admin.get(base + "/history/" + run.ID)
	wantStatus(t, "run page", resp, http.StatusOK)
	if !strings.Contains(body, `data-testid="backup-part-row-users"`) || !strings.Contains(body, `data-testid="backup-download"`) {
		t.Errorf("the run page lacks its parts or download: %s", excerpt(body, "backup-parts"))
	}
	resp, body = admin.get(base + "/history/" + run.ID + "/download")
	wantStatus(t, "download", resp, http.StatusOK)
	if ct := resp.Header.Get("Content-Type"); ct != "application/x-tar" || !strings.Contains(body, "manifest.json") || !strings.Contains(body, "users.ndjson.gz") {
		t.Errorf("download: %s, %d bytes", ct, len(body))
	}

	bobPath := "/t/" + e.acme.ID + "/users/" + e.acmeBob.ID
	_, page := admin.get(bobPath + "/edit")
	resp, _ = admin.post(bobPath+"/delete", url.Values{"etag": {formETag(page)}})
	wantStatus(t, "delete bob", resp, http.StatusSeeOther)
	if u, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID); u == nil || u.DeletedAt.IsZero() {
		t.Fatal("bob is not deleted")
	}
	resp, body = e.dryRunPage(admin, base+"/history/"+run.ID+"/restore?parts=users")
	wantStatus(t, "dry run", resp, http.StatusOK)
	if !strings.Contains(body, `data-testid="restore-diff-users"`) || !strings.Contains(body, `data-testid="restore-changes"`) || !strings.Contains(body, e.acmeBob.ID) {
		t.Fatalf("the dry run does not show bob coming back: %s", excerpt(body, "restore-diff"))
	}
	// Changes are listed by what a person calls them, their kind named.
	if want := `User <strong data-testid="restore-change-label">` + html.EscapeString(e.acmeBob.DisplayName) + `</strong>`; !strings.Contains(body, want) {
		t.Errorf("the dry run does not name bob: want %s in %s", want, excerpt(body, "restore-changes"))
	}
	if !strings.Contains(body, `data-testid="restore-what"`) || !strings.Contains(body, "(acme)") {
		t.Errorf("the confirmation does not name the tenant: %s", excerpt(body, "restore-what"))
	}
	again := base + "/history/" + run.ID + "/restore?fresh=1&amp;parts=users"
	if !strings.Contains(body, `data-testid="restore-computed-at"`) || !strings.Contains(body, `href="`+again+`"`) {
		t.Errorf("the dry run does not say when it compared, with a link to compare again: %s", excerpt(body, "restore-computed-at"))
	}
	// Compare again starts the comparison, then shows the page without
	// asking for it again.
	resp, _ = admin.get(strings.ReplaceAll(again, "&amp;", "&"))
	wantStatus(t, "compare again", resp, http.StatusSeeOther)
	if got, want := resp.Header.Get("Location"), base+"/history/"+run.ID+"/restore?parts=users"; got != want {
		t.Errorf("compare again goes to %s, want %s", got, want)
	}
	_, body = e.dryRunPage(admin, resp.Header.Get("Location"))
	if !strings.Contains(body, e.acmeBob.ID) {
		t.Error("compared again, the dry run does not show bob coming back")
	}
	resp, body = admin.post(base+"/history/"+run.ID+"/restore", url.Values{"parts": {"users"}, "confirm": {"globex"}})
	wantStatus(t, "wrong confirmation", resp, http.StatusUnprocessableEntity)
	if !strings.Contains(body, `data-testid="field-error-confirm"`) {
		t.Error("a wrong confirmation is not explained")
	}
	if u, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID); u.DeletedAt.IsZero() {
		t.Fatal("a refused restore restored")
	}
	resp, _ = admin.post(base+"/history/"+run.ID+"/restore", url.Values{"parts": {"users"}, "confirm": {"acme"}})
	wantStatus(t, "restore", resp, http.StatusSeeOther)
	e.config.Services.Backups.Wait()
	u, err := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID)
	if err != nil || !u.DeletedAt.IsZero() || !u.IsActive {
		t.Fatalf("bob after the restore: %+v, %v", u, err)
	}
	_, body = admin.get(base)
	if !strings.Contains(body, `data-testid="restore-status" data-status="done"`) || !strings.Contains(body, "Documents written: ") {
		t.Errorf("a finished restore is not reported: %s", excerpt(body, "restore-status"))
	}
	_, body = admin.get("/t/" + e.acme.ID + "/audit")
	for _, action := range []string{"backup_job.create", "backup.run", "backup.download", "backup.restore"} {
		if !strings.Contains(body, action) {
			t.Errorf("the audit log lacks %s", action)
		}
	}
}

// dryRunPage gets a restore's page once its dry run is done.
func (e *env) dryRunPage(c *client, path string) (*http.Response, string) {
	resp, body := c.get(path)
	if strings.Contains(body, `id="restore-dry-run" data-status="running"`) {
		e.config.Services.Backups.Wait()
		resp, body = c.get(path)
	}
	return resp, body
}

// TestBackupsOfAnotherTenantAreNotFound: globex's administrator asks for
// acme's job, run, archive and restore by id, through globex's own path:
// every one is not found, and nothing changes.
func TestBackupsOfAnotherTenantAreNotFound(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignBackups(t, e.globex.ID)
	job, run, restore := e.matrixBackup(t, 1)
	c := e.client(t).signIn("globex", "admin")
	base := "/t/" + e.globex.ID + "/backups"
	for _, path := range []string{"/jobs/" + job + "/edit", "/history/" + run, "/history/" + run + "/download", "/history/" + run + "/restore"} {
		resp, _ := c.get(base + path)
		wantStatus(t, "GET "+path, resp, http.StatusNotFound)
	}
	for _, path := range []string{"/jobs/" + job, "/jobs/" + job + "/run", "/jobs/" + job + "/pause", "/jobs/" + job + "/delete", "/history/" + run + "/restore", "/restores/" + restore + "/retry"} {
		resp, _ := c.post(base+path, url.Values{"confirm": {"globex"}, "name": {"x"}, "schedule": {"0 3 * * *"}, "parts": {"users"}, "retentionDays": {"7"}})
		wantStatus(t, "POST "+path, resp, http.StatusNotFound)
	}
	if _, err := e.config.Services.Backups.Job(context.Background(), e.acme.ID, job); err != nil {
		t.Errorf("acme's job after globex's requests: %v", err)
	}
	// A tenant whose backup service ended gets no backup pages.
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID})
	a, _ := e.catalog.Assignment(ctx, e.globex.ID, kanri.BackupServiceID)
	if _, err := e.catalog.End(ctx, e.globex.ID, kanri.BackupServiceID, kanri.Seen{ETag: a.ETag}); err != nil {
		t.Fatal(err)
	}
	if resp, _ := c.get(base); resp.StatusCode == http.StatusOK {
		t.Error("a tenant whose backup service ended still has the backups page")
	}
}

// excerpt returns the part of body around the first mention of s.
func excerpt(body, s string) string {
	i := strings.Index(body, s)
	if i < 0 {
		return "(" + s + " not found)"
	}
	return body[max(0, i-300):min(len(body), i+600)]
}

// TestTheOperatorSeesFailedBackupsInTheTenantList: a tenant whose backup
// job failed carries a badge on the operator's tenant list, linking to
// its backups page; a tenant without alerts carries none.
func TestTheOperatorSeesFailedBackupsInTheTenantList(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	job, _, _ := e.matrixBackup(t, 1)
	op := e.client(t).signIn("privileged", adminEmail)
	_, body := op.get("/tenants")
	if strings.Contains(body, `data-testid="tenant-backup-alert"`) {
		t.Fatal("a tenant whose backup succeeded has an alert")
	}
	if _, err := e.st.Tenant(e.acme.ID).BackupJobs().Modify(context.Background(), job, nil, func(j *kanri.BackupJob) error {
		j.LastStatus = kanri.BackupFailed
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	_, body = op.get("/tenants")
	row := rowOf(body, `data-testid="tenant-row-acme"`)
	if !strings.Contains(row, `data-testid="tenant-backup-alert" data-kind="failed"`) || !strings.Contains(row, `href="/t/`+e.acme.ID+`/backups"`) {
		t.Errorf("acme's row has no failed-backup badge:\n%s", row)
	}
	if strings.Contains(rowOf(body, `data-testid="tenant-row-globex"`), "tenant-backup-alert") {
		t.Error("globex has a backup alert")
	}
}

// TestBackupEventsTellThePageOfRuns: the backups stream starts with an
// event (the page reloads its runs on every connect) and then tells of a
// run's start and end, and of a restore's end; another tenant's administrator cannot open it.
func TestBackupEventsTellThePageOfRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	job, _, _ := e.matrixBackup(t, 1)
	admin := e.client(t).signIn("acme", "admin")
	l, resp := admin.openLive("/t/"+e.acme.ID+"/backups/events", "")
	if l == nil {
		t.Fatalf("the stream answered %d", resp.StatusCode)
	}
	if ev, _ := l.next(t, "connected"); ev.name != "backup" {
		t.Errorf("first event %+v, want a backup event", ev)
	}
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: e.acmeAdmin.ID, TenantID: e.acme.ID})
	if _, err := e.config.Services.Backups.RunNow(ctx, e.acme.ID, job); err != nil {
		t.Fatal(err)
	}
	l.next(t, "backup.started")
	l.next(t, "backup.finished")
	// A restore's end is told too: the page's restore banner follows it.
	e.config.Services.Backups.Wait()
	runs, _, err := e.config.Services.Backups.Histories(ctx, e.acme.ID, "", 1, "")
	if err != nil || len(runs) == 0 {
		t.Fatalf("runs: %v %v", runs, err)
	}
	if _, err := e.config.Services.Backups.Restore(ctx, e.acme.ID, runs[0].ID, []string{kanri.PartUsers}); err != nil {
		t.Fatal(err)
	}
	l.next(t, "restore.finished")
	e.assignBackups(t, e.globex.ID)
	g := e.client(t).signIn("globex", "admin")
	if l, resp := g.openLive("/t/"+e.acme.ID+"/backups/events", ""); l != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("globex's admin opened acme's backup stream: %d", resp.StatusCode)
	}
}

// TestTheOperatorRestoresAnArchiveAsANewTenant: from a run's page the
// operator restores acme's archive as a new tenant, which has acme's users
// and leaves acme as it was; acme's own administrator is not offered it.
func TestTheOperatorRestoresAnArchiveAsANewTenant(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, run, _ := e.matrixBackup(t, 1)
	runPath := "/t/" + e.acme.ID + "/backups/history/" + run
	_, body := e.client(t).signIn("acme", "admin").get(runPath)
	if strings.Contains(body, `data-testid="backup-copy-form"`) {
		t.Error("a tenant administrator is offered the restore into a new tenant")
	}
	op := e.client(t).signIn("privileged", adminEmail)
	_, body = op.get(runPath)
	if !strings.Contains(body, `data-testid="backup-copy-form"`) {
		t.Fatal("the operator is not offered the restore into a new tenant")
	}
	resp, _ := op.post(runPath+"/copy", url.Values{"name": {"acme-copy"}})
	wantStatus(t, "restore as a new tenant", resp, http.StatusSeeOther)
	e.config.Services.Backups.Wait()
	cp, err := e.tenants.Get(context.Background(), kanri.TenantIDFromName("acme-copy"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(cp.DisplayName, " JST)") { // the archive's time in acme's zone
		t.Errorf("the copy is named %q, want the archive's time in Tokyo", cp.DisplayName)
	}
	if cp.UserCount != 2 { // acme's admin and bob, as the archive has them
		t.Errorf("the copy has userCount %d, want 2", cp.UserCount)
	}
	if _, err := e.users.Get(context.Background(), cp.ID, e.acmeBob.ID); err != nil {
		t.Errorf("bob is not in the copy: %v", err)
	}
	resp, _ = op.post(runPath+"/copy", url.Values{"name": {"acme-copy"}})
	if !strings.Contains(op.landing(resp), "Another tenant already uses this name") {
		t.Errorf("a copy under a taken name does not say why (%d to %q)", resp.StatusCode, resp.Header.Get("Location"))
	}
	e.config.Services.Backups.Wait()
	if rs, _, _ := e.st.Tenant(cp.ID).BackupRestores().Query(context.Background(), docstore.Query{Limit: 10}); len(rs) != 1 {
		t.Errorf("%d restores into acme-copy after a second copy under its name, want the first only", len(rs))
	}
	if a, _ := e.tenants.Get(context.Background(), e.acme.ID); a.UserCount != 2 {
		t.Errorf("acme's userCount changed to %d", a.UserCount)
	}
}
