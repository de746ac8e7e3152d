//go:build unix

// Package nodetest runs the Node programs pinned in the repository's
// package.json (the Cosmos DB test server, Azurite) as servers for tests:
// each in its own process group, killed with the test binary, its output
// kept for the failure message, and ready once it prints the line that
// carries its address.
//
// Test-only: never import this package from production code.
package nodetest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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

// startTimeout is how long a server may take to print its ready line.
const startTimeout = 30 * time.Second

// Options say what to run and how to know it is ready.
type Options struct {
	// Name names the server in messages ("cosmostest", "azurite").
	Name string
	// Module is the path of a file of the npm package, relative to the
	// repository root, whose absence means `npm ci` has not run.
	Module string
	// Script and Args are the Node program, relative to the repository
	// root, and its arguments.
	Script string
	Args   []string
	// Ready returns the address carried by a line of the server's standard
	// output, and whether the line is the one saying it is ready.
	Ready func(line string) (addr string, ok bool)
	// SkipEnv, when set to "1" in the environment, skips the test instead
	// of failing it when Node or the package is missing.
	SkipEnv string
}

// Start runs the server o describes as a child process, waits up to 30 s
// for its ready line and returns the address on it. The server is killed
// (its whole process group) in tb.Cleanup, and its output is logged if the
// test failed. Every call starts its own server.
//
// If node or the npm package is missing, Start fails the test saying to
// run `make test` or `npm ci` (or skips it when o.SkipEnv is set to 1).
func Start(tb testing.TB, o Options) string {
	tb.Helper()
	root, err := Root()
	if err != nil {
		unavailable(tb, o, err.Error())
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable(tb, o, "node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join(root, o.Module)); err != nil {
		unavailable(tb, o, fmt.Sprintf("%s is missing in %s", filepath.Dir(o.Module), root))
	}
	script := filepath.Join(root, o.Script)
	if _, err := os.Stat(script); err != nil {
		tb.Fatalf("%s: %v", o.Name, err)
	}

	output := &tailBuffer{}
	ready := &readyWriter{tail: output, ready: o.Ready, addr: make(chan string, 1)}
	cmd := exec.Command(node, append([]string{script}, o.Args...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(root, "node_modules"))
	cmd.Stdout = ready
	cmd.Stderr = output
	cmd.WaitDelay = 5 * time.Second
	// Own process group, so that Cleanup kills the whole group; on Linux
	// also SIGKILL when the test binary dies. Last resort everywhere: a
	// server that watches its stdin (a pipe held by this process) exits
	// when it closes.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setPdeathsig(cmd.SysProcAttr)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatalf("%s: %v", o.Name, err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("%s: starting %s %s: %v", o.Name, node, script, err)
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
	var addr string
	tb.Cleanup(func() {
		stop()
		if tb.Failed() {
			tb.Logf("%s: output of the server at %s:\n%s", o.Name, addr, output)
		}
	})

	select {
	case addr = <-ready.addr:
		return addr
	case <-exited:
		tb.Fatalf("%s: the server exited before it was ready (%v); its output:\n%s", o.Name, waitErr, output)
	case <-time.After(startTimeout):
		stop()
		tb.Fatalf("%s: the server was not ready within %s; its output:\n%s", o.Name, startTimeout, output)
	}
	return ""
}

// unavailable fails the test (or skips it when o.SkipEnv is 1) because the
// server cannot be run here.
func unavailable(tb testing.TB, o Options, reason string) {
	tb.Helper()
	if o.SkipEnv != "" && os.Getenv(o.SkipEnv) == "1" {
		tb.Skipf("%s: %s (skipped: %s=1)", o.Name, reason, o.SkipEnv)
	}
	hint := ""
	if o.SkipEnv != "" {
		hint = fmt.Sprintf(" (or set %s=1 to skip these tests)", o.SkipEnv)
	}
	tb.Fatalf("%s: %s: run `make test` or `npm ci` first%s", o.Name, reason, hint)
}

// Root walks up from the current directory (a test's package directory) to
// the directory holding go.mod; failing that, from this source file.
func Root() (string, error) {
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
// ready line on addr (once) and copies everything to tail.
type readyWriter struct {
	tail  io.Writer
	ready func(string) (string, bool)
	addr  chan string

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
		if addr, ok := w.ready(line); ok {
			w.done, w.line = true, nil
			w.addr <- addr
			return len(p), nil
		}
	}
}
