//go:build unix

// Package cosmostest runs a local Cosmos DB server for tests: the npm package
// @vercel/cosmosdb-server (in-memory, pinned in package.json) started through
// launcher.js, which fixes three of its defects (404 on missing items,
// atomic transactional batches, TTL). See launcher.js for what is fixed and
// what is deliberately not (queries ignore the partition key). Open and
// OpenNew open a store (package cosmos) on a database of a running server.
//
// Test-only: never import this package from production code.
package cosmostest

import (
	"crypto/tls"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/nodetest"
)

// emulatorKey is the well-known key of Microsoft's Cosmos DB emulator. The
// server accepts any key; this one is merely valid base64.
const emulatorKey = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="

const (
	readyPrefix  = "Ready to accept HTTPS connections at "
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
	s := &Server{client: newHTTPClient()}
	tb.Cleanup(s.client.CloseIdleConnections) // runs after the server stops
	addr := nodetest.Start(tb, nodetest.Options{
		Name:    "cosmostest",
		Module:  serverModule,
		Script:  launcherPath,
		Ready:   func(line string) (string, bool) { return strings.CutPrefix(line, readyPrefix) },
		SkipEnv: skipEnv,
	})
	s.Endpoint = "https://" + addr + "/"
	return s
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
