package tenant

import (
	"context"
	"time"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
)

// Intervals of the tenants' work.
const (
	// repairInterval is how often pending user-count changes are looked
	// for.
	repairInterval = time.Minute
	// expiryInterval is how often the tenants whose subscription ended
	// are looked for (once across the instances): a tenant is suspended
	// within this of its end date.
	expiryInterval = time.Hour
)

// Feature is what tenant administration gives the composition root: the
// upgrades of the operator's listing, the repair of user counts (on every
// instance) and the suspension of tenants whose subscription ended.
func (s *Service) Feature() app.Feature {
	return app.Feature{
		Name: "tenants",
		Upgrades: []app.Upgrade{
			{Name: UpgradeSearchTerms, Tenant: s.AddSearchTerms},
			{Name: UpgradeListingSubscription, Tenant: s.RewriteListing},
		},
		Work: []app.Work{
			{Name: "repair user counts", Run: func(ctx context.Context) error {
				return s.RunRepair(ctx, repairInterval, s.RepairGrace)
			}},
			{Name: ExpiryWork, Every: expiryInterval, Periodic: func(ctx context.Context) error {
				n, err := s.SuspendExpired(ctx)
				if n > 0 {
					s.Logger.Info("suspended the tenants whose subscription ended", "count", n)
				}
				return err
			}},
		},
	}
}

// Offer is the tenant management service of the catalog: the tenants,
// their e-mail domains and settings.
var Offer = role.Offer{
	ID: kanri.TenantManagementID, Name: "テナント管理サービス", Description: "テナントの追加・編集・停止・削除", Category: "management",
	Read:     []string{role.TenantsRead, role.DomainsRead, role.SettingsRead},
	Write:    []string{role.DomainsCreate, role.DomainsUpdate, role.DomainsDelete, role.SettingsUpdate},
	Operator: []string{role.TenantsCreate, role.TenantsUpdate, role.TenantsDelete, role.MigrationsRun},
}
