package catalog

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// Health returns the last health check of every service, by service id.
// A service never checked has none.
func (s *Service) Health(ctx context.Context) (map[string]*kanri.ServiceHealth, error) {
	all, err := s.Store.System().ServiceHealth().All(ctx, docstore.Query{})
	if err != nil {
		return nil, err
	}
	out := make(map[string]*kanri.ServiceHealth, len(all))
	for _, h := range all {
		out[h.ServiceID] = h
	}
	return out, nil
}

// HealthOf returns a service's health as pages show it: unknown when it
// was never checked or has nothing to check.
func HealthOf(svc *kanri.Service, checks map[string]*kanri.ServiceHealth) *kanri.ServiceHealth {
	if h, ok := checks[svc.ID]; ok && svc.BaseURL != "" && svc.IsActive {
		return h
	}
	return &kanri.ServiceHealth{ServiceID: svc.ID, Status: kanri.HealthUnknown}
}

// CheckHealth checks every active service that has a baseUrl once: a GET
// of baseUrl + healthEndpoint that answers 2xx within healthTimeout is up,
// anything else down. It returns how many services it checked.
func (s *Service) CheckHealth(ctx context.Context) (int, error) {
	svcs, err := s.List(ctx)
	if err != nil {
		return 0, err
	}
	checked := 0
	for _, svc := range svcs {
		if !svc.IsActive || svc.BaseURL == "" {
			continue
		}
		status, detail := s.probe(ctx, svc.BaseURL+svc.HealthEndpoint)
		if ctx.Err() != nil {
			return checked, ctx.Err()
		}
		if err := s.saveHealth(ctx, svc.ID, status, detail); err != nil {
			return checked, err
		}
		checked++
	}
	return checked, nil
}

// probe calls one health endpoint.
func (s *Service) probe(ctx context.Context, target string) (status, detail string) {
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return kanri.HealthDown, err.Error()
	}
	req.Header.Set("User-Agent", "Kanri-HealthCheck/1")
	resp, err := s.client.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return kanri.HealthDown, fmt.Sprintf("no answer within %v", healthTimeout)
		}
		return kanri.HealthDown, err.Error()
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return kanri.HealthDown, fmt.Sprintf("HTTP %d", resp.StatusCode)
	}
	return kanri.HealthUp, ""
}

// saveHealth records a check; Since moves only when the state changes.
func (s *Service) saveHealth(ctx context.Context, serviceID, status, detail string) error {
	repo := s.Store.System().ServiceHealth()
	now := kanri.NewTime(s.Now())
	h, err := repo.Get(ctx, kanri.ServiceHealthID(serviceID))
	switch {
	case kanri.IsCode(err, kanri.ENOTFOUND):
		h = &kanri.ServiceHealth{Doc: kanri.Doc{ID: kanri.ServiceHealthID(serviceID)}, ServiceID: serviceID}
	case err != nil:
		return err
	}
	if h.Status != status {
		h.Since = now
		if h.Status != "" {
			s.Logger.Warn("service health changed", "service", serviceID, "from", h.Status, "to", status, "detail", detail)
		}
	}
	h.Status, h.Detail, h.CheckedAt = status, detail, now
	// Several instances may check at once: the last write wins, and each
	// is a true observation.
	h.ETag = ""
	return repo.Upsert(ctx, h)
}
