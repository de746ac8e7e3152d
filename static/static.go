// Package static embeds the console's CSS, JavaScript and images, so that
// the binary serves them with nothing on disk. htmx is vendored from the
// pinned npm package htmx.org (see package.json).
package static

import "embed"

// FS holds the assets under css/, js/ and img/.
//
//go:embed css js img
var FS embed.FS

// HTMX is the path of the vendored htmx under FS.
const HTMX = "js/htmx-2.0.11.min.js"
