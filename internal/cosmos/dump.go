package cosmos

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/kanri/kanri/internal/docstore"
)

// rereadMargin is how far before the dump's start the documents written
// meanwhile are looked for: _ts has whole seconds and comes from the
// service's clock, not this machine's.
const rereadMargin = time.Minute

// Dump passes every document of partition pk in the named containers to
// fn, then, since Cosmos DB has no snapshot across documents, the
// documents written since the dump began (by _ts) once more, so that the
// last call for an id is its state at the dump's end. System properties
// (_rid, _self, _etag, _attachments, _ts) are removed from the bodies. It
// reports false: the dump is not a snapshot.
func (s *Store) Dump(ctx context.Context, pk string, containers []string, fn func(string, docstore.Item) error) (bool, error) {
	if err := docstore.CheckKey(pk, "x"); err != nil {
		return false, err
	}
	since := time.Now().Add(-rereadMargin).Unix()
	for _, name := range containers {
		// The partition is also named in the query: the local test server
		// ignores a query's partition key.
		err := s.dumpQuery(ctx, name, pk, "SELECT * FROM c WHERE c.tenantId = @pk",
			[]azcosmos.QueryParameter{{Name: "@pk", Value: pk}}, fn)
		if err != nil {
			return false, err
		}
	}
	for _, name := range containers {
		err := s.dumpQuery(ctx, name, pk, "SELECT * FROM c WHERE c.tenantId = @pk AND c._ts >= @since",
			[]azcosmos.QueryParameter{{Name: "@pk", Value: pk}, {Name: "@since", Value: since}}, fn)
		if err != nil {
			return false, err
		}
	}
	return false, nil
}

func (s *Store) dumpQuery(ctx context.Context, name, pk, sql string, params []azcosmos.QueryParameter, fn func(string, docstore.Item) error) error {
	c, ok := s.containers[name]
	if !ok {
		panic("cosmos: unknown container " + name)
	}
	pager := c.NewQueryItemsPager(sql, azcosmos.NewPartitionKeyString(pk), &azcosmos.QueryOptions{QueryParameters: params, PageSizeHint: 500})
	for pager.More() {
		resp, err := pager.NextPage(ctx)
		if err != nil {
			return mapError(err)
		}
		for _, body := range resp.Items {
			it, err := toItem(body)
			if err != nil {
				return err
			}
			if it.Body, err = withoutSystemProperties(body); err != nil {
				return err
			}
			if err := fn(name, it); err != nil {
				return err
			}
		}
	}
	return nil
}

// withoutSystemProperties returns body without the members Cosmos DB adds
// (those whose names start with an underscore).
func withoutSystemProperties(body []byte) ([]byte, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("cosmos: decode document: %w", err)
	}
	for k := range doc {
		if strings.HasPrefix(k, "_") {
			delete(doc, k)
		}
	}
	return json.Marshal(doc)
}
