package cosmos_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/kanri/kanri/internal/cosmos"
	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/docstore"
)

// TestOpenUpgradesExistingContainers: a version that adds an excluded
// path or a composite index to a container brings a container made by an
// earlier version up to it when it opens, keeps what the container had
// beyond it (its default TTL too), and leaves a container that is up to
// date untouched. The test server stores a policy as it is sent; how Azure
// writes policies back (quoted paths, orders left out) is the unit test
// TestMergePolicyReadsPathsAsAzureWritesThem's.
func TestOpenUpgradesExistingContainers(t *testing.T) {
	srv := cosmostest.Start(t)
	cfg := cosmos.Config{Endpoint: srv.Endpoint, Key: srv.Key(), Database: "kanri-upgrade-test", InsecureSkipVerify: true}
	open := func(sp docstore.Spec) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		st, err := cosmos.Open(ctx, cfg, []docstore.Spec{sp})
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
	read := func() azcosmos.ContainerProperties {
		t.Helper()
		cred, _ := azcosmos.NewKeyCredential(srv.Key())
		client, err := azcosmos.NewClientWithKey(srv.Endpoint, cred, &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{
			Transport: srv.HTTPClient(), Retry: policy.RetryOptions{MaxRetries: -1},
		}})
		if err != nil {
			t.Fatal(err)
		}
		c, _ := client.NewContainer(cfg.Database, "things")
		resp, err := c.Read(t.Context(), nil)
		if err != nil || resp.ContainerProperties == nil {
			t.Fatalf("read the container: %v", err)
		}
		return *resp.ContainerProperties
	}
	old := docstore.Spec{Name: "things", Indexing: docstore.IndexingPolicy{ExcludedPaths: []string{"/metadata/*"}}}
	open(old)
	v1 := read()

	newer := old
	newer.DefaultTTL = time.Hour
	newer.Indexing.ExcludedPaths = []string{"/secret/?"}
	newer.Indexes = []docstore.Index{{Name: "things_by_kind", Type: "thing", Fields: []string{"kind", "createdAt"}}}
	open(newer)
	v2 := read()
	excluded := func(p azcosmos.ContainerProperties) []string {
		var out []string
		for _, e := range p.IndexingPolicy.ExcludedPaths {
			out = append(out, e.Path)
		}
		return out
	}
	for _, want := range []string{"/metadata/*", "/secret/?"} {
		if got := excluded(v2); !slices.Contains(got, want) {
			t.Errorf("excluded paths after the upgrade: %v, want %s among them", got, want)
		}
	}
	if got := v2.DefaultTimeToLive; got == nil || *got != -1 {
		t.Errorf("default TTL after the upgrade: %v, want the container's own (-1: on, no default)", got)
	}
	found := false
	for _, ci := range v2.IndexingPolicy.CompositeIndexes {
		found = found || len(ci) == 3 && ci[1].Path == "/kind" && ci[2].Path == "/createdAt" && ci[2].Order == azcosmos.CompositeIndexDescending
	}
	if !found {
		t.Errorf("composite indexes after the upgrade: %+v, want (tenantId, kind, createdAt desc)", v2.IndexingPolicy.CompositeIndexes)
	}
	if v1.ETag != nil && v2.ETag != nil && *v1.ETag == *v2.ETag {
		t.Error("the upgrade did not replace the container's settings")
	}

	open(newer)
	if v3 := read(); v3.ETag == nil || v2.ETag == nil || *v3.ETag != *v2.ETag {
		t.Errorf("opening an up-to-date container changed it: etag %v, was %v", v3.ETag, v2.ETag)
	}
}
