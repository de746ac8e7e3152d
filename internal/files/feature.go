package files

import (
	"time"

	"github.com/kanri/kanri/internal/app"
)

// cleanupInterval is how often expired uploads, old trash and orphans
// are looked for.
const cleanupInterval = time.Hour

// Feature is what files give the composition root: the writer of usage
// and access times (on every instance) and the cleanups (once across the
// instances every hour).
func (s *Service) Feature() app.Feature {
	return app.Feature{Name: "files", Work: []app.Work{
		{Name: "file usage and access times", Run: s.Run},
		{Name: "file-cleanups", Every: cleanupInterval, Periodic: s.Cleanups},
	}}
}
