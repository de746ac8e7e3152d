package catalog

import (
	"context"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
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

// Offer is the service settings service of the catalog: which services
// a tenant has, and the catalog itself.
var Offer = role.Offer{
	ID: kanri.ServiceSettingID, Name: "サービス設定サービス", Description: "テナントへのサービス割り当てと設定", Category: "management",
	Read:     []string{role.ServicesRead},
	Operator: []string{role.ServicesUpdate, role.ServicesManage},
}
