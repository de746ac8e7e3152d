// Package erasure erases a person's data from a tenant and exports it
// (GDPR Articles 15, 17 and 20; docs/security.md, "Erasure and export"),
// by what each document type declares (package doctype): whose data a
// document holds, what erasing that person does to it, and which of its
// fields belong in their export. Nothing here lists document types: a
// feature's new type is erased and exported as it declares.
package erasure

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/user"
)

// Service erases and exports people's data.
type Service struct {
	app.Deps
	users *user.Service
	keys  *apikey.Service
	files *files.Service
	blobs *blob.Bucket
	// onErased are told of each erasure (OnErased).
	onErased []func(ctx context.Context, tenantID string, p Person) error
}

// New returns the erasure of d's store; users soft-deletes a person first
// (their rules: not oneself, not the last administrator), keys revokes
// their API keys, fs reads their files for a zip of their data, and blobs
// holds their avatar (nil: none).
func New(d app.Deps, users *user.Service, keys *apikey.Service, fs *files.Service, blobs *blob.Bucket) *Service {
	return &Service{Deps: d, users: users, keys: keys, files: fs, blobs: blobs}
}

// Report says what an erasure did.
type Report struct {
	// Pseudonym is what the person's kept records now call them.
	Pseudonym string
	// Deleted, Pseudonymised and Kept count documents by what their
	// type's rule did; Revoked counts the API keys revoked.
	Deleted, Pseudonymised, Kept, Revoked int
}

// Erase erases a person of a tenant: confirm must be their username, as
// the administrator typed it. The user is deleted first (as the users page
// would, with its rules), their API keys revoked and their avatar removed;
// then every document holding their data is handled by its type's rule,
// they are added to the tenant's erasure list (which every restore applies
// again), and the audit record of the erasure names them by pseudonym
// only. Erasing a person already erased does it again.
func (s *Service) Erase(ctx context.Context, tenantID, userID, confirm string) (*Report, error) {
	u, err := s.users.Get(ctx, tenantID, userID)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(confirm) != u.Username {
		return nil, kanri.Invalid(kanri.Fields{"confirm": "erasure.confirm_mismatch"})
	}
	if userID == audit.ActorFrom(ctx).UserID {
		return nil, kanri.E(kanri.EFORBIDDEN, "erasure.self")
	}
	if u.DeletedAt.IsZero() {
		if _, err := s.users.Delete(ctx, tenantID, userID, kanri.Seen{}); err != nil {
			return nil, err
		}
	}
	rec, err := s.listed(ctx, tenantID, userID)
	if err != nil {
		return nil, err
	}
	rep := &Report{Pseudonym: rec.Pseudonym}
	if rep.Revoked, err = s.revokeKeys(ctx, tenantID, userID); err != nil {
		return nil, err
	}
	if err := s.erase(ctx, tenantID, rec, identifiers(u), rep); err != nil {
		return nil, err
	}
	if s.blobs != nil {
		if err := s.blobs.Delete(ctx, files.AvatarBlobName(tenantID, userID)); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return nil, err
		}
	}
	for _, fn := range s.onErased {
		if err := fn(ctx, tenantID, personOf(rec, identifiers(u))); err != nil {
			return nil, err
		}
	}
	s.Audit.Change(ctx, tenantID, "user.erase", kanri.AuditResource{Type: kanri.AuditUser, ID: userID, Name: rec.Pseudonym}, nil, nil)
	s.Logger.Info("person erased", "tenant", tenantID, "user", userID, "deleted", rep.Deleted, "pseudonymised", rep.Pseudonymised, "kept", rep.Kept)
	return rep, nil
}

// listed returns the person's entry of the tenant's erasure list, adding
// it (with a new pseudonym) when they have none.
func (s *Service) listed(ctx context.Context, tenantID, userID string) (*Record, error) {
	repo := s.records(tenantID)
	rec, err := repo.Get(ctx, recordID(userID))
	if err == nil || !kanri.IsCode(err, kanri.ENOTFOUND) {
		return rec, err
	}
	rec = &Record{
		Doc:    kanri.Doc{ID: recordID(userID)},
		UserID: userID, Pseudonym: newPseudonym(),
		ErasedAt: kanri.NewTime(s.Now()), ErasedBy: audit.ActorFrom(ctx).UserID,
	}
	if err := repo.Create(ctx, rec); kanri.IsCode(err, kanri.ECONFLICT) {
		return repo.Get(ctx, rec.ID) // erased at the same time elsewhere
	} else if err != nil {
		return nil, err
	}
	return rec, nil
}

func (s *Service) records(tenantID string) *store.Repo[Record, *Record] {
	return store.Of[Record](s.Store.Tenant(tenantID), kanri.ContainerAuth, TypeErasure)
}

func recordID(userID string) string { return "erasure_" + userID }

// newPseudonym returns a name that says nothing of the person.
func newPseudonym() string {
	b := make([]byte, 4)
	rand.Read(b)
	return "erased-" + hex.EncodeToString(b)
}

// revokeKeys revokes the API keys the person created.
func (s *Service) revokeKeys(ctx context.Context, tenantID, userID string) (int, error) {
	keys, err := s.keys.List(ctx, tenantID)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, k := range keys {
		if k.CreatedBy != userID || !k.RevokedAt.IsZero() {
			continue
		}
		if _, err := s.keys.Revoke(ctx, tenantID, k.ID, kanri.Seen{}); err != nil && !kanri.IsCode(err, kanri.ECONFLICT) {
			return n, err
		}
		n++
	}
	return n, nil
}

// Erased returns a tenant's erasure list.
func (s *Service) Erased(ctx context.Context, tenantID string) ([]*Record, error) {
	return s.records(tenantID).All(ctx, docstore.Query{OrderBy: "erasedAt"})
}

// LastErasure returns when the tenant last erased someone (zero: never):
// an archive made before it holds data of people erased since, which its
// restore erases again.
func (s *Service) LastErasure(ctx context.Context, tenantID string) (time.Time, error) {
	recs, _, err := s.records(tenantID).Query(ctx, docstore.Query{OrderBy: "erasedAt", Desc: true, Limit: 1})
	if err != nil || len(recs) == 0 {
		return time.Time{}, err
	}
	return recs[0].ErasedAt.Time, nil
}

// Reapply erases again, in tenantID, everyone on the erasure list of
// sourceID (the same tenant, or the one whose archive was restored into
// it, whose list tenantID then takes over): a restore calls it, so that a
// restore never brings an erased person back. It changes nothing when
// nothing of them came back.
func (s *Service) Reapply(ctx context.Context, tenantID, sourceID string) error {
	recs, err := s.Erased(ctx, sourceID)
	if err != nil {
		return err
	}
	for _, rec := range recs {
		if sourceID != tenantID {
			copied := *rec
			copied.ETag = ""
			if err := s.records(tenantID).Upsert(ctx, &copied); err != nil {
				return err
			}
		}
		var ids []*regexp.Regexp
		if u, err := s.Store.Tenant(tenantID).Users().Get(ctx, rec.UserID); err == nil {
			ids = identifiers(u)
		} else if !kanri.IsCode(err, kanri.ENOTFOUND) {
			return err
		}
		if _, err := s.revokeKeys(ctx, tenantID, rec.UserID); err != nil {
			return err
		}
		if err := s.erase(ctx, tenantID, rec, ids, &Report{}); err != nil {
			return err
		}
	}
	return nil
}

// identifiers match the strings that name a person: what a kept record
// must not hold anywhere, even inside the values of a change.
func identifiers(u *kanri.User) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, v := range []string{u.Username, u.Email, u.DisplayName, u.Profile.FirstName + " " + u.Profile.LastName,
		u.Profile.FirstName, u.Profile.LastName} {
		// Shorter strings would match inside unrelated words.
		if v = strings.TrimSpace(v); len([]rune(v)) >= 3 {
			out = append(out, regexp.MustCompile("(?i)"+regexp.QuoteMeta(v)))
		}
	}
	if p := phonePattern(u.Profile.PhoneNumber); p != nil {
		out = append(out, p)
	}
	return out
}

// phonePattern matches a phone number stored in E.164 form however it is
// written: its last nine digits with any separators between them, and
// whatever digits, separators and "+" come before them (a country code,
// or a trunk 0). It is nil for a number too short to be told apart.
func phonePattern(e164 string) *regexp.Regexp {
	var digits []string
	for _, r := range e164 {
		if r >= '0' && r <= '9' {
			digits = append(digits, string(r))
		}
	}
	if len(digits) < 9 {
		return nil
	}
	return regexp.MustCompile(`(?:\+?\d[\d\s\-().]*)?` + strings.Join(digits[len(digits)-9:], `[\s\-().]*`))
}

// edit is a document the erasure changes: deleted, or written back.
type edit struct {
	container string
	item      docstore.Item
	typ       doctype.Type
	// keep, when set, puts back what the edit must not take away.
	keep func(doc map[string]any)
}

// erase handles every document of the tenant that holds the person's
// data, by its type's rule, and clears what names them from the documents
// about them (audit records of others' changes of them) and from the
// ones it keeps.
func (s *Service) erase(ctx context.Context, tenantID string, rec *Record, ids []*regexp.Regexp, rep *Report) error {
	var edits []edit
	err := s.scan(ctx, tenantID, func(container string, it docstore.Item, t doctype.Type, doc map[string]any) {
		if owns(t, doc, rec.UserID) || about(t, doc, rec.UserID) {
			edits = append(edits, edit{container: container, item: it, typ: t}) // written at its ETag: apply reads it again when it changed
		}
	})
	if err != nil {
		return err
	}
	for _, e := range edits {
		if err := s.apply(ctx, tenantID, e, rec, ids, rep); err != nil {
			return err
		}
	}
	return s.eraseCopies(ctx, tenantID, rec, ids, rep)
}

// eraseCopies erases the person from the operator's copies of the
// tenant's audit records: audit.Log copies what the operator's staff and
// support did in a tenant into the operator's log
// (metadata.targetTenantId; metadata.support.tenantId alone on support's
// copies written before that field), where the tenant's own scan does not
// reach.
func (s *Service) eraseCopies(ctx context.Context, tenantID string, rec *Record, ids []*regexp.Regexp, rep *Report) error {
	t, ok := s.Store.Types().Lookup(kanri.ContainerAudit, kanri.TypeAuditLog)
	if !ok || tenantID == kanri.PrivilegedTenantID {
		return nil
	}
	c := s.Store.Port().Container(kanri.ContainerAudit)
	q := docstore.Query{Type: kanri.TypeAuditLog, Where: []docstore.Filter{
		docstore.Or(docstore.Eq("metadata.targetTenantId", tenantID), docstore.Eq("metadata.support.tenantId", tenantID)),
		docstore.Or(docstore.Eq("userId", rec.UserID), docstore.Eq("resource.id", rec.UserID)),
	}, Limit: docstore.MaxPageSize}
	var edits []edit
	for {
		page, err := c.Query(ctx, kanri.PrivilegedTenantID, q)
		if err != nil {
			return err
		}
		for _, it := range page.Items {
			it.Body = bytes.Clone(it.Body)
			var was struct {
				Metadata kanri.AuditMetadata `json:"metadata"`
			}
			if err := json.Unmarshal(it.Body, &was); err != nil {
				return err
			}
			// The copy stays marked as the tenant's: pseudonymised, it
			// is still for global administrators only (audit.Log.where),
			// and still found by the tenant.
			keep := func(doc map[string]any) {
				md, _ := doc["metadata"].(map[string]any)
				if md == nil {
					md = map[string]any{}
					doc["metadata"] = md
				}
				if was.Metadata.TargetTenantID != "" {
					md["targetTenantId"] = tenantID
				}
				if was.Metadata.Support != nil {
					md["support"] = map[string]any{"tenantId": tenantID}
				}
			}
			edits = append(edits, edit{kanri.ContainerAudit, it, t, keep})
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	for _, e := range edits {
		if err := s.apply(ctx, kanri.PrivilegedTenantID, e, rec, ids, rep); err != nil {
			return err
		}
	}
	return nil
}

// scan passes every document of the tenant whose type declares personal
// data to fn, once (store.Each), decoded.
func (s *Service) scan(ctx context.Context, tenantID string, fn func(container string, it docstore.Item, t doctype.Type, doc map[string]any)) error {
	_, err := s.Store.Each(ctx, tenantID, func(container string, t doctype.Type, it docstore.Item) error {
		if t.Personal.Owner == "" {
			return nil
		}
		doc, err := decode(it.Body)
		if err != nil {
			return err
		}
		it.Body = bytes.Clone(it.Body) // fn may keep it; Dump's is lent
		fn(container, it, t, doc)
		return nil
	})
	return err
}

// owns reports whether doc is the person's, by its type's owner field.
func owns(t doctype.Type, doc map[string]any, userID string) bool {
	v, _ := get(doc, t.Personal.Owner).(string)
	return v == userID
}

// about reports whether doc is about the person, by its type's subject
// field: their id, or an id made with theirs (a role assignment's).
func about(t doctype.Type, doc map[string]any, userID string) bool {
	if t.Personal.Subject == "" {
		return false
	}
	v, _ := get(doc, t.Personal.Subject).(string)
	return v != "" && strings.Contains(v, userID)
}

// apply makes one edit, reading the document again when it changed
// meanwhile.
func (s *Service) apply(ctx context.Context, tenantID string, e edit, rec *Record, ids []*regexp.Regexp, rep *Report) error {
	c := s.Store.Port().Container(e.container)
	if owns(e.typ, mustDecode(e.item.Body), rec.UserID) && e.typ.Erasure.Rule == doctype.Delete {
		if err := c.Delete(ctx, tenantID, e.item.ID, ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return err
		}
		rep.Deleted++
		return nil
	}
	return store.RetryErr(ctx, func() error {
		doc, err := decode(e.item.Body)
		if err != nil {
			return err
		}
		changed := pseudonymise(e.typ, doc, rec, ids)
		if e.keep != nil {
			e.keep(doc)
		}
		if !changed {
			rep.Kept++
			return nil
		}
		body, err := json.Marshal(doc)
		if err != nil {
			return err
		}
		if _, err = c.Replace(ctx, tenantID, e.item.ID, body, e.item.ETag); kanri.IsCode(err, kanri.ESTALE) {
			if e.item, err = c.Read(ctx, tenantID, e.item.ID); err != nil {
				return err
			}
			return store.LostRace(kanri.E(kanri.ESTALE, "stale.action"))
		}
		if kanri.IsCode(err, kanri.ENOTFOUND) {
			return nil
		}
		if err == nil {
			rep.Pseudonymised++
		}
		return err
	})
}

// pseudonymise changes doc as its type's rule says for the person, and,
// unless the rule keeps it, replaces what names them anywhere in it. It
// reports whether anything changed.
func pseudonymise(t doctype.Type, doc map[string]any, rec *Record, ids []*regexp.Regexp) bool {
	before := mustEncode(doc)
	mine, of := owns(t, doc, rec.UserID) && t.Erasure.Rule == doctype.Pseudonymise, about(t, doc, rec.UserID)
	if mine {
		for _, f := range t.Erasure.Pseudonymised {
			set(doc, f, rec.Pseudonym)
		}
	}
	if of {
		for _, f := range t.Personal.SubjectData {
			set(doc, f, rec.Pseudonym)
		}
	}
	// A kept document (the organisation's file) stays as it is: it names
	// its owner by id only.
	if mine || of {
		scrub(doc, ids, rec.Pseudonym)
	}
	return !bytes.Equal(before, mustEncode(doc))
}

// set replaces the value at a dotted path: a string by the pseudonym,
// anything else by its empty value.
func set(doc map[string]any, path, pseudonym string) {
	parent, key := doc, path
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		p, ok := get(doc, path[:i]).(map[string]any)
		if !ok {
			return
		}
		parent, key = p, path[i+1:]
	}
	switch parent[key].(type) {
	case nil:
	case string:
		parent[key] = pseudonym
	case map[string]any:
		parent[key] = map[string]any{}
	case []any:
		parent[key] = []any{}
	default:
		delete(parent, key)
	}
}

// scrub replaces what ids match inside v's strings by the pseudonym.
func scrub(v any, ids []*regexp.Regexp, pseudonym string) any {
	switch x := v.(type) {
	case string:
		for _, id := range ids {
			x = id.ReplaceAllLiteralString(x, pseudonym)
		}
		return x
	case map[string]any:
		for k, e := range x {
			if k != "id" && k != "tenantId" && k != "type" && k != "_etag" {
				x[k] = scrub(e, ids, pseudonym)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = scrub(e, ids, pseudonym)
		}
	}
	return v
}

// get returns the value at a dotted path of doc.
func get(doc map[string]any, path string) any {
	var v any = doc
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func decode(body []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc map[string]any
	return doc, dec.Decode(&doc)
}

func mustDecode(body []byte) map[string]any {
	doc, _ := decode(body)
	return doc
}

func mustEncode(doc map[string]any) []byte {
	b, _ := json.Marshal(doc)
	return b
}

// Request records that a person asks for their data to be erased: their
// administrators see it on the person's page. Asking again keeps the
// first request.
func (s *Service) Request(ctx context.Context, tenantID, userID string) (*Request, error) {
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, err
	}
	r := &Request{Doc: kanri.Doc{ID: requestID(userID)}, UserID: userID, RequestedAt: kanri.NewTime(s.Now())}
	err := s.requests(tenantID).Create(ctx, r)
	if kanri.IsCode(err, kanri.ECONFLICT) {
		return s.requests(tenantID).Get(ctx, r.ID)
	}
	if err != nil {
		return nil, err
	}
	s.Audit.Change(ctx, tenantID, "user.erasure_request", kanri.AuditResource{Type: kanri.AuditUser, ID: userID}, nil, nil)
	return r, nil
}

// Requested returns when a person asked for their data to be erased
// (zero: they have not).
func (s *Service) Requested(ctx context.Context, tenantID, userID string) (time.Time, error) {
	r, err := s.requests(tenantID).Get(ctx, requestID(userID))
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, err
	}
	return r.RequestedAt.Time, nil
}

func (s *Service) requests(tenantID string) *store.Repo[Request, *Request] {
	return store.Of[Request](s.Store.Tenant(tenantID), kanri.ContainerAuth, TypeRequest)
}

func requestID(userID string) string { return "erasure_request_" + userID }
