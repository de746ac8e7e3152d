package webhook

import "github.com/kanri/kanri/internal/app"

// Feature is what webhooks give the composition root: the deliveries,
// run once across the instances every Interval.
func (s *Service) Feature() app.Feature {
	return app.Feature{
		Name: "webhooks",
		Work: []app.Work{{Name: "webhook-deliveries", Every: s.Interval, Periodic: s.Run}},
	}
}
