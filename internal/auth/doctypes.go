package auth

import (
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// DocTypes are the document types of sign-ins (docs/architecture.md,
// "Document types").
var DocTypes = []doctype.Type{
	{
		Name: kanri.TypeSession, Container: kanri.ContainerAuth, Of: &kanri.Session{},
		Indexes:   []doctype.Index{{Name: "session_user", Fields: []string{"userId", "createdAt"}}},
		Backup:    doctype.NotBackedUp("a sign-in of the moment: a restore signs nobody in"),
		Personal:  doctype.Personal{Owner: "userId", Data: []string{"device", "ipAddress", "createdAt", "lastSeenAt"}},
		Erasure:   doctype.Erase(),
		Export:    []string{"device", "ipAddress", "createdAt", "lastSeenAt"},
		Retention: doctype.Retention{PerDocument: "ttl: the session's absolute lifetime"},
	},
}
