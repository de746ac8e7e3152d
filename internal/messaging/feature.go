package messaging

import "github.com/kanri/kanri/internal/app"

// Feature is what messaging gives the composition root: the removal of
// deleted channels, on every instance.
func (s *Service) Feature() app.Feature {
	return app.Feature{Name: "messaging", Work: []app.Work{{Name: "channel deletions", Run: s.Run}}}
}
