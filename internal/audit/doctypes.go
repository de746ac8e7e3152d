package audit

import (
	"time"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// DocTypes are the document types of the audit trail
// (docs/architecture.md, "Document types").
var DocTypes = []doctype.Type{
	{
		Name: kanri.TypeAuditLog, Container: kanri.ContainerAudit, Of: &kanri.AuditLog{},
		Indexes: []doctype.Index{
			{Name: "audit_time", Fields: []string{"timestamp"}},
			// The operator's log by the other tenant a record is about
			// (Filter.Tenant), and without those for whoever is no
			// global administrator (undefined is a value of the index).
			// Declared before the indexes of the other filters, as the
			// embedded store takes the first of equally narrow ranges:
			// one tenant's records are fewer than an action's or a
			// user's across all tenants.
			{Name: "audit_target_time", Fields: []string{"metadata.targetTenantId", "timestamp"}},
			{Name: "audit_user_time", Fields: []string{"userId", "timestamp"}},
			{Name: "audit_username_time", Fields: []string{"userName", "timestamp"}},
			{Name: "audit_type_time", Fields: []string{"resource.type", "timestamp"}},
			{Name: "audit_action_time", Fields: []string{"action", "timestamp"}},
			{Name: "audit_resource_time", Fields: []string{"resource.id", "timestamp"}},
		},
		Backup: doctype.InPart(kanri.PartAudit),
		Personal: doctype.Personal{Owner: "userId", Data: []string{"userId", "userName", "metadata"},
			Subject: "resource.id", SubjectData: []string{"resource.name", "details.changes"}},
		Erasure:   doctype.PseudonymiseFields("userName", "metadata"),
		Export:    []string{"timestamp", "action", "resource", "metadata", "status"},
		Retention: doctype.Retention{TTL: kanri.TTLAuditLog * time.Second, Archive: doctype.ArchiveAlways, Since: "timestamp"},
	},
}

// Container is the audit container: only audit records, whose 90 days
// are its default TTL.
var Container = doctype.Container{Name: kanri.ContainerAudit, DefaultTTL: kanri.TTLAuditLog * time.Second, Appends: true, Indexing: docstore.IndexingPolicy{
	// The operator's log lists by, and leaves out for whoever is no
	// global administrator, what its staff did in other tenants: by the
	// metadata paths indexed (Log.where).
	IncludedPaths: []string{"/*", "/metadata/support/tenantId/?", "/metadata/targetTenantId/?"},
	ExcludedPaths: []string{"/details/*", "/metadata/*", "/_etag/?"},
	CompositeIndexes: [][]string{
		{"/tenantId", "-/timestamp"},
		{"/tenantId", "/userId", "-/timestamp"},
	},
}}
