package audit

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
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

func TestARecordThatCannotBeWrittenIsLoggedAndCounted(t *testing.T) {
	ds, err := bolt.Open(t.TempDir(), docstore.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	l := New(store.New(ds, nil), slog.New(slog.NewJSONHandler(&logs, nil)), nil)
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

func TestExportStopsWhenItsContextEnds(t *testing.T) {
	ds, err := bolt.Open(t.TempDir(), docstore.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	l := New(store.New(ds, nil), slog.New(slog.DiscardHandler), nil)
	for range 3 {
		l.Record(t.Context(), Entry{TenantID: "tenant_a", Action: "user.update"})
	}
	var out bytes.Buffer
	if err := l.WriteCSV(t.Context(), &out, "tenant_a", Filter{}); err != nil || strings.Count(out.String(), "\n") != 4 {
		t.Fatalf("export: %v, %d lines", err, strings.Count(out.String(), "\n"))
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := l.WriteCSV(ctx, io.Discard, "tenant_a", Filter{}); !errors.Is(err, context.Canceled) {
		t.Errorf("an export whose context ended: got %v, want context.Canceled", err)
	}
}
