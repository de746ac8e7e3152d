//go:build e2e

package e2e

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

const (
	filesPath   = "/t/" + tenantID + "/files"
	uploadsPath = "/t/" + tenantID + "/uploads"
)

// fileSteps are the steps of the files feature: uploads with tus (several
// at once, progress, pause and resume), checksums, folders, moves,
// downloads compared byte for byte, a file over the limit refused with its
// message, and the trash. On the embedded store the bytes go to the local
// blob directory; on Cosmos DB to Azurite.
func (s *suite) fileSteps(t *testing.T) {
	report := randomBytes(t, 300_000)
	photo := randomBytes(t, 180_000)
	s.step(t, "files_uploaded_paused_and_resumed", []string{"service_assigned_and_suspended"}, s.pagesOf(&s.admin, &s.alice), func(t *testing.T) {
		// The operator reactivates the file service the services step
		// suspended; until then the files pages are not usable.
		s.open(t, s.alice, filesPath, 403)
		s.open(t, s.admin, servicesPath, 200)
		s.submitStatus(t, s.admin, s.admin.tid("service-reactivate-file-service"), servicesPath+"/file-service/reactivate", 303)

		s.open(t, s.alice, usersPath, 200)
		s.click(t, s.alice, "nav-files")
		s.atPath(t, s.alice, filesPath)
		s.visible(t, s.alice, "files-empty")

		// Both files are picked at once; their PATCH requests are held so
		// that one can be paused while it is on its way.
		held := make(chan playwright.Route, 4)
		s.route(t, s.alice, uploadsPath+"/*", func(r playwright.Route) {
			if r.Request().Method() == http.MethodPatch {
				held <- r
				return
			}
			_ = r.Continue()
		})
		if err := s.alice.tid("upload-input").SetInputFiles([]playwright.InputFile{
			{Name: "report.bin", MimeType: "application/octet-stream", Buffer: report},
			{Name: "photo.bin", MimeType: "application/octet-stream", Buffer: photo},
		}); err != nil {
			t.Fatalf("choosing files: %v", err)
		}
		routes := map[int]playwright.Route{}
		for len(routes) < 2 {
			select {
			case r := <-held:
				body, err := r.Request().PostDataBuffer()
				if err != nil {
					t.Fatalf("reading a held PATCH: %v", err)
				}
				routes[len(body)] = r
			case <-time.After(actionTimeout):
				t.Fatalf("only %d of the 2 uploads sent their bytes", len(routes))
			}
		}
		rowOf := func(name string) playwright.Locator {
			return s.alice.page.Locator(fmt.Sprintf(`[data-testid="upload-row"][data-name=%q]`, name))
		}
		for _, name := range []string{"report.bin", "photo.bin"} {
			s.hasAttr(t, s.alice, rowOf(name), name+" row", "data-state", "uploading")
		}
		// Pause the photo: its request is given up.
		if err := rowOf("photo.bin").GetByTestId("upload-toggle").Click(); err != nil {
			t.Fatalf("pausing: %v", err)
		}
		s.hasAttr(t, s.alice, rowOf("photo.bin"), "photo.bin row", "data-state", "paused")
		if err := s.expect.Locator(rowOf("photo.bin").GetByTestId("upload-toggle")).ToHaveText("Resume"); err != nil {
			t.Errorf("the paused upload offers no Resume: %v", err)
		}
		_ = routes[len(photo)].Abort() // the browser has given it up already
		s.unroute(t, s.alice, uploadsPath+"/*")
		if err := routes[len(report)].Continue(); err != nil {
			t.Fatalf("releasing the report's bytes: %v", err)
		}
		s.hasAttr(t, s.alice, rowOf("report.bin"), "report.bin row", "data-state", "done")
		if err := s.expect.Locator(rowOf("report.bin").GetByTestId("upload-percent")).ToHaveText("100%"); err != nil {
			t.Errorf("the finished upload does not show 100%%: %v", err)
		}
		s.hasAttr(t, s.alice, rowOf("photo.bin"), "photo.bin row", "data-state", "paused")

		// Resume: the client asks where the upload stands and sends the
		// rest.
		if err := rowOf("photo.bin").GetByTestId("upload-toggle").Click(); err != nil {
			t.Fatalf("resuming: %v", err)
		}
		s.hasAttr(t, s.alice, rowOf("photo.bin"), "photo.bin row", "data-state", "done")
		// The list refreshes with both files once nothing is running.
		s.visible(t, s.alice, "file-row-report.bin")
		s.visible(t, s.alice, "file-row-photo.bin")
		s.containsText(t, s.alice, "storage-used", "468.8 KiB")
	})

	s.step(t, "files_checksum_folder_move_and_download", []string{"files_uploaded_paused_and_resumed"}, s.pagesOf(&s.alice), func(t *testing.T) {
		s.open(t, s.alice, filesPath, 200)
		s.click(t, s.alice, "file-open-report.bin")
		s.containsText(t, s.alice, "file-checksum", "sha256:"+sha256Hex(report))
		s.containsText(t, s.alice, "file-size", "293 KiB")
		fileURL := strings.TrimPrefix(s.alice.page.URL(), s.srv.URL)

		// The bytes downloaded are the bytes uploaded, with the browser's
		// session.
		s.download(t, s.alice, fileURL+"/download", report)

		// A folder, and the file moved into it.
		s.open(t, s.alice, filesPath, 200)
		s.fill(t, s.alice, "folder-new-name", "Reports")
		s.submitStatus(t, s.alice, s.alice.tid("folder-new-submit"), filesPath+"/folders", 303)
		s.containsText(t, s.alice, "flash", "Reports")
		s.atPath(t, s.alice, filesPath) // alice stays where she was
		s.visible(t, s.alice, "folder-row-Reports")
		s.open(t, s.alice, fileURL, 200)
		if _, err := s.alice.tid("file-move-target").SelectOption(playwright.SelectOptionValues{Labels: &[]string{"/Reports"}}); err != nil {
			t.Fatalf("choosing the folder: %v", err)
		}
		s.submitStatus(t, s.alice, s.alice.tid("file-move-submit"), fileURL+"/move", 303)
		s.containsText(t, s.alice, "flash", "moved")
		s.open(t, s.alice, filesPath, 200)
		s.absent(t, s.alice, "file-row-report.bin")
		s.click(t, s.alice, "folder-open-Reports")
		s.visible(t, s.alice, "file-row-report.bin")
		s.hasText(t, s.alice, "crumb-current", "Reports")
		s.download(t, s.alice, fileURL+"/download", report)
	})

	s.step(t, "files_previewed", []string{"files_uploaded_paused_and_resumed"}, s.pagesOf(&s.alice), func(t *testing.T) {
		// A text file and a PDF show on their pages, in a frame of the
		// file's page (the previews forbid other sites to frame them).
		s.open(t, s.alice, filesPath, 200)
		if err := s.alice.tid("upload-input").SetInputFiles([]playwright.InputFile{
			{Name: "notes.txt", MimeType: "text/plain", Buffer: []byte("議事録: preview me")},
			{Name: "brief.pdf", MimeType: "application/pdf", Buffer: []byte(onePagePDF)},
		}); err != nil {
			t.Fatalf("choosing files: %v", err)
		}
		s.visible(t, s.alice, "file-row-notes.txt")
		s.visible(t, s.alice, "file-row-brief.pdf")
		s.click(t, s.alice, "file-open-notes.txt")
		frame := s.alice.page.FrameLocator(`[data-testid="file-preview-frame"]`)
		if err := s.expect.Locator(frame.Locator("body")).ToContainText("議事録: preview me"); err != nil {
			t.Errorf("the text preview does not show: %v", err)
		}
		s.open(t, s.alice, filesPath, 200)
		s.click(t, s.alice, "file-open-brief.pdf")
		s.visible(t, s.alice, "file-preview-frame")
		// Chromium's PDF viewer is a frame of its own inside the preview;
		// a refused or blocked frame shows chrome-error:// instead.
		deadline := time.Now().Add(actionTimeout)
		for {
			var urls []string
			viewer := false
			for _, f := range s.alice.page.Frames() {
				urls = append(urls, f.URL())
				viewer = viewer || strings.HasPrefix(f.URL(), "chrome-extension://mhjfbmdgcfjbbpaeojofohoefgiehjai/")
			}
			if viewer {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the PDF viewer did not open in the preview; frames %q", urls)
			}
			s.alice.page.WaitForTimeout(100)
		}
	})

	s.step(t, "files_unfinished_resumed_and_cancelled", []string{"files_uploaded_paused_and_resumed"}, s.pagesOf(&s.alice), func(t *testing.T) {
		// An upload stopped before its bytes (paused, then the tab left)
		// is listed on the files page with Resume and Cancel.
		stop := func(name string, data []byte) {
			t.Helper()
			s.open(t, s.alice, filesPath, 200)
			held := make(chan playwright.Route, 1)
			s.route(t, s.alice, uploadsPath+"/*", func(r playwright.Route) {
				if r.Request().Method() == http.MethodPatch {
					held <- r
					return
				}
				_ = r.Continue()
			})
			if err := s.alice.tid("upload-input").SetInputFiles([]playwright.InputFile{{Name: name, MimeType: "application/octet-stream", Buffer: data}}); err != nil {
				t.Fatal(err)
			}
			var r playwright.Route
			select {
			case r = <-held:
			case <-time.After(actionTimeout):
				t.Fatalf("%s sent no bytes", name)
			}
			row := s.alice.page.Locator(fmt.Sprintf(`[data-testid="upload-row"][data-name=%q]`, name))
			if err := row.GetByTestId("upload-toggle").Click(); err != nil {
				t.Fatal(err)
			}
			s.hasAttr(t, s.alice, row, name+" row", "data-state", "paused")
			_ = r.Abort()
			s.unroute(t, s.alice, uploadsPath+"/*")
		}
		unfinished := func(name string) playwright.Locator {
			return s.alice.page.Locator(fmt.Sprintf(`[data-testid="unfinished-upload"][data-name=%q]`, name))
		}
		later := randomBytes(t, 120_000)
		stop("later.bin", later)
		s.open(t, s.alice, filesPath, 200)
		if err := s.expect.Locator(unfinished("later.bin").GetByTestId("unfinished-progress")).ToContainText("117.2 KiB"); err != nil {
			t.Errorf("the stopped upload is not listed with its size: %v", err)
		}
		s.visible(t, s.alice, "storage-reserved")
		// Resume: the same file picked again is sent, and listed.
		if err := unfinished("later.bin").GetByTestId("unfinished-resume").SetInputFiles([]playwright.InputFile{{Name: "later.bin", MimeType: "application/octet-stream", Buffer: later}}); err != nil {
			t.Fatal(err)
		}
		s.hasAttr(t, s.alice, s.alice.page.Locator(`[data-testid="upload-row"][data-name="later.bin"]`), "later.bin row", "data-state", "done")
		s.visible(t, s.alice, "file-row-later.bin")
		s.absent(t, s.alice, "unfinished-upload")
		s.download(t, s.alice, strings.TrimPrefix(mustAttr(t, s.alice.tid("file-open-later.bin"), "href"), s.srv.URL)+"/download", later)

		// Cancel: asked first, then the space is free.
		stop("never.bin", randomBytes(t, 90_000))
		s.open(t, s.alice, filesPath, 200)
		mark := s.eventMark()
		cancel := unfinished("never.bin").GetByTestId("unfinished-cancel")
		action, err := cancel.Locator("xpath=ancestor::form").GetAttribute("action")
		if err != nil {
			t.Fatal(err)
		}
		s.submitStatus(t, s.alice, cancel, action, 303)
		if !strings.Contains(strings.Join(s.eventsSince(mark), "\n"), "dialog confirm") {
			t.Errorf("cancelling an upload asked for no confirmation")
		}
		s.containsText(t, s.alice, "flash", "never.bin")
		s.absent(t, s.alice, "unfinished-upload")
		s.absent(t, s.alice, "storage-reserved")
	})

	s.step(t, "files_over_the_limit_refused", []string{"files_uploaded_paused_and_resumed"}, s.pagesOf(&s.alice), func(t *testing.T) {
		// The operator set a 10 MB limit on the file service; 11 MiB is
		// refused before any byte is sent, with the message.
		s.open(t, s.alice, filesPath, 200)
		if err := s.alice.tid("upload-input").SetInputFiles([]playwright.InputFile{
			{Name: "huge.bin", MimeType: "application/octet-stream", Buffer: make([]byte, 11<<20)},
		}); err != nil {
			t.Fatalf("choosing a file: %v", err)
		}
		row := s.alice.page.Locator(`[data-testid="upload-row"][data-name="huge.bin"]`)
		s.hasAttr(t, s.alice, row, "huge.bin row", "data-state", "failed")
		if err := s.expect.Locator(row.GetByTestId("upload-status")).ToContainText("huge.bin is 11 MiB, larger than the largest file allowed (10 MiB)"); err != nil {
			t.Errorf("the refusal does not say why: %v", err)
		}
		s.open(t, s.alice, filesPath, 200)
		s.absent(t, s.alice, "file-row-huge.bin")
		s.absent(t, s.alice, "storage-reserved")
	})

	s.step(t, "files_trashed_and_restored", []string{"files_uploaded_paused_and_resumed"}, s.pagesOf(&s.alice), func(t *testing.T) {
		s.open(t, s.alice, filesPath, 200)
		s.click(t, s.alice, "file-open-photo.bin")
		fileURL := strings.TrimPrefix(s.alice.page.URL(), s.srv.URL)
		mark := s.eventMark()
		s.submitStatus(t, s.alice, s.alice.tid("file-trash"), fileURL+"/delete", 303)
		if !strings.Contains(strings.Join(s.eventsSince(mark), "\n"), "dialog confirm") {
			t.Errorf("moving to the trash asked for no confirmation")
		}
		s.containsText(t, s.alice, "flash", "photo.bin moved to the trash")
		s.absent(t, s.alice, "file-row-photo.bin")
		s.containsText(t, s.alice, "storage-trash", "175.8 KiB")
		s.click(t, s.alice, "files-trash")
		s.atPath(t, s.alice, filesPath+"/trash")
		s.visible(t, s.alice, "trash-row-photo.bin")
		s.submitStatus(t, s.alice, s.alice.tid("trash-restore-photo.bin"), fileURL+"/restore", 303)
		s.containsText(t, s.alice, "flash", "photo.bin restored")
		s.open(t, s.alice, filesPath, 200)
		s.visible(t, s.alice, "file-row-photo.bin")
		s.download(t, s.alice, fileURL+"/download", photo)

		// A folder holding a file is deleted with one confirmation: the
		// page that says how many files go to the trash.
		s.fill(t, s.alice, "folder-new-name", "Old")
		s.submitStatus(t, s.alice, s.alice.tid("folder-new-submit"), filesPath+"/folders", 303)
		// Opened by its address, so that the file is chosen on the
		// folder's page once loaded, not on the page it replaces.
		folderURL, err := s.alice.tid("folder-open-Old").GetAttribute("href")
		if err != nil {
			t.Fatal(err)
		}
		s.open(t, s.alice, folderURL, 200)
		if err := s.alice.tid("upload-input").SetInputFiles([]playwright.InputFile{{Name: "old.txt", MimeType: "text/plain", Buffer: []byte("old")}}); err != nil {
			t.Fatal(err)
		}
		s.visible(t, s.alice, "file-row-old.txt")
		s.open(t, s.alice, folderURL, 200)
		if err := s.alice.tid("folder-actions").Locator("summary").Click(); err != nil {
			t.Fatal(err)
		}
		mark = s.eventMark()
		s.submitStatus(t, s.alice, s.alice.tid("folder-delete"), folderURL+"/delete", 409)
		if strings.Contains(strings.Join(s.eventsSince(mark), "\n"), "dialog") {
			t.Errorf("deleting a folder with files asked before its confirmation page")
		}
		s.containsText(t, s.alice, "folder-delete-count", "hold 1 file.")
		s.submitStatus(t, s.alice, s.alice.tid("folder-delete-confirm"), folderURL+"/delete", 303)
		s.containsText(t, s.alice, "flash", "Old")
		s.visible(t, s.alice, "storage-trash")
	})

	s.step(t, "files_member_manages_own_files", []string{"files_trashed_and_restored"}, s.pagesOf(&s.alice), func(t *testing.T) {
		// Alice makes Fumi a member of the file service.
		s.open(t, s.alice, usersPath, 200)
		s.createUser(t, s.alice, "fumi", "Fumi Files", fumiPass)
		id := s.userID(t, s.alice, tenantID, "fumi")
		s.open(t, s.alice, usersPath+"/"+id+"/roles", 200)
		s.submit(t, s.alice, s.alice.tid("role-assign-file-service-member"), usersPath+"/"+id+"/roles")
		s.visible(t, s.alice, "role-held-file-service-member")

		// Fumi uploads, renames and trashes her own file; alice's she may
		// only read.
		fumi := s.newSession(t, "fumi", nil)
		s.signInOK(t, fumi, tenantName, "fumi", fumiPass, filesPath) // a member of the files starts at Files
		s.open(t, fumi, filesPath, 200)
		if err := fumi.tid("upload-input").SetInputFiles([]playwright.InputFile{{Name: "fumi.txt", MimeType: "text/plain", Buffer: []byte("fumi's notes")}}); err != nil {
			t.Fatal(err)
		}
		s.visible(t, fumi, "file-row-fumi.txt")
		s.click(t, fumi, "file-open-photo.bin")
		s.visible(t, fumi, "file-checksum")
		s.absent(t, fumi, "file-edit-form")
		s.absent(t, fumi, "file-trash")
		s.open(t, fumi, filesPath, 200)
		s.click(t, fumi, "file-open-fumi.txt")
		fileURL := strings.TrimPrefix(fumi.page.URL(), s.srv.URL)
		s.fill(t, fumi, "file-display-name", "Fumi's notes")
		s.submitStatus(t, fumi, fumi.tid("file-save"), fileURL, 303)
		s.containsText(t, fumi, "flash", "Fumi's notes")
		s.submitStatus(t, fumi, fumi.tid("file-trash"), fileURL+"/delete", 303)
		s.containsText(t, fumi, "flash", "moved to the trash")
		if err := fumi.ctx.Close(); err != nil {
			t.Errorf("closing fumi's session: %v", err)
		}

		// Fumi goes again: the tenant's user limit is the later steps'.
		s.open(t, s.alice, usersPath+"/"+id+"/edit", 200)
		s.submitStatus(t, s.alice, s.alice.tid("user-delete"), usersPath+"/"+id+"/delete", 303)
	})
}

// download fetches path with the session's cookies and compares the body
// with want.
func (s *suite) download(t *testing.T, p *session, path string, want []byte) {
	t.Helper()
	resp, err := p.ctx.Request().Get(s.url(path))
	if err != nil {
		t.Fatalf("%s: GET %s: %v", p.label, path, err)
	}
	defer resp.Dispose()
	body, err := resp.Body()
	if err != nil {
		t.Fatalf("%s: GET %s: %v", p.label, path, err)
	}
	if resp.Status() != http.StatusOK || !bytes.Equal(body, want) {
		t.Fatalf("%s: GET %s answered %d with %d bytes (sha256 %s), want 200 with %d bytes (sha256 %s)",
			p.label, path, resp.Status(), len(body), sha256Hex(body), len(want), sha256Hex(want))
	}
	if got := resp.Headers()["content-disposition"]; !strings.HasPrefix(got, "attachment") {
		t.Errorf("%s: Content-Disposition %q, want an attachment", path, got)
	}
}

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	p := make([]byte, n)
	if _, err := rand.Read(p); err != nil {
		t.Fatal(err)
	}
	return p
}

func sha256Hex(p []byte) string {
	h := sha256.Sum256(p)
	return hex.EncodeToString(h[:])
}

// onePagePDF is a PDF of one page saying "Hello PDF".
const onePagePDF = "%PDF-1.1\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n" +
	"2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n" +
	"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 300 144]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>endobj\n" +
	"4 0 obj<</Length 44>>stream\nBT /F1 24 Tf 20 100 Td (Hello PDF) Tj ET\nendstream endobj\n" +
	"5 0 obj<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"

// mustAttr returns an attribute of the element loc finds.
func mustAttr(t *testing.T, loc playwright.Locator, name string) string {
	t.Helper()
	v, err := loc.GetAttribute(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
