// Package telemetry is Kanri's window for operators: metrics in the
// Prometheus format and OpenTelemetry traces (docs/observability.md).
//
// Metrics carry no tenant or user ids as label values: their number would
// grow with the customers. Per-tenant usage stays in the product's own
// pages. Every method of *Metrics does nothing on a nil *Metrics, so a
// part given none (a test, a subcommand) needs no check.
package telemetry

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// namespace prefixes every metric's name.
const namespace = "kanri"

// latencyBuckets are the histograms' bucket bounds in seconds, from a
// point read on the embedded store (tens of microseconds) to a slow page
// or a Cosmos DB call across regions.
var latencyBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// Metrics holds the server's metrics and the registry that serves them.
type Metrics struct {
	reg *prometheus.Registry

	requests     *prometheus.HistogramVec
	storeCalls   *prometheus.HistogramVec
	storeCharge  *prometheus.CounterVec
	blobCalls    *prometheus.HistogramVec
	streams      prometheus.Gauge
	events       prometheus.Counter
	behind       prometheus.Counter
	uploads      prometheus.Gauge
	uploadBytes  prometheus.Counter
	scheduled    *prometheus.CounterVec
	workers      *prometheus.CounterVec
	rateLimited  *prometheus.CounterVec
	signIns      *prometheus.CounterVec
	auditRecords *prometheus.CounterVec
}

// New returns the metrics, registered with a registry of their own beside
// the Go runtime's and the process's.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &Metrics{reg: reg}
	m.requests = histogram(reg, "http", "request_duration_seconds",
		"How long HTTP requests took, by route pattern, method and status class.", "route", "method", "status")
	m.storeCalls = histogram(reg, "store", "operation_duration_seconds",
		"How long document store calls took, by container, operation and outcome.", "container", "operation", "outcome")
	m.storeCharge = counter(reg, "store", "request_units_total",
		"Request units that document store calls cost on Cosmos DB, by container and operation.", "container", "operation")
	m.blobCalls = histogram(reg, "blob", "operation_duration_seconds",
		"How long blob store calls took, by operation and outcome.", "operation", "outcome")
	m.streams = gauge(reg, "live", "streams_open", "Live streams (server-sent events) open now.")
	m.events = prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Subsystem: "live", Name: "events_delivered_total",
		Help: "Events written to live streams."})
	m.behind = prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Subsystem: "live", Name: "streams_behind_total",
		Help: "Live streams ended because they fell behind the events (their browsers reconnect and get a snapshot)."})
	reg.MustRegister(m.events, m.behind)
	m.uploads = gauge(reg, "uploads", "in_progress", "Upload requests (tus PATCH) receiving bytes now.")
	m.uploadBytes = prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Subsystem: "uploads", Name: "bytes_total",
		Help: "Bytes received by uploads."})
	reg.MustRegister(m.uploadBytes)
	m.scheduled = counter(reg, "scheduler", "runs_total",
		"Slots of scheduled work, by work and outcome: done, failed, skipped (its last run still going) or elsewhere (another instance claimed it).", "work", "outcome")
	m.workers = counter(reg, "workers", "stops_total",
		"Background workers that stopped with an error, by worker.", "worker")
	m.rateLimited = counter(reg, "http", "rate_limited_total",
		"Requests refused for a rate limit, by limit.", "limit")
	m.signIns = counter(reg, "auth", "sign_ins_total",
		"Sign-in attempts, by outcome: success, failure or lockout.", "outcome")
	m.auditRecords = counter(reg, "audit", "records_total",
		"Audit records written, by action.", "action")
	return m
}

func histogram(reg *prometheus.Registry, subsystem, name, help string, labels ...string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Subsystem: subsystem, Name: name, Help: help, Buckets: latencyBuckets}, labels)
	reg.MustRegister(h)
	return h
}

func counter(reg *prometheus.Registry, subsystem, name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Subsystem: subsystem, Name: name, Help: help}, labels)
	reg.MustRegister(c)
	return c
}

func gauge(reg *prometheus.Registry, subsystem, name, help string) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Subsystem: subsystem, Name: name, Help: help})
	reg.MustRegister(g)
	return g
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Request counts an HTTP request that route (its pattern, never its path)
// answered with status after d.
func (m *Metrics) Request(route, method string, status int, d time.Duration) {
	if m == nil {
		return
	}
	m.requests.WithLabelValues(route, method, statusClass(status)).Observe(d.Seconds())
}

// statusClass returns "2xx" for 200 to 299, and so on.
func statusClass(status int) string {
	if status < 100 || status > 599 {
		return "other"
	}
	return strconv.Itoa(status/100) + "xx"
}

// StreamOpened counts a live stream that opened; StreamClosed, one that
// closed.
func (m *Metrics) StreamOpened() {
	if m != nil {
		m.streams.Inc()
	}
}

// StreamClosed counts a live stream that closed.
func (m *Metrics) StreamClosed() {
	if m != nil {
		m.streams.Dec()
	}
}

// EventDelivered counts an event written to a live stream.
func (m *Metrics) EventDelivered() {
	if m != nil {
		m.events.Inc()
	}
}

// StreamBehind counts a live stream ended because it fell behind.
func (m *Metrics) StreamBehind() {
	if m != nil {
		m.behind.Inc()
	}
}

// UploadStarted counts an upload request that began receiving bytes; it
// returns the function that counts its end and the bytes it received.
func (m *Metrics) UploadStarted() (ended func(bytes int64)) {
	if m == nil {
		return func(int64) {}
	}
	m.uploads.Inc()
	return func(n int64) {
		m.uploads.Dec()
		if n > 0 {
			m.uploadBytes.Add(float64(n))
		}
	}
}

// ScheduledRun counts a slot of scheduled work and its outcome
// (schedule.RunDone...): it is what schedule.Scheduler.CountRuns wants.
func (m *Metrics) ScheduledRun(work, outcome string) {
	if m != nil {
		m.scheduled.WithLabelValues(work, outcome).Inc()
	}
}

// WorkerStopped counts a background worker that stopped with an error.
func (m *Metrics) WorkerStopped(worker string) {
	if m != nil {
		m.workers.WithLabelValues(worker).Inc()
	}
}

// RateLimited counts a request refused by the named limit.
func (m *Metrics) RateLimited(limit string) {
	if m != nil {
		m.rateLimited.WithLabelValues(limit).Inc()
	}
}

// Audited counts an audit record of action, and a sign-in's outcome when
// the record is one (auth.login, auth.login_failed, auth.lockout: every
// way of signing in records one of them).
func (m *Metrics) Audited(action string) {
	if m == nil {
		return
	}
	m.auditRecords.WithLabelValues(action).Inc()
	switch action {
	case "auth.login":
		m.signIns.WithLabelValues("success").Inc()
	case "auth.login_failed":
		m.signIns.WithLabelValues("failure").Inc()
	case "auth.lockout":
		m.signIns.WithLabelValues("lockout").Inc()
	}
}
