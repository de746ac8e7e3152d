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

// ThumbnailWidth is the width of the thumbnails the console shows.
const ThumbnailWidth = 256

// thumbnailWidths are every width thumbnails are made in (their blobs go
// when their file is purged).
var thumbnailWidths = []int{ThumbnailWidth}

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

// Thumbnailable reports whether the console offers a thumbnail of the
// file: an image Kanri can decode.
func Thumbnailable(f *kanri.File) bool {
	switch f.ContentType {
	case "image/jpeg", "image/png", "image/gif", "image/webp":
		return true
	}
	return false
}

// Thumbnail returns the name of the blob holding a thumbnail of a live
// image file, made now if there is none yet. An image whose dimensions
// would need more memory than allowed is refused (ETOOLARGE); one that
// cannot be decoded is EINVALID.
func (s *Service) Thumbnail(ctx context.Context, tenantID string, f *kanri.File) (string, error) {
	if !Thumbnailable(f) {
		return "", kanri.E(kanri.ENOTFOUND, "files.no_thumbnail")
	}
	name := kanri.ThumbnailBlobName(tenantID, f.ID, ThumbnailWidth)
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

// makeThumbnail decodes an image (after checking its dimensions from its
// header) and stores it scaled to ThumbnailWidth, as PNG for images that
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
	w, h := b.Dx(), b.Dy()
	if w > ThumbnailWidth {
		w, h = ThumbnailWidth, max(1, h*ThumbnailWidth/w)
	}
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
