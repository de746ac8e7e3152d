package store

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"unicode/utf8"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/search"
)

// Entity is the constraint of Repo: a pointer to a domain document type.
type Entity[E any] interface {
	*E
	kanri.Document
}

// Repo reads and writes documents of one type in one partition. It is
// bound to its partition when made, so a caller cannot address another
// tenant's data through it.
type Repo[E any, P Entity[E]] struct {
	c   docstore.Container
	pk  string
	typ string
	m   *Migrations
	log *slog.Logger
}

func newRepo[E any, P Entity[E]](s *Store, container, pk, typ string) *Repo[E, P] {
	if _, ok := s.types.Lookup(container, typ); !ok {
		panic(fmt.Sprintf("store: document type %s of container %s is not declared (package doctype)", typ, container))
	}
	return &Repo[E, P]{c: s.ds.Container(container), pk: pk, typ: typ, m: s.migrations, log: s.log}
}

// Get returns the document with the given id. A document of another type
// with that id is reported as not found. An old document is upgraded to the
// current schema and written back.
func (r *Repo[E, P]) Get(ctx context.Context, id string) (P, error) {
	it, err := r.c.Read(ctx, r.pk, id)
	if err != nil {
		return nil, err
	}
	doc, body, changed, err := r.decodeCurrent(it.Body, it.ETag)
	if err != nil {
		return nil, err
	}
	if changed {
		if etag, err := r.c.Replace(ctx, r.pk, id, body, it.ETag); err == nil {
			doc.Base().ETag = etag
		} else if !kanri.IsCode(err, kanri.ESTALE) {
			r.log.Warn("write back upgraded document", "type", r.typ, "id", id, "err", err)
		}
	}
	return doc, nil
}

// Create stores a new document, stamping it with the repository's
// partition, type and current schema version. ECONFLICT if the id is taken.
func (r *Repo[E, P]) Create(ctx context.Context, doc P) error {
	body, err := r.encode(doc)
	if err != nil {
		return err
	}
	etag, err := r.c.Create(ctx, r.pk, body)
	if err != nil {
		return err
	}
	doc.Base().ETag = etag
	return nil
}

// Replace overwrites the stored document if it is still at doc's ETag;
// ESTALE if someone changed it since, ENOTFOUND if it is gone. An empty
// ETag overwrites whatever is stored.
func (r *Repo[E, P]) Replace(ctx context.Context, doc P) error {
	body, err := r.encode(doc)
	if err != nil {
		return err
	}
	etag, err := r.c.Replace(ctx, r.pk, doc.Base().ID, body, doc.Base().ETag)
	if err != nil {
		return err
	}
	doc.Base().ETag = etag
	return nil
}

// Upsert creates or overwrites the document (checking doc's ETag if set).
func (r *Repo[E, P]) Upsert(ctx context.Context, doc P) error {
	body, err := r.encode(doc)
	if err != nil {
		return err
	}
	etag, err := r.c.Upsert(ctx, r.pk, body, doc.Base().ETag)
	if err != nil {
		return err
	}
	doc.Base().ETag = etag
	return nil
}

// Delete removes the document with the given id, checking etag if set.
func (r *Repo[E, P]) Delete(ctx context.Context, id, etag string) error {
	return r.c.Delete(ctx, r.pk, id, etag)
}

// Take reads the document id and deletes it at the version read: of two
// takers at once, one has it. A document missing, or taken meanwhile, is
// ENOTFOUND. It is how a one-time value (a challenge, a sign-in's state)
// is used once.
func (r *Repo[E, P]) Take(ctx context.Context, id string) (P, error) {
	d, err := r.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	switch err := r.Delete(ctx, id, d.Base().ETag); {
	case kanri.IsCode(err, kanri.ESTALE):
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	case err != nil:
		return nil, err
	}
	return d, nil
}

// Query returns one page of the repository's documents matching q, whose
// Type is set by the repository, and the token of the next page.
func (r *Repo[E, P]) Query(ctx context.Context, q docstore.Query) ([]P, string, error) {
	q.Type = r.typ
	page, err := r.c.Query(ctx, r.pk, q)
	if err != nil {
		return nil, "", err
	}
	docs, err := r.decodeAll(page.Items)
	return docs, page.Continuation, err
}

// All returns every document matching q, following continuation tokens.
// It is for small, bounded sets such as one user's role assignments.
func (r *Repo[E, P]) All(ctx context.Context, q docstore.Query) ([]P, error) {
	var out []P
	for {
		docs, next, err := r.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		out = append(out, docs...)
		if next == "" {
			return out, nil
		}
		q.Continuation = next
	}
}

// ByIDs returns the documents with the given ids that exist, ordered by
// orderBy: one query per 100 ids rather than one read per document. The
// query also says what the chunk's ids have in common at their start, so
// that a store walking ids in order (the embedded one) reads only that
// range of the partition, not all of it.
func (r *Repo[E, P]) ByIDs(ctx context.Context, ids []string, orderBy string) ([]P, error) {
	var out []P
	for chunk := range slices.Chunk(ids, 100) {
		vals := make([]any, len(chunk))
		for i, id := range chunk {
			vals[i] = id
		}
		where := []docstore.Filter{docstore.In("id", vals...)}
		if p := commonPrefix(chunk); p != "" {
			where = append([]docstore.Filter{docstore.Prefix("id", p)}, where...)
		}
		docs, err := r.All(ctx, docstore.Query{Where: where, OrderBy: orderBy})
		if err != nil {
			return nil, err
		}
		out = append(out, docs...)
	}
	return out, nil
}

// commonPrefix returns the longest string every id starts with.
func commonPrefix(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	p := ids[0]
	for _, id := range ids[1:] {
		n := 0
		for n < len(p) && n < len(id) && p[n] == id[n] {
			n++
		}
		p = p[:n]
	}
	for !utf8.ValidString(p) { // not cut inside a character
		p = p[:len(p)-1]
	}
	return p
}

// Modify reads the document id, applies change and writes it at the read's
// ETag; when another write came first it starts again from a new read, so
// that concurrent modifications (counters, say) never undo one another.
// A missing document is made by fresh (the id is set), or is ENOTFOUND
// when fresh is nil. change may refuse with an error, which Modify
// returns without writing.
func (r *Repo[E, P]) Modify(ctx context.Context, id string, fresh func() P, change func(P) error) (P, error) {
	return Retry(ctx, func() (P, error) {
		d, err := r.Get(ctx, id)
		switch {
		case kanri.IsCode(err, kanri.ENOTFOUND) && fresh != nil:
			d = fresh()
			d.Base().ID = id
		case err != nil:
			return nil, err
		}
		if err := change(d); err != nil {
			return nil, err
		}
		if d.Base().ETag == "" {
			if err := r.Create(ctx, d); err != nil {
				if kanri.IsCode(err, kanri.ECONFLICT) {
					return nil, LostRace(err) // made by another meanwhile
				}
				return nil, err
			}
			return d, nil
		}
		return d, Raced(r.Replace(ctx, d))
	})
}

// Op returns a batch operation that writes doc, for Batch.
func (r *Repo[E, P]) Op(kind docstore.OpKind, doc P) (docstore.Op, error) {
	body, err := r.encode(doc)
	if err != nil {
		return docstore.Op{}, err
	}
	return docstore.Op{Kind: kind, ID: doc.Base().ID, Body: body, IfMatch: doc.Base().ETag}, nil
}

func (r *Repo[E, P]) encode(doc P) ([]byte, error) {
	b := doc.Base()
	if b.ID == "" {
		return nil, docstore.ErrInvalid(fmt.Errorf("store: %s without an id", r.typ))
	}
	cur := r.m.Current(r.typ)
	if b.SchemaVersion != "" && newer(b.SchemaVersion, cur) {
		// Written by a newer release: writing it back at this release's
		// version would drop the fields this release does not know.
		return nil, kanri.Wrap(kanri.ECONFLICT, "error.newer_version", fmt.Errorf("store: %s %s is at schema version %s, newer than this release's %s", r.typ, b.ID, b.SchemaVersion, cur))
	}
	b.TenantID, b.Type, b.SchemaVersion = r.pk, r.typ, cur
	if s, ok := any(doc).(kanri.Searchable); ok {
		terms, texts := s.SearchFields()
		*terms = search.Terms(texts...)
	}
	if e, ok := any(doc).(kanri.Expiring); ok {
		if ttl, def := e.TTLField(); *ttl == 0 {
			*ttl = def
		}
	}
	return json.Marshal(doc)
}

func (r *Repo[E, P]) decode(body []byte, etag string) (P, error) {
	doc := P(new(E))
	if err := json.Unmarshal(body, doc); err != nil {
		return nil, fmt.Errorf("store: decode %s: %w", r.typ, err)
	}
	if doc.Base().Type != r.typ {
		return nil, docstore.ErrNotFound(fmt.Errorf("store: no %s", r.typ))
	}
	doc.Base().ETag = etag
	return doc, nil
}

// decodeCurrent decodes body, upgraded to the current schema version of
// the type first if it is older, and returns the body it decoded and
// whether that changed. A document at the current version, the usual case,
// is decoded once.
func (r *Repo[E, P]) decodeCurrent(body []byte, etag string) (P, []byte, bool, error) {
	doc, err := r.decode(body, etag)
	if err != nil || doc.Base().SchemaVersion == r.m.Current(r.typ) {
		return doc, body, false, err
	}
	body, changed, err := r.m.upgrade(r.typ, body)
	if err != nil || !changed {
		return doc, body, false, err
	}
	doc, err = r.decode(body, etag)
	return doc, body, true, err
}

func (r *Repo[E, P]) decodeAll(items []docstore.Item) ([]P, error) {
	out := make([]P, 0, len(items))
	for _, it := range items {
		doc, _, _, err := r.decodeCurrent(it.Body, it.ETag)
		if err != nil {
			return nil, err
		}
		out = append(out, doc)
	}
	return out, nil
}
