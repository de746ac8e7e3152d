package backup

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

var errOtherArchive = errors.New("the manifest names another archive")

// History returns one run of the tenant.
func (s *Service) History(ctx context.Context, tenantID, id string) (*kanri.BackupHistory, error) {
	if !strings.HasPrefix(id, "history_") {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return s.Store.Tenant(tenantID).BackupHistory().Get(ctx, id)
}

// Histories returns one page of the tenant's runs, newest first, of one
// status when status is set.
func (s *Service) Histories(ctx context.Context, tenantID, status string, limit int, continuation string) ([]*kanri.BackupHistory, string, error) {
	q := docstore.Query{OrderBy: "startedAt", Desc: true, Limit: limit, Continuation: continuation}
	if status != "" {
		q.Where = []docstore.Filter{docstore.Eq("status", status)}
	}
	return s.Store.Tenant(tenantID).BackupHistory().Query(ctx, q)
}

// Archive returns the manifest of a run's archive, checked: every part's
// SHA-256 and every file content it references. A damaged archive is an
// EINVALID error saying what is wrong.
func (s *Service) Archive(ctx context.Context, tenantID, historyID string) (*Manifest, error) {
	h, err := s.History(ctx, tenantID, historyID)
	if err != nil {
		return nil, err
	}
	if !h.Restorable() {
		return nil, kanri.E(kanri.EINVALID, "backups.error.no_archive")
	}
	m, err := s.manifest(ctx, tenantID, historyID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, kanri.Wrap(kanri.EINVALID, "backups.error.damaged", fmt.Errorf("archive %s: no manifest", historyID))
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Verify checks every part of the archive against its manifest and that
// every file content it references is kept.
func (s *Service) Verify(ctx context.Context, tenantID, historyID string) (*Manifest, error) {
	m, err := s.Archive(ctx, tenantID, historyID)
	if err != nil {
		return nil, err
	}
	if err := s.verify(ctx, tenantID, historyID, m, nil); err != nil {
		return nil, err
	}
	return m, nil
}

// verify reads every part of m, checking it against the manifest and that
// every file content it references is kept, and passes each document to
// fn when fn is set (the dry run reads the archive once for both).
func (s *Service) verify(ctx context.Context, tenantID, historyID string, m *Manifest, fn func(part, container string, body json.RawMessage) error) error {
	prefix := archivePrefix(tenantID, historyID)
	for _, p := range m.Parts {
		err := s.readPart(ctx, prefix+p.Blob, p.SHA256, func(container string, body json.RawMessage) error {
			if fn != nil {
				if err := fn(p.Name, container, body); err != nil {
					return err
				}
			}
			if p.Name != kanri.PartFiles {
				return nil
			}
			f, ok, err := fileOf(body)
			if err != nil || !ok {
				return err
			}
			kept, err := s.contentKept(ctx, tenantID, f)
			if err == nil && !kept {
				return damaged(p.Blob, fmt.Errorf("the content of file %s (%s) is missing", f.ID, f.Name))
			}
			return err
		})
		if kanri.IsCode(err, kanri.ENOTFOUND) {
			return damaged(p.Blob, errors.New("the part is missing"))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Change is one document a restore would change. It is stored with its
// dry run (dryRunChanges), under short names.
type Change struct {
	Part      string `json:"p"`
	Container string `json:"c"`
	ID        string `json:"i"`
	Type      string `json:"t"`
	// Label is what a person calls the document (a user's display name, a
	// file's name), as the archive has it; "" for one without a name.
	Label string `json:"l,omitempty"`
	// Kind is "added" (in the archive, not now: it comes back),
	// "changed" (put back as it was) or "removed" (made after the backup:
	// it goes).
	Kind string `json:"k"`
}

// PartDiff counts what a restore would change in one part.
type PartDiff struct {
	Part    string `json:"part"`
	Added   int    `json:"added"`
	Changed int    `json:"changed"`
	Removed int    `json:"removed"`
}

// DryRun is what restoring an archive would change, or, while it is being
// found, how far that has come.
type DryRun struct {
	Manifest *Manifest
	// Status is DryRunRunning, DryRunDone or DryRunFailed; Err says why
	// one failed (a damaged archive: EINVALID with the detail).
	Status string
	Err    error
	// Phase is what a running dry run does (DryRunReading the archive,
	// DryRunComparing the tenant's documents with it, DryRunWriting its
	// result) and Count how many documents it has done of it; Of is the
	// number of documents the archive holds.
	Phase     string
	Count, Of int
	Parts     []PartDiff
	// Changes is one page of the changed documents, from Offset; Total
	// counts them all.
	Changes []Change
	Offset  int
	Total   int
	// ComputedAt is when the archive and the tenant were compared.
	ComputedAt time.Time
}

// keep says whether a restore leaves a document alone: the restorer's own
// user, membership, roles and sign-in names (so that the restorer keeps
// their access), file counters (recounted after), and no audit record is
// ever changed or removed.
type keeper struct {
	userID string
}

func (k keeper) keeps(part, typ, id string, body []byte) bool {
	if typ == kanri.TypeFileStorage {
		return true
	}
	if part != kanri.PartUsers || k.userID == "" {
		return false
	}
	if id == k.userID || id == kanri.TenantUserID(k.userID) {
		return true
	}
	var ref struct {
		UserID string `json:"userId"`
	}
	json.Unmarshal(body, &ref)
	return ref.UserID == k.userID
}

// docKey identifies a document in a partition.
func docKey(container, id string) string { return container + "\x00" + id }

// digest is a document's content, system properties and ETags aside, and
// a user's sessions too: a restore never restores sessions (it ends those
// of the users it writes), so they are no difference to restore.
func digest(body []byte) ([32]byte, error) {
	m, err := decodeDoc(body)
	if err != nil {
		return [32]byte{}, err
	}
	if sec, ok := m["security"].(map[string]any); ok && m["type"] == kanri.TypeUser {
		delete(sec, "sessionsValidAfter")
	}
	n, err := json.Marshal(m)
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(n), nil
}

// normalise returns body without system properties, its keys sorted, and
// its tenantId set to tenantID when that is not empty.
func normalise(body []byte, tenantID string) ([]byte, error) {
	m, err := decodeDoc(body)
	if err != nil {
		return nil, err
	}
	if tenantID != "" {
		m["tenantId"] = tenantID
	}
	return json.Marshal(m)
}

// decodeDoc decodes a document without its system properties, its
// numbers kept as they are written.
func decodeDoc(body []byte) (map[string]any, error) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	for k := range m {
		if strings.HasPrefix(k, "_") {
			delete(m, k)
		}
	}
	return m, nil
}

// archived is what an archive holds of the chosen parts: each document's
// part, type and the SHA-256 of its bytes, by key. It is kept whole while
// the tenant's documents are compared with it, so an entry is small (its
// part and type strings are shared); what names a document for a person
// is read again only for the documents that changed.
type archived struct {
	docs map[string]archivedDoc
	// differ are the documents the tenant has with other bytes, by key,
	// with the digest of the tenant's (digest): whether they differ in
	// content is decided by a second read of the archive.
	differ map[string][32]byte
}

type archivedDoc struct {
	raw       [32]byte // SHA-256 of the document's bytes (none for an audit record: never changed)
	part, typ string
	// seen is set when the tenant has the document.
	seen bool
}

// labelled has the fields that name a document for a person, read by the
// dry run to list changes by name.
type labelled struct {
	DisplayName string `json:"displayName"`
	Name        string `json:"name"`
	Username    string `json:"username"`
	Email       string `json:"email"`
	Domain      string `json:"domain"`
}

// label returns what names the document of body for a person: the first
// of its naming fields, or "".
func label(body []byte) string {
	var l labelled
	json.Unmarshal(body, &l)
	for _, v := range []string{l.DisplayName, l.Name, l.Username, l.Email, l.Domain} {
		if v != "" {
			return v
		}
	}
	return ""
}

// add keeps an archived document of part, unless the restore keeps the
// tenant's own (k); types interns the type names.
func (a *archived) add(part, container string, body json.RawMessage, k keeper, types map[string]string) error {
	hd, err := headerOf(body)
	if err != nil {
		return err
	}
	if k.keeps(part, hd.Type, hd.ID, body) {
		return nil
	}
	typ, ok := types[hd.Type]
	if !ok {
		typ = hd.Type
		types[typ] = typ
	}
	d := archivedDoc{part: part, typ: typ}
	if part != kanri.PartAudit {
		d.raw = sha256.Sum256(body)
	}
	a.docs[docKey(container, hd.ID)] = d
	return nil
}

// diff compares the tenant's documents of the chosen parts with the
// archive's, calling fn for each one removed and read for each document
// read. A document with the archive's bytes is unchanged; one with other
// bytes goes to a.differ, for again to decide.
func (s *Service) diff(ctx context.Context, tenantID string, a *archived, parts []string, k keeper, read func() error, fn func(Change) error) error {
	// The documents seen that the archive does not have (those it has are
	// marked seen in it).
	seen := map[string]bool{}
	_, err := s.dump(ctx, tenantID, s.Store.Types().Containers(parts), func(container string, it docstore.Item) error {
		if err := read(); err != nil {
			return err
		}
		typ, err := DocType(it.Body)
		if err != nil {
			return err
		}
		part := s.Store.Types().Part(container, typ)
		if !slices.Contains(parts, part) || k.keeps(part, typ, it.ID, it.Body) {
			return nil
		}
		// Cosmos DB's dump passes documents written meanwhile twice: the
		// second time is skipped.
		key := docKey(container, it.ID)
		want, ok := a.docs[key]
		switch {
		case !ok && part == kanri.PartAudit:
			return nil // newer audit records stay
		case !ok:
			if seen[key] {
				return nil
			}
			seen[key] = true
			return fn(Change{Part: part, Container: container, ID: it.ID, Type: typ, Label: label(it.Body), Kind: "removed"})
		case want.seen:
			return nil
		}
		want.seen = true
		a.docs[key] = want
		if part == kanri.PartAudit || sha256.Sum256(it.Body) == want.raw {
			return nil
		}
		got, err := digest(it.Body)
		if err != nil {
			return err
		}
		a.differ[key] = got
		return nil
	})
	return err
}

// again reads the chosen parts of the archive a second time, when some
// documents differ in bytes or are not in the tenant any more: fn is
// called for each that changed in content (its system properties aside)
// and for each the restore brings back, named as the archive names it.
// An archive may hold a document twice (Cosmos DB's dump passes one
// written meanwhile again): its last copy counts, as in a restore. read
// is told of each document read.
func (s *Service) again(ctx context.Context, tenantID, historyID string, m *Manifest, parts []string, a *archived, read func() error, fn func(Change) error) error {
	unseen := 0
	for _, d := range a.docs {
		if !d.seen {
			unseen++
		}
	}
	if len(a.differ) == 0 && unseen == 0 {
		return nil
	}
	type last struct {
		container, id string
		digest        [32]byte
		label         string
	}
	lasts := map[string]last{}
	for _, p := range m.Parts {
		if !slices.Contains(parts, p.Name) {
			continue
		}
		err := s.readPart(ctx, archivePrefix(tenantID, historyID)+p.Blob, p.SHA256, func(container string, body json.RawMessage) error {
			if err := read(); err != nil {
				return err
			}
			hd, err := headerOf(body)
			if err != nil {
				return err
			}
			key := docKey(container, hd.ID)
			d, ok := a.docs[key]
			if !ok {
				return nil // the restore keeps the tenant's
			}
			if _, differs := a.differ[key]; !differs && d.seen {
				return nil // the tenant has its bytes
			}
			l := last{container: container, id: hd.ID, label: label(body)}
			if d.seen {
				if l.digest, err = digest(body); err != nil {
					return err
				}
			}
			lasts[key] = l
			return nil
		})
		if err != nil {
			return err
		}
	}
	for key, l := range lasts {
		d := a.docs[key]
		switch {
		case !d.seen:
			if err := fn(Change{Part: d.part, Container: l.container, ID: l.id, Type: d.typ, Label: l.label, Kind: "added"}); err != nil {
				return err
			}
		case l.digest != a.differ[key]:
			if err := fn(Change{Part: d.part, Container: l.container, ID: l.id, Type: d.typ, Label: l.label, Kind: "changed"}); err != nil {
				return err
			}
		}
	}
	return nil
}

// compare verifies the archive while it reads the chosen parts of it,
// then compares them with the tenant's documents: what restoring them
// would change, per part and every change, ordered by part and id. tick
// is told of each document read, in phase DryRunReading and then
// DryRunComparing; its error stops the comparison.
func (s *Service) compare(ctx context.Context, tenantID, historyID string, m *Manifest, parts []string, k keeper, tick func(phase string) error) ([]PartDiff, []Change, error) {
	a := &archived{docs: map[string]archivedDoc{}, differ: map[string][32]byte{}}
	types := map[string]string{}
	err := s.verify(ctx, tenantID, historyID, m, func(part, container string, body json.RawMessage) error {
		if err := tick(DryRunReading); err != nil {
			return err
		}
		if !slices.Contains(parts, part) {
			return nil
		}
		return a.add(part, container, body, k, types)
	})
	if err != nil {
		return nil, nil, err
	}
	counts := map[string]*PartDiff{}
	for _, p := range parts {
		counts[p] = &PartDiff{Part: p}
	}
	var all []Change
	count := func(c Change) error {
		d := counts[c.Part]
		switch c.Kind {
		case "added":
			d.Added++
		case "changed":
			d.Changed++
		case "removed":
			d.Removed++
		}
		all = append(all, c)
		return nil
	}
	if err := s.diff(ctx, tenantID, a, parts, k, func() error { return tick(DryRunComparing) }, count); err != nil {
		return nil, nil, err
	}
	if err := s.again(ctx, tenantID, historyID, m, parts, a, func() error { return tick(DryRunComparing) }, count); err != nil {
		return nil, nil, err
	}
	diffs := make([]PartDiff, 0, len(parts))
	for _, p := range parts {
		diffs = append(diffs, *counts[p])
	}
	order := map[string]int{}
	for i, p := range kanri.AllBackupParts {
		order[p] = i
	}
	slices.SortStableFunc(all, func(x, y Change) int {
		if d := order[x.Part] - order[y.Part]; d != 0 {
			return d
		}
		return strings.Compare(x.Container+"\x00"+x.ID, y.Container+"\x00"+y.ID)
	})
	return diffs, all, nil
}

// restorable returns the chosen parts the archive has, in archive order;
// EINVALID when none is chosen or one is not in the archive.
func (s *Service) restorable(m *Manifest, parts []string) ([]string, error) {
	if len(parts) == 0 {
		return nil, kanri.Invalid(kanri.Fields{"parts": "backups.error.parts"})
	}
	var out []string
	for _, p := range kanri.AllBackupParts {
		if slices.Contains(parts, p) {
			if _, ok := m.Part(p); !ok {
				return nil, kanri.Invalid(kanri.Fields{"parts": "backups.error.part_missing"})
			}
			out = append(out, p)
		}
	}
	if len(out) != len(parts) {
		return nil, kanri.Invalid(kanri.Fields{"parts": "backups.error.parts"})
	}
	return out, nil
}
