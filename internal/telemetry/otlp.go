package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// otlpExporter sends spans to an OpenTelemetry collector by OTLP/HTTP in
// its JSON encoding (the OTLP specification, "OTLP/HTTP", "JSON Protobuf
// Encoding").
//
// It sends what Kanri's spans hold: no links, flags or dropped counts, and
// it does not retry a refused batch (the batch processor logs and drops
// it).
//
// It is written here rather than taken from otlptracehttp, whose protobuf
// and gRPC dependencies made the server's binary 15 MB larger and its
// resident memory 6 MiB larger at rest, for an exporter most servers never
// turn on (docs/observability.md).
type otlpExporter struct {
	url    string
	client *http.Client
}

// newOTLPExporter returns the exporter of the collector at endpoint
// (http://collector:4318): spans go to its /v1/traces unless endpoint
// names another path.
func newOTLPExporter(endpoint string) (*otlpExporter, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("the OTLP endpoint %q is not an http:// or https:// address", endpoint)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return &otlpExporter{url: u.String(), client: &http.Client{Timeout: 10 * time.Second}}, nil
}

// ExportSpans sends spans in one request.
func (e *otlpExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	body, err := json.Marshal(otlpRequest(spans))
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.client.Do(req)
	if err != nil {
		return fmt.Errorf("otlp: %w", err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("otlp: the collector answered %s: %s", resp.Status, msg)
	}
	return nil
}

// Shutdown has nothing to release: the batch processor flushed already.
func (e *otlpExporter) Shutdown(context.Context) error { return nil }

// The OTLP JSON shapes (opentelemetry-proto, trace/v1 and common/v1). Ids
// are hex, 64-bit integers decimal strings, enums numbers.
type (
	otlpTraces struct {
		ResourceSpans []otlpResourceSpans `json:"resourceSpans"`
	}
	otlpResourceSpans struct {
		Resource   otlpResource     `json:"resource"`
		ScopeSpans []otlpScopeSpans `json:"scopeSpans"`
	}
	otlpResource struct {
		Attributes []otlpKeyValue `json:"attributes,omitempty"`
	}
	otlpScopeSpans struct {
		Scope otlpScope  `json:"scope"`
		Spans []otlpSpan `json:"spans"`
	}
	otlpScope struct {
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
	}
	otlpSpan struct {
		TraceID      string         `json:"traceId"`
		SpanID       string         `json:"spanId"`
		TraceState   string         `json:"traceState,omitempty"`
		ParentSpanID string         `json:"parentSpanId,omitempty"`
		Name         string         `json:"name"`
		Kind         int            `json:"kind"`
		Start        string         `json:"startTimeUnixNano"`
		End          string         `json:"endTimeUnixNano"`
		Attributes   []otlpKeyValue `json:"attributes,omitempty"`
		Events       []otlpEvent    `json:"events,omitempty"`
		Status       otlpStatus     `json:"status"`
	}
	otlpEvent struct {
		Time       string         `json:"timeUnixNano"`
		Name       string         `json:"name"`
		Attributes []otlpKeyValue `json:"attributes,omitempty"`
	}
	otlpStatus struct {
		Text string `json:"message,omitempty"`
		Code int    `json:"code"`
	}
	otlpKeyValue struct {
		Key   string       `json:"key"`
		Value otlpAnyValue `json:"value"`
	}
	otlpAnyValue struct {
		String *string       `json:"stringValue,omitempty"`
		Bool   *bool         `json:"boolValue,omitempty"`
		Int    *string       `json:"intValue,omitempty"`
		Double any           `json:"doubleValue,omitempty"` // a float64, or "NaN", "Infinity", "-Infinity" (JSON has no such numbers)
		Array  *otlpAnyArray `json:"arrayValue,omitempty"`
	}
	otlpAnyArray struct {
		Values []otlpAnyValue `json:"values"`
	}
)

// otlpRequest groups spans by resource and instrumentation scope.
func otlpRequest(spans []sdktrace.ReadOnlySpan) otlpTraces {
	var out otlpTraces
	res := map[string]int{}       // resource's encoding → index in out
	scopes := map[[2]string]int{} // (resource, scope) → index in its ScopeSpans
	for _, s := range spans {
		rkey := s.Resource().Encoded(attribute.DefaultEncoder())
		ri, ok := res[rkey]
		if !ok {
			ri = len(out.ResourceSpans)
			res[rkey] = ri
			out.ResourceSpans = append(out.ResourceSpans, otlpResourceSpans{Resource: otlpResource{Attributes: otlpAttributes(s.Resource().Attributes())}})
		}
		rs := &out.ResourceSpans[ri]
		sc := s.InstrumentationScope()
		skey := [2]string{rkey, sc.Name + "\x00" + sc.Version}
		si, ok := scopes[skey]
		if !ok {
			si = len(rs.ScopeSpans)
			scopes[skey] = si
			rs.ScopeSpans = append(rs.ScopeSpans, otlpScopeSpans{Scope: otlpScope{Name: sc.Name, Version: sc.Version}})
		}
		rs.ScopeSpans[si].Spans = append(rs.ScopeSpans[si].Spans, otlpSpanOf(s))
	}
	return out
}

func otlpSpanOf(s sdktrace.ReadOnlySpan) otlpSpan {
	sc := s.SpanContext()
	o := otlpSpan{
		TraceID: sc.TraceID().String(), SpanID: sc.SpanID().String(), TraceState: sc.TraceState().String(),
		Name: s.Name(), Kind: int(s.SpanKind()), // trace.SpanKind numbers OTLP's kinds alike
		Start: otlpTime(s.StartTime()), End: otlpTime(s.EndTime()), Attributes: otlpAttributes(s.Attributes()),
		Status: otlpStatus{Text: s.Status().Description},
	}
	if p := s.Parent(); p.HasSpanID() {
		o.ParentSpanID = p.SpanID().String()
	}
	switch s.Status().Code { // the numbers differ: OTLP's OK is 1, ERROR 2
	case codes.Ok:
		o.Status.Code = 1
	case codes.Error:
		o.Status.Code = 2
	}
	for _, ev := range s.Events() {
		o.Events = append(o.Events, otlpEvent{Time: otlpTime(ev.Time), Name: ev.Name, Attributes: otlpAttributes(ev.Attributes)})
	}
	return o
}

func otlpTime(t time.Time) string { return strconv.FormatInt(t.UnixNano(), 10) }

func otlpAttributes(kvs []attribute.KeyValue) []otlpKeyValue {
	out := make([]otlpKeyValue, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, otlpKeyValue{Key: string(kv.Key), Value: otlpValue(kv.Value)})
	}
	return out
}

func otlpValue(v attribute.Value) otlpAnyValue {
	switch v.Type() {
	case attribute.BOOL:
		b := v.AsBool()
		return otlpAnyValue{Bool: &b}
	case attribute.INT64:
		i := strconv.FormatInt(v.AsInt64(), 10)
		return otlpAnyValue{Int: &i}
	case attribute.FLOAT64:
		return otlpAnyValue{Double: otlpDouble(v.AsFloat64())}
	case attribute.BOOLSLICE:
		return otlpArray(v.AsBoolSlice(), attribute.BoolValue)
	case attribute.INT64SLICE:
		return otlpArray(v.AsInt64Slice(), attribute.Int64Value)
	case attribute.FLOAT64SLICE:
		return otlpArray(v.AsFloat64Slice(), attribute.Float64Value)
	case attribute.STRINGSLICE:
		return otlpArray(v.AsStringSlice(), attribute.StringValue)
	}
	s := v.Emit()
	return otlpAnyValue{String: &s}
}

// otlpDouble returns f as the JSON encoding writes a double: a number, or
// the name of one JSON cannot write.
func otlpDouble(f float64) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return f
}

func otlpArray[T any](xs []T, value func(T) attribute.Value) otlpAnyValue {
	a := &otlpAnyArray{Values: make([]otlpAnyValue, 0, len(xs))}
	for _, x := range xs {
		a.Values = append(a.Values, otlpValue(value(x)))
	}
	return otlpAnyValue{Array: a}
}
