package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// hangTimeout bounds a wait that only guards against a hang: a start or a
// shutdown of run. It is generous so that a busy machine, -race and the
// bootstrap's password hash never make a correct run fail.
const hangTimeout = 2 * time.Minute

// lowCost is the bcrypt cost of the tests that start run: they test start-up
// and shutdown, not bcrypt, and a cost-12 hash under -race on a busy
// machine takes seconds.
var lowCost = []string{"-bcrypt-cost", fmt.Sprint(bcrypt.MinCost)}

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    func(Config) bool
		wantErr string
	}{
		{"defaults", nil, nil, func(c Config) bool {
			return c.Addr == ":8080" && c.DataDir == "./data" && c.Store == StoreEmbedded && c.LogLevel == slog.LevelInfo && !c.Cosmos.InsecureSkipVerify && c.Cosmos.Database == "management-app"
		}, ""},
		{"environment", nil, map[string]string{"KANRI_ADDR": ":9000", "KANRI_LOG_LEVEL": "debug", "KANRI_STORE": "cosmos", "KANRI_COSMOS_ENDPOINT": "https://x/", "KANRI_COSMOS_KEY": "k", "KANRI_COSMOS_INSECURE_SKIP_VERIFY": "true"}, func(c Config) bool {
			return c.Addr == ":9000" && c.LogLevel == slog.LevelDebug && c.Store == StoreCosmos && c.Cosmos.Endpoint == "https://x/" && c.Cosmos.InsecureSkipVerify
		}, ""},
		{"flag beats environment", []string{"-addr", ":7000"}, map[string]string{"KANRI_ADDR": ":9000"}, func(c Config) bool { return c.Addr == ":7000" }, ""},
		{"unknown store", nil, map[string]string{"KANRI_STORE": "postgres"}, nil, `unknown store "postgres"`},
		{"cosmos without endpoint", []string{"-store", "cosmos"}, nil, nil, "needs KANRI_COSMOS_ENDPOINT"},
		{"bad log level", nil, map[string]string{"KANRI_LOG_LEVEL": "loud"}, nil, "KANRI_LOG_LEVEL"},
		{"bad bool", nil, map[string]string{"KANRI_COSMOS_INSECURE_SKIP_VERIFY": "maybe"}, nil, "INSECURE_SKIP_VERIFY"},
		{"stray argument", []string{"serve"}, nil, nil, "unexpected argument"},
		{"local blobs by default", nil, nil, func(c Config) bool { return c.Blob == BlobLocal && c.Azure.Container == "kanri" }, ""},
		{"azure blobs by connection string", nil, map[string]string{"KANRI_BLOB": "azure", "KANRI_AZURE_STORAGE_CONNECTION_STRING": "AccountName=a"}, func(c Config) bool {
			return c.Blob == BlobAzure && c.Azure.ConnectionString == "AccountName=a"
		}, ""},
		{"azure blobs by endpoint", []string{"-blob", "azure", "-azure-storage-endpoint", "https://a/", "-azure-storage-account", "a", "-azure-storage-key", "k", "-azure-storage-container", "c"}, nil, func(c Config) bool {
			return c.Azure == AzureConfig{Endpoint: "https://a/", Account: "a", Key: "k", Container: "c"}
		}, ""},
		{"azure blobs without an account", []string{"-blob", "azure", "-azure-storage-endpoint", "https://a/"}, nil, nil, "KANRI_BLOB=azure needs"},
		{"unknown blob store", nil, map[string]string{"KANRI_BLOB": "s3"}, nil, `unknown blob store "s3"`},
		{"no public address nor proxies by default", nil, nil, func(c Config) bool { return c.PublicURL == "" && c.TrustedProxies == nil }, ""},
		{"public address", nil, map[string]string{"KANRI_PUBLIC_URL": "https://Kanri.example.jp:8443/"}, func(c Config) bool { return c.PublicURL == "https://Kanri.example.jp:8443" }, ""},
		{"public address with a path", []string{"-public-url", "https://kanri.example.jp/kanri"}, nil, nil, "KANRI_PUBLIC_URL"},
		{"public address without a scheme", []string{"-public-url", "kanri.example.jp"}, nil, nil, "KANRI_PUBLIC_URL"},
		{"public address with a query", []string{"-public-url", "https://kanri.example.jp/?a=1"}, nil, nil, "KANRI_PUBLIC_URL"},
		{"trusted proxies", nil, map[string]string{"KANRI_TRUSTED_PROXIES": " 10.1.2.3/8, 127.0.0.1,::1 ,"}, func(c Config) bool {
			return slices.Equal(c.TrustedProxies, []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")})
		}, ""},
		{"no traces nor public metrics by default", nil, nil, func(c Config) bool {
			return c.Tracing.Endpoint == "" && c.Tracing.Sample == 1 && c.MetricsToken == ""
		}, ""},
		{"traces to a collector", nil, map[string]string{"KANRI_OTLP_ENDPOINT": "http://otel:4318", "KANRI_TRACE_SAMPLE": "0.25"}, func(c Config) bool {
			return c.Tracing.Endpoint == "http://otel:4318" && c.Tracing.Sample == 0.25
		}, ""},
		{"a collector without a scheme", []string{"-otlp-endpoint", "otel:4318"}, nil, nil, "KANRI_OTLP_ENDPOINT"},
		{"a share of traces over 1", []string{"-trace-sample", "2"}, nil, nil, "KANRI_TRACE_SAMPLE"},
		{"a short metrics token", nil, map[string]string{"KANRI_METRICS_TOKEN": "short"}, nil, "KANRI_METRICS_TOKEN"},
		{"a trusted proxy that is no address", []string{"-trusted-proxies", "10.0.0.0/8,proxy.internal"}, nil, nil, `KANRI_TRUSTED_PROXIES: "proxy.internal"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseConfig(tt.args, env(tt.env), io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.want(got) {
				t.Errorf("got %+v", got)
			}
		})
	}
}

func TestHelpDocumentsEverySetting(t *testing.T) {
	var out bytes.Buffer
	_, err := parseConfig([]string{"--help"}, env(map[string]string{"KANRI_COSMOS_KEY": "secret-key"}), &out)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("got %v, want flag.ErrHelp", err)
	}
	for _, v := range []string{"KANRI_ADDR", "KANRI_DATA_DIR", "KANRI_STORE", "KANRI_COSMOS_ENDPOINT", "KANRI_COSMOS_KEY", "KANRI_COSMOS_DATABASE", "KANRI_COSMOS_INSECURE_SKIP_VERIFY", "KANRI_LOG_LEVEL", "KANRI_BLOB", "KANRI_AZURE_STORAGE_CONNECTION_STRING", "/healthz", "/readyz"} {
		if !strings.Contains(out.String(), v) {
			t.Errorf("help lacks %s", v)
		}
	}
	if strings.Contains(out.String(), "secret-key") {
		t.Error("help printed the Cosmos key from the environment")
	}
}

func TestRunServesHealthAndShutsDown(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	dir := t.TempDir()
	var logs bytes.Buffer // read only after run returns
	go func() {
		done <- run(ctx, append([]string{"-addr", "127.0.0.1:0", "-data-dir", dir}, lowCost...), env(nil), io.Discard, &logs, ready)
	}()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("run ended early: %v", err)
	case <-time.After(hangTimeout):
		t.Fatal("server did not start")
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got, want := resp.StatusCode, http.StatusOK; got != want {
			t.Errorf("GET %s: got %d, want %d", path, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "kanri.db")); err != nil {
		t.Errorf("embedded store file: %v", err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run after shutdown: %v", err)
		}
	case <-time.After(hangTimeout):
		t.Fatal("server did not shut down")
	}
	// The parts stop in order: requests drain, then the workers, then the
	// store they write to.
	last := -1
	for _, step := range []string{`"msg":"shutting down"`, `"msg":"http server drained"`, `"msg":"workers stopped"`, `"msg":"store closed"`} {
		i := strings.Index(logs.String(), step)
		if i < last {
			t.Errorf("shutdown: %s logged out of order (or not at all):\n%s", step, logs.String())
		}
		last = i
	}
}

func TestRunFailsOnUnwritableDataDir(t *testing.T) {
	// A file where the directory should be: even root cannot write there.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := run(t.Context(), append([]string{"-addr", "127.0.0.1:0", "-data-dir", filepath.Join(file, "data")}, lowCost...), env(nil), io.Discard, io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "data directory") {
		t.Fatalf("got %v, want a data directory error", err)
	}
}

func TestRunFailsOnUnreachableCosmos(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 45*time.Second)
	defer cancel()
	err := run(ctx, append([]string{"-store", "cosmos", "-cosmos-endpoint", "https://127.0.0.1:1/", "-cosmos-key", "a2V5"}, lowCost...), env(nil), io.Discard, io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "cosmos store unreachable") {
		t.Fatalf("got %v, want an unreachable error", err)
	}
}

// TestInstancesStartTogetherOnAnEmptyDatabase starts two instances at the
// same moment on a fresh Cosmos database, several times: both must serve,
// with one operator's tenant and one first administrator between them.
func TestInstancesStartTogetherOnAnEmptyDatabase(t *testing.T) {
	cs := cosmostest.Start(t)
	for trial := range 4 {
		db := fmt.Sprintf("trial%d", trial)
		ctx, cancel := context.WithCancel(t.Context())
		ready := make(chan string, 2)
		done := make(chan error, 2)
		start := make(chan struct{})
		for range 2 {
			go func() {
				<-start
				done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-data-dir", t.TempDir(), "-store", "cosmos",
					"-cosmos-endpoint", cs.Endpoint, "-cosmos-key", cs.Key(), "-cosmos-database", db,
					"-cosmos-insecure-skip-verify=true", "-bcrypt-cost", fmt.Sprint(bcrypt.MinCost), "-session-secret", strings.Repeat("ab", 32)},
					env(nil), io.Discard, io.Discard, ready)
			}()
		}
		close(start)
		for range 2 {
			select {
			case addr := <-ready:
				resp, err := http.Get("http://" + addr + "/readyz")
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("trial %d: an instance is not ready: %d", trial, resp.StatusCode)
				}
			case err := <-done:
				t.Fatalf("trial %d: an instance exited: %v", trial, err)
			case <-time.After(hangTimeout):
				t.Fatalf("trial %d: an instance did not start", trial)
			}
		}
		cancel()
		for range 2 {
			if err := <-done; err != nil {
				t.Errorf("trial %d: shutdown: %v", trial, err)
			}
		}
		ds := cosmostest.Open(t, cs, db)
		users, _, err := store.New(ds, nil, features.Schema()).Tenant(kanri.PrivilegedTenantID).Users().Query(t.Context(), docstore.Query{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := store.New(ds, nil, features.Schema()).Tenant(kanri.PrivilegedTenantID).Profile(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(users) != 1 || p.UserCount != 1 {
			t.Errorf("trial %d: got %d operator users (userCount %d), want 1", trial, len(users), p.UserCount)
		}
		ds.Close()
	}
}

// TestDrainCancelsRequestsThatOutliveTheGrace checks that a request still
// running when the drain's grace ends sees its context cancelled, and that
// the drain waits for it to return.
func TestDrainCancelsRequestsThatOutliveTheGrace(t *testing.T) {
	reqCtx, cancelRequests := context.WithCancel(context.Background())
	defer cancelRequests()
	started, returned := make(chan struct{}), make(chan struct{})
	srv := &http.Server{
		BaseContext: func(net.Listener) context.Context { return reqCtx },
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			close(started)
			<-r.Context().Done() // a long export, until cancelled
			close(returned)
		}),
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	go http.Get("http://" + ln.Addr().String())
	<-started
	if err := drain(srv, cancelRequests, 50*time.Millisecond, 5*time.Second); err != nil {
		t.Fatalf("drain: %v", err)
	}
	select {
	case <-returned:
	default:
		t.Error("drain returned before the long request did")
	}
}

func TestProfilerServesOnlyOnItsOwnListener(t *testing.T) {
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	debugAddr := free.Addr().String()
	free.Close()
	ctx, cancel := context.WithCancel(t.Context())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"-addr", "127.0.0.1:0", "-data-dir", t.TempDir(), "-debug-addr", debugAddr}, lowCost...), env(nil), io.Discard, io.Discard, ready)
	}()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("run ended early: %v", err)
	case <-time.After(hangTimeout):
		t.Fatal("server did not start")
	}
	// The profiler and the metrics are on the debug listener only. The
	// request to the public one (an unknown path: to the sign-in page) is
	// counted in the metrics, the path never named.
	for _, probe := range []struct{ path, shows string }{
		{"/debug/pprof/", "Types of profiles available"},
		{"/metrics", `kanri_http_request_duration_seconds_count{method="GET",route="unmatched",status="3xx"} 1`},
	} {
		for _, tc := range []struct {
			addr string
			want bool
		}{
			{debugAddr, true},
			{addr, false},
		} {
			// A request is counted once its answer is sent: what should
			// show is waited for.
			deadline := time.Now().Add(hangTimeout)
			for {
				resp, err := http.Get("http://" + tc.addr + probe.path)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				got := strings.Contains(string(body), probe.shows)
				if got == tc.want {
					break
				}
				if !tc.want || time.Now().After(deadline) {
					t.Errorf("GET %s%s shows %q: got %v, want %v", tc.addr, probe.path, probe.shows, got, tc.want)
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run after shutdown: %v", err)
	}
	if _, err := http.Get("http://" + debugAddr + "/debug/pprof/"); err == nil {
		t.Error("the profiler still answers after shutdown")
	}
}
