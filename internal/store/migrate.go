package store

import (
	"encoding/json"
	"fmt"

	"github.com/kanri/kanri/internal/doctype"
)

// BaseSchemaVersion is the version of a document that has no schemaVersion
// field (docs/data-model.md, "Schema versions").
const BaseSchemaVersion = "1.0"

// Upgrade changes a decoded document from one schema version to the next.
type Upgrade func(doc map[string]any) error

type step struct {
	to string
	up Upgrade
}

// Migrations is the registry of lazy schema upgrades
// (docs/data-model.md, "Schema versions"): for each document type, its
// current version and the steps from older ones. Documents are upgraded
// when read; Get also writes the upgraded document back.
type Migrations struct {
	current map[string]string
	steps   map[string]map[string]step // type → from → step
}

// NewMigrations returns an empty registry: every type is at
// BaseSchemaVersion.
func NewMigrations() *Migrations {
	return &Migrations{current: map[string]string{}, steps: map[string]map[string]step{}}
}

// Register adds the upgrade of documents of type typ from version from to
// version to, and makes to the type's current version if it is the newest
// step so far.
func (m *Migrations) Register(typ, from, to string, up Upgrade) {
	if m.steps[typ] == nil {
		m.steps[typ] = map[string]step{}
	}
	m.steps[typ][from] = step{to: to, up: up}
	if m.current[typ] == "" || m.current[typ] == from {
		m.current[typ] = to
	}
}

// Current returns the version that new documents of type typ get.
func (m *Migrations) Current(typ string) string {
	if v := m.current[typ]; v != "" {
		return v
	}
	return BaseSchemaVersion
}

// upgrade returns body brought to the current version of typ, and whether
// it changed.
func (m *Migrations) upgrade(typ string, body []byte) ([]byte, bool, error) {
	var head struct {
		SchemaVersion string `json:"schemaVersion"`
	}
	if err := json.Unmarshal(body, &head); err != nil {
		return nil, false, err
	}
	from := head.SchemaVersion
	if from == "" {
		from = BaseSchemaVersion
	}
	want := m.Current(typ)
	if from == want && head.SchemaVersion != "" {
		return body, false, nil
	}
	if newer(from, want) {
		// Written by a newer release (a rolling deploy): read it as it
		// is; this release knows nothing to upgrade it to.
		return body, false, nil
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, false, err
	}
	for from != want {
		st, ok := m.steps[typ][from]
		if !ok {
			return nil, false, fmt.Errorf("store: no upgrade of %s from schema version %s", typ, from)
		}
		if err := st.up(doc); err != nil {
			return nil, false, fmt.Errorf("store: upgrade %s from %s: %w", typ, from, err)
		}
		from = st.to
	}
	doc["schemaVersion"] = want
	out, err := json.Marshal(doc)
	return out, true, err
}

// newer reports whether version a ("major.minor") is above b.
func newer(a, b string) bool {
	var amaj, amin, bmaj, bmin int
	fmt.Sscanf(a, "%d.%d", &amaj, &amin)
	fmt.Sscanf(b, "%d.%d", &bmaj, &bmin)
	return amaj > bmaj || amaj == bmaj && amin > bmin
}

// MigrationsOf returns the registry of the upgrades the types declare.
func MigrationsOf(types *doctype.Set) *Migrations {
	m := NewMigrations()
	for _, t := range types.Types() {
		for _, u := range t.Upgrades {
			m.Register(t.Name, u.From, u.To, u.Up)
		}
	}
	return m
}

// Upgrade returns body, a document of type typ, brought to the type's
// current version with the same upgrades as a read (the batch migration
// and the lazy one cannot disagree), and whether it changed.
func (s *Store) Upgrade(typ string, body []byte) ([]byte, bool, error) {
	return s.migrations.upgrade(typ, body)
}

// Behind reports whether a document of type typ at version v (""
// for none) is below the type's current version.
func (s *Store) Behind(typ, v string) bool {
	if v == "" {
		v = BaseSchemaVersion
	}
	return newer(s.migrations.Current(typ), v)
}
