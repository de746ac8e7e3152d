package views

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
)

// TestTheFilesKeptLineFitsTheArchive: a first archive, which stored every
// file it references, does not speak of files kept by an earlier one.
func TestTheFilesKeptLineFitsTheArchive(t *testing.T) {
	ctx := i18n.WithLang(context.Background(), "en")
	for _, c := range []struct {
		files, stored int
		want, not     string
	}{
		{3, 3, "all stored by this archive", "kept already"},
		{3, 1, "1 of them stored by this archive, the others kept already", "all stored"},
	} {
		v := BackupRunView{Run: &kanri.BackupHistory{}, Manifest: &BackupManifest{Files: c.files, NewFiles: c.stored, FilesBytes: 1024}, Location: time.UTC}
		var b bytes.Buffer
		if err := BackupRunPage(Page{}, v).Render(ctx, &b); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
			t.Errorf("%d files, %d stored: the page lacks %q or says %q", c.files, c.stored, c.want, c.not)
		}
	}
}

// TestTheRestorePageShowsTheDryRunAsItGoes: a running dry run says what
// it does and reloads itself (and only itself) every second; a failed one
// says why, with a link to compare again; a done one lists the changes and
// no longer reloads.
func TestTheRestorePageShowsTheDryRunAsItGoes(t *testing.T) {
	run := &kanri.BackupHistory{Doc: kanri.Doc{ID: "history_1"}, Parts: []string{"users"}}
	ten := &kanri.Tenant{Name: "acme"}
	for _, c := range []struct {
		name      string
		v         BackupRestoreView
		lang      string
		want, not []string
	}{
		{"reading", BackupRestoreView{Running: true, Phase: "reading", Count: 120, Of: 245, SelfURL: "/self"}, "en",
			[]string{`data-status="running"`, `hx-trigger="every 1s"`, `hx-get="/self"`, `hx-select="#restore-dry-run"`, "120 of 245 documents", `<progress max="245" value="120">`, `data-testid="restore-refresh"`},
			[]string{`data-testid="restore-diff"`}},
		{"comparing", BackupRestoreView{Running: true, Phase: "comparing", Count: 7, Of: 245, SelfURL: "/self"}, "ja",
			[]string{"組織のデータと比較しています: 7 件", `hx-trigger="every 1s"`},
			[]string{`value="7"`}},
		{"writing", BackupRestoreView{Running: true, Phase: "writing", SelfURL: "/self"}, "en",
			[]string{"Listing the changes"}, nil},
		{"failed", BackupRestoreView{Failed: "The archive is damaged", AgainURL: "/again"}, "en",
			[]string{`data-status="failed"`, `data-testid="restore-dry-run-failed"`, "The archive is damaged", `href="/again"`},
			[]string{"every 1s", `data-testid="restore-diff"`}},
		{"done", BackupRestoreView{Diffs: []BackupDiff{{Part: "users", Added: 1}}, Total: 1, Changes: []BackupChange{{Part: "users", ID: "user_bob", Type: "user", Label: "Bob", Kind: "added"}}, AgainURL: "/again"}, "en",
			[]string{`data-status="done"`, `data-testid="restore-diff-users"`, "user_bob", `data-testid="restore-compare-again"`},
			[]string{"every 1s", `data-testid="restore-progress"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.v.Run, c.v.Tenant, c.v.Location, c.v.Parts = run, ten, time.UTC, run.Parts
			var b bytes.Buffer
			if err := BackupRestorePage(Page{}, c.v).Render(i18n.WithLang(context.Background(), c.lang), &b); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("the page lacks %s", w)
				}
			}
			for _, n := range c.not {
				if strings.Contains(got, n) {
					t.Errorf("the page has %s", n)
				}
			}
			// The restore form is there whatever the dry run's state.
			if !strings.Contains(got, `data-testid="restore-form"`) {
				t.Error("the page lacks the restore form")
			}
		})
	}
}
