//go:build e2e

package e2e

import (
	"bytes"
	"encoding/csv"
	"os"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// importSteps: alice imports users from a CSV file with one refused row:
// its dry run says why, the import creates the other, and the report
// lists both.
func (s *suite) importSteps(t *testing.T) {
	s.step(t, "import_users_csv", []string{"tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.alice), func(t *testing.T) {
		s.open(t, s.alice, usersPath, 200)
		s.click(t, s.alice, "users-import")
		s.atPath(t, s.alice, usersPath+"/import")
		file := "\xEF\xBB\xBFusername,email,displayName\nimp-ivo,imp-ivo@example.com,Ivo Imported\nimp-bad,not-an-address,Bad Row\n"
		if err := s.alice.tid("import-file").SetInputFiles([]playwright.InputFile{{Name: "people.csv", MimeType: "text/csv", Buffer: []byte(file)}}); err != nil {
			t.Fatalf("choosing the file: %v", err)
		}
		s.submitStatus(t, s.alice, s.alice.tid("import-upload"), usersPath+"/import", 303)
		s.containsText(t, s.alice, "flash", "people.csv")

		// The dry run runs in the background; the page shows it when done.
		s.hasAttr(t, s.alice, s.alice.tid("import-state"), "the import", "data-status", "checked")
		s.hasAttr(t, s.alice, s.alice.tid("import-result-2"), "row 2", "data-outcome", "created")
		s.hasAttr(t, s.alice, s.alice.tid("import-result-3"), "row 3", "data-outcome", "refused")
		s.containsText(t, s.alice, "import-result-3", "Enter an e-mail address")
		s.checkA11y(t, s.alice)

		importPath := strings.TrimPrefix(s.alice.page.URL(), s.srv.URL)
		s.submitStatus(t, s.alice, s.alice.tid("import-start"), importPath+"/start", 303)
		s.hasAttr(t, s.alice, s.alice.tid("import-state"), "the import", "data-status", "done")
		s.containsText(t, s.alice, "import-summary", "1 created, 0 updated, 0 unchanged, 1 refused")

		dl, err := s.alice.page.ExpectDownload(func() error { return s.alice.tid("import-report").Click() })
		if err != nil {
			t.Fatalf("downloading the report: %v", err)
		}
		path, err := dl.Path()
		if err != nil {
			t.Fatalf("the report: %v", err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")))).ReadAll()
		if err != nil || len(rows) != 3 || rows[1][1] != "imp-ivo" || rows[1][3] != "Created" || rows[2][3] != "Refused" {
			t.Errorf("the report (err %v):\n%s", err, data)
		}

		// Ivo goes again: acme's users are few.
		id := s.userID(t, s.alice, tenantID, "imp-ivo")
		s.open(t, s.alice, usersPath+"/"+id+"/edit", 200)
		s.submitStatus(t, s.alice, s.alice.tid("user-delete"), usersPath+"/"+id+"/delete", 303)
	})
}
