package backup

import (
	"archive/tar"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
)

// Download writes a run's archive to w as a tar file: manifest.json, the
// parts, and files/<sha256> for every file content it references. It
// checks nothing first (see Verify): a part that fails its checksum
// still ends the tar with an error. The download is audited.
func (s *Service) Download(ctx context.Context, tenantID, historyID string, w io.Writer) error {
	m, err := s.Archive(ctx, tenantID, historyID)
	if err != nil {
		return err
	}
	s.Audit.Record(ctx, audit.Entry{
		TenantID: tenantID, Action: "backup.download",
		Resource: kanri.AuditResource{Type: kanri.AuditBackup, ID: historyID, Name: m.StartedAt.String()},
	})
	tw := tar.NewWriter(w)
	prefix := archivePrefix(tenantID, historyID)
	add := func(name, blobName string) error {
		info, err := s.blobs.Stat(ctx, blobName)
		if err != nil {
			return err
		}
		r, err := s.blobs.NewRangeReader(ctx, blobName, 0, -1)
		if err != nil {
			return err
		}
		defer r.Close()
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: info.Size, ModTime: info.ModTime, Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err = io.Copy(tw, r)
		return err
	}
	if err := add("manifest.json", manifestBlob(tenantID, historyID)); err != nil {
		return err
	}
	for _, p := range m.Parts {
		if err := add(p.Blob, prefix+p.Blob); err != nil {
			return err
		}
	}
	if pi, ok := m.Part(kanri.PartFiles); ok {
		written := map[string]bool{}
		err := readPart(ctx, s.blobs, prefix+pi.Blob, pi.SHA256, func(_ string, body json.RawMessage) error {
			f, ok, err := fileOf(body)
			if err != nil || !ok || written[f.Checksum] {
				return err
			}
			written[f.Checksum] = true
			if err := add("files/"+f.Checksum, contentBlob(tenantID, f.Checksum)); err != nil {
				return fmt.Errorf("file %s (%s): %w", f.ID, f.Name, err)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return tw.Close()
}
