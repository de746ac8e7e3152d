package backup

import (
	"context"
	"time"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
)

// poll is how often each instance looks for due backups (the slot of each
// is claimed by one instance).
const poll = 15 * time.Second

// Feature is what backups give the composition root: the runner of due
// backups and of restores, on every instance.
func (s *Service) Feature() app.Feature {
	return app.Feature{Name: "backups", Work: []app.Work{{Name: "backups", Run: func(ctx context.Context) error {
		return s.Run(ctx, poll)
	}}}}
}

// Offer is the backup service of the catalog: the backup jobs and
// their history, from the standard plan.
var Offer = role.Offer{
	ID: kanri.BackupServiceID, Name: "バックアップサービス", Description: "バックアップジョブと履歴", Category: "operations",
	Read:   []string{role.BackupsRead},
	Write:  []string{role.BackupsCreate, role.BackupsUpdate, role.BackupsExecute, role.BackupsDelete},
	Plan:   kanri.PlanStandard,
	Config: []kanri.ConfigField{{Key: "maxJobs", Kind: kanri.KindCount}},
}
