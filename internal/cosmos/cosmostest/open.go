//go:build unix

package cosmostest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/cosmos"
)

// openTimeout bounds how long Open waits for the database and its
// containers.
const openTimeout = time.Minute

// Open opens a store with Kanri's containers (docstore.Specs) on the
// database of srv named database, creating the database and the
// containers if they are missing, and closes it in tb.Cleanup. A second
// call with the same name opens the same database, as a second Kanri
// instance would. Open fails the test if the store does not open within a
// minute.
//
// Package cosmos's own internal tests (package cosmos) cannot use Open,
// since this package imports package cosmos; its external tests (package
// cosmos_test) can.
func Open(tb testing.TB, srv *Server, database string) *cosmos.Store {
	tb.Helper()
	ctx, cancel := context.WithTimeout(tb.Context(), openTimeout)
	defer cancel()
	st, err := cosmos.Open(ctx, cosmos.Config{
		Endpoint: srv.Endpoint, Key: srv.Key(), Database: database, InsecureSkipVerify: true,
	}, features.Specs())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := st.Close(); err != nil {
			tb.Errorf("cosmostest: close: %v", err)
		}
	})
	return st
}

// OpenNew is Open on a new database of srv, named by NewDatabase, that no
// other test uses.
func OpenNew(tb testing.TB, srv *Server) *cosmos.Store {
	tb.Helper()
	return Open(tb, srv, NewDatabase())
}

// NewDatabase returns a new random database name, such as
// "kanri-test-0123456789abcdef": for tests that open several stores on one
// database of their own, as several instances would.
func NewDatabase() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "kanri-test-" + hex.EncodeToString(b)
}
