package doctype

import (
	"time"

	"github.com/kanri/kanri/internal/docstore"
)

// Container declares a container of the data model (one per service,
// plus the audit container): its indexing policy for Cosmos DB and the TTL
// of documents that set none. The types it holds declare their indexes
// themselves; the feature that owns it declares it.
//
// Containers that hold several types get no default TTL: a container
// default would also expire the types that must live forever (API keys
// beside API usage, channels beside messages). Those types set their own
// "ttl" instead (kanri.TTLAPIUsage and friends). The audit container holds
// only audit records, so their 90 days apply to it directly.
type Container struct {
	Name       string
	Indexing   docstore.IndexingPolicy
	DefaultTTL time.Duration
	// Appends says most new documents sort after the others of their
	// partition, and so do their index entries (docstore.Spec.Appends).
	Appends bool
}

// DefaultIndexing is the general policy: everything but free-form
// metadata.
func DefaultIndexing() docstore.IndexingPolicy {
	return docstore.IndexingPolicy{
		IncludedPaths: []string{"/*"},
		ExcludedPaths: []string{"/metadata/*", "/_etag/?"},
	}
}
