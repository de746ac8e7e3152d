package emaildomain

import (
	"context"

	"github.com/kanri/kanri/internal/app"
)

// Feature is what e-mail domains give the composition root: the re-check
// of verified domains, once across the instances every RecheckInterval.
func (s *Service) Feature() app.Feature {
	return app.Feature{
		Name: "domains",
		Work: []app.Work{{Name: "domain-recheck", Every: s.RecheckInterval, Periodic: func(ctx context.Context) error {
			_, err := s.Recheck(ctx)
			return err
		}}},
	}
}
