package files

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/kanri"
)

// scrubInterval is how often every file's bytes are checked against its
// checksum.
const scrubInterval = 24 * time.Hour

// Scrub reads every file of every tenant and checks its bytes against its
// checksum, marking those that no longer match damaged (downloads from a
// store of local files are sent as they are, unchecked: this is where
// damage is found). It returns how many files it checked and how many it
// found damaged.
func (s *Service) Scrub(ctx context.Context) (checked, damaged int, err error) {
	next := ""
	for {
		page, cont, err := s.allFiles(ctx, next)
		if err != nil {
			return checked, damaged, err
		}
		for _, f := range page {
			if f.Damaged || f.Checksum == "" {
				continue
			}
			ok, err := s.intact(ctx, f)
			if kanri.IsCode(err, kanri.ENOTFOUND) {
				continue // gone meanwhile, or its blob is an orphan cleanup's business
			}
			if err != nil {
				return checked, damaged, err
			}
			checked++
			if !ok {
				damaged++
				s.damaged(ctx, f)
			}
		}
		if cont == "" {
			s.Logger.Info("files: scrub done", "checked", checked, "damaged", damaged)
			return checked, damaged, nil
		}
		next = cont
	}
}

// intact reports whether a file's blob hashes to its checksum.
func (s *Service) intact(ctx context.Context, f *kanri.File) (bool, error) {
	want, ok := strings.CutPrefix(f.Checksum, "sha256:")
	if !ok {
		return true, nil
	}
	r, err := s.Blobs.NewRangeReader(ctx, kanri.BlobName(f.TenantID, f.ID), 0, -1)
	if err != nil {
		return false, err
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return false, err
	}
	return hex.EncodeToString(h.Sum(nil)) == want, nil
}
