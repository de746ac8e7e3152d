package webhook

import (
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// DocTypes are the document types of webhooks (docs/architecture.md,
// "Document types").
var DocTypes = []doctype.Type{
	{
		Name: TypeEndpoint, Container: kanri.ContainerAPI, Of: &Endpoint{},
		Indexes: []doctype.Index{
			{Name: "webhook_created", Fields: []string{"createdAt"}},
			// The deliveries' walk of every tenant's enabled endpoints.
			{Name: "webhook_enabled", Fields: []string{"enabled"}},
		},
		// Restored, an endpoint's cursor is back where it was: the
		// records since are sent again, with their ids (webhook-id), which
		// receivers recognise.
		Backup: doctype.InPart(kanri.PartAPIKeys),
	},
	{
		Name: TypeDelivery, Container: kanri.ContainerAPI, Of: &Delivery{},
		Indexes: []doctype.Index{
			{Name: "webhook_delivery_time", Fields: []string{"endpointId", "at"}},
			{Name: "webhook_delivery_failed_time", Fields: []string{"endpointId", "ok", "at"}},
		},
		Backup:    doctype.NotBackedUp("the log of the deliveries of the moment, kept two weeks; a restore must not bring back attempts that were not made since"),
		Retention: doctype.Retention{TTL: deliveryTTL},
	},
	{
		Name: TypeAuditFiles, Container: kanri.ContainerAPI, Of: &AuditFiles{},
		Indexes: []doctype.Index{{Name: "audit_files_enabled", Fields: []string{"enabled"}}},
		Backup:  doctype.InPart(kanri.PartAPIKeys),
	},
}
