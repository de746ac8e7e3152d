package emaildomain

import (
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// DocTypes are the document types of e-mail domains (docs/architecture.md,
// "Document types").
var DocTypes = []doctype.Type{
	{
		Name: kanri.TypeDomain, Container: kanri.ContainerTenant, Of: &kanri.Domain{},
		Indexes: []doctype.Index{{Name: "domain_name", Fields: []string{"domain"}}},
		Backup:  doctype.InPart(kanri.PartServices),
	},
	{
		Name: kanri.TypeDomainClaim, Container: kanri.ContainerTenant, Of: &kanri.DomainClaim{},
		Backup: doctype.NotBackedUp("the claim that keeps a verified domain to one tenant, in the _system partition: verified again, never restored"),
	},
}
