package web_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"testing"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/kanri"
)

// assignFiles assigns the file service to a tenant (once).
func (e *env) assignFiles(t testing.TB, tenantID string) {
	t.Helper()
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID})
	if _, err := e.catalog.Assignment(ctx, tenantID, kanri.FileServiceID); err == nil {
		return
	}
	if _, _, err := e.catalog.Assign(ctx, tenantID, kanri.AssignmentInput{ServiceID: kanri.FileServiceID}); err != nil {
		t.Fatal(err)
	}
}

// uploadFile stores a file through the service, as an upload.
func (e *env) uploadFile(t testing.TB, tenantID, folderID, name string, data []byte) *kanri.File {
	t.Helper()
	e.assignFiles(t, tenantID)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: tenantID})
	up, err := e.files.CreateUpload(ctx, tenantID, files.UploadInput{Name: name, Size: int64(len(data)), FolderID: folderID})
	if err != nil {
		t.Fatal(err)
	}
	_, f, err := e.files.WriteUpload(ctx, tenantID, up.ID, 0, bytes.NewReader(data), nil)
	if err != nil || f == nil {
		t.Fatalf("upload %s: %v", name, err)
	}
	return f
}

// pngImage returns a w×h PNG image.
func pngImage(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		for y := range h {
			img.Set(x, y, color.RGBA{uint8(x * 40), uint8(y * 40), 200, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
