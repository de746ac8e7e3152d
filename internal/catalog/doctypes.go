package catalog

import (
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// DocTypes are the document types of the service catalog and of the
// tenants' services (docs/architecture.md, "Document types").
var DocTypes = []doctype.Type{
	{
		Name: kanri.TypeService, Container: kanri.ContainerServiceSetting, Of: &kanri.Service{},
		Indexes: []doctype.Index{{Name: "service_name", Fields: []string{"name"}}},
		Backup:  doctype.NotBackedUp("the operator's catalog of services, in the _system partition, not a tenant's data"),
	},
	{
		Name: kanri.TypeServiceHealth, Container: kanri.ContainerServiceSetting, Of: &kanri.ServiceHealth{},
		Indexes: []doctype.Index{{Name: "health_service", Fields: []string{"serviceId"}}},
		Backup:  doctype.NotBackedUp("the last health check of a catalog's service, in the _system partition"),
	},
	{
		Name: kanri.TypeServiceAssignment, Container: kanri.ContainerServiceSetting, Of: &kanri.ServiceAssignment{},
		Indexes: []doctype.Index{
			{Name: "assignment_service_status", Fields: []string{"serviceId", "status"}},
			{Name: "assignment_service", Fields: []string{"serviceId"}},
		},
		Backup: doctype.InPart(kanri.PartServices),
	},
	{
		Name: kanri.TypeServiceUsage, Container: kanri.ContainerServiceSetting, Of: &kanri.ServiceUsage{},
		Indexes: []doctype.Index{{Name: "usage_period_service", Fields: []string{"period", "serviceId"}}},
		Backup:  doctype.InPart(kanri.PartServices),
	},
}

// Container is the service-setting container: the catalog, the
// assignments and their usage.
var Container = doctype.Container{Name: kanri.ContainerServiceSetting, Indexing: doctype.DefaultIndexing()}
