package export_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/export"
	"github.com/kanri/kanri/internal/kanri"
)

type item struct {
	name string
	n    int
	on   bool
	at   kanri.Time
}

var columns = []export.Column[item]{
	{Name: "name", Value: func(i item) any { return i.name }},
	{Name: "n", Value: func(i item) any { return i.n }},
	{Name: "on", Value: func(i item) any { return i.on }},
	{Name: "at", Value: func(i item) any { return i.at }},
}

// pages serves items two a page, by continuation, and counts the reads.
func pages(items []item, reads *int) export.Pager[item] {
	return func(_ context.Context, cont string) ([]item, string, error) {
		*reads++
		from := 0
		if cont != "" {
			from = int(cont[0] - '0')
		}
		to := min(from+2, len(items))
		next := ""
		if to < len(items) {
			next = string(rune('0' + to))
		}
		return items[from:to], next, nil
	}
}

// TestStream writes the same items as CSV and as JSON, a page at a time.
func TestStream(t *testing.T) {
	at := kanri.Time{}
	items := []item{{"ann", 1, true, at}, {"=HYPERLINK(\"x\")", 2, false, at}, {"ben, jr.", 3, true, at}}
	for _, tc := range []struct {
		name  string
		f     export.Format
		items []item
		want  string
	}{
		{"csv", export.CSV, items, "name,n,on,at\nann,1,true,\n\"'=HYPERLINK(\"\"x\"\")\",2,false,\n\"ben, jr.\",3,true,\n"},
		{"csv of none", export.CSV, nil, "name,n,on,at\n"},
		{"json of none", export.JSON, nil, "[\n]\n"},
	} {
		var b bytes.Buffer
		reads := 0
		if err := export.Stream(context.Background(), &b, tc.f, columns, pages(tc.items, &reads)); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
		if want := max(1, (len(tc.items)+1)/2); reads != want {
			t.Errorf("%s: %d reads, want %d", tc.name, reads, want)
		}
	}
	var b bytes.Buffer
	reads := 0
	if err := export.Stream(context.Background(), &b, export.JSON, columns, pages(items, &reads)); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("the JSON does not parse: %v\n%s", err, b.String())
	}
	if len(got) != 3 || got[1]["name"] != "=HYPERLINK(\"x\")" || got[2]["n"] != 3.0 || got[0]["on"] != true || got[0]["at"] != nil {
		t.Errorf("got %v", got)
	}
}

// TestStreamStopsOnError: a page that cannot be read ends the export
// with its error, after what was written.
func TestStreamStopsOnError(t *testing.T) {
	boom := errors.New("boom")
	var b bytes.Buffer
	err := export.Stream(context.Background(), &b, export.JSON, columns, func(_ context.Context, cont string) ([]item, string, error) {
		if cont == "" {
			return []item{{name: "ann"}}, "next", nil
		}
		return nil, "", boom
	})
	if !errors.Is(err, boom) || !strings.Contains(b.String(), "ann") {
		t.Errorf("got %v after %q", err, b.String())
	}
	if json.Valid(b.Bytes()) {
		t.Error("a JSON export cut short parses")
	}
}

func TestParseFormat(t *testing.T) {
	for ext, want := range map[string]bool{"csv": true, "json": true, ".csv": true, "xml": false, "": false} {
		if _, ok := export.ParseFormat(ext); ok != want {
			t.Errorf("ParseFormat(%q): %v, want %v", ext, ok, want)
		}
	}
}

// TestCSVCells checks how the CSV writes each kind of value: a value
// whose JSON is null as an empty cell, a map as its JSON, and a cell a
// spreadsheet would run as a formula defused.
func TestCSVCells(t *testing.T) {
	text := "text"
	at := kanri.NewTime(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	tests := []struct {
		name  string
		value any
		want  string
	}{
		{"nil", nil, ""},
		{"a string", "ann", "ann"},
		{"a formula", "=1+1", "'=1+1"},
		{"a *string", &text, "text"},
		{"a nil *string", (*string)(nil), ""},
		{"a bool", true, "true"},
		{"an int", 42, "42"},
		{"a negative int64", int64(-7), "'-7"},
		{"a time", at, "2026-11-01T09:00:00.0000000Z"},
		{"the zero time", kanri.Time{}, ""},
		{"a map", map[string]kanri.Change{"email": {Before: "a", After: "b"}}, `{"email":{"before":"a","after":"b"}}`},
		{"a nil map", map[string]kanri.Change(nil), ""},
		{"an empty map", map[string]kanri.Change{}, "{}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A second column keeps an empty cell from being an empty
			// line, which a CSV reader skips.
			cols := []export.Column[any]{{Name: "v", Value: func(v any) any { return v }}, {Name: "end", Value: func(any) any { return "end" }}}
			var b bytes.Buffer
			err := export.Stream(context.Background(), &b, export.CSV, cols, func(context.Context, string) ([]any, string, error) {
				return []any{tt.value}, "", nil
			})
			if err != nil {
				t.Fatal(err)
			}
			recs, err := csv.NewReader(&b).ReadAll()
			if err != nil || len(recs) != 2 {
				t.Fatalf("got %d records, err %v, want the header and a row", len(recs), err)
			}
			if got := recs[1][0]; got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestDefuse: a cell that starts as a formula does (= + - @, a tab or a
// carriage return) starts with a quote, so that spreadsheet programs do
// not evaluate it (CSV injection); any other cell stays as it is.
func TestDefuse(t *testing.T) {
	tests := []struct{ in, want string }{
		{"=HYPERLINK(\"x\")", "'=HYPERLINK(\"x\")"},
		{"+1", "'+1"},
		{"-1", "'-1"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\t=1", "'\t=1"},
		{"\r=1", "'\r=1"},
		{"user.update", "user.update"},
		{"a=1", "a=1"},
		{"", ""},
		{"管理者", "管理者"},
	}
	for _, tt := range tests {
		if got := export.Defuse(tt.in); got != tt.want {
			t.Errorf("Defuse(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}
