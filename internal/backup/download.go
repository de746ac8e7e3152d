package backup

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
)

// Download writes a run's archive to w as a tar file: manifest.json, the
// parts, and files/<sha256> for every file content it references, opened
// (the download is for the tenant, who holds no archive key: its manifest
// gives the opened parts' lengths and digests). It checks nothing first
// (see Verify): a part that fails its checksum still ends the tar with an
// error. The download is audited.
func (s *Service) Download(ctx context.Context, tenantID, historyID string, w io.Writer) error {
	m, err := s.Archive(ctx, tenantID, historyID)
	if err != nil {
		return err
	}
	s.Audit.Record(ctx, audit.Entry{
		TenantID: tenantID, Action: "backup.download",
		Resource: kanri.AuditResource{Type: kanri.AuditBackup, ID: historyID, Name: m.StartedAt.String()},
	})
	prefix := archivePrefix(tenantID, historyID)
	// The parts are opened into temporary files first: the manifest, which
	// comes first, gives their lengths and digests.
	opened := *m
	opened.Sealed, opened.Parts = "", make([]PartInfo, len(m.Parts))
	tmp := make([]*os.File, len(m.Parts))
	defer func() {
		for _, f := range tmp {
			if f != nil {
				f.Close()
				os.Remove(f.Name())
			}
		}
	}()
	for i, p := range m.Parts {
		if tmp[i], opened.Parts[i], err = s.openPart(ctx, prefix, p); err != nil {
			return err
		}
	}
	manifest, err := json.MarshalIndent(opened, "", "  ")
	if err != nil {
		return err
	}
	tw := tar.NewWriter(w)
	add := func(name string, size int64, r io.Reader) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: size, ModTime: m.CompletedAt.Time, Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err := io.Copy(tw, r)
		return err
	}
	if err := add("manifest.json", int64(len(manifest)), bytes.NewReader(manifest)); err != nil {
		return err
	}
	for i, p := range opened.Parts {
		if err := add(p.Blob, p.Bytes, tmp[i]); err != nil {
			return err
		}
	}
	if pi, ok := m.Part(kanri.PartFiles); ok {
		written := map[string]bool{}
		err := s.readPart(ctx, prefix+pi.Blob, pi.SHA256, func(_ string, body json.RawMessage) error {
			f, ok, err := fileOf(body)
			if err != nil || !ok || written[f.Checksum] {
				return err
			}
			written[f.Checksum] = true
			r, err := s.openContent(ctx, tenantID, f.Checksum)
			if err != nil {
				return fmt.Errorf("file %s (%s): %w", f.ID, f.Name, err)
			}
			defer r.Close()
			if err := add("files/"+f.Checksum, f.Size, io.LimitReader(r, f.Size)); err != nil {
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

// openPart opens one part of an archive into a temporary file, checking
// the stored part against its digest, and returns the file (at its start)
// and the opened part's description.
func (s *Service) openPart(ctx context.Context, prefix string, p PartInfo) (*os.File, PartInfo, error) {
	r, err := s.blobs.NewRangeReader(ctx, prefix+p.Blob, 0, -1)
	if err != nil {
		return nil, p, err
	}
	defer r.Close()
	stored := sha256.New()
	plain, err := s.keys.Open(io.TeeReader(r, stored))
	if err != nil {
		return nil, p, err
	}
	f, err := os.CreateTemp("", "kanri-part-*")
	if err != nil {
		return nil, p, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), plain)
	if err == nil {
		_, err = io.Copy(stored, r) // whatever opening left unread is the stored part's too
	}
	if err == nil && hex.EncodeToString(stored.Sum(nil)) != p.SHA256 {
		err = damaged(p.Blob, fmt.Errorf("SHA-256 %s, the manifest says %s", hex.EncodeToString(stored.Sum(nil)), p.SHA256))
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, p, err
	}
	p.Bytes, p.SHA256 = n, hex.EncodeToString(h.Sum(nil))
	return f, p, nil
}
