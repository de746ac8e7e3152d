package views

import (
	"context"
	"mime"
	"strings"

	"github.com/kanri/kanri/internal/i18n"
)

// fileKinds name the kinds of file a person recognises by their media
// type, most specific first: files.kind_<kind> for a whole media type,
// files.kindof_<kind> (with the subtype) for a prefix, which ends in "/".
var fileKinds = []struct{ media, kind string }{
	{"application/pdf", "pdf"},
	{"text/plain", "plain"},
	{"text/csv", "csv"},
	{"application/json", "json"},
	{"application/zip", "zip"},
	{"application/gzip", "zip"},
	{"application/x-tar", "zip"},
	{"application/msword", "word"},
	{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "word"},
	{"application/vnd.ms-excel", "spreadsheet"},
	{"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "spreadsheet"},
	{"application/vnd.ms-powerpoint", "presentation"},
	{"application/vnd.openxmlformats-officedocument.presentationml.presentation", "presentation"},
	{"text/", "text"},
	{"image/", "image"},
	{"video/", "video"},
	{"audio/", "audio"},
}

// FileKind names a file's media type for reading ("PDF document", "Image
// (PNG)"); the media type itself is kept for a title or a detail.
func FileKind(ctx context.Context, contentType string) string {
	media, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		media = strings.ToLower(strings.TrimSpace(contentType))
	}
	for _, k := range fileKinds {
		prefix, isPrefix := strings.CutSuffix(k.media, "/")
		switch {
		case media == k.media:
			return i18n.T(ctx, "files.kind_"+k.kind)
		case isPrefix && strings.HasPrefix(media, prefix+"/"):
			sub := strings.TrimPrefix(media, prefix+"/")
			sub = strings.TrimPrefix(sub, "x-")
			if i := strings.IndexAny(sub, "+."); i > 0 {
				sub = sub[:i] // svg+xml: SVG
			}
			return i18n.T(ctx, "files.kindof_"+k.kind, strings.ToUpper(sub))
		}
	}
	return i18n.T(ctx, "files.kind_other")
}
