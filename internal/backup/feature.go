package backup

import (
	"context"
	"time"

	"github.com/kanri/kanri/internal/app"
)

// poll is how often each instance looks for due backups (the slot of each
// is claimed by one instance).
const poll = 15 * time.Second

// Feature is what backups give the composition root: the runner of due
// backups and of restores, on every instance.
func (s *Service) Feature() app.Feature {
	return app.Feature{Name: "backups", Work: []app.Work{{Name: "backups", Run: func(ctx context.Context) error {
		return s.Run(ctx, poll)
	}}}}
}
