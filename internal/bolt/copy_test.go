package bolt_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// hangTimeout bounds a wait that only guards against a hang; a busy
// machine is slow, never that slow.
const hangTimeout = 2 * time.Minute

// copyTo returns an open function for Copy and CopyFile that writes to a
// new file at path and records the size it was given.
func copyTo(t *testing.T, path string, size *int64) (func(int64) (io.Writer, error), func()) {
	t.Helper()
	var f *os.File
	open := func(n int64) (io.Writer, error) {
		*size = n
		var err error
		f, err = os.Create(path)
		return f, err
	}
	return open, func() {
		if f != nil {
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// countDocs opens the store in dir and counts the documents of partition
// pk in the auth container.
func countDocs(t *testing.T, dir, pk string) int {
	t.Helper()
	st, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n, next := 0, ""
	for {
		page, err := st.Container(kanri.ContainerAuth).Query(t.Context(), pk, docstore.Query{Type: "x", Continuation: next, Limit: docstore.MaxPageSize})
		if err != nil {
			t.Fatal(err)
		}
		n += len(page.Items)
		if next = page.Continuation; next == "" {
			return n
		}
	}
}

func createDoc(t *testing.T, st *bolt.Store, pk string, i int) {
	t.Helper()
	body := fmt.Sprintf(`{"id":"doc_%06d","tenantId":%q,"type":"x"}`, i, pk)
	if _, err := st.Container(kanri.ContainerAuth).Create(t.Context(), pk, []byte(body)); err != nil {
		t.Error(err)
	}
}

// TestCopyWhileWriting copies an open store while a writer goes on: the
// writer commits while the copy's transaction is open (it is not
// blocked), and the copy holds exactly what was committed before the
// copy began.
func TestCopyWhileWriting(t *testing.T) {
	dir := t.TempDir()
	st, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i := range 50 {
		createDoc(t, st, "t1", i)
	}
	var committed atomic.Int64
	committed.Store(50)
	stop, done := make(chan struct{}), make(chan struct{})
	progress := make(chan int64, 1)
	go func() {
		defer close(done)
		for i := 50; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			createDoc(t, st, "t1", i)
			select {
			case progress <- committed.Add(1):
			default:
			}
		}
	}()
	out := filepath.Join(t.TempDir(), bolt.FileName)
	var size, atStart int64
	open, closeCopy := copyTo(t, out, &size)
	n, err := st.Copy(func(size int64) (io.Writer, error) {
		atStart = committed.Load()
		// The writer must commit while this transaction is open.
		timeout := time.After(hangTimeout)
		for got := atStart; got < atStart+20; {
			select {
			case got = <-progress:
			case <-timeout:
				return nil, errors.New("the writer is blocked while a copy runs")
			}
		}
		return open(size)
	})
	closeCopy()
	close(stop)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if n != size {
		t.Errorf("copy: wrote %d bytes, announced %d", n, size)
	}
	if err := bolt.VerifyCopy(out); err != nil {
		t.Fatal(err)
	}
	restored := filepath.Dir(out)
	got := countDocs(t, restored, "t1")
	// atStart was read inside the transaction: every create counted by
	// then had committed before it began or while it ran, so the copy
	// holds at least the 50 written first and at most atStart (+1: the
	// create in flight when it began).
	if got < 50 || int64(got) > atStart+1 {
		t.Errorf("the copy holds %d documents, want from 50 to %d", got, atStart+1)
	}
	if total := committed.Load(); int64(got) >= total {
		t.Errorf("the copy holds %d documents, want fewer than the %d committed by the end", got, total)
	}
}

// TestCopyFile copies a closed store, refuses one that a process holds,
// and tells a truncated copy from a whole one.
func TestCopyFile(t *testing.T) {
	dir := t.TempDir()
	st, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		createDoc(t, st, "t1", i)
	}
	_, err = bolt.CopyFile(dir, func(int64) (io.Writer, error) { return io.Discard, nil })
	if !errors.Is(err, bolt.ErrInUse) {
		t.Errorf("copy of a store held open: got %v, want ErrInUse", err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(t.TempDir(), bolt.FileName)
	var size int64
	open, closeCopy := copyTo(t, out, &size)
	n, err := bolt.CopyFile(dir, open)
	closeCopy()
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() != n || n != size {
		t.Fatalf("copy: %v; wrote %d bytes, announced %d", err, n, size)
	}
	if err := bolt.VerifyCopy(out); err != nil {
		t.Fatal(err)
	}
	if got, want := countDocs(t, filepath.Dir(out), "t1"), 10; got != want {
		t.Errorf("the copy holds %d documents, want %d", got, want)
	}

	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"truncated", b[:len(b)/2]},
		{"not a store", bytes.Repeat([]byte{7}, len(b))},
	} {
		path := filepath.Join(t.TempDir(), "bad.db")
		if err := os.WriteFile(path, tc.data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := bolt.VerifyCopy(path); err == nil {
			t.Errorf("%s copy: VerifyCopy accepted it", tc.name)
		}
	}
	if _, err := bolt.CopyFile(t.TempDir(), func(int64) (io.Writer, error) { return io.Discard, nil }); err == nil {
		t.Error("copy of a directory without a store: got no error")
	}
}
