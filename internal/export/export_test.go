package export_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

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
