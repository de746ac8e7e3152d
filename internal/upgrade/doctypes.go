package upgrade

import (
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// DocTypes are the document types of one-time upgrades
// (docs/architecture.md, "Document types").
var DocTypes = []doctype.Type{
	{
		Name: kanri.TypeUpgrades, Container: kanri.ContainerTenant, Of: &kanri.Upgrades{},
		Backup: doctype.NotBackedUp("the record of the one-time upgrades done, in the _system partition: the installation's, not a tenant's"),
	},
}
