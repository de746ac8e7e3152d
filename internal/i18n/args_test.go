package i18n

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// formatters are the functions that format a message with arguments: the
// index of the key and of the first argument, by funcID.
var formatters = map[string][2]int{
	"i18n.T":           {1, 2}, // i18n.T(ctx, key, args...)
	"i18n.Translate":   {1, 2}, // i18n.Translate(lang, key, args...)
	"kanri.E":          {1, 2}, // kanri.E(code, key, args...)
	"views.T":          {1, 2}, // the views' T(ctx, key, args...)
	"views.translated": {1, 3}, // translated(ctx, key, fallback, args...)
	".Report":          {2, 3}, // the console's s.Report(c, dest, key, args...)
}

// verb matches a formatting verb of fmt, with its optional argument index.
var verb = regexp.MustCompile(`%(?:\[(\d+)\])?[-+# 0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?[a-zA-Z]`)

// argsTaken returns how many arguments a message formats.
func argsTaken(msg string) int {
	msg = strings.ReplaceAll(msg, "%%", "")
	n, next := 0, 0
	for _, m := range verb.FindAllStringSubmatch(msg, -1) {
		if m[1] != "" {
			next, _ = strconv.Atoi(m[1])
		} else {
			next++
		}
		n = max(n, next)
	}
	return n
}

// TestMessagesTakeTheArgumentsTheyAreGiven checks every message in both
// languages for the same number of arguments, and every call that formats
// a message whose key is known (a constant, or a constant beginning and
// end around a name) against the arguments each possible message takes:
// a wrong count shows as %!(EXTRA …) or %!s(MISSING) on a page.
func TestMessagesTakeTheArgumentsTheyAreGiven(t *testing.T) {
	for key, m := range catalog {
		if m.ja != "" && argsTaken(m.en) != argsTaken(m.ja) {
			t.Errorf("%s takes %d arguments in English, %d in Japanese", key, argsTaken(m.en), argsTaken(m.ja))
		}
	}
	kf := parseCode(t, filepath.Join("..", ".."))
	type call struct {
		pos   token.Pos
		key   ast.Expr
		given int
	}
	var calls []call
	named := map[string]bool{} // the keys the code names as constants
	for _, f := range kf.files {
		ast.Inspect(f, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			at, ok := formatters[callee(f, c)]
			if !ok || len(c.Args) <= at[0] || c.Ellipsis.IsValid() {
				return true
			}
			calls = append(calls, call{c.Pos(), c.Args[at[0]], max(0, len(c.Args)-at[1])})
			if keys := messageKeys(c.Args[at[0]], nil); len(keys) == 1 {
				if _, ok := ast.Unparen(c.Args[at[0]]).(*ast.BasicLit); ok {
					named[keys[0]] = true
				}
			}
			return true
		})
	}
	checked := 0
	for _, c := range calls {
		for _, key := range messageKeys(c.key, named) {
			if want := argsTaken(catalog[key].en); want != c.given {
				t.Errorf("%s: %s takes %d arguments, given %d", kf.fset.Position(c.pos), key, want, c.given)
			}
			checked++
		}
	}
	t.Logf("%d calls checked", checked)
	if checked < 300 {
		t.Errorf("checked only %d calls: does the test still see the formatters?", checked)
	}
}

// messageKeys returns the catalog keys a key expression can be: the
// constant, or every key with the constant beginning and end of a
// concatenation ("role." + key + ".description") and one segment between
// that the code does not name itself (named: "health." + status is not
// health.checked_at, which the code names).
func messageKeys(e ast.Expr, named map[string]bool) []string {
	var parts []ast.Expr
	var split func(ast.Expr)
	split = func(e ast.Expr) {
		if b, ok := ast.Unparen(e).(*ast.BinaryExpr); ok && b.Op == token.ADD {
			split(b.X)
			split(b.Y)
			return
		}
		parts = append(parts, ast.Unparen(e))
	}
	split(e)
	lit := func(e ast.Expr) (string, bool) {
		if l, ok := e.(*ast.BasicLit); ok && l.Kind == token.STRING {
			s, err := strconv.Unquote(l.Value)
			return s, err == nil
		}
		return "", false
	}
	if len(parts) == 1 {
		if s, ok := lit(parts[0]); ok {
			if _, ok := catalog[s]; ok {
				return []string{s}
			}
		}
		return nil
	}
	prefix, ok := lit(parts[0])
	if !ok || prefix == "" {
		return nil
	}
	suffix, _ := lit(parts[len(parts)-1])
	var keys []string
	for k := range catalog {
		// What is put in between is one segment of a key ("health." +
		// status is health.ok, not health.checked_at's kin of deeper keys).
		if strings.HasPrefix(k, prefix) && strings.HasSuffix(k, suffix) && len(k) > len(prefix)+len(suffix) &&
			!strings.Contains(k[len(prefix):len(k)-len(suffix)], ".") && !named[k] {
			keys = append(keys, k)
		}
	}
	return keys
}

func TestArgsTaken(t *testing.T) {
	for _, tt := range []struct {
		msg  string
		want int
	}{
		{"Every permission in every tenant", 0},
		{"100%% sure", 0},
		{"Manages %s in its own tenant", 1},
		{"%d of %d users, %.1f%%", 3},
		{"%[2]s before %[1]s", 2},
		{"%-5s|%05d|%+v|%q", 4},
	} {
		if got := argsTaken(tt.msg); got != tt.want {
			t.Errorf("argsTaken(%q): got %d, want %d", tt.msg, got, tt.want)
		}
	}
}
