package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/telemetry"
)

const metricsToken = "a-metrics-token-of-at-least-32-characters"

// newObservedEnv returns an env with its metrics and its traces, built as
// cmd/kanri builds them (store, blobs, services and server observed), and
// the addresses of its trusted proxies.
func newObservedEnv(t *testing.T, proxies ...netip.Prefix) (*env, *telemetry.Metrics, *tracetest.InMemoryExporter) {
	e, m, exp, _ := newObservedEnvLogged(t, proxies...)
	return e, m, exp
}

// newObservedEnvLogged is newObservedEnv whose log, as cmd/kanri writes
// it, goes to the buffer returned.
func newObservedEnvLogged(t *testing.T, proxies ...netip.Prefix) (*env, *telemetry.Metrics, *tracetest.InMemoryExporter, *syncBuffer) {
	m := telemetry.New()
	exp := tracetest.NewInMemoryExporter()
	tp := telemetry.NewTestTracerProvider(exp)
	var buf syncBuffer
	e := newEnvWith(t, envOptions{metrics: m, tracer: tp, metricsToken: metricsToken, trustedProxies: proxies,
		log: slog.New(telemetry.LogHandler(slog.NewJSONHandler(&buf, nil))),
		wrap: func(ds docstore.Store) docstore.Store {
			return telemetry.Store(ds, m, tp.Tracer(telemetry.TracerName), false)
		}})
	return e, m, exp, &buf
}

// syncBuffer is a buffer that requests may write to at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// loopback is the address the tests' requests come from: a trusted proxy
// when given to newObservedEnv.
var loopback = netip.MustParsePrefix("127.0.0.1/32")

// scrapeMetrics reads the server's /metrics with the token.
func scrapeMetrics(t *testing.T, e *env) string {
	t.Helper()
	resp, body := e.client(t).send(http.MethodGet, "/metrics", nil, http.Header{"Authorization": {"Bearer " + metricsToken}})
	wantStatus(t, "metrics with the token", resp, http.StatusOK)
	return body
}

// seriesValue returns the value of series (a name and its labels as the
// text format writes them) in a scrape, or -1 when it has none.
func seriesValue(t *testing.T, body, series string) float64 {
	t.Helper()
	for line := range strings.Lines(body) {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return v
		}
	}
	return -1
}

func TestMetricsNeedTheirToken(t *testing.T) {
	e, _, _ := newObservedEnv(t)
	for _, tc := range []struct {
		name, header string
	}{
		{"no token", ""},
		{"wrong token", "Bearer " + strings.Repeat("x", len(metricsToken))},
		{"a prefix of it", "Bearer " + metricsToken[:20]},
		{"not bearer", "Basic " + metricsToken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := e.client(t).send(http.MethodGet, "/metrics", nil, http.Header{"Authorization": {tc.header}})
			wantStatus(t, tc.name, resp, http.StatusUnauthorized)
			if strings.Contains(body, "kanri_") {
				t.Error("a refused scrape shows the metrics")
			}
		})
	}
	// Without a token configured there is no /metrics on this listener:
	// the path is like any unknown one.
	plain := newEnv(t)
	resp, body := plain.client(t).send(http.MethodGet, "/metrics", nil, http.Header{"Authorization": {"Bearer " + metricsToken}})
	if resp.StatusCode == http.StatusOK || strings.Contains(body, "kanri_") {
		t.Errorf("metrics without a token configured: got %d with the metrics", resp.StatusCode)
	}
}

func TestMetricsMoveWithUse(t *testing.T) {
	e, _, _ := newObservedEnv(t)
	usersPage := `kanri_http_request_duration_seconds_count{method="GET",route="/t/:tenant/users",status="2xx"}`
	before := scrapeMetrics(t, e)
	if got := seriesValue(t, before, usersPage); got != -1 {
		t.Fatalf("the users page was counted before anyone opened it: %v", got)
	}

	c := e.client(t).signIn("acme", "admin")
	for range 2 {
		resp, _ := c.get("/t/" + e.acme.ID + "/users")
		wantStatus(t, "users page", resp, http.StatusOK)
	}
	if _, _, err := e.client(t).signInErr("acme", "admin", "wrong password"); err == nil {
		t.Fatal("a wrong password signed in")
	}
	made := "/made-up/" + strings.Repeat("z", 12)
	resp, _ := c.get(made)
	wantStatus(t, "a made-up path", resp, http.StatusNotFound)
	resp, _ = c.get("/t/" + e.acme.ID + "/made-up")
	wantStatus(t, "a made-up path of a tenant", resp, http.StatusNotFound)

	resp, _ = c.send("FOOBAR", "/t/"+e.acme.ID+"/users", nil, nil)
	if resp.StatusCode < 400 {
		t.Errorf("a made-up method: got %d", resp.StatusCode)
	}

	// A request is counted once its answer is sent: each series is waited
	// for.
	for _, tc := range []struct {
		series string
		min    float64
	}{
		{usersPage, 2},
		{`kanri_http_request_duration_seconds_count{method="GET",route="unmatched",status="4xx"}`, 2},
		{`kanri_http_request_duration_seconds_count{method="_OTHER",route="unmatched",status="4xx"}`, 1},
		{`kanri_auth_sign_ins_total{outcome="success"}`, 1},
		{`kanri_auth_sign_ins_total{outcome="failure"}`, 1},
		{`kanri_audit_records_total{action="auth.login"}`, 1},
		// The setup's own calls were counted before: these grew since.
		{`kanri_store_operation_duration_seconds_count{container="auth",operation="read",outcome="ok"}`, seriesValue(t, before, `kanri_store_operation_duration_seconds_count{container="auth",operation="read",outcome="ok"}`) + 2},
		{`kanri_store_operation_duration_seconds_count{container="auth",operation="create",outcome="ok"}`, seriesValue(t, before, `kanri_store_operation_duration_seconds_count{container="auth",operation="create",outcome="ok"}`) + 1},
	} {
		untilSeries(t, e, tc.series, tc.min, math.Inf(1))
	}
	after := scrapeMetrics(t, e)
	if got := seriesValue(t, after, "go_goroutines"); got <= 0 {
		t.Errorf("go_goroutines = %v, want the runtime's metrics too", got)
	}
	// No label value comes from a request's path, a tenant or a user.
	for _, leak := range []string{made, e.acme.ID, e.acmeAdmin.ID, "FOOBAR"} {
		if strings.Contains(after, leak) {
			t.Errorf("the metrics name %q", leak)
		}
	}
}

// exportedSpan waits for a span that is is to be exported, and returns the
// spans exported by then and it. A request's span ends after its answer
// is sent (Observe records it last), so a client may have the answer
// before the span is there, and the span of an earlier request may come
// after (is must tell them apart). The request's log line is written
// before its span ends.
func exportedSpan(t *testing.T, exp *tracetest.InMemoryExporter, what string, is func(tracetest.SpanStub) bool) (tracetest.SpanStubs, *tracetest.SpanStub) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		spans := exp.GetSpans()
		for i := range spans {
			if is(spans[i]) {
				return spans, &spans[i]
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no span of %s among %d", what, len(spans))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestARequestIsOneTraceWithItsStoreCalls(t *testing.T) {
	e, _, exp, log := newObservedEnvLogged(t, loopback) // the caller's trace is followed from a trusted proxy
	c := e.client(t).signIn("acme", "admin")
	exp.Reset()
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	resp, _ := c.send(http.MethodGet, "/t/"+e.acme.ID+"/users", nil, http.Header{"Traceparent": {"00-" + traceID + "-" + parentID + "-01"}})
	wantStatus(t, "users page", resp, http.StatusOK)

	spans, server := exportedSpan(t, exp, "the users page in the caller's trace", func(s tracetest.SpanStub) bool {
		return s.Name == "GET /t/:tenant/users" && s.SpanContext.TraceID().String() == traceID
	})
	if got := server.SpanContext.TraceID().String(); got != traceID {
		t.Errorf("the request's trace: got %s, want the caller's %s", got, traceID)
	}
	if got := server.Parent.SpanID().String(); got != parentID {
		t.Errorf("the request's parent: got %s, want the caller's %s", got, parentID)
	}
	children := 0
	for _, s := range spans {
		if strings.HasPrefix(s.Name, "store.") && s.Parent.SpanID() == server.SpanContext.SpanID() && s.SpanContext.TraceID() == server.SpanContext.TraceID() {
			children++
		}
	}
	if children < 3 {
		t.Errorf("the request's span has %d store calls under it, want the session, user, tenant and role reads at least", children)
	}

	// The request's line in the log leads to its trace.
	found := false
	for line := range strings.Lines(log.String()) {
		var l struct{ Msg, Path, TraceID, SpanID string }
		if json.Unmarshal([]byte(line), &struct {
			Msg     *string `json:"msg"`
			Path    *string `json:"path"`
			TraceID *string `json:"trace_id"`
			SpanID  *string `json:"span_id"`
		}{&l.Msg, &l.Path, &l.TraceID, &l.SpanID}) == nil && l.Msg == "request" && l.Path == "/t/"+e.acme.ID+"/users" && l.SpanID == server.SpanContext.SpanID().String() {
			found = l.TraceID == traceID
		}
	}
	if !found {
		t.Errorf("no request line with the trace and span ids in the log:\n%s", log.String())
	}
}

func TestAProblemNamesItsTrace(t *testing.T) {
	e, _, _ := newObservedEnv(t, loopback)
	const traceID = "0af7651916cd43dd8448eb211c80319c"
	resp, body := e.client(t).send(http.MethodGet, "/api/v1/users", nil, http.Header{
		"Authorization": {"Bearer nonsense"}, "Traceparent": {"00-" + traceID + "-b7ad6b7169203331-01"}})
	wantStatus(t, "an API call with a bad key", resp, http.StatusUnauthorized)
	var p struct{ Instance, RequestID string }
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatal(err)
	}
	if got, want := p.Instance, "urn:kanri:request:"+p.RequestID+":trace:"+traceID; got != want || p.RequestID == "" {
		t.Errorf("instance: got %q, want %q", got, want)
	}

	// Without traces, a caller's trace is never named: there is none.
	plain := newEnv(t)
	resp, body = plain.client(t).send(http.MethodGet, "/api/v1/users", nil, http.Header{
		"Authorization": {"Bearer nonsense"}, "Traceparent": {"00-" + traceID + "-b7ad6b7169203331-01"}})
	wantStatus(t, "an API call with a bad key, no traces", resp, http.StatusUnauthorized)
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatal(err)
	}
	if got, want := p.Instance, "urn:kanri:request:"+p.RequestID; got != want {
		t.Errorf("instance without traces: got %q, want %q", got, want)
	}
}

// A caller that is no trusted proxy cannot choose the trace, nor have its
// requests sampled: its trace is linked to from a trace of the server's.
func TestACallersTraceIsLinkedNotFollowed(t *testing.T) {
	e, _, exp := newObservedEnv(t)
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	resp, _ := e.client(t).send(http.MethodGet, "/login", nil, http.Header{"Traceparent": {"00-" + traceID + "-" + parentID + "-01"}})
	wantStatus(t, "sign-in page", resp, http.StatusOK)
	_, server := exportedSpan(t, exp, "the sign-in page", func(s tracetest.SpanStub) bool {
		return s.Name == "GET /login"
	})
	if server.SpanContext.TraceID().String() == traceID || server.Parent.IsValid() {
		t.Errorf("the request continued the caller's trace %s", traceID)
	}
	if len(server.Links) != 1 || server.Links[0].SpanContext.TraceID().String() != traceID || server.Links[0].SpanContext.SpanID().String() != parentID {
		t.Errorf("links: %+v, want one to the caller's span", server.Links)
	}
}

// BenchmarkObservedPage measures what telemetry costs a light signed-in
// page (BenchmarkSignedInPage's): without it, with the metrics, and with
// the metrics and every request traced (spans made and handed to an
// exporter that drops them, so that only Kanri's side is measured).
func BenchmarkObservedPage(b *testing.B) {
	for _, tc := range []struct {
		name            string
		metrics, traces bool
	}{
		{"none", false, false},
		{"metrics", true, false},
		{"metrics+traces", true, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			o := envOptions{}
			if tc.metrics {
				o.metrics = telemetry.New()
			}
			if tc.traces {
				o.tracer = telemetry.NewTestTracerProvider(dropSpans{})
			}
			if o.metrics != nil {
				var tr trace.Tracer // none without traces, as cmd/kanri does
				if o.tracer != nil {
					tr = o.tracer.Tracer(telemetry.TracerName)
				}
				o.wrap = func(ds docstore.Store) docstore.Store { return telemetry.Store(ds, o.metrics, tr, false) }
			}
			e := newEnvWith(b, o)
			c := e.client(b).signIn("acme", "admin")
			path := e.srv.URL + "/t/" + e.acme.ID + "/settings"
			b.ReportAllocs()
			for b.Loop() {
				resp, err := c.http.Get(path)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
		})
	}
}

// dropSpans is a span exporter that drops what it is given.
type dropSpans struct{}

func (dropSpans) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (dropSpans) Shutdown(context.Context) error                             { return nil }

// untilSeries waits until series is at least min, and at most max, in the
// server's metrics (a stream counts itself on its own goroutine, after
// its first bytes).
func untilSeries(t *testing.T, e *env, series string, min, max float64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := seriesValue(t, scrapeMetrics(t, e), series)
		if got >= min && got <= max {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s = %v, want from %v to %v", series, got, min, max)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStreamsAndUploadsAreCounted(t *testing.T) {
	e, _, _ := newObservedEnv(t)
	ch := e.chat(t)
	bob := e.client(t).signIn("acme", "bob")
	live, resp := bob.openLive(livePath(e.acme.ID, ch.public.ID, 0), "")
	if live == nil {
		t.Fatalf("open the stream: status %d", resp.StatusCode)
	}
	untilSeries(t, e, "kanri_live_streams_open", 1, 1)
	m := e.say(t, ch.admin, ch.public, "counted")
	live.next(t, "msg-"+m.ID)
	untilSeries(t, e, "kanri_live_events_delivered_total", 1, math.Inf(1))
	live.close()
	untilSeries(t, e, "kanri_live_streams_open", 0, 0)

	e.assignFiles(t, e.acme.ID)
	admin := e.client(t).signIn("acme", "admin")
	base := "/t/" + e.acme.ID
	admin.get(base + "/files")
	data := bytes.Repeat([]byte("kanri-"), 1000)
	resp, _ = admin.tus(http.MethodPost, base+"/uploads", nil, http.Header{"Upload-Length": {strconv.Itoa(len(data))}, "Upload-Metadata": {meta("filename", "counted.txt")}})
	wantStatus(t, "create an upload", resp, http.StatusCreated)
	resp, _ = admin.tus(http.MethodPatch, resp.Header.Get("Location"), data, http.Header{"Content-Type": {"application/offset+octet-stream"}, "Upload-Offset": {"0"}})
	wantStatus(t, "PATCH", resp, http.StatusNoContent)
	body := scrapeMetrics(t, e)
	if got := seriesValue(t, body, "kanri_uploads_bytes_total"); got != float64(len(data)) {
		t.Errorf("upload bytes: got %v, want %d", got, len(data))
	}
	if got := seriesValue(t, body, "kanri_uploads_in_progress"); got != 0 {
		t.Errorf("uploads in progress after the PATCH: got %v, want 0", got)
	}
	if got := seriesValue(t, body, `kanri_blob_operation_duration_seconds_count{operation="commit_blocks",outcome="ok"}`); got < 1 {
		t.Errorf("blob commits: got %v, want the upload's", got)
	}
}
