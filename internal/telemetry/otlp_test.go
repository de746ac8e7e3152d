package telemetry_test

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/kanri/kanri/internal/telemetry"
)

// collector is an OTLP/HTTP receiver that keeps the bodies it is sent.
type collector struct {
	mu     sync.Mutex
	paths  []string
	bodies [][]byte
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "not JSON", http.StatusUnsupportedMediaType)
		return
	}
	c.paths, c.bodies = append(c.paths, r.URL.Path), append(c.bodies, b)
}

func TestTracesGoToTheCollectorAsOTLPJSON(t *testing.T) {
	var col collector
	srv := httptest.NewServer(&col)
	defer srv.Close()
	tp, stop, err := telemetry.NewTracerProvider(telemetry.Tracing{Endpoint: srv.URL, Sample: 1, Instance: "instance-1"})
	if err != nil {
		t.Fatal(err)
	}
	tr := tp.Tracer(telemetry.TracerName)
	ctx, parent := tr.Start(t.Context(), "GET /t/:tenant/users", trace.WithSpanKind(trace.SpanKindInternal))
	_, child := tr.Start(ctx, "store.read", trace.WithSpanKind(trace.SpanKindClient))
	child.SetAttributes(attribute.String("db.collection.name", "auth"), attribute.Int("n", 42), attribute.Bool("ok", false),
		attribute.Float64("db.cosmosdb.request_charge", 2.5), attribute.StringSlice("list", []string{"a", "b"}), attribute.Float64("inf", math.Inf(1)))
	child.RecordError(errors.New("disk full"))
	child.SetStatus(codes.Error, "disk full")
	child.End()
	parent.End()
	if err := stop(t.Context()); err != nil { // flushes the batch
		t.Fatal(err)
	}

	col.mu.Lock()
	defer col.mu.Unlock()
	if len(col.bodies) != 1 || col.paths[0] != "/v1/traces" {
		t.Fatalf("the collector got %d requests at %v, want one at /v1/traces", len(col.bodies), col.paths)
	}
	// The official schema reads it, every field name and type known.
	var req coltrace.ExportTraceServiceRequest
	if err := (protojson.UnmarshalOptions{}).Unmarshal(col.bodies[0], &req); err != nil {
		t.Fatalf("the body is not an OTLP trace request: %v\n%s", err, col.bodies[0])
	}
	rs := req.GetResourceSpans()
	if len(rs) != 1 || len(rs[0].GetScopeSpans()) != 1 {
		t.Fatalf("got %d resources, want 1 with 1 scope", len(rs))
	}
	res := map[string]string{}
	for _, kv := range rs[0].GetResource().GetAttributes() {
		res[kv.GetKey()] = kv.GetValue().GetStringValue()
	}
	if res["service.name"] != "kanri" || res["service.instance.id"] != "instance-1" {
		t.Errorf("resource: %v", res)
	}
	ss := rs[0].GetScopeSpans()[0]
	if got := ss.GetScope().GetName(); got != telemetry.TracerName {
		t.Errorf("scope: got %q, want %q", got, telemetry.TracerName)
	}
	spans := ss.GetSpans()
	if len(spans) != 2 || spans[0].GetName() != "store.read" || spans[1].GetName() != "GET /t/:tenant/users" {
		t.Fatalf("spans: %v", spans)
	}
	st := spans[0]
	if st.GetKind() != 3 || spans[1].GetKind() != 1 { // SPAN_KIND_CLIENT; the parent's INTERNAL (started as such)
		t.Errorf("kinds: %v, %v", st.GetKind(), spans[1].GetKind())
	}
	if st.GetStatus().GetCode() != 2 || st.GetStatus().GetMessage() != "disk full" { // STATUS_CODE_ERROR
		t.Errorf("status: %v", st.GetStatus())
	}
	if len(st.GetEvents()) != 1 || st.GetEvents()[0].GetName() != "exception" {
		t.Errorf("events: %v", st.GetEvents())
	}
	attrs := map[string]any{}
	for _, kv := range st.GetAttributes() {
		v := kv.GetValue()
		switch {
		case v.GetArrayValue() != nil:
			attrs[kv.GetKey()] = len(v.GetArrayValue().GetValues())
		case kv.GetKey() == "n":
			attrs["n"] = v.GetIntValue()
		case kv.GetKey() == "ok":
			attrs["ok"] = v.GetBoolValue()
		case kv.GetKey() == "db.cosmosdb.request_charge" || kv.GetKey() == "inf":
			attrs[kv.GetKey()] = v.GetDoubleValue()
		default:
			attrs[kv.GetKey()] = v.GetStringValue()
		}
	}
	want := map[string]any{"db.collection.name": "auth", "n": int64(42), "ok": false, "db.cosmosdb.request_charge": 2.5, "list": 2, "inf": math.Inf(1)}
	for k, w := range want {
		if attrs[k] != w {
			t.Errorf("attribute %s: got %v, want %v", k, attrs[k], w)
		}
	}
	if st.GetStartTimeUnixNano() == 0 || st.GetEndTimeUnixNano() < st.GetStartTimeUnixNano() {
		t.Errorf("times: %d to %d", st.GetStartTimeUnixNano(), st.GetEndTimeUnixNano())
	}

	// OTLP's JSON writes ids in hex (protojson would read base64): the
	// child names its parent, both in the parent's trace.
	var raw struct {
		ResourceSpans []struct {
			ScopeSpans []struct {
				Spans []struct{ TraceID, SpanID, ParentSpanID string }
			}
		}
	}
	if err := json.Unmarshal(col.bodies[0], &raw); err != nil {
		t.Fatal(err)
	}
	got := raw.ResourceSpans[0].ScopeSpans[0].Spans
	if p := parent.SpanContext(); got[0].ParentSpanID != p.SpanID().String() || got[1].SpanID != p.SpanID().String() ||
		got[0].TraceID != p.TraceID().String() || got[1].ParentSpanID != "" {
		t.Errorf("ids: %+v, want the child under %s in trace %s", got, p.SpanID(), p.TraceID())
	}
}

func TestACollectorThatRefusesIsAnError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	tp, stop, err := telemetry.NewTracerProvider(telemetry.Tracing{Endpoint: srv.URL + "/custom/path", Sample: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, s := tp.Tracer("t").Start(t.Context(), "x")
	s.End()
	if err := tp.(*sdktrace.TracerProvider).ForceFlush(t.Context()); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("spans refused by the collector: got %v, want the collector's answer", err)
	}
	_ = stop(t.Context())
	if _, _, err := telemetry.NewTracerProvider(telemetry.Tracing{Endpoint: "collector:4318"}); err == nil {
		t.Error("an endpoint without a scheme was taken")
	}
}
