package backup_test

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/backup"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/seal"
)

// TestArchivesAreSealedAndStillOpenAfterARotation: an archive's parts and
// kept contents are stored sealed (nothing of the tenant readable in
// them), and its download holds them opened, as its manifest describes
// them. After a rotation (a new key first, the old one kept) the archive
// still verifies and restores, and a new one is sealed to the new key;
// without the old key it is refused with a message that says so.
func TestArchivesAreSealedAndStillOpenAfterARotation(t *testing.T) {
	ds, dir := bolttest.Open(t), t.TempDir()
	oldKey := seal.NewKey()
	keys, err := seal.Parse(oldKey)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvKeys(t, ds, dir, keys)
	e.fill(t)
	h := e.backup(t, kanri.AllBackupParts)
	tid := e.tenant.ID

	sealed := 0
	for info, err := range e.blobs.List(e.ctx, "backups/"+tid+"/") {
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(info.Name, "manifest.json") {
			continue
		}
		b := read(t, e, info.Name)
		if !bytes.HasPrefix(b, []byte("age-encryption.org/v1\n")) || bytes.Contains(b, []byte("acme.example")) {
			t.Errorf("%s is stored as it is, not sealed", info.Name)
		}
		sealed++
	}
	if sealed < len(kanri.AllBackupParts)+2 {
		t.Fatalf("found %d sealed blobs: fewer than the parts and the files' contents", sealed)
	}

	var dl bytes.Buffer
	if err := e.svcs.Backups.Download(e.ctx, tid, h.ID, &dl); err != nil {
		t.Fatal(err)
	}
	entries := map[string][]byte{}
	tr := tar.NewReader(&dl)
	for {
		hd, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		entries[hd.Name], _ = io.ReadAll(tr)
	}
	var m backup.Manifest
	if err := json.Unmarshal(entries["manifest.json"], &m); err != nil || m.Sealed != "" || len(m.Parts) != len(kanri.AllBackupParts) {
		t.Fatalf("the download's manifest: %v, %+v", err, m)
	}
	for _, p := range m.Parts {
		b := entries[p.Blob]
		sum := sha256.Sum256(b)
		if int64(len(b)) != p.Bytes || hex.EncodeToString(sum[:]) != p.SHA256 || !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
			t.Errorf("the download's %s: %d bytes, not the gzip its manifest describes (%d bytes)", p.Blob, len(b), p.Bytes)
		}
	}

	rotated, err := seal.Parse(seal.NewKey() + "\n" + oldKey)
	if err != nil {
		t.Fatal(err)
	}
	after := newEnvKeys(t, ds, dir, rotated)
	if _, err := after.svcs.Backups.Verify(after.ctx, tid, h.ID); err != nil {
		t.Fatalf("after the rotation, the archive does not verify: %v", err)
	}
	if _, err := after.svcs.Backups.Restore(after.ctx, tid, h.ID, kanri.AllBackupParts); err != nil {
		t.Fatal(err)
	}
	after.svcs.Backups.Wait()
	if r, err := after.svcs.Backups.LatestRestore(after.ctx, tid); err != nil || r.Status != kanri.RestoreDone {
		t.Fatalf("after the rotation, the restore: %+v, %v", r, err)
	}
	jobs, _, err := after.svcs.Backups.Jobs(after.ctx, tid, 10, "")
	if err != nil || len(jobs) == 0 {
		t.Fatal(err)
	}
	h2, err := after.svcs.Backups.RunNow(after.ctx, tid, jobs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	after.svcs.Backups.Wait()
	m2, err := after.svcs.Backups.Archive(after.ctx, tid, h2.ID)
	if err != nil || m2.Sealed != rotated.Recipient() || m2.Sealed == keys.Recipient() {
		t.Errorf("a new archive after the rotation is sealed to %q (%v), want the new key %q", m2.Sealed, err, rotated.Recipient())
	}

	lost := newEnvKeys(t, ds, dir, seal.Generated())
	_, err = lost.svcs.Backups.Verify(lost.ctx, tid, h.ID)
	if key, _ := kanri.ErrorMessage(err); !kanri.IsCode(err, kanri.EINVALID) || key != "backups.error.key" {
		t.Errorf("without its key, the archive: %v, want the error that no key opens it", err)
	}
}

func read(t *testing.T, e *env, name string) []byte {
	t.Helper()
	r, err := e.blobs.NewRangeReader(e.ctx, name, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
