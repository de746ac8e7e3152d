//go:build e2e

package e2e

import (
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// apiDocsSteps are the steps of the API's reference, which needs no
// session: an overview whose contents lead to a page for each tag.
func (s *suite) apiDocsSteps(t *testing.T) {
	s.step(t, "api_docs_reference", nil, nil, func(t *testing.T) {
		dev := s.newSession(t, "developer", &playwright.Size{Width: 1280, Height: 900})
		s.open(t, dev, "/api/v1/docs", 200)
		// The whole width of a laptop, not the console's sidebar column.
		width, err := dev.tid("apidocs").Evaluate(`el => el.getBoundingClientRect().width`, nil)
		if err != nil {
			t.Fatal(err)
		}
		if w, ok := number(width); !ok || w <= 900 {
			t.Errorf("the reference is %v px wide at 1280 px, want more than 900", width)
		}
		s.docsFit(t, dev)
		// An operation's parameters, in view once its entry in the
		// contents is followed to its tag's page.
		if err := dev.page.Locator(`.docs-toc a[href="/api/v1/docs/users#op-listUsers"]`).Click(); err != nil {
			t.Fatalf("following listUsers in the contents: %v", err)
		}
		s.atDocs(t, dev, "/api/v1/docs/users#op-listUsers")
		limit := dev.tid("apidocs-params-listUsers").Locator(`tbody tr:has(td:first-child:text-is("limit"))`)
		if err := s.expect.Locator(limit).ToBeVisible(); err != nil {
			t.Errorf("the limit parameter of listUsers is not visible: %v", err)
		}
		if err := s.expect.Locator(limit).ToContainText("integer"); err != nil {
			t.Errorf("the limit parameter's type: %v", err)
		}
		// The example calls this server by its absolute address.
		curl, err := dev.tid("apidocs-curl-listUsers").TextContent()
		if err != nil {
			t.Fatal(err)
		}
		if want := "curl '" + s.url("/api/v1/users") + "'"; !strings.HasPrefix(curl, want) {
			t.Errorf("the example request %q, want it to start with %s", curl, want)
		}
		s.docsFit(t, dev)
		// The page holds its tag's operations, not the others'.
		if err := s.expect.Locator(dev.tid("apidocs-op-listRoles")).ToHaveCount(0); err != nil {
			t.Errorf("the page of users shows an operation of roles: %v", err)
		}
		// On to the next tag's page, and back to the overview.
		s.click(t, dev, "apidocs-next")
		s.atDocs(t, dev, "/api/v1/docs/roles")
		s.visible(t, dev, "apidocs-op-listRoles")
		s.click(t, dev, "apidocs-overview")
		s.atDocs(t, dev, "/api/v1/docs#contents")
		// A problem's type is the address of its description on the
		// overview, where a tag page's statuses lead.
		s.open(t, dev, "/api/v1/docs/users", 200)
		if err := dev.page.Locator(`[data-testid="apidocs-statuses-getUser"] a[href="/api/v1/docs#problem-not-found"]`).Click(); err != nil {
			t.Fatalf("following 404 to its problem type: %v", err)
		}
		s.atDocs(t, dev, "/api/v1/docs#problem-not-found")
		if err := s.expect.Locator(dev.tid("problem-not-found")).ToBeInViewport(); err != nil {
			t.Errorf("the not-found problem type is not shown: %v", err)
		}
		if err := s.expect.Locator(dev.tid("problem-not-found")).ToContainText(s.url("/api/v1/docs#problem-not-found")); err != nil {
			t.Errorf("the not-found problem type's address: %v", err)
		}
		s.screenshot(t, dev.page, "api-docs.png") // for humans, also on success
		s.open(t, dev, "/api/v1/docs/no-such-tag", 404)
		s.visible(t, dev, "error-page")

		// On a phone, no page of the reference scrolls sideways.
		phone := s.newSession(t, "developer-phone", &playwright.Size{Width: 390, Height: 844})
		s.open(t, phone, "/api/v1/docs", 200)
		s.docsFit(t, phone)
		hrefs, err := phone.page.Locator(`[data-testid^="apidocs-toc-"]`).EvaluateAll(`els => els.map(a => a.getAttribute("href"))`)
		if err != nil {
			t.Fatal(err)
		}
		pages, _ := hrefs.([]any)
		if len(pages) < 5 {
			t.Fatalf("the contents lead to %d pages", len(pages))
		}
		for _, href := range pages {
			s.open(t, phone, href.(string), 200)
			s.docsFit(t, phone)
		}
		s.screenshot(t, phone.page, "api-docs-390.png")
	})
}

// atDocs waits until the page is at path of the reference (its fragment
// included).
func (s *suite) atDocs(t *testing.T, p *session, path string) {
	t.Helper()
	want := s.urlOf(p, path)
	if err := waitURL(p, func(u string) bool { return u == want }); err != nil {
		t.Fatalf("%s: want to be at %s, not %s: %v", p.label, path, p.page.URL(), err)
	}
	s.checkA11y(t, p)
}

// docsFit checks that the page of the reference does not scroll sideways,
// and logs how tall it is, for humans.
func (s *suite) docsFit(t *testing.T, p *session) {
	t.Helper()
	size, err := p.page.Evaluate(`() => [document.documentElement.scrollWidth - window.innerWidth, document.documentElement.scrollHeight]`)
	if err != nil {
		t.Fatal(err)
	}
	wh, _ := size.([]any)
	if len(wh) != 2 {
		t.Fatalf("%s: the page's size: %v", p.label, size)
	}
	if n, ok := number(wh[0]); !ok || n > 1 {
		t.Errorf("%s: %s scrolls sideways by %v px", p.label, p.page.URL(), wh[0])
	}
	t.Logf("%s: %s is %v px tall", p.label, p.page.URL(), wh[1])
}
