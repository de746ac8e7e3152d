package auth

import (
	"time"

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
	{
		Name: kanri.TypePasskey, Container: kanri.ContainerAuth, Of: &kanri.Passkey{},
		Indexes:  []doctype.Index{{Name: "passkey_user", Fields: []string{"userId", "createdAt"}}},
		Backup:   doctype.NotBackedUp("a way to sign in of one device: a restore gives none back, as it gives no session back"),
		Personal: doctype.Personal{Owner: "userId", Data: []string{"name", "aaguid", "createdAt", "lastUsedAt"}},
		Erasure:  doctype.Erase(),
		Export:   []string{"name", "aaguid", "createdAt", "lastUsedAt"},
	},
	{
		Name: kanri.TypePasskeyLookup, Container: kanri.ContainerAuth, Of: &kanri.PasskeyLookup{},
		Backup: doctype.NotBackedUp("the operator's index from a credential to its tenant, in the _system partition"),
	},
	{
		Name: kanri.TypePasskeyCeremony, Container: kanri.ContainerAuth, Of: &kanri.PasskeyCeremony{},
		Backup:    doctype.NotBackedUp("a passkey's challenge of the moment, in the _system partition"),
		Retention: doctype.Retention{TTL: kanri.PasskeyCeremonyTTL * time.Second},
	},
}
