package files

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"io"

	"golang.org/x/image/draw"

	"github.com/kanri/kanri/internal/kanri"
)

// AvatarSize is the width and height of a stored avatar, in pixels.
const AvatarSize = 256

// maxAvatarBytes is the largest image accepted as an avatar.
const maxAvatarBytes = 2 << 20

// AvatarBlobName returns the blob name of a user's avatar.
func AvatarBlobName(tenantID, userID string) string {
	return "avatars/" + tenantID + "/" + userID + ".png"
}

// StoreAvatar makes a user's avatar from an image (JPEG, PNG, GIF or
// WebP): its centre square, scaled to AvatarSize, stored as PNG in the blob
// store. It returns the SHA-256 of what it stored (a version for URLs).
// Anything but an image of at most 2 MB and 24 megapixels is refused.
func (s *Service) StoreAvatar(ctx context.Context, tenantID, userID string, r io.Reader) (string, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxAvatarBytes+1))
	if err != nil {
		return "", err
	}
	if len(data) > maxAvatarBytes {
		return "", kanri.Invalid(kanri.Fields{"avatar": "profile.avatar_too_large"})
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return "", kanri.Invalid(kanri.Fields{"avatar": "profile.avatar_not_image"})
	}
	if int64(cfg.Width)*int64(cfg.Height) > maxThumbPixels {
		return "", kanri.Invalid(kanri.Fields{"avatar": "profile.avatar_too_large"})
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return "", kanri.Invalid(kanri.Fields{"avatar": "profile.avatar_not_image"})
	}
	b := img.Bounds()
	side := min(b.Dx(), b.Dy())
	crop := image.Rect(b.Min.X+(b.Dx()-side)/2, b.Min.Y+(b.Dy()-side)/2, 0, 0)
	crop.Max = crop.Min.Add(image.Pt(side, side))
	dst := image.NewRGBA(image.Rect(0, 0, AvatarSize, AvatarSize))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, crop, draw.Over, nil)
	var out bytes.Buffer
	if err := png.Encode(&out, dst); err != nil {
		return "", err
	}
	res, err := s.Blobs.Put(ctx, AvatarBlobName(tenantID, userID), &out)
	if err != nil {
		return "", err
	}
	return res.SHA256, nil
}

// Avatar opens a user's stored avatar; ENOTFOUND when there is none.
func (s *Service) Avatar(ctx context.Context, tenantID, userID string) (io.ReadCloser, error) {
	return s.Blobs.NewRangeReader(ctx, AvatarBlobName(tenantID, userID), 0, -1)
}
