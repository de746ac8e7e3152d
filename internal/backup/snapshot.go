package backup

import (
	"context"
	"strings"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// Snapshot makes an archive of a tenant's parts at once, and waits for it:
// the copy the batch migration takes of what it will change, named name.
// It belongs to no job (no retention prunes it; it is deleted with the
// tenant's archives), is listed in the tenant's history with the trigger
// "migration", and restores as any archive does.
func (s *Service) Snapshot(ctx context.Context, tenantID string, parts []string, name string) (*kanri.BackupHistory, error) {
	lease, err := s.sched.Acquire(ctx, tenantID, leaseName, "backup "+name, leaseTerm)
	if err != nil {
		return nil, busy(err)
	}
	j := &kanri.BackupJob{Doc: kanri.Doc{ID: "job_" + kanri.TriggerMigration}, Name: name, Target: strings.Join(parts, ",")}
	h, err := s.start(ctx, tenantID, j, kanri.TriggerMigration, audit.ActorFrom(ctx).UserID)
	if err != nil {
		lease.Release(context.WithoutCancel(ctx))
		return nil, err
	}
	err = lease.Hold(ctx, func(ctx context.Context) error { return s.execute(ctx, tenantID, j, h) })
	return h, err
}

// LatestSnapshot returns the tenant's latest successful archive taken by
// the batch migration named name, or ENOTFOUND.
func (s *Service) LatestSnapshot(ctx context.Context, tenantID, name string) (*kanri.BackupHistory, error) {
	hs, _, err := s.Store.Tenant(tenantID).BackupHistory().Query(ctx, docstore.Query{
		Where:   []docstore.Filter{docstore.Eq("jobId", "job_"+kanri.TriggerMigration), docstore.Eq("status", kanri.BackupSuccess)},
		OrderBy: "startedAt", Desc: true, Limit: 50,
	})
	if err != nil {
		return nil, err
	}
	for _, h := range hs {
		if h.JobName == name && h.Restorable() {
			return h, nil
		}
	}
	return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
}
