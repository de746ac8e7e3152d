package schedule

import (
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// DocTypes are the scheduler's documents, in the backup-service container
// (docs/architecture.md, "Document types").
var DocTypes = []doctype.Type{
	{
		Name: TypeRun, Container: kanri.ContainerBackup, Of: &Run{},
		Backup:    doctype.NotBackedUp("an instance's claim of a job's run, of the moment"),
		Retention: doctype.Retention{TTL: runTTL},
	},
	{
		Name: TypeLease, Container: kanri.ContainerBackup, Of: &leaseDoc{},
		Backup:    doctype.NotBackedUp("an instance's lease on a piece of work, of the moment"),
		Retention: doctype.Retention{PerDocument: "ttl: a day after the lease expired"},
	},
}
