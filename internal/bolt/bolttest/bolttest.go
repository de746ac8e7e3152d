// Package bolttest opens embedded stores (package bolt) for tests.
//
// Test-only: never import this package from production code.
package bolttest

import (
	"testing"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/bolt"
)

// Open opens a new embedded store with Kanri's containers
// (docstore.Specs) and default options in a temporary directory of tb,
// and closes it in tb.Cleanup. A test may close it earlier itself:
// closing it again does nothing. Open fails the test if the store does not
// open, and reports an error if it does not close.
func Open(tb testing.TB) *bolt.Store {
	tb.Helper()
	st, err := bolt.Open(tb.TempDir(), features.Specs(), bolt.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := st.Close(); err != nil {
			tb.Errorf("bolttest: close: %v", err)
		}
	})
	return st
}
