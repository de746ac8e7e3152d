package main

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/migrate"
)

// TestMigrateCommand: kanri migrate -dry-run prints the plan of the
// store the settings name, kanri migrate its report; a store in use
// (the server running) is refused, and a bad -samples too.
func TestMigrateCommand(t *testing.T) {
	dir := t.TempDir()
	ds, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ds.Close()
	e := env(map[string]string{"KANRI_DATA_DIR": dir})
	var out bytes.Buffer
	if err := run(t.Context(), []string{"migrate", "-dry-run", "-samples", "1"}, e, &out, io.Discard, nil); err != nil {
		t.Fatal(err)
	}
	var plan migrate.Plan
	if err := json.Unmarshal(out.Bytes(), &plan); err != nil || plan.Documents != 0 {
		t.Errorf("dry run printed %q (%v): want a plan with nothing behind", out.String(), err)
	}
	out.Reset()
	if err := run(t.Context(), []string{"migrate"}, e, &out, io.Discard, nil); err != nil {
		t.Fatal(err)
	}
	var rep migrate.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Migrated != 0 {
		t.Errorf("run printed %q (%v): want a report of nothing migrated", out.String(), err)
	}
	if err := run(t.Context(), []string{"migrate", "-samples", "many"}, e, io.Discard, io.Discard, nil); err == nil || !strings.Contains(err.Error(), "-samples") {
		t.Errorf("a bad -samples: %v", err)
	}
	held, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := run(t.Context(), []string{"migrate", "-dry-run"}, e, io.Discard, io.Discard, nil); err == nil {
		t.Errorf("a migration of the embedded store while %s is open elsewhere did not fail", filepath.Base(dir))
	}
}
