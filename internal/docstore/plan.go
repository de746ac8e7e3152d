package docstore

// Plan says how a store runs a query: which ranges of its indexes it
// reads and which filters it checks on each document read. Tests use it to
// prove that no list page reads a whole partition; people use it to see
// why a query is slow.
type Plan struct {
	// Access is how the documents are found: AccessIndex, AccessIndexSort,
	// AccessIDs or AccessPartition.
	Access string
	// Ranges describes each index range read, such as
	// `audit_user_time[userId = "u1"]`.
	Ranges []string
	// Served lists the filters the ranges serve: only documents they
	// select are read.
	Served []string
	// Narrowed reports whether some filter narrows the ranges, so that
	// they are not whole indexes.
	Narrowed bool
	// Checked lists the query's filters, every one of which is checked on
	// each document read.
	Checked []string
	// Fallback is what runs instead when the plan's ranges prove wider
	// than its bound (a prefix with too many distinct values, a range
	// with too many documents to sort): "" when it has none.
	Fallback string
}

// How a plan finds its documents.
const (
	// AccessIndex walks index ranges in the query's order and stops at the
	// page size.
	AccessIndex = "index"
	// AccessIndexSort reads narrowed index ranges whole (up to a bound)
	// and sorts their documents.
	AccessIndexSort = "index-sort"
	// AccessIDs reads the documents the query names by id.
	AccessIDs = "ids"
	// AccessPartition reads every document of the partition.
	AccessPartition = "partition"
)

// Explainer is implemented by containers that can say how they would run
// a query in partition pk without running it.
type Explainer interface {
	Explain(pk string, q Query) (Plan, error)
}
