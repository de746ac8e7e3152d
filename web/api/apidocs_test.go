package api_test

import (
	"testing"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web/api"
	"github.com/kanri/kanri/web/api/accountapi"
	"github.com/kanri/kanri/web/api/chatapi"
	"github.com/kanri/kanri/web/api/fileapi"
)

// served is the API as the server serves it: the core and every feature.
func served() *api.Server {
	return api.New(app.Deps{}, wiring.Set{}, api.Config{}, accountapi.New, fileapi.New, chatapi.New)
}

// TestAPISummariesAreInTheCatalog checks that every served operation's
// summary comes from the catalog (api.op.<operationId>, in English and
// Japanese), not from its route, so that the docs page can say it in the
// reader's language.
func TestAPISummariesAreInTheCatalog(t *testing.T) {
	t.Parallel()
	for _, r := range served().Routes() {
		if key := api.SummaryKey(r); r.Summary != "" || !i18n.Has(key) {
			t.Errorf("%s %s: summary %q of its own, catalog key %s present: %v", r.Method, r.Path, r.Summary, key, i18n.Has(key))
		}
	}
}

// TestEachTagHasAPage checks that every tag of the served document has a
// page of its own in the reference.
func TestEachTagHasAPage(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, tag := range served().Document("https://kanri.test", served().Routes())["tags"].([]map[string]any) {
		name := tag["name"].(string)
		slug := api.TagSlug(name)
		if slug == "" || seen[slug] != "" {
			t.Errorf("tag %s: slug %q, already that of %q", name, slug, seen[slug])
		}
		seen[slug] = name
	}
	if len(seen) < 5 {
		t.Errorf("the document has %d tags", len(seen))
	}
}
