package webhook

import (
	"time"

	"github.com/kanri/kanri/internal/app"
)

// auditFilesEvery is how often the daily audit files are looked at: a
// day's file is written within this much of the day's end.
const auditFilesEvery = time.Hour

// Feature is what webhooks give the composition root: the deliveries,
// run once across the instances every Interval, and the daily audit
// files, every auditFilesEvery.
func (s *Service) Feature() app.Feature {
	return app.Feature{
		Name: "webhooks",
		Work: []app.Work{
			{Name: "webhook-deliveries", Every: s.Interval, Periodic: s.Run},
			{Name: "audit-files", Every: auditFilesEvery, Periodic: s.WriteAuditFiles},
		},
	}
}
