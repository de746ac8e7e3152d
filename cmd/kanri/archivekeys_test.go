package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/seal"
)

// TestArchiveKeysRotate: the first start generates a key; a rotation puts
// a new one first and keeps the old one, so that both open what they
// sealed; with KANRI_ARCHIVE_KEYS set it only prints the new list.
func TestArchiveKeysRotate(t *testing.T) {
	dir := t.TempDir()
	first, err := archiveKeys(Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var sealed bytes.Buffer
	w, err := first.Seal(&sealed)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("an archive"))
	w.Close()

	getenv := func(k string) string { return map[string]string{"KANRI_DATA_DIR": dir}[k] }
	var out, errs bytes.Buffer
	if err := runArchiveKeys([]string{"rotate"}, getenv, &out, &errs); err != nil {
		t.Fatal(err, errs.String())
	}
	rotated, err := archiveKeys(Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if rotated.Recipient() == first.Recipient() || !strings.Contains(out.String(), rotated.Recipient()) {
		t.Errorf("after the rotation the current key is %s (first %s); said %q", rotated.Recipient(), first.Recipient(), out.String())
	}
	r, err := rotated.Open(bytes.NewReader(sealed.Bytes()))
	if err != nil {
		t.Fatalf("the rotated keys do not open what the first sealed: %v", err)
	}
	var got bytes.Buffer
	got.ReadFrom(r)
	if got.String() != "an archive" {
		t.Errorf("opened %q", got.String())
	}
	b, _ := os.ReadFile(filepath.Join(dir, archiveKeysFile))
	if n := strings.Count(string(b), "AGE-SECRET-KEY-"); n != 2 {
		t.Errorf("archive.keys holds %d keys, want 2", n)
	}

	set := seal.NewKey()
	out.Reset()
	env := func(k string) string { return map[string]string{"KANRI_DATA_DIR": dir, "KANRI_ARCHIVE_KEYS": set}[k] }
	if err := runArchiveKeys([]string{"rotate"}, env, &out, &errs); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); len(lines) != 2 || lines[1] != set {
		t.Errorf("with KANRI_ARCHIVE_KEYS set, printed %q: want a new key then the set one", out.String())
	}
	if b2, _ := os.ReadFile(filepath.Join(dir, archiveKeysFile)); !bytes.Equal(b, b2) {
		t.Error("with KANRI_ARCHIVE_KEYS set, archive.keys changed")
	}
	if err := runArchiveKeys(nil, getenv, &out, &errs); err == nil {
		t.Error("archive-keys without rotate did not fail")
	}
}
