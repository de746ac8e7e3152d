package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/docstore/docstoretest"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// backup runs `kanri backup` with args and the environment m, and returns
// what it printed.
func backup(ctx context.Context, m map[string]string, args ...string) (string, error) {
	var out, errOut bytes.Buffer
	err := run(ctx, append([]string{"backup"}, args...), env(m), &out, &errOut, nil)
	return out.String() + errOut.String(), err
}

// checkCopy puts the copy at file as the store of a new data directory,
// runs `kanri check` on it, and returns the directory.
func checkCopy(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, bolt.FileName), b, 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(t.Context(), []string{"check", "-data-dir", dir}, env(nil), &out, io.Discard, nil); err != nil || !strings.Contains(out.String(), ": 0 problems") {
		t.Fatalf("kanri check of the copy: %v\n%s", err, out.String())
	}
	return dir
}

// staleSocket leaves a socket at path that nothing listens on, as a
// server that crashed does.
func staleSocket(t *testing.T, path string) {
	t.Helper()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
}

// startHotCopy serves copies of st on the socket of dir until the test
// ends; setup, if not nil, changes the server first.
func startHotCopy(t *testing.T, dir string, st *bolt.Store, setup func(*hotCopyServer)) {
	t.Helper()
	s := newHotCopyServer(dir, st, slog.New(slog.DiscardHandler))
	if setup != nil {
		setup(s)
	}
	ln, err := s.listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("hot-copy server: %v", err)
		}
	})
}

// createDocs writes documents doc_<from>… in partition pk, count to a
// transaction.
func createDocs(t testing.TB, st *bolt.Store, pk string, from, count int) {
	t.Helper()
	ops := make([]docstore.Op, count)
	for i := range ops {
		ops[i] = docstore.Op{Kind: docstore.OpCreate, Body: fmt.Appendf(nil, `{"id":"doc_%07d","tenantId":%q,"type":"x"}`, from+i, pk)}
	}
	if err := docstoretest.Chunked(ops, func(b []docstore.Op) error {
		_, err := st.Container(kanri.ContainerAuth).Batch(context.Background(), pk, b)
		return err
	}); err != nil {
		t.Error(err)
	}
}

// countDocs counts the documents of partition pk in the store in dir.
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

// TestHotCopyFromARunningServer starts the server (over a socket a crash
// left in its data directory), signs in again and again with unknown
// names (each attempt writes an audit record) and takes a copy with
// `kanri backup` meanwhile, finding the data directory as the server does
// (KANRI_DATA_DIR). The socket is the server's user's alone and goes at
// shutdown; `kanri check` accepts the copy, which holds the record of
// every attempt answered before the copy began.
func TestHotCopyFromARunningServer(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, hotCopySocket)
	staleSocket(t, sock)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"-addr", "127.0.0.1:0", "-health-interval", "0"}, lowCost...), env(map[string]string{"KANRI_DATA_DIR": dir}), io.Discard, io.Discard, ready)
	}()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("run ended early: %v", err)
	case <-time.After(hangTimeout):
		t.Fatal("server did not start")
	}
	fi, err := os.Lstat(sock)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fi.Mode(), fs.ModeSocket|0o600; got != want {
		t.Errorf("socket %s: got mode %v, want %v", sock, got, want)
	}

	var (
		mu       sync.Mutex
		answered []string // the names whose attempt was answered
	)
	progress := make(chan int, 1)
	writing, stopWriting := context.WithCancel(ctx)
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		failedSignIns(writing, t, addr, func(name string) {
			mu.Lock()
			answered = append(answered, name)
			n := len(answered)
			mu.Unlock()
			select {
			case progress <- n:
			default:
			}
		})
	}()
	waitFor := func(want int) {
		t.Helper()
		timeout := time.After(hangTimeout)
		for got := 0; got < want; {
			select {
			case got = <-progress:
			case <-timeout:
				t.Fatalf("the writer had %d attempts answered in %v, want %d", got, hangTimeout, want)
			}
		}
	}
	waitFor(10)
	mu.Lock()
	before := slices.Clone(answered)
	mu.Unlock()

	file := filepath.Join(t.TempDir(), "kanri-2026-11-26.db")
	out, err := backup(t.Context(), map[string]string{"KANRI_DATA_DIR": dir}, "-out", file)
	if err != nil {
		t.Fatalf("kanri backup: %v\n%s", err, out)
	}
	if !strings.Contains(out, "copied from the running server") {
		t.Errorf("kanri backup says %q, want a copy from the running server", out)
	}
	waitFor(len(before) + 10) // the server still writes
	stopWriting()
	<-wrote
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run after shutdown: %v", err)
	}
	if _, err := os.Lstat(sock); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("socket after shutdown: got %v, want it removed", err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the copy: %v, mode %v; want mode 0600", err, fi.Mode())
	}

	restored := checkCopy(t, file)
	ds, err := bolt.Open(restored, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	recs, err := store.New(ds, nil, features.Schema()).Tenant(kanri.PrivilegedTenantID).AuditLogs().All(t.Context(), docstore.Query{Where: []docstore.Filter{docstore.Eq("action", "auth.login_failed")}})
	if err != nil {
		t.Fatal(err)
	}
	inCopy := map[string]bool{}
	for _, r := range recs {
		inCopy[r.Resource.Name] = true
	}
	for _, name := range before {
		if !inCopy[name] {
			t.Errorf("the copy lacks the record of %s, answered before the copy began", name)
		}
	}
	t.Logf("%d attempts answered before the copy, %d records in it, %d answered by the end", len(before), len(inCopy), len(answered))
}

// failedSignIns signs in to the server at addr with a new unknown name
// each time, until ctx ends; answered receives each name whose attempt
// the server refused (after recording it).
func failedSignIns(ctx context.Context, t *testing.T, addr string, answered func(name string)) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: hangTimeout}
	base := "http://" + addr
	get, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/login", nil)
	if err != nil {
		t.Error(err)
		return
	}
	resp, err := c.Do(get)
	if err != nil {
		t.Error(err)
		return
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfField.FindSubmatch(page)
	if m == nil {
		t.Error("the sign-in page has no CSRF token")
		return
	}
	for i := 0; ctx.Err() == nil; i++ {
		name := fmt.Sprintf("ghost%d", i)
		form := url.Values{"_csrf": {string(m[1])}, "tenant": {"nosuch"}, "username": {name}, "password": {"Wrong-pass-1"}}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/login", strings.NewReader(form.Encode()))
		if err != nil {
			t.Error(err)
			return
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := c.Do(req)
		if err != nil {
			if ctx.Err() == nil {
				t.Error(err)
			}
			return
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("a sign-in with an unknown name: got %d, want %d", resp.StatusCode, http.StatusUnauthorized)
			return
		}
		answered(name)
	}
}

// TestHotCopyWritersGoOn holds a copy's transaction open until a writer
// has committed 20 more transactions (a writer blocked by the copy would
// hang the test): the copy holds what was committed before it began and
// nothing committed after.
func TestHotCopyWritersGoOn(t *testing.T) {
	dir := t.TempDir()
	st, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	createDocs(t, st, "t1", 0, 100)
	var committed atomic.Int64 // documents, 10 to a transaction
	committed.Store(100)
	progress := make(chan int64, 1)
	var atStart atomic.Int64 // read and written in the server's goroutine
	startHotCopy(t, dir, st, func(s *hotCopyServer) {
		s.opened = func(context.Context) {
			start := committed.Load()
			atStart.Store(start)
			timeout := time.After(hangTimeout)
			for got := start; got < start+200; {
				select {
				case got = <-progress:
				case <-timeout:
					t.Errorf("the writer is blocked while a copy runs: %d documents committed, want %d", got, start+200)
					return
				}
			}
		}
	})
	stop, wrote := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(wrote)
		for i := 100; ; i += 10 {
			select {
			case <-stop:
				return
			default:
			}
			createDocs(t, st, "t1", i, 10)
			select {
			case progress <- committed.Add(10):
			default:
			}
		}
	}()
	file := filepath.Join(t.TempDir(), "copy.db")
	out, err := backup(t.Context(), map[string]string{"KANRI_DATA_DIR": dir}, "-out", file)
	close(stop)
	<-wrote
	if err != nil {
		t.Fatalf("kanri backup: %v\n%s", err, out)
	}
	got := countDocs(t, checkCopy(t, file), "t1")
	// atStart was read inside the copy's transaction: the copy holds the
	// 100 first documents, and at most atStart+10 (a transaction that
	// committed as the copy began, not yet counted).
	if max := atStart.Load() + 10; got < 100 || int64(got) > max {
		t.Errorf("the copy holds %d documents, want from 100 to %d", got, max)
	}
	if total := committed.Load(); int64(got) >= total {
		t.Errorf("the copy holds %d documents, want fewer than the %d committed by the end", got, total)
	}
}

// TestHotCopyWithoutAServer copies the file itself when no server runs,
// whether the socket is missing or a crash left it.
func TestHotCopyWithoutAServer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stale bool
	}{
		{"no socket", false},
		{"a socket left by a crash", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			st, err := bolt.Open(dir, features.Specs(), bolt.Options{})
			if err != nil {
				t.Fatal(err)
			}
			createDocs(t, st, "t1", 0, 25)
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			if tc.stale {
				staleSocket(t, filepath.Join(dir, hotCopySocket))
			}
			file := filepath.Join(t.TempDir(), "copy.db")
			out, err := backup(t.Context(), nil, "-data-dir", dir, "--out="+file)
			if err != nil {
				t.Fatalf("kanri backup: %v\n%s", err, out)
			}
			if !strings.Contains(out, "(no server running)") {
				t.Errorf("kanri backup says %q, want a copy of the file", out)
			}
			if got, want := countDocs(t, checkCopy(t, file), "t1"), 25; got != want {
				t.Errorf("the copy holds %d documents, want %d", got, want)
			}
		})
	}
}

// TestHotCopyFailuresLeaveNoFile makes kanri backup fail in every way it
// can: it says why, and leaves no file (nor a temporary one) behind, and
// an existing file as it was.
func TestHotCopyFailuresLeaveNoFile(t *testing.T) {
	// storeIn creates a store with a few documents in dir and returns it
	// open.
	storeIn := func(t *testing.T, dir string) *bolt.Store {
		st, err := bolt.Open(dir, features.Specs(), bolt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		createDocs(t, st, "t1", 0, 5)
		return st
	}
	// closedStoreIn does so and closes it.
	closedStoreIn := func(t *testing.T, dir string) { storeIn(t, dir).Close() }
	tests := []struct {
		name string
		// setup prepares the data directory dir and may change the
		// arguments (-out FILE) and environment (KANRI_DATA_DIR=dir).
		setup   func(t *testing.T, dir string, args []string, env map[string]string) []string
		wantErr string
	}{
		{"the store is Cosmos DB", func(t *testing.T, dir string, args []string, env map[string]string) []string {
			env["KANRI_STORE"], env["KANRI_COSMOS_ENDPOINT"], env["KANRI_COSMOS_KEY"] = "cosmos", "https://127.0.0.1:1/", "a2V5"
			return args
		}, "the store is Cosmos DB"},
		{"no -out", func(t *testing.T, dir string, args []string, env map[string]string) []string {
			closedStoreIn(t, dir)
			return nil
		}, "-out FILE is required"},
		{"a bad server setting", func(t *testing.T, dir string, args []string, env map[string]string) []string {
			env["KANRI_STORE"] = "postgres"
			return args
		}, `unknown store "postgres"`},
		{"no store in the data directory", func(t *testing.T, dir string, args []string, env map[string]string) []string {
			return args
		}, "no store in"},
		{"FILE exists", func(t *testing.T, dir string, args []string, env map[string]string) []string {
			closedStoreIn(t, dir)
			if err := os.WriteFile(args[1], []byte("an older copy"), 0o600); err != nil {
				t.Fatal(err)
			}
			return args
		}, "exists; choose another name"},
		{"FILE's directory cannot be written", func(t *testing.T, dir string, args []string, env map[string]string) []string {
			closedStoreIn(t, dir)
			// A file where the directory should be: even root cannot write
			// there.
			if err := os.WriteFile(filepath.Join(filepath.Dir(args[1]), "file"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			return []string{"-out", filepath.Join(filepath.Dir(args[1]), "file", "copy.db")}
		}, "not a directory"},
		{"the file is held, but no server answers", func(t *testing.T, dir string, args []string, env map[string]string) []string {
			storeIn(t, dir)
			return args
		}, "no server answers"},
		{"the server refuses the user", func(t *testing.T, dir string, args []string, env map[string]string) []string {
			if runtime.GOOS != "linux" {
				t.Skip("the peer's uid is checked only on Linux")
			}
			startHotCopy(t, dir, storeIn(t, dir), func(s *hotCopyServer) { s.allow = func(int) bool { return false } })
			return args
		}, "403 Forbidden: copies are only for the user the server runs as"},
		{"the server's copy is cut short", func(t *testing.T, dir string, args []string, env map[string]string) []string {
			storeIn(t, dir)
			serveOnSocket(t, filepath.Join(dir, hotCopySocket), func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", fmt.Sprint(1<<20))
				w.Write(make([]byte, 10000))
				w.(http.Flusher).Flush()
				panic(http.ErrAbortHandler)
			})
			return args
		}, "ended after"},
		{"the server sends something else than a store", func(t *testing.T, dir string, args []string, env map[string]string) []string {
			storeIn(t, dir)
			serveOnSocket(t, filepath.Join(dir, hotCopySocket), func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", fmt.Sprint(1<<16))
				w.Write(bytes.Repeat([]byte("x"), 1<<16))
			})
			return args
		}, "not a store file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, outDir := t.TempDir(), t.TempDir()
			file := filepath.Join(outDir, "copy.db")
			m := map[string]string{"KANRI_DATA_DIR": dir}
			args := tt.setup(t, dir, []string{"-out", file}, m)
			before := listDir(t, outDir)
			out, err := backup(t.Context(), m, args...)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("got error %v, want one containing %q\n%s", err, tt.wantErr, out)
			}
			if got := listDir(t, outDir); !slices.Equal(got, before) {
				t.Errorf("FILE's directory: got %q, want %q as before", got, before)
			}
			if b, err := os.ReadFile(file); err == nil && string(b) != "an older copy" {
				t.Errorf("FILE was written: %d bytes", len(b))
			}
		})
	}
}

// listDir returns the names in dir with their sizes.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, fmt.Sprintf("%s (%d bytes)", e.Name(), fi.Size()))
	}
	return names
}

// serveOnSocket serves h on a Unix socket at path until the test ends.
func serveOnSocket(t *testing.T, path string, h http.HandlerFunc) {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ErrorLog: slog.NewLogLogger(slog.DiscardHandler, slog.LevelError)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
}

// TestHotCopyForceReplaces replaces an existing file with -force.
func TestHotCopyForceReplaces(t *testing.T) {
	dir := t.TempDir()
	st, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	createDocs(t, st, "t1", 0, 3)
	startHotCopy(t, dir, st, nil)
	file := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(file, []byte("an older copy"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := backup(t.Context(), map[string]string{"KANRI_DATA_DIR": dir}, "-out", file, "-force"); err != nil {
		t.Fatalf("kanri backup -force: %v\n%s", err, out)
	}
	if err := bolt.VerifyCopy(file); err != nil {
		t.Error(err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the copy: %v, mode %v; want mode 0600", err, fi.Mode())
	}
}

// TestHotCopyShutdownEndsACopyInFlight stops the server while a copy's
// transaction is open: the server's worker returns, the socket is gone,
// and kanri backup fails without leaving a file.
func TestHotCopyShutdownEndsACopyInFlight(t *testing.T) {
	dir := t.TempDir()
	st, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	createDocs(t, st, "t1", 0, 3)
	s := newHotCopyServer(dir, st, slog.New(slog.DiscardHandler))
	inside := make(chan struct{})
	s.opened = func(ctx context.Context) {
		close(inside)
		<-ctx.Done() // the shutdown closes the connection
	}
	ln, err := s.listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- s.serve(ctx, ln) }()
	outDir := t.TempDir()
	copied := make(chan error, 1)
	go func() {
		_, err := backup(t.Context(), map[string]string{"KANRI_DATA_DIR": dir}, "-out", filepath.Join(outDir, "copy.db"))
		copied <- err
	}()
	select {
	case <-inside:
	case err := <-copied:
		t.Fatalf("kanri backup ended before the copy began: %v", err)
	case <-time.After(hangTimeout):
		t.Fatal("the copy did not begin")
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("the hot-copy worker: %v", err)
	}
	if err := <-copied; err == nil {
		t.Error("kanri backup succeeded, though the server stopped during the copy")
	}
	if got := listDir(t, outDir); len(got) != 0 {
		t.Errorf("FILE's directory: got %q, want it empty", got)
	}
	if _, err := os.Lstat(filepath.Join(dir, hotCopySocket)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("socket after shutdown: got %v, want it removed", err)
	}
}

func TestHotCopyFlags(t *testing.T) {
	tests := []struct {
		args      []string
		wantOut   string
		wantForce bool
		wantRest  []string
		wantErr   string
	}{
		{[]string{"-out", "f.db"}, "f.db", false, nil, ""},
		{[]string{"--out=f.db", "--force"}, "f.db", true, nil, ""},
		{[]string{"--out", "f.db", "--data-dir=/d"}, "f.db", false, []string{"--data-dir=/d"}, ""},
		{[]string{"-data-dir", "/d", "-out", "f.db", "-force=false", "-addr=:9"}, "f.db", false, []string{"-data-dir", "/d", "-addr=:9"}, ""},
		// A server setting takes the next argument as its value, whatever it is.
		{[]string{"-session-secret", "-out", "-out", "f.db"}, "f.db", false, []string{"-session-secret", "-out"}, ""},
		{[]string{"-out", "f.db", "stray"}, "f.db", false, []string{"stray"}, ""},
		{[]string{"-data-dir", "/d"}, "", false, nil, "-out FILE is required"},
		{[]string{"-out"}, "", false, nil, "-out needs a file name"},
		{[]string{"-out", "f.db", "-force=maybe"}, "", false, nil, "-force=maybe"},
	}
	for _, tt := range tests {
		out, force, rest, err := hotCopyFlags(tt.args, io.Discard)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: got error %v, want one containing %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || out != tt.wantOut || force != tt.wantForce || !slices.Equal(rest, tt.wantRest) {
			t.Errorf("%q: got %q, %v, %q, %v; want %q, %v, %q", tt.args, out, force, rest, err, tt.wantOut, tt.wantForce, tt.wantRest)
		}
	}
	var help bytes.Buffer
	if _, _, _, err := hotCopyFlags([]string{"-out", "f", "-h"}, &help); err == nil || !strings.Contains(help.String(), "kanri backup -out FILE") {
		t.Errorf("-h: got %v, %q", err, help.String())
	}
	// A stray argument reaches parseConfig, which refuses it.
	if _, err := backup(t.Context(), map[string]string{"KANRI_DATA_DIR": t.TempDir()}, "-out", filepath.Join(t.TempDir(), "f"), "stray"); err == nil || !strings.Contains(err.Error(), "unexpected argument") {
		t.Errorf("a stray argument: got %v", err)
	}
}

// BenchmarkHotCopyWhileWriting copies a store of 100,000 audit records
// with kanri backup from a serving hot-copy socket while a writer commits
// one record per transaction, and reports the copy's size, its speed and
// the writer's pace during the copies and without them. Run it with
// go test -run NONE -bench HotCopyWhileWriting -benchtime 5x ./cmd/kanri/
func BenchmarkHotCopyWhileWriting(b *testing.B) {
	const n = 100_000
	dir := b.TempDir()
	st, err := bolt.Open(dir, features.Specs(), bolt.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	c := st.Container(kanri.ContainerAudit)
	record := func(i int) []byte {
		body, err := json.Marshal(kanri.AuditLog{
			Doc:       kanri.Doc{ID: fmt.Sprintf("audit_%09d", i), TenantID: "tenant_bench", Type: kanri.TypeAuditLog, SchemaVersion: "1.0"},
			Timestamp: kanri.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)),
			UserID:    fmt.Sprintf("user_%02d", i%10), UserName: fmt.Sprintf("u%02d", i%10),
			Action: "user.update", Resource: kanri.AuditResource{Type: "User", ID: fmt.Sprintf("user_%d", i%500), Name: "x"},
			Details:  kanri.AuditDetails{Reason: strings.Repeat("r", 100)},
			Metadata: kanri.AuditMetadata{IPAddress: "192.0.2.1", UserAgent: "Mozilla/5.0 (X11; Linux x86_64)", RequestID: fmt.Sprintf("req_%d", i)},
			Status:   kanri.AuditSuccess,
		})
		if err != nil {
			b.Fatal(err)
		}
		return body
	}
	for chunk := 0; chunk < n; chunk += 1000 {
		ops := make([]docstore.Op, 0, 1000)
		for i := chunk; i < chunk+1000; i++ {
			ops = append(ops, docstore.Op{Kind: docstore.OpCreate, Body: record(i)})
		}
		if err := docstoretest.Chunked(ops, func(b []docstore.Op) error { _, err := c.Batch(context.Background(), "tenant_bench", b); return err }); err != nil {
			b.Fatal(err)
		}
	}
	s := newHotCopyServer(dir, st, slog.New(slog.DiscardHandler))
	ln, err := s.listen()
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.serve(ctx, ln) }()
	defer func() { cancel(); <-served }()

	var writes atomic.Int64
	stop, wrote := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(wrote)
		for i := n; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := c.Create(context.Background(), "tenant_bench", record(i)); err != nil {
				b.Error(err)
				return
			}
			writes.Add(1)
		}
	}()
	// The writer's pace without a copy, for comparison.
	w0, t0 := writes.Load(), time.Now()
	time.Sleep(time.Second)
	idle := float64(writes.Load()-w0) / time.Since(t0).Seconds()
	out := b.TempDir()
	var size, during int64
	var copying time.Duration
	b.ResetTimer()
	for i := range b.N {
		file := filepath.Join(out, fmt.Sprintf("copy%d.db", i))
		w0, t0 := writes.Load(), time.Now()
		if msg, err := backup(context.Background(), map[string]string{"KANRI_DATA_DIR": dir}, "-out", file); err != nil {
			b.Fatalf("%v\n%s", err, msg)
		}
		during += writes.Load() - w0
		copying += time.Since(t0)
		fi, err := os.Stat(file)
		if err != nil {
			b.Fatal(err)
		}
		size = fi.Size()
		b.SetBytes(size)
		os.Remove(file)
	}
	b.StopTimer()
	close(stop)
	<-wrote
	b.ReportMetric(float64(size)/(1<<20), "MiB/copy")
	b.ReportMetric(float64(during)/float64(b.N), "writes/copy")
	b.ReportMetric(float64(during)/copying.Seconds(), "writes/s-copying")
	b.ReportMetric(idle, "writes/s-idle")
}
