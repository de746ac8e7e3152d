package web

import (
	"testing"

	"github.com/kanri/kanri/internal/i18n"
)

// TestAPISummariesAreInTheCatalog checks that every served operation's
// summary comes from the catalog (api.op.<operationId>, in English and
// Japanese), not from its route, so that the docs page can say it in the
// reader's language.
func TestAPISummariesAreInTheCatalog(t *testing.T) {
	for _, r := range (&Server{}).apiRoutes() {
		if key := summaryKey(operationID(r)); r.summary != "" || !i18n.Has(key) {
			t.Errorf("%s %s: summary %q of its own, catalog key %s present: %v", r.method, r.path, r.summary, key, i18n.Has(key))
		}
	}
}
