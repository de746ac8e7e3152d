package telemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/telemetry"
)

// scrape returns the metrics m serves, in the text format.
func scrape(t *testing.T, m *telemetry.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String()
}

// value returns the value of the series whose line starts with series
// (a name and its labels, in the order the text format sorts them), or
// "" when there is none.
func value(body, series string) string {
	for line := range strings.Lines(body) {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

func TestStoreCallsAreTimedAndTraced(t *testing.T) {
	m := telemetry.New()
	exp := tracetest.NewInMemoryExporter()
	tp := telemetry.NewTestTracerProvider(exp)
	ds := telemetry.Store(bolttest.Open(t), m, tp.Tracer(telemetry.TracerName), false)
	c := ds.Container(kanri.ContainerTenant)
	ctx := t.Context()
	if _, err := c.Create(ctx, "t1", []byte(`{"id":"u1","tenantId":"t1","type":"user"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Read(ctx, "t1", "u1"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Read(ctx, "t1", "nobody"); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Fatalf("read of a missing document: %v, want ENOTFOUND", err)
	}
	body := scrape(t, m)
	for _, tc := range []struct{ series, want string }{
		{`kanri_store_operation_duration_seconds_count{container="tenant",operation="create",outcome="ok"}`, "1"},
		{`kanri_store_operation_duration_seconds_count{container="tenant",operation="read",outcome="ok"}`, "1"},
		{`kanri_store_operation_duration_seconds_count{container="tenant",operation="read",outcome="not_found"}`, "1"},
	} {
		if got := value(body, tc.series); got != tc.want {
			t.Errorf("%s = %q, want %q", tc.series, got, tc.want)
		}
	}
	if strings.Contains(body, "kanri_store_request_units_total") {
		t.Error("the embedded store is not billed, yet request units were counted")
	}
	var names []string
	for _, s := range exp.GetSpans() {
		names = append(names, s.Name)
	}
	if got, want := strings.Join(names, ","), "store.create,store.read,store.read"; got != want {
		t.Errorf("spans: got %s, want %s", got, want)
	}
}

// billing is a store whose reads cost 2.5 request units, as Cosmos DB
// reports them (docstore.AddCharge).
type billing struct{ docstore.Store }

func (b billing) Container(name string) docstore.Container { return billed{b.Store.Container(name)} }

type billed struct{ docstore.Container }

func (b billed) Read(ctx context.Context, pk, id string) (docstore.Item, error) {
	docstore.AddCharge(ctx, 2.5)
	return b.Container.Read(ctx, pk, id)
}

func TestRequestUnitsOfABilledStoreAreCounted(t *testing.T) {
	m := telemetry.New()
	exp := tracetest.NewInMemoryExporter()
	ds := telemetry.Store(billing{bolttest.Open(t)}, m, telemetry.NewTestTracerProvider(exp).Tracer(telemetry.TracerName), true)
	c := ds.Container(kanri.ContainerTenant)
	for range 2 {
		_, _ = c.Read(t.Context(), "t1", "nobody")
	}
	if got, want := value(scrape(t, m), `kanri_store_request_units_total{container="tenant",operation="read"}`), "5"; got != want {
		t.Errorf("request units: got %q, want %q", got, want)
	}
	spans := exp.GetSpans()
	if len(spans) != 2 {
		t.Fatalf("got %d spans, want 2", len(spans))
	}
	for _, a := range spans[0].Attributes {
		if a.Key == "db.cosmosdb.request_charge" {
			if got := a.Value.AsFloat64(); got != 2.5 {
				t.Errorf("span's request charge: got %v, want 2.5", got)
			}
			return
		}
	}
	t.Error("the span has no request charge")
}

func TestBlobCallsAreTimed(t *testing.T) {
	m := telemetry.New()
	exp := tracetest.NewInMemoryExporter()
	b := blob.New(memDriver{})
	b.Observe(telemetry.BlobObserver(m, telemetry.NewTestTracerProvider(exp).Tracer(telemetry.TracerName)))
	if _, err := b.Stat(t.Context(), "t1/missing"); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Fatalf("stat of a missing blob: %v, want ENOTFOUND", err)
	}
	if _, err := b.Put(t.Context(), "t1/a", strings.NewReader("x")); err == nil {
		t.Fatal("a driver that fails puts put a blob")
	}
	body := scrape(t, m)
	for _, series := range []string{
		`kanri_blob_operation_duration_seconds_count{operation="stat",outcome="not_found"}`,
		`kanri_blob_operation_duration_seconds_count{operation="put",outcome="error"}`,
	} {
		if got := value(body, series); got != "1" {
			t.Errorf("%s = %q, want 1", series, got)
		}
	}
	if spans := exp.GetSpans(); len(spans) != 2 || spans[1].Name != "blob.put" || spans[1].Status.Description == "" {
		t.Errorf("spans: %+v, want blob.stat then a failed blob.put", spans)
	}
}

// memDriver is a blob driver that has no blobs and fails every put.
type memDriver struct{ blob.Driver }

var errDisk = errors.New("disk full")

func (memDriver) Put(context.Context, string, io.Reader) (int64, error) { return 0, errDisk }
func (memDriver) Stat(context.Context, string) (blob.Info, error)       { return blob.Info{}, errNotExist }
func (memDriver) IsNotExist(err error) bool                             { return err == errNotExist }

var errNotExist = errors.New("no such blob")

func TestAuditActionsCountSignIns(t *testing.T) {
	m := telemetry.New()
	for _, a := range []string{"auth.login", "auth.login_failed", "auth.login_failed", "auth.lockout", "user.update"} {
		m.Audited(a)
	}
	body := scrape(t, m)
	for _, tc := range []struct{ series, want string }{
		{`kanri_auth_sign_ins_total{outcome="success"}`, "1"},
		{`kanri_auth_sign_ins_total{outcome="failure"}`, "2"},
		{`kanri_auth_sign_ins_total{outcome="lockout"}`, "1"},
		{`kanri_audit_records_total{action="user.update"}`, "1"},
	} {
		if got := value(body, tc.series); got != tc.want {
			t.Errorf("%s = %q, want %q", tc.series, got, tc.want)
		}
	}
}

func TestNilMetricsCountNothing(t *testing.T) {
	var m *telemetry.Metrics // a test's, or a subcommand's
	m.Request("/", "GET", 200, 0)
	m.Audited("auth.login")
	m.StreamOpened()
	m.EventDelivered()
	m.StreamBehind()
	m.UploadStarted()(10)
	m.ScheduledRun("w", "done")
	m.RateLimited("api_key")
	m.WorkerStopped("w")
}

func TestLogLinesCarryTheTraceID(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(telemetry.LogHandler(slog.NewJSONHandler(&buf, nil))).With("part", "test")
	tp := telemetry.NewTestTracerProvider(tracetest.NewInMemoryExporter())
	ctx, span := tp.Tracer(telemetry.TracerName).Start(t.Context(), "request")
	log.InfoContext(ctx, "in a trace")
	span.End()
	log.Info("outside any")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2", len(lines))
	}
	var in, out map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &in); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(lines[1]), &out); err != nil {
		t.Fatal(err)
	}
	if got, want := in["trace_id"], span.SpanContext().TraceID().String(); got != want {
		t.Errorf("trace_id: got %v, want %v", got, want)
	}
	if in["part"] != "test" {
		t.Errorf("the logger's own attributes were lost: %v", in)
	}
	if _, ok := out["trace_id"]; ok {
		t.Errorf("a line outside any trace has a trace id: %v", out)
	}
	if got, want := telemetry.TraceID(ctx), span.SpanContext().TraceID().String(); got != want {
		t.Errorf("TraceID: got %q, want %q", got, want)
	}
}

func TestUploadsInProgressAndBytes(t *testing.T) {
	m := telemetry.New()
	end := m.UploadStarted()
	if got := value(scrape(t, m), "kanri_uploads_in_progress"); got != "1" {
		t.Errorf("in progress during an upload: %q, want 1", got)
	}
	end(4096)
	body := scrape(t, m)
	if got := value(body, "kanri_uploads_in_progress"); got != "0" {
		t.Errorf("in progress after: %q, want 0", got)
	}
	if got := value(body, "kanri_uploads_bytes_total"); got != "4096" {
		t.Errorf("bytes: %q, want 4096", got)
	}
}
