package audit

import (
	"bytes"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name          string
		before, after map[string]any
		want          map[string]kanri.Change
	}{
		{"equal scalars", map[string]any{"a": 1, "b": "x"}, map[string]any{"a": 1, "b": "x"}, nil},
		{"changed, added and removed scalars",
			map[string]any{"a": 1, "b": "x", "gone": true}, map[string]any{"a": 1, "b": "y", "new": 2},
			map[string]kanri.Change{"b": {Before: "x", After: "y"}, "gone": {Before: true}, "new": {After: 2}}},
		{"int and float of one number", map[string]any{"n": 3}, map[string]any{"n": 3.0}, nil},
		{"equal slices", map[string]any{"s": []string{"a", "b"}}, map[string]any{"s": []string{"a", "b"}}, nil},
		{"[]string and []any read back", map[string]any{"s": []any{"a", "b"}}, map[string]any{"s": []string{"a", "b"}}, nil},
		{"different slices", map[string]any{"s": []string{"a"}}, map[string]any{"s": []string{"a", "b"}},
			map[string]kanri.Change{"s": {Before: []string{"a"}, After: []string{"a", "b"}}}},
		{"reordered slice", map[string]any{"s": []string{"a", "b"}}, map[string]any{"s": []string{"b", "a"}},
			map[string]kanri.Change{"s": {Before: []string{"a", "b"}, After: []string{"b", "a"}}}},
		{"a number and its text in a map", map[string]any{"m": map[string]any{"k": "v", "n": 1}}, map[string]any{"m": map[string]string{"k": "v", "n": "1"}},
			map[string]kanri.Change{"m": {Before: map[string]any{"k": "v", "n": 1}, After: map[string]string{"k": "v", "n": "1"}}}},
		{"same map content", map[string]any{"m": map[string]any{"k": "v"}}, map[string]any{"m": map[string]string{"k": "v"}}, nil},
		{"different maps", map[string]any{"m": map[string]string{"k": "v"}}, map[string]any{"m": map[string]string{"k": "w"}},
			map[string]kanri.Change{"m": {Before: map[string]string{"k": "v"}, After: map[string]string{"k": "w"}}}},
		{"nil and missing", map[string]any{"a": nil}, map[string]any{"b": nil}, nil},
		{"nil and empty slice", map[string]any{"s": []string(nil)}, map[string]any{"s": []string{}}, nil},
		{"missing and a value", nil, map[string]any{"s": []string{"a"}},
			map[string]kanri.Change{"s": {After: []string{"a"}}}},
		{"a value and missing", map[string]any{"m": map[string]int{"a": 1}}, nil,
			map[string]kanri.Change{"m": {Before: map[string]int{"a": 1}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Diff(tt.before, tt.after)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestARecordThatCannotBeWrittenIsLoggedAndCounted(t *testing.T) {
	ds := openStore(t)
	var logs bytes.Buffer
	l := New(store.New(ds, nil, ownTypes), slog.New(slog.NewJSONHandler(&logs, nil)), nil)
	ctx := WithActor(t.Context(), Actor{UserID: "user_1", RequestID: "req-1"})
	l.Record(ctx, Entry{TenantID: "tenant_a", Action: "user.update"})
	if got, want := l.Lost(), int64(0); got != want {
		t.Fatalf("a written record: got %d lost, want %d", got, want)
	}
	ds.Close() // the store goes away
	l.Record(ctx, Entry{TenantID: "tenant_a", Action: "user.delete", Resource: kanri.AuditResource{ID: "user_2"}})
	if got, want := l.Lost(), int64(1); got != want {
		t.Errorf("got %d lost, want %d", got, want)
	}
	for _, want := range []string{`"msg":"audit record lost"`, `"action":"user.delete"`, `"resource":"user_2"`, `"request_id":"req-1"`, `"lost_total":1`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %s:\n%s", want, logs.String())
		}
	}
}

// ownTypes are the package's own document types: its internal tests cannot
// import package schema (which imports this package).
var ownTypes = doctype.MustSet([]doctype.Container{Container}, DocTypes)

// openStore opens an embedded store of the package's own types, closed
// when the test ends.
func openStore(t *testing.T) *bolt.Store {
	t.Helper()
	st, err := bolt.Open(t.TempDir(), ownTypes.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
