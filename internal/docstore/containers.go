package docstore

import (
	"time"

	"github.com/kanri/kanri/internal/kanri"
)

// Container names: one per service of the data model (spec §1.1) plus the
// audit container of ADR 003.
const (
	Auth           = "auth"
	Tenant         = "tenant"
	ServiceSetting = "service-setting"
	Files          = "file-service"
	Messaging      = "messaging-service"
	API            = "api-service"
	Backup         = "backup-service"
	Audit          = "audit"
)

// DatabaseName is the Cosmos DB database of the data model (spec §1.1).
const DatabaseName = "management-app"

// Specs returns the containers Kanri uses, with the indexing policies and
// TTLs of the spec.
//
// Containers that hold several entity types get no default TTL: a container
// default would also expire the types that must live forever (API keys beside
// API usage, channels beside messages). Those entities set their own "ttl"
// instead (kanri.TTLAPIUsage and friends). The audit container holds only
// audit records, so the 90-day default of ADR 003 applies to it directly.
func Specs() []Spec {
	return []Spec{
		{Name: Auth, Indexing: IndexingPolicy{
			IncludedPaths: []string{"/*"},
			ExcludedPaths: []string{"/passwordHash/?", "/_etag/?"},
		}},
		{Name: Tenant, Indexing: IndexingPolicy{
			IncludedPaths: []string{"/*"},
			ExcludedPaths: []string{"/metadata/*", "/_etag/?"},
		}},
		{Name: ServiceSetting, Indexing: defaultIndexing()},
		{Name: Files, Indexing: defaultIndexing()},
		{Name: Messaging, Indexing: defaultIndexing()},
		{Name: API, Indexing: IndexingPolicy{
			IncludedPaths: []string{"/*"},
			ExcludedPaths: []string{"/keyHash/?", "/_etag/?"},
		}},
		{Name: Backup, Indexing: defaultIndexing()},
		{Name: Audit, DefaultTTL: kanri.TTLAuditLog * time.Second, Indexing: IndexingPolicy{
			IncludedPaths: []string{"/*"},
			ExcludedPaths: []string{"/details/*", "/metadata/*", "/_etag/?"},
			CompositeIndexes: [][]string{
				{"/tenantId", "-/timestamp"},
				{"/tenantId", "/userId", "-/timestamp"},
			},
		}},
	}
}

// defaultIndexing is the general policy of spec §11.1: everything but
// free-form metadata.
func defaultIndexing() IndexingPolicy {
	return IndexingPolicy{
		IncludedPaths: []string{"/*"},
		ExcludedPaths: []string{"/metadata/*", "/_etag/?"},
	}
}
