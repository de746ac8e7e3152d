//go:build e2e

package e2e

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

const backupsPath = "/t/" + tenantID + "/backups"

// backupSteps are the steps of backups: the operator assigns the service;
// alice creates a job (a bad schedule is explained with her input kept,
// the next runs show in Tokyo time), runs it now and watches it succeed
// with its size, downloads the archive, deletes a user, sees the dry run
// bring the user back, confirms with the tenant's name, and the user is
// back. Then the operator restores the archive as a new tenant, and every
// service of the copy works.
func (s *suite) backupSteps(t *testing.T) {
	var runPath string
	s.step(t, "backups_run_download_and_restore", []string{"tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.admin, &s.alice), func(t *testing.T) {
		s.open(t, s.admin, servicesPath, 200)
		s.click(t, s.admin, "service-assign-backup-service")
		s.atPath(t, s.admin, servicesPath+"/backup-service/edit")
		s.submitStatus(t, s.admin, s.admin.tid("assignment-submit"), servicesPath+"/backup-service", 303)

		// A user who will be deleted after the backup.
		s.open(t, s.alice, usersPath, 200)
		s.createUser(t, s.alice, "dora", "Dora Backup", "Dora-pass-12345")
		doraID := s.userID(t, s.alice, tenantID, "dora")
		dora := s.newSession(t, "dora", nil)
		s.signInOK(t, dora, tenantName, "dora", "Dora-pass-12345", "/account")

		s.open(t, s.alice, backupsPath, 200)
		s.visible(t, s.alice, "backup-jobs-none")
		s.click(t, s.alice, "backup-job-new")
		s.atPath(t, s.alice, backupsPath+"/new")
		s.fill(t, s.alice, "backup-job-name-input", "Nightly")
		s.fill(t, s.alice, "backup-job-schedule-input", "61 * * *")
		s.visible(t, s.alice, "schedule-detail") // explained as it is typed
		s.submitStatus(t, s.alice, s.alice.tid("backup-job-save"), backupsPath, 422)
		s.visible(t, s.alice, "field-error-schedule")
		s.hasValue(t, s.alice, "backup-job-name-input", "Nightly")
		s.hasValue(t, s.alice, "backup-job-schedule-input", "61 * * *")
		s.fill(t, s.alice, "backup-job-schedule-input", "30 2 * * *")
		if err := s.expect.Locator(s.alice.tid("schedule-next").Locator("li")).ToHaveCount(5); err != nil {
			t.Fatalf("the next five runs are not shown: %v", err)
		}
		s.containsText(t, s.alice, "schedule-next", "02:30 JST")
		s.submitStatus(t, s.alice, s.alice.tid("backup-job-save"), backupsPath, 303)
		s.atPath(t, s.alice, backupsPath)
		s.containsText(t, s.alice, "flash", "Backup job Nightly created.")
		s.containsText(t, s.alice, "backup-job-next", "02:30 JST")
		s.waitLive(t, s.alice) // the page's stream of the tenant's runs is open

		// Run now: the run's row turns to a success with its size, without
		// a reload.
		runAction, err := s.alice.tid("backup-run-Nightly").Locator("xpath=ancestor::form").GetAttribute("action")
		if err != nil {
			t.Fatal(err)
		}
		s.submitStatus(t, s.alice, s.alice.tid("backup-run-Nightly"), runAction, 303)
		s.containsText(t, s.alice, "flash", "Backup of Nightly started.")
		row := s.alice.tid("backup-run-row-Nightly").First()
		if err := s.expect.Locator(row).ToHaveAttribute("data-status", "success", playwright.LocatorAssertionsToHaveAttributeOptions{Timeout: playwright.Float(60_000)}); err != nil {
			t.Fatalf("the run did not succeed: %v", err)
		}
		// The job's last run follows, without a reload.
		if err := s.expect.Locator(s.alice.tid("backup-job-Nightly").GetByTestId("backup-job-last-status")).ToHaveText("Succeeded"); err != nil {
			t.Errorf("the job's last run is not shown without a reload: %v", err)
		}
		if err := s.expect.Locator(row.GetByTestId("backup-run-size")).ToContainText("B"); err != nil {
			t.Errorf("the run shows no size: %v", err)
		}

		// The archive downloads as a tar with its manifest.
		if err := row.GetByTestId("backup-run-link").Click(); err != nil {
			t.Fatal(err)
		}
		s.visible(t, s.alice, "backup-part-row-users")
		dl, err := s.alice.page.ExpectDownload(func() error { return s.alice.tid("backup-download").Click() })
		if err != nil {
			t.Fatalf("download: %v", err)
		}
		path, err := dl.Path()
		if err != nil {
			t.Fatal(err)
		}
		tarBytes, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(tarBytes, []byte("manifest.json")) || !bytes.Contains(tarBytes, []byte("users.ndjson.gz")) || !strings.HasSuffix(dl.SuggestedFilename(), ".tar") {
			t.Errorf("the download %s (%d bytes) is not the archive", dl.SuggestedFilename(), len(tarBytes))
		}
		runPath = strings.TrimPrefix(s.alice.page.URL(), s.srv.URL)

		// Dora is deleted.
		s.open(t, s.alice, usersPath+"/"+doraID+"/edit", 200)
		s.submitStatus(t, s.alice, s.alice.tid("user-delete"), usersPath+"/"+doraID+"/delete", 303)
		s.open(t, s.alice, usersPath, 200)
		s.absent(t, s.alice, "user-row-dora")

		// The dry run shows her coming back; a wrong name is refused.
		s.open(t, s.alice, runPath, 200)
		s.click(t, s.alice, "backup-restore")
		s.containsText(t, s.alice, "restore-what", tenantName)
		dryRunDone := func() {
			t.Helper()
			// The comparison runs in the background; the panel shows its
			// progress until it is done.
			if err := s.expect.Locator(s.alice.page.Locator("#restore-dry-run")).ToHaveAttribute("data-status", "done", playwright.LocatorAssertionsToHaveAttributeOptions{Timeout: playwright.Float(60_000)}); err != nil {
				t.Fatalf("the dry run is not done: %v", err)
			}
		}
		dryRunDone()
		// Compared again, the page shows the new comparison: a new
		// document (the old one is marked to tell them apart).
		if _, err := s.alice.page.Evaluate(`document.body.dataset.before = "compare-again"`); err != nil {
			t.Fatal(err)
		}
		s.click(t, s.alice, "restore-compare-again")
		if err := s.expect.Locator(s.alice.page.Locator(`body[data-before]`)).ToHaveCount(0); err != nil {
			t.Fatalf("compare again did not show the page again: %v", err)
		}
		s.atPath(t, s.alice, runPath+"/restore")
		dryRunDone()
		if err := s.expect.Locator(s.alice.tid("restore-diff-users").GetByTestId("diff-changed")).Not().ToHaveText("0"); err != nil {
			t.Errorf("the dry run shows no user changing back: %v", err)
		}
		s.containsText(t, s.alice, "restore-changes", doraID)
		s.fill(t, s.alice, "restore-confirm", "globex")
		s.submitStatus(t, s.alice, s.alice.tid("restore-submit"), runPath+"/restore", 422)
		s.visible(t, s.alice, "field-error-confirm")
		s.fill(t, s.alice, "restore-confirm", tenantName)
		s.submitStatus(t, s.alice, s.alice.tid("restore-submit"), runPath+"/restore", 303)
		s.atPath(t, s.alice, backupsPath)

		// The page says when the restore has finished, without a reload;
		// Dora is back.
		if err := s.expect.Locator(s.alice.tid("restore-status")).ToHaveAttribute("data-status", "done", playwright.LocatorAssertionsToHaveAttributeOptions{Timeout: playwright.Float(60_000)}); err != nil {
			t.Fatalf("the backups page does not say the restore finished: %v", err)
		}
		s.containsText(t, s.alice, "restore-status", "Documents written")
		s.open(t, s.alice, usersPath, 200)
		s.hasText(t, s.alice, "user-status-dora", "Active")
		// Sessions are not restored: dora's from before signs in again.
		s.open(t, dora, "/account", 200)
		s.atPath(t, dora, "/login")
		if err := dora.ctx.Close(); err != nil {
			t.Errorf("closing dora's session: %v", err)
		}
	})

	s.step(t, "backups_restore_into_new_tenant", []string{"backups_run_download_and_restore"}, s.pagesOf(&s.admin), func(t *testing.T) {
		const copyName = "acme-copy"
		copyPath := "/t/tenant_" + copyName
		s.open(t, s.admin, runPath, 200)
		s.fill(t, s.admin, "backup-copy-name", copyName)
		s.submitStatus(t, s.admin, s.admin.tid("backup-copy"), runPath+"/copy", 303)
		s.atPath(t, s.admin, copyPath+"/backups")

		// The copy's users are the archive's once the restore has run.
		deadline := time.Now().Add(time.Minute)
		for {
			s.open(t, s.admin, copyPath+"/users", 200)
			if n, _ := s.admin.tid("user-row-alice").Count(); n == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the copy has no alice a minute after the restore")
			}
			s.admin.page.WaitForTimeout(200)
		}
		// Every service the archive had assigned works in the copy, as
		// assigned there (its usage page, its own page).
		for _, path := range []string{"/files", "/channels", "/backups", "/services/file-service", "/services/messaging-service", "/services/backup-service", "/services"} {
			s.open(t, s.admin, copyPath+path, 200)
		}
		s.hasAttr(t, s.admin, s.admin.tid("tenant-service-file-service"), "the copy's files service", "data-status", "active")
	})

	s.step(t, "closed_organisation_says_why", []string{"backups_restore_into_new_tenant"}, s.pagesOf(&s.admin), func(t *testing.T) {
		// Alice signs in to the copy; the operator suspends it. Her open
		// session ends with the reason, and the right password says it
		// again instead of "check your password".
		p := s.newSession(t, "alice-copy", nil)
		s.signInOK(t, p, "acme-copy", "alice", alicePass, "/t/tenant_acme-copy/users")
		s.open(t, s.admin, "/tenants?q=acme-copy", 200)
		s.submitStatus(t, s.admin, s.admin.tid("tenant-suspend-acme-copy"), "/tenants/tenant_acme-copy/suspend", 303)
		s.open(t, p, "/t/tenant_acme-copy/users", 200) // the sign-in page
		s.atPath(t, p, "/login")
		s.containsText(t, p, "flash", "suspended")
		if st := s.signIn(t, p, "acme-copy", "alice", alicePass); st != 403 {
			t.Fatalf("the right password of a suspended organisation answered %d, want 403", st)
		}
		s.containsText(t, p, "login-error", "suspended")
		if msg := s.signInFails(t, p, "acme-copy", "alice", "Wrong-pass-000"); strings.Contains(msg, "suspended") {
			t.Errorf("a wrong password is told of the suspension: %q", msg)
		}
	})
}
