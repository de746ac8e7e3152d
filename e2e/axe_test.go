//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The accessibility check: axe-core (npm, pinned in package.json) runs on
// every page the suite shows, once per loaded document, in the light and the
// dark theme. A serious or critical violation fails the step; moderate and
// minor ones are counted and logged at the end of the run.

var (
	axeOnce   sync.Once
	axeSource string
	axeErr    error
)

// axeScript returns the source of node_modules/axe-core/axe.min.js.
func axeScript() (string, error) {
	axeOnce.Do(func() {
		b, err := os.ReadFile(filepath.Join(repoRoot, "node_modules", "axe-core", "axe.min.js"))
		if err != nil {
			axeErr = fmt.Errorf("axe-core is missing (run `npm ci`): %w", err)
			return
		}
		axeSource = string(b)
	})
	return axeSource, axeErr
}

// axeRun waits until the document has loaded and htmx has settled (no
// request, swap or settle under way: a condition, not a delay), then runs
// axe in the light and the dark theme (the data-theme attribute the theme
// switch sets) and restores the theme the page had. A document already
// checked answers null, so helpers may call it after every navigation.
const axeRun = `async () => {
  if (window.__kanriAxeChecked) return null;
  window.__kanriAxeChecked = true;
  const quiet = () => document.readyState === "complete" &&
    !document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added");
  while (!quiet()) await new Promise((r) => requestAnimationFrame(() => r()));
  const root = document.documentElement;
  const had = root.getAttribute("data-theme");
  const out = [];
  try {
    for (const theme of ["light", "dark"]) {
      root.setAttribute("data-theme", theme);
      const res = await axe.run(document, { resultTypes: ["violations"] });
      for (const v of res.violations) {
        out.push({ theme, id: v.id, impact: v.impact || "minor", help: v.help,
          targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ") + (n.failureSummary ? " — " + n.failureSummary.replace(/\s+/g, " ") : "")) ,
          nodes: v.nodes.length });
      }
    }
  } finally {
    if (had === null) root.removeAttribute("data-theme"); else root.setAttribute("data-theme", had);
  }
  return JSON.stringify(out);
}`

// axeViolation is one rule axe found broken on a page in a theme.
type axeViolation struct {
	Theme   string   `json:"theme"`
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
	Nodes   int      `json:"nodes"`
}

// axeTally counts what the accessibility check found over the run.
type axeTally struct {
	mu       sync.Mutex
	pages    int            // documents checked (each in both themes)
	byImpact map[string]int // violations (rule × page × theme) per impact
	byRule   map[string]int // the same per impact/rule
}

// add records the violations of one document.
func (a *axeTally) add(vs []axeViolation) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.byImpact == nil {
		a.byImpact, a.byRule = map[string]int{}, map[string]int{}
	}
	a.pages++
	for _, v := range vs {
		a.byImpact[v.Impact]++
		a.byRule[v.Impact+"/"+v.ID]++
	}
}

// String reports the tally, per impact and per rule.
func (a *axeTally) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "axe-core: %d documents checked in the light and the dark theme; violations (rule × document × theme):", a.pages)
	for _, imp := range []string{"critical", "serious", "moderate", "minor"} {
		fmt.Fprintf(&b, " %s %d", imp, a.byImpact[imp])
	}
	for _, k := range slices.Sorted(maps.Keys(a.byRule)) {
		fmt.Fprintf(&b, "\n  %s: %d", k, a.byRule[k])
	}
	return b.String()
}

// checkA11y runs axe on the page p shows unless that document was checked
// already. Serious and critical violations fail the step with the rule,
// the theme and the first elements concerned; the others are counted.
func (s *suite) checkA11y(t *testing.T, p *session) {
	t.Helper()
	src, err := axeScript()
	if err != nil {
		t.Fatal(err)
	}
	// A document replaced while axe runs (a redirect, htmx restoring a page
	// from history) is checked in its place once it has loaded: the
	// evaluation fails with its context destroyed, or, when the document
	// was replaced between loading axe-core and running it, with axe not
	// defined in the new one.
	var raw string
	for attempt := 0; ; attempt++ {
		r, err := s.runAxe(p, src)
		if err != nil && attempt < 5 && (strings.Contains(err.Error(), "Execution context was destroyed") || strings.Contains(err.Error(), "axe is not defined")) {
			if err := waitLoaded(p); err != nil {
				t.Fatalf("%s: waiting for %s to load: %v", p.label, p.page.URL(), err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: axe-core on %s: %v", p.label, p.page.URL(), err)
		}
		if r == "" { // already checked
			return
		}
		raw = r
		break
	}
	var vs []axeViolation
	if err := json.Unmarshal([]byte(raw), &vs); err != nil {
		t.Fatalf("axe-core's answer on %s: %v", p.page.URL(), err)
	}
	s.axe.add(vs)
	for _, v := range vs {
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Errorf("%s: accessibility (axe-core) on %s in the %s theme: %s %s: %s (%d elements), e.g. %s",
				p.label, p.page.URL(), v.Theme, v.Impact, v.ID, v.Help, v.Nodes, strings.Join(v.Targets, "; "))
		}
	}
}

// runAxe loads axe-core into the page unless it is there, and runs axeRun.
// It answers "" for a document checked before. The script is loaded by a
// DevTools evaluation, not a script element: the page's Content Security
// Policy (no inline scripts) stays as it is.
func (s *suite) runAxe(p *session, src string) (string, error) {
	loaded, err := p.page.Evaluate(`() => typeof window.axe === "object"`)
	if err != nil {
		return "", err
	}
	if ok, _ := loaded.(bool); !ok {
		if _, err := p.page.Evaluate(src); err != nil {
			return "", err
		}
	}
	res, err := p.page.Evaluate(axeRun)
	if err != nil {
		return "", err
	}
	raw, _ := res.(string)
	return raw, nil
}
