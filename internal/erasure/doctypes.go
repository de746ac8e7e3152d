package erasure

import (
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// Document types of erasure.
const (
	// TypeErasure is a tenant's record of an erased person: the erasure
	// list, which every restore applies again.
	TypeErasure = "erasure"
	// TypeRequest is a person's request that their data be erased.
	TypeRequest = "erasure_request"
)

// Record is one entry of a tenant's erasure list. It names the erased
// user by id only, with the pseudonym their kept records now carry.
type Record struct {
	kanri.Doc
	UserID    string     `json:"userId"`
	Pseudonym string     `json:"pseudonym"`
	ErasedAt  kanri.Time `json:"erasedAt"`
	ErasedBy  string     `json:"erasedBy"`
}

// Request is a person's request, from their account page, that an
// administrator erase their data.
type Request struct {
	kanri.Doc
	UserID      string     `json:"userId"`
	RequestedAt kanri.Time `json:"requestedAt"`
}

// DocTypes are the document types of erasure (docs/security.md, "Erasure
// and export").
var DocTypes = []doctype.Type{
	{
		Name: TypeErasure, Container: kanri.ContainerAuth, Of: &Record{},
		Indexes: []doctype.Index{{Name: "erasure_time", Fields: []string{"erasedAt"}}},
		Backup:  doctype.NotBackedUp("the erasure list outlives every restore, which applies it again"),
	},
	{
		Name: TypeRequest, Container: kanri.ContainerAuth, Of: &Request{},
		Backup:   doctype.NotBackedUp("a request of the moment, answered by an erasure"),
		Personal: doctype.Personal{Owner: "userId", Data: []string{"userId", "requestedAt"}},
		Erasure:  doctype.Erase(),
	},
}
