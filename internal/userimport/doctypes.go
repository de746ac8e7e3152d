package userimport

import (
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// DocTypes are the document types of user imports (docs/architecture.md,
// "Document types").
var DocTypes = []doctype.Type{
	{
		Name: TypeImport, Container: kanri.ContainerAuth, Of: &Import{},
		Indexes:  []doctype.Index{{Name: "import_created", Fields: []string{"createdAt"}}},
		Backup:   doctype.NotBackedUp("an import of the moment, with its file and results in the blob store for a week; a restore must not bring back a run that is over"),
		Personal: doctype.Personal{Owner: "startedBy", Data: []string{"startedBy", "fileName"}},
		// Its files name the people of the file: every erasure in the
		// tenant deletes the tenant's imports (Service.Forget).
		Erasure:   doctype.Erase(),
		Retention: doctype.Retention{TTL: ttl},
	},
}
