package files

import (
	"context"
	"time"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
)

// cleanupInterval is how often expired uploads, old trash and orphans
// are looked for.
const cleanupInterval = time.Hour

// Feature is what files give the composition root: the writer of usage
// and access times (on every instance), the cleanups (once across the
// instances every hour) and the scrub of every file's bytes (once a day).
func (s *Service) Feature() app.Feature {
	return app.Feature{Name: "files", Work: []app.Work{
		{Name: "file usage and access times", Run: s.Run},
		{Name: "file-cleanups", Every: cleanupInterval, Periodic: s.Cleanups},
		{Name: "file-scrub", Every: scrubInterval, Periodic: func(ctx context.Context) error {
			_, _, err := s.Scrub(ctx)
			return err
		}},
	}}
}

// Offer is the file service of the catalog. A member uploads, and
// changes and trashes its own files (MayChange).
var Offer = role.Offer{
	ID: kanri.FileServiceID, Name: "ファイル管理サービス", Description: "ファイルのアップロード・ダウンロード・管理", Category: "storage",
	Read:   []string{role.FilesRead},
	Write:  []string{role.FilesCreate, role.FilesUpdate, role.FilesDelete},
	Member: []string{role.FilesCreate},
	Config: []kanri.ConfigField{{Key: "maxStorage", Kind: kanri.KindSize}, {Key: "maxFileSize", Kind: kanri.KindSize}},
}
