//go:build e2e

// Package e2e holds Kanri's browser tests: the real binary, started as a
// subprocess on the embedded store or (KANRI_E2E_STORE=cosmos) on the local
// Cosmos DB test server, driven through Debian's Chromium by playwright-go.
//
// Run `make e2e`, or: bash e2e/setup.sh && go test -tags e2e -count=1 -v ./e2e/
// (KANRI_E2E_STORE=cosmos for the Cosmos store; KANRI_E2E_DEBUG=1 logs the
// server output of every step). A failed step saves full-page screenshots
// to e2e/screenshots/<test>-<step>.png.
//
// The suite builds the server under test itself, unless KANRI_E2E_BIN names
// a kanri binary already built from this tree (make test builds it once for
// both stores' runs, which it runs at the same time).
package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// binEnv names a kanri binary to test instead of building one.
const binEnv = "KANRI_E2E_BIN"

var (
	// repoRoot is the directory holding go.mod.
	repoRoot string
	// serverBin is the kanri binary built once for the whole run (or
	// given by KANRI_E2E_BIN).
	serverBin string
)

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	root, err := findRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	repoRoot = root
	if bin := os.Getenv(binEnv); bin != "" {
		abs, err := filepath.Abs(bin)
		if err == nil {
			_, err = os.Stat(abs)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "e2e: %s=%s: %v\n", binEnv, bin, err)
			return 1
		}
		serverBin = abs
		fmt.Printf("e2e: the server under test is %s (%s)\n", serverBin, binEnv)
		return m.Run()
	}
	tmp, err := os.MkdirTemp("", "kanri-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(tmp)

	goBin, err := exec.LookPath("go")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: the go command is not on PATH; it builds the server under test")
		return 1
	}
	serverBin = filepath.Join(tmp, "kanri")
	start := time.Now()
	build := exec.Command(goBin, "build", "-o", serverBin, "./cmd/kanri")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build ./cmd/kanri: %v\n%s", err, out)
		return 1
	}
	fmt.Printf("e2e: built ./cmd/kanri in %s\n", time.Since(start).Round(time.Millisecond))
	return m.Run()
}

// findRoot walks up from the working directory to the one holding go.mod.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("cannot find the repository root (go.mod) above the working directory")
		}
		dir = parent
	}
}
