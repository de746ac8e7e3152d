package files

import (
	"bytes"
	"context"
	"image"
	_ "image/gif" // decode GIF images
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // decode WebP images
	"golang.org/x/sync/singleflight"

	"github.com/kanri/kanri/internal/kanri"
)

// ThumbnailSize is the longest side of the thumbnails the console shows:
// a tall image is as bounded as a wide one.
const ThumbnailSize = 256

// thumbnailNames are the names of every thumbnail a file may have, which
// go when it is purged: the current one, and the one earlier versions made
// (bounded by its width only).
func thumbnailNames(tenantID, fileID string) []string {
	return []string{kanri.ThumbnailBlobName(tenantID, fileID, ThumbnailSize), kanri.LegacyThumbnailBlobName(tenantID, fileID, 256)}
}

// Limits of thumbnailing: images are decoded only up to maxThumbPixels
// (decoding needs about 4 bytes a pixel), by at most thumbWorkers at once.
const (
	maxThumbPixels = 24_000_000
	thumbWorkers   = 2
)

// thumbnailer makes thumbnails on first request with a bounded number of
// workers; identical requests running together share one job.
type thumbnailer struct {
	s     *Service
	slots chan struct{}
	group singleflight.Group
}

func newThumbnailer(s *Service) *thumbnailer {
	return &thumbnailer{s: s, slots: make(chan struct{}, thumbWorkers)}
}

// Thumbnail returns the name of the blob holding a thumbnail of a live
// image file, made now if there is none yet. An image whose dimensions
// would need more memory than allowed is refused (ETOOLARGE); one that
// cannot be decoded is EINVALID.
func (s *Service) Thumbnail(ctx context.Context, tenantID string, f *kanri.File) (string, error) {
	if !f.Thumbnailable() {
		return "", kanri.E(kanri.ENOTFOUND, "files.no_thumbnail")
	}
	name := kanri.ThumbnailBlobName(tenantID, f.ID, ThumbnailSize)
	if _, err := s.Blobs.Stat(ctx, name); err == nil {
		return name, nil
	} else if !kanri.IsCode(err, kanri.ENOTFOUND) {
		return "", err
	}
	t := s.thumbs
	_, err, _ := t.group.Do(name, func() (any, error) {
		// The job outlives a request that gives up: others may wait on it.
		ctx := context.WithoutCancel(ctx)
		t.slots <- struct{}{}
		defer func() { <-t.slots }()
		return nil, s.makeThumbnail(ctx, tenantID, f, name)
	})
	return name, err
}

// thumbnailBounds returns the size of the thumbnail of a w×h image: its
// longest side at most ThumbnailSize, its proportions kept.
func thumbnailBounds(w, h int) (int, int) {
	switch {
	case w >= h && w > ThumbnailSize:
		return ThumbnailSize, max(1, h*ThumbnailSize/w)
	case h > w && h > ThumbnailSize:
		return max(1, w*ThumbnailSize/h), ThumbnailSize
	}
	return w, h
}

// makeThumbnail decodes an image (after checking its dimensions from its
// header) and stores it scaled to thumbnailBounds, as PNG for images that
// may be transparent and JPEG otherwise.
func (s *Service) makeThumbnail(ctx context.Context, tenantID string, f *kanri.File, name string) error {
	src := kanri.BlobName(tenantID, f.ID)
	r, err := s.Blobs.NewRangeReader(ctx, src, 0, -1)
	if err != nil {
		return err
	}
	defer r.Close()
	var head bytes.Buffer
	cfg, _, err := image.DecodeConfig(io.TeeReader(r, &head))
	if err != nil {
		return kanri.Wrap(kanri.EINVALID, "files.not_an_image", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > maxThumbPixels {
		return kanri.E(kanri.ETOOLARGE, "files.image_too_large", cfg.Width, cfg.Height)
	}
	img, _, err := image.Decode(io.MultiReader(&head, r))
	if err != nil {
		return kanri.Wrap(kanri.EINVALID, "files.not_an_image", err)
	}
	b := img.Bounds()
	w, h := thumbnailBounds(b.Dx(), b.Dy())
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, draw.Over, nil)
	var out bytes.Buffer
	switch f.ContentType {
	case "image/png", "image/gif", "image/webp":
		err = png.Encode(&out, dst)
	default:
		err = jpeg.Encode(&out, dst, &jpeg.Options{Quality: 82})
	}
	if err != nil {
		return err
	}
	_, err = s.Blobs.Put(ctx, name, &out)
	return err
}

// ThumbnailType returns the content type of a file's thumbnail.
func ThumbnailType(f *kanri.File) string {
	if f.ContentType == "image/jpeg" {
		return "image/jpeg"
	}
	return "image/png"
}
