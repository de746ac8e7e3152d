// Package doctype declares what a document type is: the container that
// holds it, its indexes, its schema version and the upgrades from older
// ones, and its lifecycle (backup, personal data, erasure, export,
// retention). Each feature declares its own types beside its code; the
// composition root collects them into a Set, from which the store's
// containers, the lazy upgrades and the backups' parts are derived, so
// that nothing keeps a list of another feature's types
// (docs/architecture.md, "Document types").
package doctype

import (
	"time"
)

// Type declares one document type.
type Type struct {
	// Name is the documents' "type" field; with Container it identifies
	// the type (a small bookkeeping type may live in several containers).
	Name      string
	Container string
	// Of is a pointer to a zero value of the Go type the documents decode
	// into: the fields every declaration names are checked against its
	// JSON fields.
	Of any
	// Indexes are the orderings the type's queries walk.
	Indexes []Index
	// Upgrades are the lazy upgrades from older schema versions, oldest
	// first; the last one's To is the type's current version (1.0 when
	// there is none).
	Upgrades []Upgrade
	// Backup says which part of a backup holds the documents, or why they
	// are not backed up.
	Backup Backup
	// Personal says whose personal data a document holds, and where.
	Personal Personal
	// Erasure is what erasing a person does to the documents holding their
	// data; Export are the fields of a document that belong in its person's
	// export (none: the documents are not exported).
	Erasure Erasure
	Export  []string
	// Retention is how long the documents live.
	Retention Retention
}

// Index is an ordering of a type's documents by Fields in turn: dotted
// JSON paths, a trailing "[]" for the elements of an array.
type Index struct {
	Name   string
	Fields []string
	// Hashed names fields of Fields that queries only fix by equality
	// (docstore.Index.Hashed).
	Hashed []string
}

// Upgrade changes a decoded document from schema version From to To.
type Upgrade struct {
	From, To string
	Up       func(doc map[string]any) error
}

// Backup is where a type stands in backups: in Part, or not backed up
// for the reason Not says.
type Backup struct {
	Part string
	Not  string
}

// InPart is the backup of a type in part.
func InPart(part string) Backup { return Backup{Part: part} }

// NotBackedUp is the backup of a type that is not backed up, for reason.
func NotBackedUp(reason string) Backup { return Backup{Not: reason} }

// Personal says where a type holds a person's data: Owner is the field
// holding the id of the user whose data a document is ("id" for a user's
// own document); Data are the fields holding that person's data. A type
// with no Owner holds no personal data.
type Personal struct {
	Owner string
	Data  []string
	// Subject is a field naming, by id, a person a document is about
	// though it is not theirs (an audit record's resource.id: another's
	// change of them); SubjectData are the fields that then hold their
	// data, cleared when they are erased.
	Subject     string
	SubjectData []string
}

// Rule is what erasure does to a document that holds a person's data.
type Rule int

// Erasure rules.
const (
	// None: the type holds no personal data.
	None Rule = iota
	// Delete removes the document.
	Delete
	// Pseudonymise replaces the named fields by a pseudonym (the
	// document stays: others' data refers to it).
	Pseudonymise
	// Keep keeps the document as it is, for the reason given (a legal
	// obligation, the security of others).
	Keep
)

// String names the rule, for the documentation and messages.
func (r Rule) String() string {
	return [...]string{"none", "delete", "pseudonymise", "keep"}[r]
}

// Erasure is what erasing a person does to a type's documents.
type Erasure struct {
	Rule          Rule
	Pseudonymised []string // the fields replaced by a pseudonym
	Reason        string   // why the documents are kept
}

// Erase is the erasure that deletes the documents.
func Erase() Erasure { return Erasure{Rule: Delete} }

// PseudonymiseFields is the erasure that replaces fields by a pseudonym.
func PseudonymiseFields(names ...string) Erasure {
	return Erasure{Rule: Pseudonymise, Pseudonymised: names}
}

// KeepFor is the erasure that keeps the documents, for reason.
func KeepFor(reason string) Erasure { return Erasure{Rule: Keep, Reason: reason} }

// Retention is how long a type's documents live: TTL after their last
// write (0: until they are deleted), or as decided per document when
// PerDocument says by what. Archive says whether a tenant's documents are
// archived before they expire (internal/archive): Since names the time
// field their TTL counts from (an indexed field of the type), so that
// those within days of their expiry are found.
type Retention struct {
	TTL         time.Duration
	PerDocument string
	Archive     Archiving
	Since       string
}

// Archiving is whether a type's documents are archived before they expire.
type Archiving int

// The ways of archiving.
const (
	// NotArchived: they expire.
	NotArchived Archiving = iota
	// ArchiveAlways: archived whenever the tenant archives.
	ArchiveAlways
	// ArchiveOnRequest: archived when the tenant archives and chose them.
	ArchiveOnRequest
)

// Version returns the type's current schema version.
func (t Type) Version() string {
	if len(t.Upgrades) == 0 {
		return "1.0"
	}
	return t.Upgrades[len(t.Upgrades)-1].To
}

// key identifies the type.
func (t Type) key() string { return t.Container + "/" + t.Name }
