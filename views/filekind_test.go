package views

import (
	"context"
	"testing"

	"github.com/kanri/kanri/internal/i18n"
)

func TestFileKind(t *testing.T) {
	en, ja := i18n.WithLang(context.Background(), i18n.English), i18n.WithLang(context.Background(), i18n.Japanese)
	for _, c := range []struct {
		media, en, ja string
	}{
		{"application/pdf", "PDF document", "PDF 文書"},
		{"image/png", "Image (PNG)", "画像（PNG）"},
		{"image/svg+xml", "Image (SVG)", "画像（SVG）"},
		{"text/plain; charset=utf-8", "Text", "テキスト"},
		{"text/markdown", "Text (MARKDOWN)", "テキスト（MARKDOWN）"},
		{"text/csv", "CSV table", "CSV 表"},
		{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "Word document", "Word 文書"},
		{"application/vnd.ms-excel", "Spreadsheet", "スプレッドシート"},
		{"video/x-matroska", "Video (MATROSKA)", "動画（MATROSKA）"},
		{"APPLICATION/PDF", "PDF document", "PDF 文書"},
		{"application/octet-stream", "File", "ファイル"},
		{"", "File", "ファイル"},
		{"not a type", "File", "ファイル"},
	} {
		if got := FileKind(en, c.media); got != c.en {
			t.Errorf("FileKind(en, %q) = %q, want %q", c.media, got, c.en)
		}
		if got := FileKind(ja, c.media); got != c.ja {
			t.Errorf("FileKind(ja, %q) = %q, want %q", c.media, got, c.ja)
		}
	}
}
