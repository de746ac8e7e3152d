package bolt_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// TestAnEarlierDataFileIsIndexedOnOpen opens a data file written by the
// release before secondary indexes (testdata/v1-kanri.db.gz: the operator,
// two tenants of 30 users each and their audit records), and checks that
// the first open indexes it, saying so in the log, and that every document
// is found through the indexes as by a scan.
func TestAnEarlierDataFileIsIndexedOnOpen(t *testing.T) {
	dir := t.TempDir()
	unpack(t, "testdata/v1-kanri.db.gz", filepath.Join(dir, bolt.FileName))
	var logs bytes.Buffer
	st, err := bolt.Open(dir, features.Specs(), bolt.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), `"msg":"indexed the embedded store","container":"auth"`) {
		t.Errorf("the first open did not log the indexing:\n%s", logs.String())
	}
	for _, tt := range []struct {
		container, typ, order string
		want                  int
	}{
		{kanri.ContainerAuth, kanri.TypeUser, "username", 61},
		{kanri.ContainerAudit, kanri.TypeAuditLog, "timestamp", 0},
	} {
		scanned := 0
		q := docstore.Query{Type: tt.typ, Limit: 1000}
		for {
			p, err := st.Container(tt.container).QueryAcrossPartitions(t.Context(), q)
			if err != nil {
				t.Fatal(err)
			}
			scanned += len(p.Items)
			if p.Continuation == "" {
				break
			}
			q.Continuation = p.Continuation
		}
		if tt.want > 0 && scanned != tt.want {
			t.Errorf("%s: scanned %d, want %d", tt.typ, scanned, tt.want)
		}
		indexed := 0
		for _, pk := range []string{kanri.PrivilegedTenantID, "tenant_alpha", "tenant_beta"} {
			q := docstore.Query{Type: tt.typ, OrderBy: tt.order, Limit: 7}
			for {
				p, err := st.Container(tt.container).Query(t.Context(), pk, q)
				if err != nil {
					t.Fatal(err)
				}
				indexed += len(p.Items)
				if p.Continuation == "" {
					break
				}
				q.Continuation = p.Continuation
			}
		}
		if indexed != scanned || scanned == 0 {
			t.Errorf("%s: %d found through the index, %d by a scan", tt.typ, indexed, scanned)
		}
	}
	st.Close()
	logs.Reset()
	st, err = bolt.Open(dir, features.Specs(), bolt.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if strings.Contains(logs.String(), "indexed") {
		t.Errorf("the second open indexed again:\n%s", logs.String())
	}
}

func unpack(t *testing.T, from, to string) {
	t.Helper()
	f, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
}
