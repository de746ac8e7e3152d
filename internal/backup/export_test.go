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

// SetDryRunBeat sets how often a running dry run writes its progress.
func SetDryRunBeat(s *Service, d time.Duration) { s.dryRunBeat = d }

// DryRunChangesDocs returns the ids of the tenant's dry runs' changes
// documents.
func DryRunChangesDocs(s *Service, ctx context.Context, tenantID string) ([]string, error) {
	cs, err := s.dryRunChanges(tenantID).All(ctx, docstore.Query{})
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	return ids, err
}

// DumpFunc is how the service reads a partition (the store's Dump).
type DumpFunc = func(ctx context.Context, pk string, containers []string, fn func(string, docstore.Item) error) (bool, error)

// SetDump has the service read partitions with dump (tests make archives
// like those of Cosmos DB's dump with it), and returns the one it had.
func SetDump(s *Service, dump DumpFunc) DumpFunc {
	old := s.dump
	s.dump = dump
	return old
}
