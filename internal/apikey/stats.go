package apikey

import (
	"context"
	"strconv"
	"time"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// Daily returns a key's usage (or, for AllKeys, the tenant's) on each of
// the last days (today included), oldest first, from one query: a day
// without a document is a day without calls.
func (s *Service) Daily(ctx context.Context, tenantID, keyID string, days int) ([]*kanri.APIUsageDaily, error) {
	today := s.Now().UTC().Truncate(24 * time.Hour)
	ids := make([]string, days)
	for i := range ids {
		ids[i] = kanri.DailyID(today.AddDate(0, 0, i-days+1), keyID)
	}
	found, err := dailies(s.Store, tenantID).ByIDs(ctx, ids, "")
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*kanri.APIUsageDaily, len(found))
	for _, d := range found {
		byID[d.ID] = d
	}
	out := make([]*kanri.APIUsageDaily, days)
	for i, id := range ids {
		if out[i] = byID[id]; out[i] == nil {
			out[i] = &kanri.APIUsageDaily{APIKeyID: keyID, Date: today.AddDate(0, 0, i-days+1).Format("2006-01-02")}
		}
	}
	return out, nil
}

// Summary is what the usage pages show over a span of days.
type Summary struct {
	Calls, Errors, Bandwidth int64
	// P50 and P95 are the latency bounds under which half and 95% of the
	// calls were answered ("≤ 25 ms"); empty without calls.
	P50, P95 string
}

// ErrorRate returns the share of calls that failed, in percent.
func (s Summary) ErrorRate() float64 {
	if s.Calls == 0 {
		return 0
	}
	return float64(s.Errors) * 100 / float64(s.Calls)
}

// Summarize sums days.
func Summarize(days []*kanri.APIUsageDaily) Summary {
	var sum Summary
	hist := make([]int64, len(kanri.LatencyBuckets)+1)
	for _, d := range days {
		sum.Calls += d.Calls
		sum.Errors += d.Errors
		sum.Bandwidth += d.Bandwidth
		for i, n := range d.Latency {
			if i < len(hist) {
				hist[i] += n
			}
		}
	}
	sum.P50, sum.P95 = percentile(hist, 0.50), percentile(hist, 0.95)
	return sum
}

// percentile returns the bound of the histogram bucket that holds the
// p-th call.
func percentile(hist []int64, p float64) string {
	var total int64
	for _, n := range hist {
		total += n
	}
	if total == 0 {
		return ""
	}
	want := int64(float64(total)*p + 0.999999)
	var seen int64
	for i, n := range hist {
		seen += n
		if seen >= want {
			if i < len(kanri.LatencyBuckets) {
				return "≤ " + strconv.Itoa(kanri.LatencyBuckets[i]) + " ms"
			}
			break
		}
	}
	return "> " + strconv.Itoa(kanri.LatencyBuckets[len(kanri.LatencyBuckets)-1]) + " ms"
}

// Aggregate returns a key's aggregate of the month of t, or an empty one.
func (s *Service) Aggregate(ctx context.Context, tenantID, keyID string, t time.Time) (*kanri.APIUsageAggregate, error) {
	a, err := s.Store.Tenant(tenantID).APIUsageAggregates().Get(ctx, kanri.AggregateID(t, keyID))
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return &kanri.APIUsageAggregate{APIKeyID: keyID, Period: kanri.Period(t)}, nil
	}
	return a, err
}

// CallFilter selects calls of the usage log.
type CallFilter struct {
	KeyID        string // "" for every key
	Status       string // "", "2xx", "4xx" or "5xx"
	Limit        int
	Continuation string
}

// Calls returns one page of a tenant's logged calls, newest first, through
// the (apiKeyId, timestamp) or (timestamp) index.
func (s *Service) Calls(ctx context.Context, tenantID string, f CallFilter) ([]*kanri.APIUsage, string, error) {
	var where []docstore.Filter
	if f.KeyID != "" {
		where = append(where, docstore.Eq("apiKeyId", f.KeyID))
	}
	switch f.Status {
	case "2xx", "3xx", "4xx", "5xx":
		lo := int(f.Status[0]-'0') * 100
		where = append(where, docstore.Gte("statusCode", lo), docstore.Lt("statusCode", lo+100))
	}
	if f.Limit <= 0 || f.Limit > 100 {
		f.Limit = 50
	}
	return s.Store.Tenant(tenantID).APIUsage().Query(ctx, docstore.Query{
		Where: where, OrderBy: "timestamp", Desc: true, Limit: f.Limit, Continuation: f.Continuation,
	})
}
