package backup

import (
	"context"
)

// SetBeforePart has fn called before each part of a restore.
func SetBeforePart(s *Service, fn func(part string) error) { s.beforePart = fn }

// Prune applies the job's retention.
func Prune(s *Service, ctx context.Context, tenantID, jobID string) error {
	j, err := s.Job(ctx, tenantID, jobID)
	if err != nil {
		return err
	}
	return s.prune(ctx, tenantID, j)
}

// Blobs returns the service's blob store.
func Blobs(s *Service) any { return s.blobs }
