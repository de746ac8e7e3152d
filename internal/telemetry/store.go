package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/kanri/kanri/internal/docstore"
)

// Store returns ds with every container call timed into m and traced as a
// span of tr (none when tr is nil). When billed (Cosmos DB), the request
// units each call cost are added up too (docstore.Charge).
func Store(ds docstore.Store, m *Metrics, tr trace.Tracer, billed bool) docstore.Store {
	return &store{Store: ds, m: m, tr: tr, billed: billed}
}

type store struct {
	docstore.Store
	m      *Metrics
	tr     trace.Tracer
	billed bool
}

func (s *store) Container(name string) docstore.Container {
	return &container{c: s.Store.Container(name), s: s, name: name}
}

// container is one container of a store, every call observed.
type container struct {
	c    docstore.Container
	s    *store
	name string
}

// call is one observed store call: begin it, then end it with its error.
type call struct {
	ctx    context.Context
	c      *container
	op     string
	start  time.Time
	span   trace.Span
	charge *docstore.Charge
}

func (c *container) begin(ctx context.Context, op string) call {
	var span trace.Span
	if c.s.tr != nil {
		ctx, span = c.s.tr.Start(ctx, "store."+op, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
			attribute.String("db.collection.name", c.name), attribute.String("db.operation.name", op)))
	}
	var ch *docstore.Charge
	if c.s.billed {
		ctx, ch = docstore.WithCharge(ctx)
	}
	return call{ctx: ctx, c: c, op: op, start: time.Now(), span: span, charge: ch}
}

// end records the call's outcome: ok, or the code of its error
// (not_found, conflict, stale, invalid), or error for any other.
func (k call) end(err error) {
	outcome := outcomeOf(err)
	var units float64
	if k.charge != nil {
		units = k.charge.Units()
	}
	if m := k.c.s.m; m != nil {
		m.storeCalls.WithLabelValues(k.c.name, k.op, outcome).Observe(time.Since(k.start).Seconds())
		if units > 0 {
			m.storeCharge.WithLabelValues(k.c.name, k.op).Add(units)
		}
	}
	if k.span == nil {
		return
	}
	switch outcome {
	case "ok":
	case "error":
		k.span.RecordError(err)
		k.span.SetStatus(codes.Error, err.Error())
	default:
		k.span.SetAttributes(attribute.String("kanri.outcome", outcome))
	}
	if k.charge != nil {
		k.span.SetAttributes(attribute.Float64("db.cosmosdb.request_charge", units))
	}
	k.span.End()
}

func (c *container) Read(ctx context.Context, pk, id string) (docstore.Item, error) {
	k := c.begin(ctx, "read")
	it, err := c.c.Read(k.ctx, pk, id)
	k.end(err)
	return it, err
}

func (c *container) Create(ctx context.Context, pk string, body []byte) (string, error) {
	k := c.begin(ctx, "create")
	etag, err := c.c.Create(k.ctx, pk, body)
	k.end(err)
	return etag, err
}

func (c *container) Replace(ctx context.Context, pk, id string, body []byte, ifMatch string) (string, error) {
	k := c.begin(ctx, "replace")
	etag, err := c.c.Replace(k.ctx, pk, id, body, ifMatch)
	k.end(err)
	return etag, err
}

func (c *container) Upsert(ctx context.Context, pk string, body []byte, ifMatch string) (string, error) {
	k := c.begin(ctx, "upsert")
	etag, err := c.c.Upsert(k.ctx, pk, body, ifMatch)
	k.end(err)
	return etag, err
}

func (c *container) Delete(ctx context.Context, pk, id, ifMatch string) error {
	k := c.begin(ctx, "delete")
	err := c.c.Delete(k.ctx, pk, id, ifMatch)
	k.end(err)
	return err
}

func (c *container) Query(ctx context.Context, pk string, q docstore.Query) (docstore.Page, error) {
	k := c.begin(ctx, "query")
	p, err := c.c.Query(k.ctx, pk, q)
	k.end(err)
	return p, err
}

func (c *container) QueryAcrossPartitions(ctx context.Context, q docstore.Query) (docstore.Page, error) {
	k := c.begin(ctx, "query_across_partitions")
	p, err := c.c.QueryAcrossPartitions(k.ctx, q)
	k.end(err)
	return p, err
}

func (c *container) Batch(ctx context.Context, pk string, ops []docstore.Op) ([]docstore.Result, error) {
	k := c.begin(ctx, "batch")
	rs, err := c.c.Batch(k.ctx, pk, ops)
	k.end(err)
	return rs, err
}
