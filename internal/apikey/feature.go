package apikey

import (
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
)

// Feature is what API keys give the composition root: the upgrade of
// their expiry settings.
func (s *Service) Feature() app.Feature {
	return app.Feature{Name: "api-keys", Upgrades: []app.Upgrade{{Name: UpgradeExpiryDays, Tenant: s.MoveExpiryDays}}}
}

// Feature is what the usage log gives the composition root: its writer,
// on every instance, which writes what is queued when it stops (after the
// HTTP server has drained).
func (r *Recorder) Feature() app.Feature {
	return app.Feature{Name: "api-usage", Work: []app.Work{{Name: "API usage log", Run: r.Run}}}
}

// Offer is the API service of the catalog: the API keys and their
// usage, from the standard plan.
var Offer = role.Offer{
	ID: kanri.APIServiceID, Name: "API利用サービス", Description: "APIキーと利用状況", Category: "integration",
	Read:  []string{role.APIKeysRead},
	Write: []string{role.APIKeysCreate, role.APIKeysUpdate, role.APIKeysDelete},
	Plan:  kanri.PlanStandard,
}
