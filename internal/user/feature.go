package user

import "github.com/kanri/kanri/internal/app"

// Feature is what user management gives the composition root: the
// upgrades of the users written by earlier versions.
func (s *Service) Feature() app.Feature {
	return app.Feature{Name: "users", Upgrades: s.Upgrades()}
}
