package cosmos

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestMergePolicyReadsPathsAsAzureWritesThem: Azure gives back a policy
// with quoted segments, orders left out and paths of its own; none of
// that is a difference, so an up-to-date container is not replaced.
func TestMergePolicyReadsPathsAsAzureWritesThem(t *testing.T) {
	ttl, year := int32(-1), int32(365*24*3600)
	want := azcosmos.ContainerProperties{DefaultTimeToLive: &ttl, IndexingPolicy: &azcosmos.IndexingPolicy{
		ExcludedPaths:    []azcosmos.ExcludedPath{{Path: "/_etag/?"}, {Path: "/secret/?"}},
		CompositeIndexes: [][]azcosmos.CompositeIndex{{{Path: "/tenantId", Order: azcosmos.CompositeIndexAscending}, {Path: "/at", Order: azcosmos.CompositeIndexDescending}}},
	}}
	for _, c := range []struct {
		name    string
		have    azcosmos.ContainerProperties
		changed bool
	}{
		{"as Azure gives it back", azcosmos.ContainerProperties{DefaultTimeToLive: &ttl, IndexingPolicy: &azcosmos.IndexingPolicy{
			IncludedPaths:    []azcosmos.IncludedPath{{Path: "/*"}},
			ExcludedPaths:    []azcosmos.ExcludedPath{{Path: `/"_etag"/?`}, {Path: "/secret/?"}},
			CompositeIndexes: [][]azcosmos.CompositeIndex{{{Path: "/tenantId"}, {Path: "/at", Order: "Descending"}}},
		}}, false},
		{"an excluded path missing", azcosmos.ContainerProperties{DefaultTimeToLive: &ttl, IndexingPolicy: &azcosmos.IndexingPolicy{
			ExcludedPaths:    []azcosmos.ExcludedPath{{Path: "/_etag/?"}},
			CompositeIndexes: want.IndexingPolicy.CompositeIndexes,
		}}, true},
		{"a composite index in the other order", azcosmos.ContainerProperties{DefaultTimeToLive: &ttl, IndexingPolicy: &azcosmos.IndexingPolicy{
			ExcludedPaths:    want.IndexingPolicy.ExcludedPaths,
			CompositeIndexes: [][]azcosmos.CompositeIndex{{{Path: "/tenantId"}, {Path: "/at"}}},
		}}, true},
		{"a default TTL of its own", azcosmos.ContainerProperties{DefaultTimeToLive: &year, IndexingPolicy: &azcosmos.IndexingPolicy{
			ExcludedPaths:    want.IndexingPolicy.ExcludedPaths,
			CompositeIndexes: want.IndexingPolicy.CompositeIndexes,
		}}, false},
		{"TTL off", azcosmos.ContainerProperties{IndexingPolicy: &azcosmos.IndexingPolicy{
			ExcludedPaths:    want.IndexingPolicy.ExcludedPaths,
			CompositeIndexes: want.IndexingPolicy.CompositeIndexes,
		}}, true},
	} {
		if got := mergePolicy(&c.have, want); got != c.changed {
			t.Errorf("%s: changed = %v, want %v", c.name, got, c.changed)
		}
		if again := mergePolicy(&c.have, want); again {
			t.Errorf("%s: still different after the merge", c.name)
		}
	}
}
