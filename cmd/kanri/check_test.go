package main

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// TestCheckCommand runs `kanri check` on a sound file, on one damaged on
// purpose (an index entry removed behind the store's back), and with
// -repair; the data directory comes from KANRI_DATA_DIR as for the server.
func TestCheckCommand(t *testing.T) {
	dir := t.TempDir()
	st, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	body := `{"id":"user_1","tenantId":"tenant_a","type":"user","username":"alice","isActive":true}`
	if _, err := st.Container(kanri.ContainerAuth).Create(context.Background(), "tenant_a", []byte(body)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	env := func(k string) string {
		if k == "KANRI_DATA_DIR" {
			return dir
		}
		return ""
	}
	check := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := run(context.Background(), append([]string{"check"}, args...), env, &out, &bytes.Buffer{}, nil)
		return out.String(), err
	}
	out, err := check()
	if err != nil || !strings.Contains(out, "1 documents") || !strings.Contains(out, ": 0 problems") {
		t.Fatalf("sound file: %v\n%s", err, out)
	}
	// The space report: the auth container's one document and its
	// user_username entry, with their bytes, and the file's size.
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^\s*auth\s+\(documents\)\s+1\s+\d+\s+\d+\s*$`),
		regexp.MustCompile(`(?m)^\s*auth\s+user_username\s+1\s+\d+\s+\d+\s*$`),
		regexp.MustCompile(`(?m)^\s*auth\s+\(pages\)\s+(\d+\s+\d+% in use|inline)\s*$`),
		regexp.MustCompile(`(?m)^store file: \d+ bytes, \d+ a document$`),
	} {
		if !want.MatchString(out) {
			t.Errorf("the space report lacks %s:\n%s", want, out)
		}
	}
	// Damage: the username index loses alice's entry. An index entry names
	// its index by a one-byte tag, its place among the container's
	// indexes (from 1).
	tag := -1
	for _, sp := range features.Specs() {
		if sp.Name == kanri.ContainerAuth {
			tag = slices.IndexFunc(sp.Indexes, func(ix docstore.Index) bool { return ix.Name == "user_username" }) + 1
		}
	}
	if tag < 1 {
		t.Fatal("the auth container declares no user_username index")
	}
	db, err := bbolt.Open(dir+"/"+bolt.FileName, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		c := tx.Bucket([]byte("_idx:" + kanri.ContainerAuth)).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if _, rest, _ := bytes.Cut(k, []byte{0}); bytes.HasPrefix(rest, []byte{byte(tag), 0}) {
				return c.Delete()
			}
		}
		t.Fatal("no user_username entry to damage")
		return nil
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := check(); err == nil || !strings.Contains(out, "lacks its index entry") || !strings.Contains(out, ": 1 problems") {
		t.Errorf("damaged file: got %v\n%s", err, out)
	}
	if out, err := check("-repair"); err != nil || !strings.Contains(out, "repaired auth") || !strings.Contains(out, ": 0 problems") {
		t.Errorf("repair: got %v\n%s", err, out)
	}
	if out, err := check("-data-dir", t.TempDir()); err == nil {
		t.Errorf("a directory without a store: got no error\n%s", out)
	}
}
