package catalog

import (
	"context"
	"time"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// AddUsage adds to a tenant's usage of a service in the current month:
// counts (apiCalls, bandwidth) by delta. It is the one usage recorder the
// features call. Concurrent updates never lose an increment: each is a
// read and a write at the read's ETag, retried on a lost race.
func (s *Service) AddUsage(ctx context.Context, tenantID, serviceID string, delta map[string]int64) error {
	return s.updateUsage(ctx, tenantID, serviceID, func(m map[string]int64) {
		for k, d := range delta {
			m[k] += d
		}
	})
}

// SetUsage records gauges of a tenant's usage of a service in the current
// month, such as storageUsed, replacing what they were.
func (s *Service) SetUsage(ctx context.Context, tenantID, serviceID string, values map[string]int64) error {
	return s.updateUsage(ctx, tenantID, serviceID, func(m map[string]int64) {
		for k, v := range values {
			m[k] = v
		}
	})
}

func (s *Service) updateUsage(ctx context.Context, tenantID, serviceID string, change func(map[string]int64)) error {
	now := s.Now()
	_, err := s.Store.Tenant(tenantID).ServiceUsage().Modify(ctx, kanri.UsageID(now, tenantID, serviceID),
		func() *kanri.ServiceUsage {
			return &kanri.ServiceUsage{ServiceID: serviceID, Period: kanri.Period(now)}
		},
		func(u *kanri.ServiceUsage) error {
			if u.Metrics == nil {
				u.Metrics = kanri.UsageMetrics{}
			}
			change(u.Metrics)
			u.LastUpdated = kanri.NewTime(now)
			return nil
		})
	return err
}

// RecentUsage returns a tenant's usage of a service in the last months
// (this one included), oldest first.
func (s *Service) RecentUsage(ctx context.Context, tenantID, serviceID string, months int) ([]*kanri.ServiceUsage, error) {
	now := s.Now()
	return s.Usage(ctx, tenantID, serviceID, monthOf(now).AddDate(0, -(months-1), 0), now)
}

// Usage returns a tenant's usage of a service in the months from the one
// of from to the one of to, oldest first, one point read each (ids are
// known); months without usage are empty documents.
func (s *Service) Usage(ctx context.Context, tenantID, serviceID string, from, to time.Time) ([]*kanri.ServiceUsage, error) {
	repo := s.Store.Tenant(tenantID).ServiceUsage()
	var out []*kanri.ServiceUsage
	for m := monthOf(from); !m.After(to); m = m.AddDate(0, 1, 0) {
		u, err := repo.Get(ctx, kanri.UsageID(m, tenantID, serviceID))
		if kanri.IsCode(err, kanri.ENOTFOUND) {
			u, err = &kanri.ServiceUsage{ServiceID: serviceID, Period: kanri.Period(m), Metrics: map[string]int64{}}, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

// UsageThisMonth returns a tenant's usage of each service this month, by
// service id.
func (s *Service) UsageThisMonth(ctx context.Context, tenantID string) (map[string]*kanri.ServiceUsage, error) {
	all, err := s.Store.Tenant(tenantID).ServiceUsage().All(ctx, docstore.Query{Where: []docstore.Filter{docstore.Eq("period", kanri.Period(s.Now()))}})
	if err != nil {
		return nil, err
	}
	out := make(map[string]*kanri.ServiceUsage, len(all))
	for _, u := range all {
		out[u.ServiceID] = u
	}
	return out, nil
}

// UsageAcrossTenants returns one page of every tenant's usage in a month,
// for the operator.
func (s *Service) UsageAcrossTenants(ctx context.Context, period string, limit int, continuation string) ([]*kanri.ServiceUsage, string, error) {
	return s.Store.Privileged().ServiceUsage(ctx, period, limit, continuation)
}

func monthOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}
