package audit

import (
	"testing"

	"github.com/kanri/kanri/internal/kanri"
)

func TestDiff(t *testing.T) {
	got := Diff(map[string]any{"a": 1, "b": "x", "gone": true}, map[string]any{"a": 1, "b": "y", "new": 2})
	want := map[string]kanri.Change{"b": {Before: "x", After: "y"}, "gone": {Before: true}, "new": {After: 2}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, w := range want {
		if g := got[k]; g != w {
			t.Errorf("%s: got %v, want %v", k, g, w)
		}
	}
	if Diff(map[string]any{"a": 1}, map[string]any{"a": 1}) != nil {
		t.Error("no change: got changes")
	}
}

func TestCSVCellsAreDefused(t *testing.T) {
	tests := []struct{ in, want string }{
		{"=HYPERLINK(\"x\")", "'=HYPERLINK(\"x\")"},
		{"+1", "'+1"},
		{"-1", "'-1"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"user.update", "user.update"},
		{"", ""},
		{"管理者", "管理者"},
	}
	for _, tt := range tests {
		if got := defuse(tt.in); got != tt.want {
			t.Errorf("defuse(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}
