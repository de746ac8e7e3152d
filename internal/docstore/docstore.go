// Package docstore defines the document store port: a small, Cosmos-shaped
// interface that every backend (the embedded bbolt store, Azure Cosmos DB)
// implements and that repositories are written against once.
//
// Documents are JSON objects with "id", "tenantId" (the partition key) and
// "type". Ids are unique within a partition. Errors are *kanri.Error values:
// ENOTFOUND for a missing item, ECONFLICT for a duplicate id, ESTALE for an
// ETag that no longer matches, EINVALID for a malformed request.
package docstore

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// Store opens containers. Implementations are safe for concurrent use.
type Store interface {
	// Container returns the named container. The container must be one of
	// the store's Specs; others are a programming error.
	Container(name string) Container
	// Ping reports whether the store can serve requests.
	Ping(ctx context.Context) error
	// Dump passes every live document of partition pk in the named
	// containers to fn, container by container, for backups. fn must not
	// keep it.Body after it returns.
	//
	// On a store with transactions across documents (the embedded one) the
	// whole dump is one read transaction: a snapshot, and writers are not
	// blocked. Cosmos DB has no snapshot across documents: each container
	// is read page by page, and then the documents written since the dump
	// began (by their _ts) are read again and passed to fn a second time,
	// so that a later call for an id supersedes an earlier one and the
	// dump holds every document as of its end. Dump reports whether it
	// was a snapshot.
	Dump(ctx context.Context, pk string, containers []string, fn func(container string, it Item) error) (snapshot bool, err error)
	// Close releases the store's resources.
	Close() error
}

// Item is a stored document as read from a container.
type Item struct {
	// ID is the document's id.
	ID string
	// PartitionKey is the document's tenantId.
	PartitionKey string
	// ETag identifies this version of the document.
	ETag string
	// Body is the whole JSON document.
	Body json.RawMessage
}

// Container is one collection of documents partitioned by tenantId.
//
// Every method but QueryAcrossPartitions acts inside one partition, named by
// pk; a document whose tenantId differs from pk is rejected with EINVALID.
// An empty ifMatch means "whatever the current version is".
type Container interface {
	// Read returns the document with the given id.
	Read(ctx context.Context, pk, id string) (Item, error)
	// Create stores a new document; ECONFLICT if the id is taken.
	Create(ctx context.Context, pk string, body []byte) (etag string, err error)
	// Replace overwrites an existing document; ENOTFOUND if it is missing,
	// ESTALE if ifMatch is set and no longer matches.
	Replace(ctx context.Context, pk, id string, body []byte, ifMatch string) (etag string, err error)
	// Upsert creates or overwrites a document; ESTALE if ifMatch is set and
	// does not match the current version (or the document is missing).
	Upsert(ctx context.Context, pk string, body []byte, ifMatch string) (etag string, err error)
	// Delete removes a document; ENOTFOUND if it is missing, ESTALE if
	// ifMatch is set and no longer matches.
	Delete(ctx context.Context, pk, id, ifMatch string) error
	// Query returns one page of the partition's documents that match q.
	Query(ctx context.Context, pk string, q Query) (Page, error)
	// QueryAcrossPartitions returns one page of matching documents from
	// every partition. It is for privileged, operator-wide paths only and
	// does not support OrderBy, which real Cosmos DB cannot serve across
	// partitions through the Go SDK.
	QueryAcrossPartitions(ctx context.Context, q Query) (Page, error)
	// Batch applies ops atomically inside one partition: all succeed or
	// none is applied. It returns one result per op.
	Batch(ctx context.Context, pk string, ops []Op) ([]Result, error)
}

// Page is one page of query results.
type Page struct {
	Items []Item
	// Continuation resumes the query after this page; "" means there are
	// no more items. It is opaque and only valid for the same query.
	Continuation string
}

// OpKind is the kind of a batch operation.
type OpKind int

// Batch operation kinds.
const (
	OpCreate OpKind = iota + 1
	OpReplace
	OpUpsert
	OpDelete
	OpRead
)

// Op is one operation of a transactional batch.
type Op struct {
	Kind    OpKind
	ID      string // for Replace, Delete and Read
	Body    []byte // for Create, Replace and Upsert
	IfMatch string // for Replace, Upsert and Delete
}

// Result is the outcome of one batch operation.
type Result struct {
	ETag string
	Body json.RawMessage // for Read
}

// Spec describes a container: its name, how long its documents live by
// default and how it is indexed.
type Spec struct {
	Name string
	// DefaultTTL is how long a document without its own "ttl" lives; 0
	// means forever. A document's "ttl" field (seconds, -1 for forever)
	// always overrides it.
	DefaultTTL time.Duration
	// Indexing is the container's indexing policy for Cosmos DB.
	Indexing IndexingPolicy
	// Indexes are the orderings the container's queries walk. The embedded
	// backend keeps each as a secondary index; Cosmos DB indexes every path
	// already, and gets a composite index for each with an equality field
	// (see CompositeIndexes).
	Indexes []Index
	// Appends says that most new documents sort after the others of their
	// partition (ids that begin with their time: messages, audit records)
	// and so do most of their index entries (times, sequence numbers, the
	// ids after a word). The embedded backend then splits its pages nearly
	// full rather than in half: a page split at the end of its range stays
	// half empty for good, while one split nearly full in the middle of
	// random keys soon splits again.
	Appends bool
}

// Index declares an ordering of one type of document: by the values of
// Fields in turn (dotted JSON paths), ties broken by id. A field ending in
// "[]" indexes the elements of an array: a document has an entry per
// element. A query on Type
// whose equality filters cover all fields but the last and whose OrderBy
// is the last walks the index in order and stops at its page size; other
// filters are checked on the way.
type Index struct {
	Name   string
	Type   string
	Fields []string
	// Hashed names fields of Fields, before the last, that queries only
	// ever fix by equality (ids): the embedded store keys them by an
	// 8-byte hash of their value rather than by the value, so that its
	// entries are shorter. A range on such a field, or an order by it, is
	// not served by the index.
	Hashed []string
}

// CompositeIndexes returns the container's composite indexes for Cosmos
// DB: those of its policy, and one per index with an equality field
// (partition key, fields), ascending and descending.
func (s Spec) CompositeIndexes() [][]string {
	out := append([][]string(nil), s.Indexing.CompositeIndexes...)
	seen := map[string]bool{}
	for _, c := range out {
		seen[strings.Join(c, ",")] = true
	}
	for _, ix := range s.Indexes {
		if len(ix.Fields) < 2 || slices.ContainsFunc(ix.Fields, func(f string) bool { return strings.HasSuffix(f, "[]") }) {
			continue // Cosmos DB serves array elements from its range indexes, never composites
		}
		for _, desc := range []bool{false, true} {
			c := []string{"/tenantId"}
			for i, f := range ix.Fields {
				p := "/" + strings.ReplaceAll(f, ".", "/")
				if desc && i == len(ix.Fields)-1 {
					p = "-" + p
				}
				c = append(c, p)
			}
			if key := strings.Join(c, ","); !seen[key] {
				seen[key] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// IndexingPolicy is the subset of a Cosmos DB indexing policy that the
// spec uses.
type IndexingPolicy struct {
	IncludedPaths []string
	ExcludedPaths []string
	// CompositeIndexes lists composite indexes; each path is prefixed with
	// "-" for descending order.
	CompositeIndexes [][]string
}

// MaxBatchOps is the most operations one Batch may hold: Cosmos DB's
// limit of a transactional batch, which every backend keeps to.
const MaxBatchOps = 100

// MaxPageSize bounds Query.Limit.
const MaxPageSize = 1000

// DefaultPageSize is used when Query.Limit is zero.
const DefaultPageSize = 100
