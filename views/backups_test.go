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
