package archive

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"slices"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/backup"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/erasure"
	"github.com/kanri/kanri/internal/kanri"
)

// readable reports whether every part of the archive can be read now: in
// a tier other than archive, and not on its way out of it (a store
// without tiers always can).
func (s *Service) readable(ctx context.Context, a *Archive) (bool, error) {
	for _, p := range a.Parts {
		info, err := s.blobs.Stat(ctx, p.Blob)
		if err != nil {
			return false, err
		}
		if info.Tier == blob.TierArchive || info.Rehydrating {
			return false, nil
		}
	}
	return true, nil
}

// Rehydrate asks for an archive to be made readable: its parts leave the
// archive tier (on Azure that takes hours: it is rehydrating until
// Refresh finds it done; a store without tiers is done at once).
func (s *Service) Rehydrate(ctx context.Context, tenantID, id string) (*Archive, error) {
	a, err := s.Get(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if a.State != StateArchived {
		return nil, kanri.E(kanri.ECONFLICT, "archive.error.not_archived")
	}
	if err := s.thaw(ctx, a); err != nil {
		return nil, err
	}
	a.State, a.RequestedAt, a.RequestedBy = StateRehydrating, kanri.NewTime(s.Now()), actorName(ctx)
	if err := s.archives(tenantID).Replace(ctx, a); err != nil {
		return nil, err
	}
	s.Audit.Record(ctx, audit.Entry{TenantID: tenantID, Action: "archive.rehydrate", Resource: kanri.AuditResource{Type: kanri.AuditArchive, ID: a.ID}})
	return s.Refresh(ctx, tenantID, a)
}

// thaw moves the archive's parts to the hot tier.
func (s *Service) thaw(ctx context.Context, a *Archive) error {
	for _, p := range a.Parts {
		if err := s.blobs.SetTier(ctx, p.Blob, blob.TierHot); err != nil {
			return err
		}
	}
	return nil
}

// Refresh looks at an archive being rehydrated: once it is readable, the
// erasures that waited for it are done, and it is available, or, when
// only an erasure asked for it, back in the archive tier.
func (s *Service) Refresh(ctx context.Context, tenantID string, a *Archive) (*Archive, error) {
	if a.State != StateRehydrating {
		return a, nil
	}
	ok, err := s.readable(ctx, a)
	if err != nil || !ok {
		return a, err
	}
	if len(a.Pending) > 0 {
		var people []erasure.Person
		for _, sealed := range a.Pending {
			p, err := s.openPerson(sealed)
			if err != nil {
				return nil, err
			}
			people = append(people, p)
		}
		if err := s.rewrite(ctx, tenantID, a, people); err != nil {
			return nil, err
		}
		a.Pending = nil
	}
	if a.RequestedBy == erasureRequest {
		for _, p := range a.Parts {
			if err := s.blobs.SetTier(ctx, p.Blob, blob.TierArchive); err != nil {
				return nil, err
			}
		}
		a.State, a.RequestedAt, a.RequestedBy = StateArchived, kanri.Time{}, ""
	} else {
		a.State, a.AvailableAt = StateAvailable, kanri.NewTime(s.Now())
	}
	return a, s.archives(tenantID).Replace(ctx, a)
}

// erasureRequest is RequestedBy of a rehydration that only an erasure
// asked for.
const erasureRequest = "(erasure)"

// Erased erases the person from every archive of the tenant that holds
// their data: at once when it is readable (always on a store without
// tiers), else once its rehydration, asked for now, is done (the person
// is kept with it until then, sealed).
func (s *Service) Erased(ctx context.Context, tenantID string, p erasure.Person) error {
	all, err := s.archives(tenantID).All(ctx, docstoreQuery(0, ""))
	if err != nil {
		return err
	}
	for _, a := range all {
		if !slices.Contains(a.People, p.Record.UserID) {
			continue
		}
		ok, err := s.readable(ctx, a)
		if err != nil {
			return err
		}
		if ok && a.State != StateRehydrating {
			if err := s.rewrite(ctx, tenantID, a, []erasure.Person{p}); err != nil {
				return err
			}
			if err := s.archives(tenantID).Replace(ctx, a); err != nil {
				return err
			}
			continue
		}
		sealed, err := s.sealPerson(p)
		if err != nil {
			return err
		}
		a.Pending = append(a.Pending, sealed)
		if a.State == StateArchived {
			if err := s.thaw(ctx, a); err != nil {
				return err
			}
			a.State, a.RequestedAt, a.RequestedBy = StateRehydrating, kanri.NewTime(s.Now()), erasureRequest
		}
		if err := s.archives(tenantID).Replace(ctx, a); err != nil {
			return err
		}
	}
	return nil
}

// rewrite writes the archive's parts again without the people's data
// (each record as their erasure changes it in the store), records the new
// parts in a, and deletes the old ones. The caller saves a.
func (s *Service) rewrite(ctx context.Context, tenantID string, a *Archive, people []erasure.Person) error {
	var old []string
	for i, p := range a.Parts {
		t, ok := s.Store.Types().Lookup(p.Container, p.Type)
		if !ok {
			continue
		}
		name := blobName(tenantID, a.ID, p.Type+"-"+s.Now().UTC().Format("20060102150405.000000000")+".ndjson.gz")
		w, err := backup.NewPartWriter(ctx, s.blobs, s.keys, name, p.Type)
		if err != nil {
			return err
		}
		n := 0
		err = backup.ReadPart(ctx, s.blobs, s.keys, p.Blob, p.SHA256, func(container string, body json.RawMessage) error {
			doc, err := decode(body)
			if err != nil {
				return err
			}
			changed := false
			for _, person := range people {
				drop, ch := erasure.Redact(t, doc, person)
				if drop {
					return nil
				}
				changed = changed || ch
			}
			if changed {
				if body, err = json.Marshal(doc); err != nil {
					return err
				}
			}
			n++
			return w.Write(container, body)
		})
		if err != nil {
			w.Abort(err)
			return err
		}
		res, err := w.Close()
		if err != nil {
			return err
		}
		old = append(old, p.Blob)
		a.Bytes += res.Size - p.Bytes
		a.Parts[i] = Part{Type: p.Type, Container: p.Container, Blob: name, Documents: n, Bytes: res.Size, SHA256: res.SHA256}
	}
	a.Documents = 0
	for _, p := range a.Parts {
		a.Documents += p.Documents
	}
	for _, person := range people {
		a.People = slices.DeleteFunc(a.People, func(id string) bool { return id == person.Record.UserID })
	}
	if err := s.writeManifest(ctx, tenantID, a); err != nil {
		return err
	}
	for _, name := range old {
		if err := s.blobs.Delete(ctx, name); err != nil {
			return err
		}
	}
	s.Logger.Info("archive: rewritten without erased people", "tenant", tenantID, "archive", a.ID, "people", len(people))
	return nil
}

// sealPerson seals an erased person for an archive that waits for its
// rehydration.
func (s *Service) sealPerson(p erasure.Person) (string, error) {
	plain, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	w, err := s.keys.Seal(&b)
	if err != nil {
		return "", err
	}
	if _, err := w.Write(plain); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b.Bytes()), nil
}

// openPerson opens what sealPerson sealed.
func (s *Service) openPerson(sealed string) (erasure.Person, error) {
	var p erasure.Person
	raw, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil {
		return p, err
	}
	r, err := s.keys.Open(bytes.NewReader(raw))
	if err != nil {
		return p, err
	}
	plain, err := io.ReadAll(r)
	if err != nil {
		return p, err
	}
	return p, json.Unmarshal(plain, &p)
}

// Record is one archived record, as the archive's page shows it.
type Record struct {
	Type string         `json:"type"`
	Doc  map[string]any `json:"document"`
}

// Records returns the first max records of an available archive.
func (s *Service) Records(ctx context.Context, tenantID, id string, max int) (*Archive, []Record, error) {
	a, err := s.available(ctx, tenantID, id)
	if err != nil {
		return nil, nil, err
	}
	var out []Record
	err = s.each(ctx, a, func(typ string, body json.RawMessage) error {
		if len(out) == max {
			return errEnough
		}
		doc, err := decode(body)
		if err != nil {
			return err
		}
		out = append(out, Record{Type: typ, Doc: doc})
		return nil
	})
	if errors.Is(err, errEnough) {
		err = nil
	}
	return a, out, err
}

// errEnough stops a read that has what it wants.
var errEnough = errors.New("archive: enough records")

// Download writes every record of an available archive to w, one JSON
// object a line ({"type": …, "document": …}), and records who did.
func (s *Service) Download(ctx context.Context, w io.Writer, tenantID, id string) error {
	a, err := s.available(ctx, tenantID, id)
	if err != nil {
		return err
	}
	s.Audit.Record(ctx, audit.Entry{TenantID: tenantID, Action: "archive.download", Resource: kanri.AuditResource{Type: kanri.AuditArchive, ID: a.ID}})
	enc := json.NewEncoder(w)
	return s.each(ctx, a, func(typ string, body json.RawMessage) error {
		return enc.Encode(struct {
			Type string          `json:"type"`
			Doc  json.RawMessage `json:"document"`
		}{typ, body})
	})
}

// available returns the archive when it can be read.
func (s *Service) available(ctx context.Context, tenantID, id string) (*Archive, error) {
	a, err := s.Get(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if a, err = s.Refresh(ctx, tenantID, a); err != nil {
		return nil, err
	}
	if a.State != StateAvailable {
		return nil, kanri.E(kanri.ECONFLICT, "archive.error.not_available")
	}
	return a, nil
}

// each passes every record of the archive to fn, part by part.
func (s *Service) each(ctx context.Context, a *Archive, fn func(typ string, body json.RawMessage) error) error {
	for _, p := range a.Parts {
		if err := backup.ReadPart(ctx, s.blobs, s.keys, p.Blob, p.SHA256, func(_ string, body json.RawMessage) error { return fn(p.Type, body) }); err != nil {
			return err
		}
	}
	return nil
}
