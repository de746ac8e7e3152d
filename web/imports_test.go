package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/userimport"
	"github.com/kanri/kanri/views"
)

// uploadImport posts an import file from the imports page.
func (c *client) uploadImport(tenantID, name string, data []byte) (*http.Response, string) {
	c.t.Helper()
	c.get(views.UserImportsPath(tenantID))
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	w.WriteField("_csrf", c.csrf)
	fw, _ := w.CreateFormFile("file", name)
	fw.Write(data)
	w.Close()
	return c.send(http.MethodPost, views.UserImportsPath(tenantID), &body, http.Header{"Content-Type": {w.FormDataContentType()}})
}

// importID is the import a redirect after an upload or start names.
var importID = regexp.MustCompile(`/users/import/(import_[0-9a-f]+)`)

// matrixImport returns an import of acme whose dry run is done, of a
// file that changes nothing (its starts, by the matrix, create no users).
func (e *env) matrixImport(t *testing.T) string {
	t.Helper()
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: e.acmeAdmin.ID, TenantID: e.acme.ID})
	im, err := e.imports.Upload(ctx, e.acme.ID, "same.csv", []byte("username,email,displayName\nadmin,admin@acme.test,acme admin\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	e.imports.Wait()
	return im.ID
}

// TestImportInTheConsole: an administrator uploads a file, reads its dry
// run (one row refused, with why, in their language), starts it, reads
// its results and downloads the report; the same file again creates
// nobody.
func TestImportInTheConsole(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	file := "\xEF\xBB\xBFusername,email,displayName,status,roles\n" +
		"imp-ann,imp-ann@acme.test,Ann,,file-service:member\n" +
		"imp-ben,imp-ben@acme.test,Ben,inactive,\n" +
		"imp-bad,not-an-address,Bad,,\n" +
		"bob,bob@acme.test,Bob Renamed,,\n"
	resp, _ := admin.uploadImport(e.acme.ID, "people.csv", []byte(file))
	wantStatus(t, "upload", resp, http.StatusSeeOther)
	m := importID.FindStringSubmatch(resp.Header.Get("Location"))
	if m == nil {
		t.Fatalf("upload went to %q, want an import's page", resp.Header.Get("Location"))
	}
	id := m[1]
	e.imports.Wait()
	_, page := admin.get(views.UserImportPath(e.acme.ID, id))
	for _, want := range []string{
		`data-status="checked"`, "Dry run: 2 to create, 1 to update, 0 unchanged, 1 refused.",
		`data-testid="import-result-4" data-outcome="refused"`, "email: Enter an e-mail address such as name@example.com.",
		`data-testid="import-result-5" data-outcome="updated"`, `data-testid="import-start"`,
	} {
		if !strings.Contains(html.UnescapeString(page), want) {
			t.Errorf("the dry run's page lacks %q", want)
		}
	}
	if _, err := e.users.IDByUsername(context.Background(), e.acme.ID, "imp-ann"); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("the dry run created a user (err %v)", err)
	}
	// In Japanese, the reason is Japanese.
	admin.post("/lang", map[string][]string{"lang": {"ja"}})
	_, page = admin.get(views.UserImportPath(e.acme.ID, id) + "?outcome=refused")
	if !strings.Contains(page, "メールアドレス") || strings.Contains(page, "imp-ann") {
		t.Errorf("the refused rows in Japanese do not say why, or list other rows:\n%s", excerpt(page, "import-results"))
	}
	admin.post("/lang", map[string][]string{"lang": {"en"}})

	resp, _ = admin.post(views.UserImportPath(e.acme.ID, id)+"/start", nil)
	wantStatus(t, "start", resp, http.StatusSeeOther)
	e.imports.Wait()
	_, page = admin.get(views.UserImportPath(e.acme.ID, id))
	if !strings.Contains(page, "Imported: 2 created, 1 updated, 0 unchanged, 1 refused.") {
		t.Errorf("the import's page does not sum it up:\n%s", excerpt(page, "import-summary"))
	}
	ann, err := e.users.IDByUsername(context.Background(), e.acme.ID, "imp-ann")
	if err != nil {
		t.Fatalf("imp-ann not created: %v", err)
	}
	if ras, _ := e.roles.ForUser(context.Background(), e.acme.ID, ann); len(ras) != 1 || ras[0].ServiceID != kanri.FileServiceID {
		t.Errorf("imp-ann's roles: %v, want the files' member", ras)
	}
	resp, report := admin.get(views.UserImportPath(e.acme.ID, id) + "/report.csv")
	wantStatus(t, "report", resp, http.StatusOK)
	for _, want := range []string{"\xEF\xBB\xBFline,username,email,outcome,changes,reasons\n", "2,imp-ann,imp-ann@acme.test,Created,,\n", "4,imp-bad,not-an-address,Refused,,email: Enter an e-mail address"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}

	// The same file again: nothing to create, the refused row still refused.
	resp, _ = admin.uploadImport(e.acme.ID, "people.csv", []byte(file))
	again := importID.FindStringSubmatch(resp.Header.Get("Location"))[1]
	e.imports.Wait()
	im, err := e.imports.Get(context.Background(), e.acme.ID, again)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := im.DryRun, (userimport.Counts{Unchanged: 3, Refused: 1}); got != want {
		t.Errorf("the same file again: dry run %+v, want %+v", got, want)
	}
}

// TestImportFileErrors: a file that cannot be read is refused on the
// form, saying why.
func TestImportFileErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"latin1", []byte("username,email,displayName\nren\xe9,r@acme.test,R\n"), "Line 2: The file is not UTF-8 text."},
		{"utf16", []byte("\xFF\xFEu\x00"), "The file is not UTF-8 text."},
		{"xlsx", []byte("PK\x03\x04rest"), "This is a spreadsheet file."},
		{"header", []byte("user,email,displayName\n"), "Line 1: The column user is not one of"},
		{"large", bytes.Repeat([]byte("a"), userimport.MaxFileBytes+1), "The file is larger than 1 MiB."},
	} {
		resp, page := admin.uploadImport(e.acme.ID, tc.name+".csv", tc.data)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(html.UnescapeString(page), tc.want) {
			t.Errorf("%s: got %d, want 422 saying %q:\n%s", tc.name, resp.StatusCode, tc.want, excerpt(page, "field-error-file"))
		}
	}
	if list, _ := e.imports.List(context.Background(), e.acme.ID, 10); len(list) != 0 {
		t.Errorf("refused files made %d imports", len(list))
	}
}

// TestImportsStayInTheirTenant: another tenant's administrator gets 404
// for an import, its report and its start, by their tenant's address
// and by the import's.
func TestImportsStayInTheirTenant(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.matrixImport(t)
	other := e.client(t).signIn("globex", "admin")
	for _, path := range []string{
		views.UserImportPath(e.acme.ID, id), views.UserImportPath(e.globex.ID, id),
		views.UserImportPath(e.globex.ID, id) + "/report.csv",
	} {
		if resp, _ := other.get(path); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s as globex's admin: %d, want 404", path, resp.StatusCode)
		}
	}
	if resp, _ := other.post(views.UserImportPath(e.globex.ID, id)+"/start", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("start as globex's admin: %d, want 404", resp.StatusCode)
	}
	if _, page := other.get(views.UserImportsPath(e.globex.ID)); strings.Contains(page, id) {
		t.Error("globex's imports list acme's")
	}
}

// TestExports: the users, role assignments, files and audit log export
// as CSV (with a byte order mark) and as JSON that parses, each with the
// tenant's rows only.
func TestExports(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	e.uploadFile(t, e.acme.ID, "", "report.png", pngImage(t, 4, 3))
	admin := e.client(t).signIn("acme", "admin")
	for _, tc := range []struct {
		path, header, has string
	}{
		{views.UsersPath(e.acme.ID) + "/export", "username,email,displayName,status,id,", "admin@acme.test"},
		{views.RolesPath(e.acme.ID) + "/export", "userId,username,serviceId,roleName,assignedBy,assignedAt", "admin"},
		{views.FilesPath(e.acme.ID) + "/export", "id,name,folderId,folderPath,size,contentType,sha256,", "report.png"},
		{views.AuditPath(e.acme.ID), "timestamp,action,status,userId,userName,", "user.create"},
	} {
		csvPath, jsonPath := tc.path+".csv", tc.path+".json"
		resp, body := admin.get(csvPath)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(body, "\xEF\xBB\xBF"+tc.header) || !strings.Contains(body, tc.has) {
			t.Errorf("GET %s: %d, want 200 starting %q with %q:\n%.300s", csvPath, resp.StatusCode, tc.header, tc.has, body)
		}
		if strings.Contains(body, "globex") {
			t.Errorf("GET %s holds globex's rows", csvPath)
		}
		resp, body = admin.get(jsonPath)
		var rows []map[string]any
		if err := json.Unmarshal([]byte(body), &rows); err != nil || resp.StatusCode != http.StatusOK || len(rows) == 0 {
			t.Errorf("GET %s: %d, %d rows, err %v:\n%.300s", jsonPath, resp.StatusCode, len(rows), err, body)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Errorf("GET %s: content type %q", jsonPath, ct)
		}
	}
	if resp, _ := admin.get(views.UsersPath(e.acme.ID) + "/export.xml"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("an export as xml: %d, want 404", resp.StatusCode)
	}
}
