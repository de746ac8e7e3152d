package catalog

import (
	"context"

	"github.com/kanri/kanri/internal/app"
)

// Feature is what the service catalog gives the composition root: the
// upgrades of the tenants' assignments, and the services' health checks
// (once across the instances every HealthInterval).
func (s *Service) Feature() app.Feature {
	return app.Feature{
		Name: "catalog",
		Upgrades: []app.Upgrade{
			{Name: UpgradeExpiryDays, Tenant: s.MoveExpiryDays},
			{Name: UpgradeMovedIDs, Tenant: s.MoveIDs},
		},
		Work: []app.Work{{Name: "service-health", Every: s.HealthInterval, Periodic: func(ctx context.Context) error {
			_, err := s.CheckHealth(ctx)
			return err
		}}},
	}
}
