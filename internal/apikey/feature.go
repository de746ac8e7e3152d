package apikey

import "github.com/kanri/kanri/internal/app"

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
