package bolt

import (
	"encoding/json"
	"reflect"
	"regexp"
	"testing"
)

// scanAll decodes every top-level member with the scanner.
func scanAll(t testing.TB, body []byte) (map[string]any, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(body, &keys); err != nil {
		return nil, err
	}
	// Queries name fields by the docstore field pattern only.
	for k := range keys {
		if !fieldName.MatchString(k) {
			delete(keys, k)
		}
	}
	need := map[string]bool{}
	for k := range keys {
		need[k] = true
	}
	d, err := newLazyDoc(body, need)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for k := range keys {
		v, ok := d.get(k)
		if !ok {
			t.Fatalf("member %q not found by the scanner in %s", k, body)
		}
		out[k] = v
	}
	return out, nil
}

var fieldName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// queryable drops the members a query could not name.
func queryable(m map[string]any) map[string]any {
	for k := range m {
		if !fieldName.MatchString(k) {
			delete(m, k)
		}
	}
	return m
}

func TestScannerAgreesWithEncodingJSON(t *testing.T) {
	docs := []string{
		`{}`,
		` { "a" : 1 , "b":"x" } `,
		`{"id":"u1","tenantId":"t","n":-1.5e3,"t":true,"f":false,"z":null}`,
		`{"s":"quote \" and \\ backslash","u":"\u7ba1\u7406","k\u0065y":"escaped key"}`,
		"{\"bad\":\"\xff\"}",
		`{"nested":{"a":[1,{"b":"}]"}],"c":{}},"arr":[[],[[]],"]"],"last":"}"}`,
		"{\n\t\"ws\"\t:\n[ 1 , 2 ]\r\n}",
	}
	for _, doc := range docs {
		var want map[string]any
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatal(err)
		}
		got, err := scanAll(t, []byte(doc))
		if err != nil {
			t.Fatalf("scan %s: %v", doc, err)
		}
		if want = queryable(want); !reflect.DeepEqual(got, want) {
			t.Errorf("scan %s:\n got %#v\nwant %#v", doc, got, want)
		}
	}
}

func TestLazyDocNestedPaths(t *testing.T) {
	d, err := newLazyDoc([]byte(`{"metadata":{"country":"JP","deep":{"x":1}},"name":"a"}`), map[string]bool{"metadata": true})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want any
		ok   bool
	}{
		{"metadata.country", "JP", true},
		{"metadata.deep.x", 1.0, true},
		{"metadata.missing", nil, false},
		{"metadata.country.more", nil, false},
		{"name", nil, false}, // not asked for
	}
	for _, tt := range tests {
		got, ok := d.get(tt.path)
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("get(%q): got %v, %v; want %v, %v", tt.path, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzScanner(f *testing.F) {
	f.Add(`{"a":1,"b":[1,"]"],"c":{"d":"\""}}`)
	f.Add(`{"x":"\u00e9","y":null}`)
	f.Fuzz(func(t *testing.T, doc string) {
		var want map[string]any
		if json.Unmarshal([]byte(doc), &want) != nil || want == nil {
			return // stored bodies are always valid JSON objects
		}
		got, err := scanAll(t, []byte(doc))
		if err != nil {
			t.Fatalf("scan %q: %v", doc, err)
		}
		if want = queryable(want); !reflect.DeepEqual(got, want) {
			t.Fatalf("scan %q:\n got %#v\nwant %#v", doc, got, want)
		}
	})
}
