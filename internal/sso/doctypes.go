package sso

import (
	"time"

	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// DocTypes are the document types of single sign-on (docs/architecture.md,
// "Document types").
var DocTypes = []doctype.Type{
	{
		Name: kanri.TypeIdentityProvider, Container: kanri.ContainerAuth, Of: &kanri.IdentityProvider{},
		Indexes: []doctype.Index{{Name: "identity_provider_name", Fields: []string{"name"}}},
		Backup:  doctype.InPart(kanri.PartUsers),
	},
	{
		Name: kanri.TypeIdentity, Container: kanri.ContainerAuth, Of: &kanri.Identity{},
		Indexes: []doctype.Index{
			{Name: "identity_user", Fields: []string{"userId", "linkedAt"}},
			{Name: "identity_provider", Fields: []string{"providerId", "linkedAt"}},
		},
		Backup:   doctype.InPart(kanri.PartUsers),
		Personal: doctype.Personal{Owner: "userId", Data: []string{"subject", "email", "linkedAt", "lastUsedAt"}},
		Erasure:  doctype.Erase(),
		Export:   []string{"providerId", "subject", "email", "linkedAt", "lastUsedAt"},
	},
	{
		Name: kanri.TypeSSOSettings, Container: kanri.ContainerAuth, Of: &kanri.SSOSettings{},
		Backup: doctype.InPart(kanri.PartUsers),
	},
	{
		Name: kanri.TypeSSOLogin, Container: kanri.ContainerAuth, Of: &kanri.SSOLogin{},
		Backup:    doctype.NotBackedUp("a sign-in with a provider of the moment, in the _system partition"),
		Retention: doctype.Retention{TTL: kanri.SSOLoginTTL * time.Second},
	},
}
