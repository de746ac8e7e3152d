package api

import (
	"testing"

	"github.com/kanri/kanri/internal/i18n"
)

// TestAPISummariesAreInTheCatalog checks that every served operation's
// summary comes from the catalog (api.op.<operationId>, in English and
// Japanese), not from its route, so that the docs page can say it in the
// reader's language.
func TestAPISummariesAreInTheCatalog(t *testing.T) {
	t.Parallel()
	for _, r := range (&Server{}).apiRoutes() {
		if key := summaryKey(operationID(r)); r.summary != "" || !i18n.Has(key) {
			t.Errorf("%s %s: summary %q of its own, catalog key %s present: %v", r.method, r.path, r.summary, key, i18n.Has(key))
		}
	}
}

// TestTagSlugs checks the addresses of the reference's tag pages: a
// tag's name in lower case, other characters a hyphen, and one page for
// each tag the document has.
func TestTagSlugs(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"Users": "users", "API keys": "api-keys", " Files & folders ": "files-folders", "Me2": "me2", "Ünïcode": "n-code",
	} {
		if got := tagSlug(name); got != want {
			t.Errorf("tagSlug(%q) = %q, want %q", name, got, want)
		}
	}
	seen := map[string]string{}
	for _, tag := range tagsOf((&Server{}).apiRoutes()) {
		name := tag["name"].(string)
		slug := tagSlug(name)
		if slug == "" || seen[slug] != "" {
			t.Errorf("tag %s: slug %q, already that of %q", name, slug, seen[slug])
		}
		seen[slug] = name
	}
	if len(seen) < 5 {
		t.Errorf("the document has %d tags", len(seen))
	}
}
