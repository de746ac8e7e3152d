package tenant

import (
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// DocTypes are the document types of tenants (docs/architecture.md,
// "Document types").
var DocTypes = []doctype.Type{
	{
		Name: kanri.TypeTenant, Container: kanri.ContainerTenant, Of: &kanri.Tenant{},
		Backup: doctype.NotBackedUp("the tenant itself: a backup is restored into a tenant that exists, whose settings stay its own"),
	},
	{
		Name: kanri.TypeTenantListing, Container: kanri.ContainerTenant, Of: &kanri.TenantListing{},
		Indexes: []doctype.Index{
			{Name: "listing_name", Fields: []string{"nameLower"}},
			{Name: "listing_status_name", Fields: []string{"status", "nameLower"}},
			{Name: "listing_created", Fields: []string{"createdAt"}},
			{Name: "listing_users", Fields: []string{"userCount"}},
			{Name: "listing_status", Fields: []string{"status"}},
			{Name: "listing_plan", Fields: []string{"plan"}},
			{Name: "listing_search", Fields: []string{"searchTerms[]", "nameLower"}},
			{Name: "listing_ends", Fields: []string{"status", "subscriptionEnd"}}, // the expiry worker's
		},
		Backup: doctype.NotBackedUp("the operator's index of the tenants, in the _system partition, written from each tenant"),
	},
	{
		Name: kanri.TypeTenantName, Container: kanri.ContainerTenant, Of: &kanri.TenantName{},
		Backup: doctype.NotBackedUp("the reservation of a tenant's sign-in name, in the _system partition: the tenant's own, not its data's"),
	},
	{
		Name: kanri.TypeUserCountChange, Container: kanri.ContainerTenant, Of: &kanri.UserCountChange{},
		Backup:   doctype.NotBackedUp("a change of the tenant's user count waiting to be applied, within seconds"),
		Personal: doctype.Personal{Owner: "userId", Data: []string{"userId"}},
		Erasure:  doctype.Erase(),
	},
}

// Container is the tenant container: the tenants and their e-mail
// domains.
var Container = doctype.Container{Name: kanri.ContainerTenant, Indexing: doctype.DefaultIndexing()}
