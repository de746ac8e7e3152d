package backup

import (
	"context"
	"time"

	"github.com/kanri/kanri/internal/docstore"
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

// SetDryRunWait sets how long DryRun waits for a dry run it started.
func SetDryRunWait(s *Service, d time.Duration) { s.dryRunWait = d }

// SetChangesPerDoc sets how many changes a dry run's document holds until
// the test ends.
func SetChangesPerDoc(t interface{ Cleanup(func()) }, n int) {
	old := changesPerDoc
	changesPerDoc = n
	t.Cleanup(func() { changesPerDoc = old })
}

// DryRunRecords returns the tenant's dry run records.
func DryRunRecords(s *Service, ctx context.Context, tenantID string) ([]*DryRunRecord, error) {
	return s.dryRunRecords(tenantID).All(ctx, docstore.Query{})
}

// SaveDryRun writes r as the tenant's dry run record.
func SaveDryRun(s *Service, ctx context.Context, tenantID string, r *DryRunRecord) error {
	return s.dryRunRecords(tenantID).Replace(ctx, r)
}
