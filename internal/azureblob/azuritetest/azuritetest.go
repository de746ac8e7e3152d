//go:build unix

// Package azuritetest runs Azurite, Microsoft's Azure Storage emulator (the
// npm package azurite, pinned in package.json), for tests: only its blob
// service, on a free loopback port, keeping its data in the test's
// temporary directory.
//
// Test-only: never import this package from production code.
package azuritetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/nodetest"
)

// Account and Key are Azurite's well-known development account.
const (
	Account = "devstoreaccount1"
	Key     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

const readyPrefix = "Azurite Blob service successfully listens on "

// Server is a running Azurite blob service.
type Server struct {
	// Endpoint is the blob endpoint of the development account, e.g.
	// "http://127.0.0.1:PORT/devstoreaccount1".
	Endpoint string
}

// ConnectionString returns a connection string for the server's account.
func (s *Server) ConnectionString() string {
	return fmt.Sprintf("DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;BlobEndpoint=%s;", Account, Key, s.Endpoint)
}

// Start launches a new Azurite blob service, waits for it to listen, and
// stops it in tb.Cleanup. Every call starts its own server with its own
// data.
//
// --skipApiVersionCheck is needed because the azblob SDK sends a newer API
// version than this Azurite knows; --loose ignores headers it does not
// support. The keep-alive timeout is longer than Go's idle connection
// timeout, so a connection is never reused as the server closes it.
//
// If node or the npm package is missing, Start fails the test saying to
// run `make test` or `npm ci`.
func Start(tb testing.TB) *Server {
	tb.Helper()
	addr := nodetest.Start(tb, nodetest.Options{
		Name:   "azurite",
		Module: "node_modules/azurite/package.json",
		Script: "node_modules/azurite/dist/src/blob/main.js",
		Args: []string{
			"--blobHost", "127.0.0.1", "--blobPort", "0",
			"--location", tb.TempDir(),
			"--blobKeepAliveTimeout", "300",
			"--skipApiVersionCheck", "--loose", "--silent", "--disableTelemetry",
		},
		Ready: func(line string) (string, bool) {
			url, ok := strings.CutPrefix(line, readyPrefix)
			return strings.TrimPrefix(url, "http://"), ok
		},
	})
	return &Server{Endpoint: "http://" + addr + "/" + Account}
}
