//go:build unix

// Package cosmostest runs a local Cosmos DB server for tests: the npm package
// @vercel/cosmosdb-server (in-memory, pinned in package.json) started through
// launcher.js, which fixes three of its defects (404 on missing items,
// atomic transactional batches, TTL). See launcher.js for what is fixed and
// what is deliberately not (queries ignore the partition key).
//
// Test-only: never import this package from production code.
package cosmostest

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// emulatorKey is the well-known key of Microsoft's Cosmos DB emulator. The
// server accepts any key; this one is merely valid base64.
const emulatorKey = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="

const (
	readyPrefix  = "Ready to accept HTTPS connections at "
	startTimeout = 30 * time.Second
	skipEnv      = "KANRI_SKIP_COSMOS"
	serverModule = "node_modules/@vercel/cosmosdb-server/package.json"
	launcherPath = "internal/cosmos/cosmostest/launcher.js"
)

// Server is a running local Cosmos DB test server.
type Server struct {
	// Endpoint is the account endpoint, e.g. "https://127.0.0.1:PORT/".
	Endpoint string

	client *http.Client
}

// Key returns an account key for the server (it accepts any valid base64 key).
func (s *Server) Key() string { return emulatorKey }

// HTTPClient returns the HTTP client to reach the server, for use as
// azcore.ClientOptions.Transport. TEST-ONLY: it skips TLS certificate
// verification, because the server's bundled certificate expired in 2021. It
// keeps connections alive (the server does too) and is shared by all callers
// of this Server.
func (s *Server) HTTPClient() *http.Client { return s.client }

// Start launches a new server (node launcher.js) as a child process in its own
// process group, waits up to 30s for it to be ready, and stops it (kills the
// process group) in tb.Cleanup. Every call starts its own server, so tests
// may call it in parallel; data is never shared between servers.
//
// If node or the npm package is missing, Start fails the test, saying to run
// `make test` or `npm ci` first; with KANRI_SKIP_COSMOS=1 it skips instead.
func Start(tb testing.TB) *Server {
	tb.Helper()
	root, err := repoRoot()
	if err != nil {
		unavailable(tb, err.Error())
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable(tb, "node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join(root, serverModule)); err != nil {
		unavailable(tb, fmt.Sprintf("%s is missing in %s", filepath.Dir(serverModule), root))
	}
	launcher := filepath.Join(root, launcherPath)
	if _, err := os.Stat(launcher); err != nil {
		tb.Fatalf("cosmostest: launcher: %v", err)
	}

	output := &tailBuffer{}
	ready := &readyWriter{tail: output, addr: make(chan string, 1)}
	cmd := exec.Command(node, launcher)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(root, "node_modules"))
	cmd.Stdout = ready
	cmd.Stderr = output
	cmd.WaitDelay = 5 * time.Second
	// Own process group, so that Cleanup kills the whole group; on Linux
	// also SIGKILL when the test binary dies. Last resort everywhere: the
	// launcher exits when its stdin (a pipe held by this process) closes.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setPdeathsig(cmd.SysProcAttr)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatalf("cosmostest: %v", err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("cosmostest: starting %s %s: %v", node, launcher, err)
	}

	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	stop := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = stdin.Close()
		<-exited
	}
	s := &Server{client: newHTTPClient()}
	tb.Cleanup(func() {
		s.client.CloseIdleConnections()
		stop()
		if tb.Failed() {
			tb.Logf("cosmostest: output of the server at %s:\n%s", s.Endpoint, output)
		}
	})

	select {
	case addr := <-ready.addr:
		s.Endpoint = "https://" + addr + "/"
		return s
	case <-exited:
		tb.Fatalf("cosmostest: the server exited before it was ready (%v); its output:\n%s", waitErr, output)
	case <-time.After(startTimeout):
		stop()
		tb.Fatalf("cosmostest: the server was not ready within %s; its output:\n%s", startTimeout, output)
	}
	return nil
}

// unavailable fails the test (or skips it with KANRI_SKIP_COSMOS=1) because
// the server cannot be run here.
func unavailable(tb testing.TB, reason string) {
	tb.Helper()
	if os.Getenv(skipEnv) == "1" {
		tb.Skipf("cosmostest: %s (skipped: %s=1)", reason, skipEnv)
	}
	tb.Fatalf("cosmostest: %s: run `make test` or `npm ci` first (or set %s=1 to skip the Cosmos DB tests)", reason, skipEnv)
}

// repoRoot walks up from the current directory (a test's package directory)
// to the directory holding go.mod; failing that, from this source file.
func repoRoot() (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		starts = append(starts, filepath.Dir(file))
	}
	for _, dir := range starts {
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", errors.New("cannot find the repository root (go.mod)")
}

func newHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:       nil, // loopback only; never through a proxy
		DialContext: (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		// #nosec G402 -- test-only: the local server's certificate expired.
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true}, //nolint:gosec
		MaxIdleConns:        100,
		MaxIdleConnsPerHost: 100,
		// Shorter than the launcher's keep-alive timeout (120 s), so an idle
		// connection is never reused while the server closes it.
		IdleConnTimeout:     30 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}}
}

// tailBuffer keeps the last 64 KiB written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 64 << 10

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - tailMax; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf) == 0 {
		return "(no output)"
	}
	return string(b.buf)
}

// readyWriter receives the server's stdout: it sends the address of the
// Ready line on addr (once) and copies everything to tail.
type readyWriter struct {
	tail *tailBuffer
	addr chan string

	mu   sync.Mutex
	line []byte
	done bool
}

func (w *readyWriter) Write(p []byte) (int, error) {
	_, _ = w.tail.Write(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return len(p), nil
	}
	w.line = append(w.line, p...)
	for {
		i := bytes.IndexByte(w.line, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := strings.TrimSpace(string(w.line[:i]))
		w.line = w.line[i+1:]
		if addr, ok := strings.CutPrefix(line, readyPrefix); ok {
			w.done, w.line = true, nil
			w.addr <- addr
			return len(p), nil
		}
	}
}
