//go:build e2e

package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// privacySteps: a person downloads their data and asks to be erased; a
// backup is made; their administrator downloads their data, is refused a
// wrong confirmation, erases them, and restores the archive made before:
// the page says it holds erased data, and after the restore the person is
// still gone and cannot sign in.
func (s *suite) privacySteps(t *testing.T) {
	s.step(t, "privacy_export_erase_then_restore", []string{"backups_run_download_and_restore"}, s.pagesOf(&s.alice), func(t *testing.T) {
		s.open(t, s.alice, usersPath, 200)
		s.createUser(t, s.alice, "erin", "Erin Erased", "Erin-pass-12345")
		erinID := s.userID(t, s.alice, tenantID, "erin")
		erin := s.newSession(t, "erin", nil)
		s.signInOK(t, erin, tenantName, "erin", "Erin-pass-12345", "/account")

		// Erin downloads her data and asks to be erased.
		s.downloadJSON(t, erin, "account-export", "erin@example.com")
		s.submitStatus(t, erin, erin.tid("account-request-erasure"), "/account/erasure", 303)
		s.containsText(t, erin, "flash", "sent to your administrators")
		s.visible(t, erin, "account-erasure-requested")

		// A backup holds her.
		s.open(t, s.alice, backupsPath, 200)
		runAction, err := s.alice.tid("backup-run-Nightly").Locator("xpath=ancestor::form").GetAttribute("action")
		if err != nil {
			t.Fatal(err)
		}
		s.submitStatus(t, s.alice, s.alice.tid("backup-run-Nightly"), runAction, 303)
		row := s.alice.tid("backup-run-row-Nightly").First()
		if err := s.expect.Locator(row).ToHaveAttribute("data-status", "success", playwright.LocatorAssertionsToHaveAttributeOptions{Timeout: playwright.Float(60_000)}); err != nil {
			t.Fatalf("the run did not succeed: %v", err)
		}
		if err := row.GetByTestId("backup-run-link").Click(); err != nil {
			t.Fatal(err)
		}
		s.visible(t, s.alice, "backup-part-row-users")
		runPath := strings.TrimPrefix(s.alice.page.URL(), s.srv.URL)
		s.absent(t, s.alice, "backup-erased-since")

		// Her administrator sees the request, downloads her data and
		// erases her.
		userPath := usersPath + "/" + erinID
		s.open(t, s.alice, userPath+"/edit", 200)
		s.visible(t, s.alice, "erasure-requested")
		s.downloadJSON(t, s.alice, "user-export", "erin@example.com")
		s.click(t, s.alice, "user-erase")
		s.atPath(t, s.alice, userPath+"/erase")
		s.fill(t, s.alice, "erase-confirm", "erine")
		s.submitStatus(t, s.alice, s.alice.tid("erase-submit"), userPath+"/erase", 422)
		s.visible(t, s.alice, "field-error-confirm")
		s.hasValue(t, s.alice, "erase-confirm", "erine")
		s.fill(t, s.alice, "erase-confirm", "erin")
		s.submitStatus(t, s.alice, s.alice.tid("erase-submit"), userPath+"/erase", 303)
		s.atPath(t, s.alice, usersPath)
		s.containsText(t, s.alice, "flash", "erased-")
		s.absent(t, s.alice, "user-row-erin")
		s.open(t, erin, "/account", 200)
		s.atPath(t, erin, "/login")

		// The archive from before says what it holds, in the history and
		// on its page; its restore does not bring her back.
		s.open(t, s.alice, backupsPath+"/history", 200)
		if err := s.expect.Locator(s.alice.tid("backup-run-erased").First()).ToBeVisible(); err != nil {
			t.Errorf("the history does not say which archives hold erased data: %v", err)
		}
		s.open(t, s.alice, runPath, 200)
		s.visible(t, s.alice, "backup-erased-since")
		s.click(t, s.alice, "backup-restore")
		s.visible(t, s.alice, "backup-erased-since")
		s.fill(t, s.alice, "restore-confirm", tenantName)
		s.submitStatus(t, s.alice, s.alice.tid("restore-submit"), runPath+"/restore", 303)
		if err := s.expect.Locator(s.alice.tid("restore-status")).ToHaveAttribute("data-status", "done", playwright.LocatorAssertionsToHaveAttributeOptions{Timeout: playwright.Float(60_000)}); err != nil {
			t.Fatalf("the restore did not finish: %v", err)
		}
		s.open(t, s.alice, usersPath, 200)
		s.absent(t, s.alice, "user-row-erin")
		s.open(t, s.alice, userPath+"/edit", 404)
		s.signInFails(t, erin, tenantName, "erin", "Erin-pass-12345")
		if err := erin.ctx.Close(); err != nil {
			t.Errorf("closing erin's session: %v", err)
		}
	})
}

// downloadJSON clicks the download link testID of p's page and checks that
// the file holds want.
func (s *suite) downloadJSON(t *testing.T, p *session, testID, want string) {
	t.Helper()
	dl, err := p.page.ExpectDownload(func() error { return p.tid(testID).Click() })
	if err != nil {
		t.Fatalf("download %s: %v", testID, err)
	}
	path, err := dl.Path()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), want) || !strings.HasSuffix(dl.SuggestedFilename(), ".json") {
		t.Errorf("the download %s (%d bytes) does not hold %q", dl.SuggestedFilename(), len(b), want)
	}
}
