//go:build e2e

package e2e

import (
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// apiDocsSteps are the steps of the API's reference page, which needs no
// session.
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
		overflow, err := dev.page.Evaluate(`() => document.documentElement.scrollWidth - window.innerWidth`)
		if err != nil {
			t.Fatal(err)
		}
		if n, ok := number(overflow); !ok || n > 1 {
			t.Errorf("the reference scrolls sideways at 1280 px by %v px", overflow)
		}
		// An operation's parameters, in view once its entry is followed.
		if err := dev.page.Locator(`.docs-toc a[href="#op-listUsers"]`).Click(); err != nil {
			t.Fatalf("following listUsers in the contents: %v", err)
		}
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
		// A problem's type is the address of its description here.
		if err := dev.page.Locator(`[data-testid="apidocs-statuses-getUser"] a[href="#problem-not-found"]`).Click(); err != nil {
			t.Fatalf("following 404 to its problem type: %v", err)
		}
		if err := s.expect.Locator(dev.tid("problem-not-found")).ToBeInViewport(); err != nil {
			t.Errorf("the not-found problem type is not shown: %v", err)
		}
		if err := s.expect.Locator(dev.tid("problem-not-found")).ToContainText(s.url("/api/v1/docs#problem-not-found")); err != nil {
			t.Errorf("the not-found problem type's address: %v", err)
		}
		s.screenshot(t, dev.page, "api-docs.png") // for humans, also on success
	})
}
