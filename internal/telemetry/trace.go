package telemetry

import (
	"context"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/kanri/kanri/internal/kanri"
)

// TracerName names Kanri's tracer.
const TracerName = "github.com/kanri/kanri"

// Tracing says where traces go.
type Tracing struct {
	// Endpoint is the OTLP/HTTP collector's address
	// (http://collector:4318); no traces are made without one.
	Endpoint string
	// Sample is the share of the traces begun here that are kept, from 0
	// to 1; a request that arrives in a sampled trace (traceparent) is
	// always kept.
	Sample float64
	// Instance names this instance in the traces (service.instance.id).
	Instance string
}

// Propagator reads and writes the W3C traceparent and tracestate headers.
var Propagator = propagation.TraceContext{}

// NewTracerProvider returns the tracer provider Tracing asks for and the
// function that flushes and stops it; nil when t has no endpoint: no
// traces, and nothing spent on them.
func NewTracerProvider(t Tracing) (trace.TracerProvider, func(context.Context) error, error) {
	if t.Endpoint == "" {
		return nil, func(context.Context) error { return nil }, nil
	}
	exp, err := newOTLPExporter(t.Endpoint)
	if err != nil {
		return nil, nil, err
	}
	tp := newProvider(sdktrace.NewBatchSpanProcessor(exp), t)
	return tp, tp.Shutdown, nil
}

// NewTestTracerProvider returns a provider whose spans go to sp at once:
// for tests with an in-memory exporter (tracetest).
func NewTestTracerProvider(sp sdktrace.SpanExporter) *sdktrace.TracerProvider {
	return newProvider(sdktrace.NewSimpleSpanProcessor(sp), Tracing{Sample: 1, Instance: "test"})
}

func newProvider(p sdktrace.SpanProcessor, t Tracing) *sdktrace.TracerProvider {
	res := resource.NewSchemaless(attribute.String("service.name", "kanri"), attribute.String("service.instance.id", t.Instance))
	return sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p), sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(t.Sample))))
}

// TraceID returns the id of the trace ctx is in, or "" outside any that
// this server records.
func TraceID(ctx context.Context) string {
	if sc := trace.SpanContextFromContext(ctx); recorded(sc) {
		return sc.TraceID().String()
	}
	return ""
}

// recorded reports whether sc is a span of this server's that is sent to
// the collector: not a caller's, nor one its sampler left out.
func recorded(sc trace.SpanContext) bool { return sc.IsValid() && sc.IsSampled() && !sc.IsRemote() }

// LogHandler returns h with the trace and span ids of a record's context
// added to the record, so that a log line written with a request's
// context (InfoContext) leads to its trace.
func LogHandler(h slog.Handler) slog.Handler { return traceHandler{h} }

type traceHandler struct{ slog.Handler }

func (t traceHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); recorded(sc) {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return t.Handler.Handle(ctx, r)
}

func (t traceHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return traceHandler{t.Handler.WithAttrs(as)}
}

func (t traceHandler) WithGroup(name string) slog.Handler {
	return traceHandler{t.Handler.WithGroup(name)}
}

// BlobObserver returns the observer of a blob bucket (blob.Bucket.Observe)
// that times its calls into m and traces them as spans of tr (none when
// tr is nil).
func BlobObserver(m *Metrics, tr trace.Tracer) func(ctx context.Context, op string) (context.Context, func(error)) {
	return func(ctx context.Context, op string) (context.Context, func(error)) {
		start := time.Now()
		var span trace.Span
		if tr != nil {
			ctx, span = tr.Start(ctx, "blob."+op, trace.WithSpanKind(trace.SpanKindClient))
		}
		return ctx, func(err error) {
			outcome := outcomeOf(err)
			if m != nil {
				m.blobCalls.WithLabelValues(op, outcome).Observe(time.Since(start).Seconds())
			}
			if span != nil {
				if outcome == "error" {
					span.RecordError(err)
					span.SetStatus(codes.Error, err.Error())
				}
				span.End()
			}
		}
	}
}

// outcomeOf names a call's outcome: ok, the code of a domain error
// (not_found, conflict, stale, invalid...), or error for any other.
func outcomeOf(err error) string {
	switch code := kanri.ErrorCode(err); code {
	case "":
		return "ok"
	case kanri.EINTERNAL:
		return "error"
	default:
		return code
	}
}
