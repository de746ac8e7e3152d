package apikey

import (
	"time"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// DocTypes are the document types of API keys, their usage and the API's
// settings (docs/architecture.md, "Document types").
var DocTypes = []doctype.Type{
	{
		Name: kanri.TypeAPIKey, Container: kanri.ContainerAPI, Of: &kanri.APIKey{},
		Indexes:  []doctype.Index{{Name: "key_prefix", Fields: []string{"keyPrefix"}}},
		Backup:   doctype.InPart(kanri.PartAPIKeys),
		Personal: doctype.Personal{Owner: "createdBy", Data: []string{"createdBy"}},
		Erasure:  doctype.KeepFor("the organisation's key, which its programs use; its creator is named by id only, and the user is pseudonymised"),
	},
	{
		Name: kanri.TypeAPIKeyLookup, Container: kanri.ContainerAPI, Of: &kanri.APIKeyLookup{},
		Backup: doctype.NotBackedUp("the operator's index from a key's hash to its tenant, in the _system partition: a restore writes it again"),
	},
	{
		Name: kanri.TypeRateCounter, Container: kanri.ContainerAPI, Of: &kanri.RateCounter{},
		Backup:    doctype.NotBackedUp("the count of a key's calls in the current rate-limit window"),
		Retention: doctype.Retention{PerDocument: "ttl: the end of its window"},
	},
	{
		Name: kanri.TypeAPIUsage, Container: kanri.ContainerAPI, Of: &kanri.APIUsage{},
		Indexes: []doctype.Index{
			{Name: "usage_key_time", Fields: []string{"apiKeyId", "timestamp"}},
			{Name: "usage_time", Fields: []string{"timestamp"}},
			{Name: "usage_status_time", Fields: []string{"statusCode", "timestamp"}},
			{Name: "usage_key_status_time", Fields: []string{"apiKeyId", "statusCode", "timestamp"}},
		},
		Backup:    doctype.InPart(kanri.PartAPIKeys),
		Retention: doctype.Retention{TTL: kanri.TTLAPIUsage * time.Second},
	},
	{
		Name: kanri.TypeAPIUsageAggregate, Container: kanri.ContainerAPI, Of: &kanri.APIUsageAggregate{},
		Backup: doctype.InPart(kanri.PartAPIKeys),
	},
	{
		Name: kanri.TypeAPIUsageDaily, Container: kanri.ContainerAPI, Of: &kanri.APIUsageDaily{},
		Backup:    doctype.InPart(kanri.PartAPIKeys),
		Retention: doctype.Retention{PerDocument: "ttl: as long as the usage it sums"},
	},
	{
		Name: kanri.TypeIdempotencyRecord, Container: kanri.ContainerAPI, Of: &kanri.IdempotencyRecord{},
		Backup:    doctype.NotBackedUp("the answer to a request of the last day, kept to answer its retry the same"),
		Retention: doctype.Retention{TTL: kanri.TTLIdempotency * time.Second},
	},
	{
		Name: kanri.TypeAPISettings, Container: kanri.ContainerAPI, Of: &kanri.APISettings{},
		Backup: doctype.InPart(kanri.PartAPIKeys),
	},
	{
		Name: kanri.TypeCORSOrigin, Container: kanri.ContainerAPI, Of: &kanri.CORSOrigin{},
		Backup: doctype.NotBackedUp("the operator's index of the origins tenants allow, in the _system partition, written from their settings"),
	},
	{
		Name: kanri.TypeSecretFlash, Container: kanri.ContainerAPI, Of: &kanri.SecretFlash{},
		Backup:    doctype.NotBackedUp("a new key's secret, sealed, waiting to be shown once"),
		Retention: doctype.Retention{PerDocument: "ttl: minutes (kanri.SecretFlashTTL)"},
	},
}

// Container is the API container: the keys and their usage. Key hashes
// are not indexed.
var Container = doctype.Container{Name: kanri.ContainerAPI, Indexing: docstore.IndexingPolicy{
	IncludedPaths: []string{"/*"},
	ExcludedPaths: []string{"/keyHash/?", "/_etag/?"},
}}
