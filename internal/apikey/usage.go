package apikey

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// AllKeys is the key id under which a tenant's usage of all its keys is
// summed, daily and monthly, so that its usage page reads one document a
// day and one for the month however many keys it has.
const AllKeys = "all"

// UsageSink receives the API usage of a tenant as service usage (the
// API-calls figure of api-service).
type UsageSink interface {
	AddUsage(ctx context.Context, tenantID, serviceID string, delta map[string]int64) error
}

// Recorder logs every API call off the request path
// (docs/data-model.md, "API keys and usage"): calls are queued and written
// in batches by Run, which also keeps the monthly aggregates, the daily
// figures of the usage pages, the service usage and the keys' lastUsedAt
// current. A call that cannot be queued (the queue is full) is counted and
// logged, never silently dropped.
type Recorder struct {
	st      *store.Store
	keys    *Service
	sink    UsageSink
	log     *slog.Logger
	queue   chan *kanri.APIUsage
	lost    atomic.Int64 // calls not logged, for any reason
	full    atomic.Int64 // of which dropped because the queue was full
	written atomic.Int64
	// FlushEvery is how long a call may wait in the queue.
	FlushEvery time.Duration
}

// maxBatch is how many calls one flush writes at most.
const maxBatch = 1000

// NewRecorder returns a recorder with a queue of size calls.
func NewRecorder(st *store.Store, keys *Service, sink UsageSink, log *slog.Logger, size int) *Recorder {
	return &Recorder{st: st, keys: keys, sink: sink, log: log, queue: make(chan *kanri.APIUsage, size), FlushEvery: time.Second}
}

// Record queues one call. It never blocks.
func (r *Recorder) Record(u *kanri.APIUsage) {
	select {
	case r.queue <- u:
	default:
		r.lost.Add(1)
		if n := r.full.Add(1); n == 1 || n%1000 == 0 {
			r.log.Error("API usage queue full: calls not logged", "dropped", n)
		}
	}
}

// Lost returns how many calls could not be logged.
func (r *Recorder) Lost() int64 { return r.lost.Load() }

// Written returns how many calls were logged.
func (r *Recorder) Written() int64 { return r.written.Load() }

// Run writes the queued calls until ctx ends, then writes what is left.
func (r *Recorder) Run(ctx context.Context) error {
	t := time.NewTicker(r.FlushEvery)
	defer t.Stop()
	var batch []*kanri.APIUsage
	// A batch being written is finished even when the server stops
	// meanwhile: its writes get a context of their own.
	flush := func(ctx context.Context) {
		if len(batch) > 0 {
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			r.flush(fctx, batch)
			cancel()
			batch = batch[:0]
		}
	}
	for {
		select {
		case u := <-r.queue:
			batch = append(batch, u)
			if len(batch) >= maxBatch {
				flush(ctx)
			}
		case <-t.C:
			flush(ctx)
		case <-ctx.Done():
			// The server is stopping: write what was queued, with a
			// bounded time of its own.
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			for {
				select {
				case u := <-r.queue:
					batch = append(batch, u)
					if len(batch) >= maxBatch {
						flush(dctx)
					}
				default:
					flush(dctx)
					return nil
				}
			}
		}
	}
}

// NewUsage returns a call's record, with its id and 90-day ttl.
func NewUsage(k *kanri.APIKey, at time.Time) *kanri.APIUsage {
	b := make([]byte, 4)
	rand.Read(b)
	return &kanri.APIUsage{
		Doc:      kanri.Doc{ID: fmt.Sprintf("usage_%d_%s", at.UnixMilli(), hex.EncodeToString(b)), TenantID: k.TenantID},
		APIKeyID: k.ID, Timestamp: kanri.NewTime(at),
	}
}

// sums are the figures one flush adds to an aggregate or a day.
type sums struct {
	calls, errors, bytes, responseTime int64
	endpoints                          map[string]int64
	latency                            []int64
	last                               time.Time
}

func (s *sums) add(u *kanri.APIUsage) {
	s.calls++
	if u.StatusCode >= 400 {
		s.errors++
	}
	s.bytes += u.RequestSize + u.ResponseSize
	s.responseTime += int64(u.ResponseTime)
	if s.endpoints == nil {
		s.endpoints = map[string]int64{}
	}
	s.endpoints[u.Method+" "+u.Endpoint]++
	if s.latency == nil {
		s.latency = make([]int64, len(kanri.LatencyBuckets)+1)
	}
	i, _ := slices.BinarySearch(kanri.LatencyBuckets, u.ResponseTime)
	s.latency[i]++
	if u.Timestamp.After(s.last) {
		s.last = u.Timestamp.Time
	}
}

// flush writes one batch of calls and what they add to.
func (r *Recorder) flush(ctx context.Context, batch []*kanri.APIUsage) {
	type key struct{ tenant, key, period string }
	byTenant := map[string][]*kanri.APIUsage{}
	for _, u := range batch {
		byTenant[u.TenantID] = append(byTenant[u.TenantID], u)
	}
	// The calls are written first; the figures count the calls written.
	var written []*kanri.APIUsage
	for tenantID, calls := range byTenant {
		ten := r.st.Tenant(tenantID)
		for chunk := range slices.Chunk(calls, docstore.MaxBatchOps) {
			ops := make([]docstore.Op, 0, len(chunk))
			var encoded []*kanri.APIUsage
			for _, u := range chunk {
				op, err := ten.APIUsage().Op(docstore.OpCreate, u)
				if err != nil {
					r.lost.Add(1)
					r.log.Error("API usage not encoded", "err", err)
					continue
				}
				ops, encoded = append(ops, op), append(encoded, u)
			}
			if _, err := ten.Batch(ctx, kanri.ContainerAPI, ops); err != nil {
				n := r.lost.Add(int64(len(ops)))
				r.log.Error("API usage not written", "tenant", tenantID, "calls", len(ops), "lost", n, "err", err)
				continue
			}
			r.written.Add(int64(len(ops)))
			written = append(written, encoded...)
		}
	}
	monthly, daily := map[key]*sums{}, map[key]*sums{}
	perTenant := map[string]*sums{}
	at := func(m map[key]*sums, k key) *sums {
		if m[k] == nil {
			m[k] = &sums{}
		}
		return m[k]
	}
	for _, u := range written {
		ts := u.Timestamp.Time
		at(monthly, key{u.TenantID, u.APIKeyID, ts.Format("200601")}).add(u)
		at(monthly, key{u.TenantID, AllKeys, ts.Format("200601")}).add(u)
		at(daily, key{u.TenantID, u.APIKeyID, ts.Format("20060102")}).add(u)
		at(daily, key{u.TenantID, AllKeys, ts.Format("20060102")}).add(u)
		if perTenant[u.TenantID] == nil {
			perTenant[u.TenantID] = &sums{}
		}
		perTenant[u.TenantID].add(u)
	}
	for k, s := range monthly {
		r.addAggregate(ctx, k.tenant, k.key, k.period, s)
	}
	for k, s := range daily {
		r.addDaily(ctx, k.tenant, k.key, k.period, s)
	}
	for tenantID, s := range perTenant {
		if r.sink != nil {
			if err := r.sink.AddUsage(ctx, tenantID, kanri.APIServiceID, map[string]int64{kanri.MetricAPICalls: s.calls, kanri.MetricBandwidth: s.bytes}); err != nil {
				r.log.Error("service usage of API calls not added", "tenant", tenantID, "err", err)
			}
		}
	}
	for k, s := range monthly {
		if k.key != AllKeys {
			r.keys.Touch(ctx, k.tenant, k.key, s.last)
		}
	}
}

// topEndpoints is how many endpoints an aggregate lists.
const topEndpoints = 10

func (r *Recorder) addAggregate(ctx context.Context, tenantID, keyID, month string, s *sums) {
	t, _ := time.Parse("200601", month)
	_, err := r.st.Tenant(tenantID).APIUsageAggregates().Modify(ctx, kanri.AggregateID(t, keyID),
		func() *kanri.APIUsageAggregate {
			return &kanri.APIUsageAggregate{APIKeyID: keyID, Period: kanri.Period(t), Endpoints: map[string]int64{}}
		},
		func(a *kanri.APIUsageAggregate) error {
			if a.Endpoints == nil {
				a.Endpoints = map[string]int64{}
			}
			a.TotalCalls += s.calls
			a.ErrorCalls += s.errors
			a.SuccessCalls = a.TotalCalls - a.ErrorCalls
			a.TotalBandwidth += s.bytes
			a.TotalResponseTime += s.responseTime
			a.AvgResponseTime = int(a.TotalResponseTime / max(1, a.TotalCalls))
			for e, n := range s.endpoints {
				a.Endpoints[e] += n
			}
			a.TopEndpoints = top(a.Endpoints, topEndpoints)
			a.LastUpdated = kanri.NewTime(s.last)
			return nil
		})
	if err != nil {
		r.log.Error("API usage aggregate not updated", "tenant", tenantID, "key", keyID, "err", err)
	}
}

// top lists the n most called endpoints as the aggregate holds them
// (docs/data-model.md, "API keys and usage").
func top(endpoints map[string]int64, n int) []map[string]int {
	names := slices.Collect(maps.Keys(endpoints))
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(endpoints[b], endpoints[a]), cmp.Compare(a, b))
	})
	out := []map[string]int{}
	for _, e := range names[:min(n, len(names))] {
		out = append(out, map[string]int{e: int(endpoints[e])})
	}
	return out
}

func dailies(st *store.Store, tenantID string) *store.Repo[kanri.APIUsageDaily, *kanri.APIUsageDaily] {
	return store.Of[kanri.APIUsageDaily](st.Tenant(tenantID), kanri.ContainerAPI, kanri.TypeAPIUsageDaily)
}

func (r *Recorder) addDaily(ctx context.Context, tenantID, keyID, day string, s *sums) {
	t, _ := time.Parse("20060102", day)
	_, err := dailies(r.st, tenantID).Modify(ctx, kanri.DailyID(t, keyID),
		func() *kanri.APIUsageDaily {
			return &kanri.APIUsageDaily{APIKeyID: keyID, Date: t.Format("2006-01-02"), TTL: kanri.TTLAPIUsage}
		},
		func(d *kanri.APIUsageDaily) error {
			if len(d.Latency) != len(kanri.LatencyBuckets)+1 {
				d.Latency = make([]int64, len(kanri.LatencyBuckets)+1)
			}
			d.Calls += s.calls
			d.Errors += s.errors
			d.Bandwidth += s.bytes
			for i, n := range s.latency {
				d.Latency[i] += n
			}
			return nil
		})
	if err != nil {
		r.log.Error("API daily usage not updated", "tenant", tenantID, "key", keyID, "err", err)
	}
}
