// Package schema collects the document types every feature declares
// (package doctype) into the one set the composition root passes to the
// store, and that tests open their stores with. A feature's types are
// added here, in one line, and nowhere else.
package schema

import (
	"sync"

	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/backup"
	"github.com/kanri/kanri/internal/catalog"
	"github.com/kanri/kanri/internal/cosmos"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/emaildomain"
	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/messaging"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/schedule"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/internal/upgrade"
	"github.com/kanri/kanri/internal/user"
)

// Features are the declarations of every feature, in the order their
// containers' indexes are listed.
var Features = [][]doctype.Type{
	user.DocTypes,
	role.DocTypes,
	auth.DocTypes,
	tenant.DocTypes,
	emaildomain.DocTypes,
	upgrade.DocTypes,
	catalog.DocTypes,
	files.DocTypes,
	messaging.DocTypes,
	cosmos.DocTypes,
	apikey.DocTypes,
	backup.DocTypes,
	schedule.DocTypes,
	audit.DocTypes,
}

// Set returns every declared document type.
var Set = sync.OnceValue(func() *doctype.Set {
	return doctype.MustSet(doctype.Containers, Features...)
})

// Specs returns the store's containers with the indexes of every type.
func Specs() []docstore.Spec { return Set().Specs() }
