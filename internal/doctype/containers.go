package doctype

import (
	"time"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// Container declares a container of the data model: its indexing policy
// for Cosmos DB and the TTL of documents that set none. The types it holds
// declare their indexes themselves.
type Container struct {
	Name       string
	Indexing   docstore.IndexingPolicy
	DefaultTTL time.Duration
}

// Containers are the data model's containers: one per service, plus the
// audit container.
//
// Containers that hold several types get no default TTL: a container
// default would also expire the types that must live forever (API keys
// beside API usage, channels beside messages). Those types set their own
// "ttl" instead (kanri.TTLAPIUsage and friends). The audit container holds
// only audit records, so their 90 days apply to it directly.
var Containers = []Container{
	{Name: kanri.ContainerAuth, Indexing: docstore.IndexingPolicy{
		IncludedPaths: []string{"/*"},
		ExcludedPaths: []string{"/passwordHash/?", "/security/twoFactorSecret/?", "/security/twoFactorPending/?", "/security/recoveryCodes/*", "/_etag/?"},
	}},
	{Name: kanri.ContainerTenant, Indexing: defaultIndexing()},
	{Name: kanri.ContainerServiceSetting, Indexing: defaultIndexing()},
	{Name: kanri.ContainerFiles, Indexing: defaultIndexing()},
	{Name: kanri.ContainerMessaging, Indexing: defaultIndexing()},
	{Name: kanri.ContainerAPI, Indexing: docstore.IndexingPolicy{
		IncludedPaths: []string{"/*"},
		ExcludedPaths: []string{"/keyHash/?", "/_etag/?"},
	}},
	{Name: kanri.ContainerBackup, Indexing: defaultIndexing()},
	{Name: kanri.ContainerAudit, DefaultTTL: kanri.TTLAuditLog * time.Second, Indexing: docstore.IndexingPolicy{
		IncludedPaths: []string{"/*"},
		ExcludedPaths: []string{"/details/*", "/metadata/*", "/_etag/?"},
		CompositeIndexes: [][]string{
			{"/tenantId", "-/timestamp"},
			{"/tenantId", "/userId", "-/timestamp"},
		},
	}},
}

// defaultIndexing is the general policy: everything but free-form
// metadata.
func defaultIndexing() docstore.IndexingPolicy {
	return docstore.IndexingPolicy{
		IncludedPaths: []string{"/*"},
		ExcludedPaths: []string{"/metadata/*", "/_etag/?"},
	}
}
