package doctype

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kanri/kanri/internal/docstore"
)

// Set is every declared document type, with the containers that hold
// them. It is built once, by the composition root, and read-only after.
type Set struct {
	containers []Container
	types      []Type
	byKey      map[string]int
}

// NewSet returns the set of the given containers and types, or an error
// naming every declaration that is wrong: a type in an unknown container
// or declared twice, an index name used twice in a container, a type
// without a Go type, holding personal data without an erasure rule (or the
// reverse), kept on erasure without a reason, or neither backed up nor
// saying why not.
func NewSet(containers []Container, types ...[]Type) (*Set, error) {
	s := &Set{containers: containers, byKey: map[string]int{}}
	var errs []error
	known := map[string]bool{}
	for _, c := range containers {
		known[c.Name] = true
	}
	indexes := map[string]string{} // container/index → type
	for _, t := range slices.Concat(types...) {
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("doctype %s: "+format, append([]any{t.key()}, args...)...))
		}
		switch {
		case t.Name == "":
			bad("no name")
		case !known[t.Container]:
			bad("unknown container")
		case t.Of == nil:
			bad("no Go type (Of)")
		}
		if _, dup := s.byKey[t.key()]; dup {
			bad("declared twice")
			continue
		}
		for _, ix := range t.Indexes {
			k := t.Container + "/" + ix.Name
			if other, dup := indexes[k]; dup {
				bad("index %s is also %s's", ix.Name, other)
			}
			indexes[k] = t.Name
			for _, h := range ix.Hashed {
				if i := slices.Index(ix.Fields, h); i < 0 || i == len(ix.Fields)-1 {
					bad("index %s hashes %s, which is not one of its fields before the last", ix.Name, h)
				}
			}
		}
		if (t.Backup.Part == "") == (t.Backup.Not == "") {
			bad("say its backup part or why it is not backed up, not both")
		}
		switch personal := t.Personal.Owner != ""; {
		case personal && t.Erasure.Rule == None:
			bad("holds personal data but has no erasure rule")
		case !personal && (t.Erasure.Rule != None || len(t.Export) > 0):
			bad("erased or exported but declares no personal data")
		case t.Erasure.Rule == Keep && t.Erasure.Reason == "":
			bad("kept on erasure without a reason")
		case t.Erasure.Rule == Pseudonymise && len(t.Erasure.Pseudonymised) == 0:
			bad("pseudonymised without fields")
		}
		s.byKey[t.key()] = len(s.types)
		s.types = append(s.types, t)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

// MustSet is NewSet for declarations known at compile time: it panics on
// a wrong declaration.
func MustSet(containers []Container, types ...[]Type) *Set {
	s, err := NewSet(containers, types...)
	if err != nil {
		panic(err)
	}
	return s
}

// Types returns the declared types, in the order declared.
func (s *Set) Types() []Type { return slices.Clone(s.types) }

// Lookup returns the declaration of type name in container.
func (s *Set) Lookup(container, name string) (Type, bool) {
	i, ok := s.byKey[container+"/"+name]
	if !ok {
		return Type{}, false
	}
	return s.types[i], true
}

// Specs returns the store's containers: each with its policy and the
// indexes of the types it holds.
func (s *Set) Specs() []docstore.Spec {
	out := make([]docstore.Spec, 0, len(s.containers))
	for _, c := range s.containers {
		sp := docstore.Spec{Name: c.Name, DefaultTTL: c.DefaultTTL, Indexing: c.Indexing, Appends: c.Appends}
		for _, t := range s.types {
			if t.Container != c.Name {
				continue
			}
			for _, ix := range t.Indexes {
				sp.Indexes = append(sp.Indexes, docstore.Index{Name: ix.Name, Type: t.Name, Fields: ix.Fields, Hashed: ix.Hashed})
			}
		}
		out = append(out, sp)
	}
	return out
}

// Part returns the backup part that holds documents of type name in
// container, "" for a type not backed up or not declared.
func (s *Set) Part(container, name string) string {
	t, _ := s.Lookup(container, name)
	return t.Backup.Part
}

// Containers returns the containers that hold the types of the given
// backup parts, in the order of the set's containers.
func (s *Set) Containers(parts []string) []string {
	var out []string
	for _, c := range s.containers {
		if slices.ContainsFunc(s.types, func(t Type) bool {
			return t.Container == c.Name && t.Backup.Part != "" && slices.Contains(parts, t.Backup.Part)
		}) {
			out = append(out, c.Name)
		}
	}
	return out
}
