package scim

import (
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// DocTypes are the document types of provisioning (docs/architecture.md,
// "Document types").
var DocTypes = []doctype.Type{
	{
		Name: kanri.TypeSCIMConfig, Container: kanri.ContainerAuth, Of: &kanri.SCIMConfig{},
		Backup: doctype.NotBackedUp("a bearer token's digest: a restore gives no token back, as it gives no session back"),
	},
	{
		Name: kanri.TypeSCIMUser, Container: kanri.ContainerAuth, Of: &kanri.SCIMUser{},
		Indexes: []doctype.Index{
			{Name: "scim_user_external", Fields: []string{"externalId"}},
			{Name: "scim_user_deprovisioned", Fields: []string{"deprovisioned", "userId"}},
		},
		Backup:   doctype.InPart(kanri.PartUsers),
		Personal: doctype.Personal{Owner: "userId", Data: []string{"externalId"}},
		Erasure:  doctype.Erase(),
		Export:   []string{"externalId", "deprovisioned"},
	},
	{
		Name: kanri.TypeSCIMGroup, Container: kanri.ContainerAuth, Of: &kanri.SCIMGroup{},
		Indexes: []doctype.Index{
			{Name: "scim_group_name", Fields: []string{"displayName"}},
			{Name: "scim_group_member", Fields: []string{"members[]", "displayName"}},
		},
		Backup: doctype.InPart(kanri.PartUsers),
	},
}
