package features

import "github.com/kanri/kanri/internal/userimport"

// transferFeature is the import of a tenant's users from CSV files, and
// the exports of its lists as CSV and JSON. Its permissions are the
// users' (an import creates users), the roles' and the files'.
var transferFeature = Feature{
	Name:  "transfer",
	Docs:  "import-export.md",
	Types: userimport.DocTypes,
}
