package erasure

import (
	"context"
	"regexp"

	"github.com/kanri/kanri/internal/doctype"
)

// Person is someone erased, as the copies of documents kept outside the
// store (the archives of records before they expire, internal/archive)
// need them to erase them the same way: their entry of the erasure list,
// and the patterns of what names them (username, e-mail, names, phone),
// which exist nowhere else once they are erased.
type Person struct {
	Record   Record   `json:"record"`
	Patterns []string `json:"patterns"`
}

// matchers compiles p's patterns.
func (p Person) matchers() []*regexp.Regexp {
	out := make([]*regexp.Regexp, 0, len(p.Patterns))
	for _, s := range p.Patterns {
		if re, err := regexp.Compile(s); err == nil {
			out = append(out, re)
		}
	}
	return out
}

// personOf is the Person of rec with the matchers ids.
func personOf(rec *Record, ids []*regexp.Regexp) Person {
	p := Person{Record: *rec}
	for _, id := range ids {
		p.Patterns = append(p.Patterns, id.String())
	}
	return p
}

// OnErased has fn called after each erasure, with the person erased: the
// documents kept elsewhere are erased by it too. An error of fn fails the
// erasure (done again, it changes nothing already done).
func (s *Service) OnErased(fn func(ctx context.Context, tenantID string, p Person) error) {
	s.onErased = append(s.onErased, fn)
}

// Holds reports whether doc, of type t, holds data of the person userID:
// theirs (the type's owner field) or about them (its subject field).
func Holds(t doctype.Type, doc map[string]any, userID string) bool {
	return t.Personal.Owner != "" && (owns(t, doc, userID) || about(t, doc, userID))
}

// People returns who doc, of type t, holds data of: its owner, and whom
// it is about (a user's id, as the subject field names it).
func People(t doctype.Type, doc map[string]any) []string {
	var out []string
	if t.Personal.Owner == "" {
		return nil
	}
	if v, _ := get(doc, t.Personal.Owner).(string); v != "" {
		out = append(out, v)
	}
	if t.Personal.Subject != "" {
		if v, _ := get(doc, t.Personal.Subject).(string); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// Redact changes doc, of type t, as the person's erasure changes such a
// document in the store: drop says it goes (its type deletes the
// person's), changed that it was pseudonymised.
func Redact(t doctype.Type, doc map[string]any, p Person) (drop, changed bool) {
	if owns(t, doc, p.Record.UserID) && t.Erasure.Rule == doctype.Delete {
		return true, false
	}
	return false, pseudonymise(t, doc, &p.Record, p.matchers())
}
