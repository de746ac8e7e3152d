package support

import (
	"time"

	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// DocTypes are the document types of support access (docs/architecture.md,
// "Document types"). Its sessions are session documents (auth.DocTypes).
var DocTypes = []doctype.Type{
	{
		Name: kanri.TypeSupportRequest, Container: kanri.ContainerAuth, Of: &kanri.SupportRequest{},
		Indexes:   []doctype.Index{{Name: "support_request_time", Fields: []string{"requestedAt"}}},
		Backup:    doctype.NotBackedUp("a request of the moment for a support session: a restore asks nothing again"),
		Personal:  doctype.Personal{Owner: "userId", Data: []string{"username", "reason", "requestedAt"}},
		Erasure:   doctype.Erase(),
		Export:    []string{"reason", "status", "requestedAt", "decidedAt"},
		Retention: doctype.Retention{TTL: kanri.SupportRequestTTL * time.Second},
	},
}
