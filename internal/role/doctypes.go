package role

import (
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// DocTypes are the document types of roles (docs/architecture.md,
// "Document types").
var DocTypes = []doctype.Type{
	{
		Name: kanri.TypeRoleAssignment, Container: kanri.ContainerAuth, Of: &kanri.RoleAssignment{},
		Indexes: []doctype.Index{
			{Name: "ra_user", Fields: []string{"userId", "serviceId"}},
			{Name: "ra_role", Fields: []string{"serviceId", "roleName", "assignedAt"}},
		},
		Backup:   doctype.InPart(kanri.PartUsers),
		Personal: doctype.Personal{Owner: "userId", Data: []string{"userId", "roleName"}},
		Erasure:  doctype.Erase(),
		Export:   []string{"serviceId", "roleName", "assignedAt"},
	},
	{
		Name: kanri.TypeServiceRoleDefinition, Container: kanri.ContainerAuth, Of: &kanri.ServiceRoleDefinition{},
		Backup: doctype.NotBackedUp("the roles the catalog's services offer: the operator's, in the _system partition, not a tenant's data"),
	},
	{
		Name: kanri.TypeAdminGuard, Container: kanri.ContainerAuth, Of: &kanri.AdminGuard{},
		Backup: doctype.NotBackedUp("a version counter that serialises changes of the tenant's administrators; made again on first use"),
	},
}
