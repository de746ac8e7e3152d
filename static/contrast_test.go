package static

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestThemesMeetContrast checks every pair of text and background colour
// of both themes against WCAG AA (a contrast ratio of at least 4.5:1), and
// that the dark theme chosen by the system and by the user are the same.
func TestThemesMeetContrast(t *testing.T) {
	b, err := FS.ReadFile("css/app.css")
	if err != nil {
		t.Fatal(err)
	}
	css := string(b)
	light := vars(t, block(t, css, ":root {"))
	dark := vars(t, block(t, css, `:root[data-theme="dark"] {`))
	system := vars(t, block(t, css, `:root:not([data-theme="light"]) {`))
	for k, v := range dark {
		if system[k] != v {
			t.Errorf("dark --%s: %q by choice, %q by the system's", k, v, system[k])
		}
	}
	pairs := [][2]string{
		{"text", "panel"}, {"text", "bg"}, {"muted", "panel"}, {"muted", "bg"}, {"muted", "th-bg"}, {"muted", "badge-bg"},
		{"link", "panel"}, {"link", "bg"}, {"on-brand", "brand"}, {"on-brand", "brand-2"},
		{"accent-text", "accent-bg"}, {"ok", "ok-bg"}, {"warn", "warn-bg"}, {"err", "err-bg"}, {"err", "panel"},
	}
	for name, theme := range map[string]map[string]string{"light": light, "dark": dark} {
		for _, p := range pairs {
			got := contrast(t, theme[p[0]], theme[p[1]])
			if got < 4.5 {
				t.Errorf("%s theme: --%s on --%s has contrast %.2f:1, want at least 4.5:1", name, p[0], p[1], got)
			}
		}
	}
}

// block returns the declarations of the first rule that starts with head.
func block(t *testing.T, css, head string) string {
	t.Helper()
	i := strings.Index(css, head)
	if i < 0 {
		t.Fatalf("no rule %s", head)
	}
	rest := css[i+len(head):]
	return rest[:strings.Index(rest, "}")]
}

var varPattern = regexp.MustCompile(`--([a-z0-9-]+):\s*(#[0-9a-fA-F]{6})`)

func vars(t *testing.T, decls string) map[string]string {
	out := map[string]string{}
	for _, m := range varPattern.FindAllStringSubmatch(decls, -1) {
		out[m[1]] = strings.ToLower(m[2])
	}
	if len(out) < 10 {
		t.Fatalf("found only %d colour variables in %q", len(out), decls)
	}
	return out
}

// contrast returns the WCAG 2 contrast ratio of two #rrggbb colours.
func contrast(t *testing.T, a, b string) float64 {
	t.Helper()
	la, lb := luminance(t, a), luminance(t, b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func luminance(t *testing.T, hex string) float64 {
	t.Helper()
	if len(hex) != 7 {
		t.Fatalf("colour %q is not #rrggbb", hex)
	}
	var l [3]float64
	for i := range 3 {
		v, err := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		if err != nil {
			t.Fatal(err)
		}
		c := float64(v) / 255
		if c <= 0.03928 {
			l[i] = c / 12.92
		} else {
			l[i] = math.Pow((c+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*l[0] + 0.7152*l[1] + 0.0722*l[2]
}
