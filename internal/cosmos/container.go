package cosmos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/kanri/kanri/internal/docstore"
)

type container struct {
	c    *azcosmos.ContainerClient
	spec docstore.Spec
}

func itemOptions(ifMatch string) *azcosmos.ItemOptions {
	o := &azcosmos.ItemOptions{}
	if ifMatch != "" {
		e := azcore.ETag(ifMatch)
		o.IfMatchEtag = &e
	}
	return o
}

func (c *container) Read(ctx context.Context, pk, id string) (docstore.Item, error) {
	if err := docstore.CheckKey(pk, id); err != nil {
		return docstore.Item{}, err
	}
	resp, err := c.c.ReadItem(ctx, azcosmos.NewPartitionKeyString(pk), id, nil)
	charge(ctx, resp.RequestCharge, err)
	if err != nil {
		return docstore.Item{}, mapError(err)
	}
	return docstore.Item{ID: id, PartitionKey: pk, ETag: string(resp.ETag), Body: resp.Value}, nil
}

func (c *container) Create(ctx context.Context, pk string, body []byte) (string, error) {
	if _, err := c.spec.Parse(pk, body); err != nil {
		return "", err
	}
	resp, err := c.c.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), body, nil)
	charge(ctx, resp.RequestCharge, err)
	if err != nil {
		return "", mapError(err)
	}
	return string(resp.ETag), nil
}

func (c *container) Replace(ctx context.Context, pk, id string, body []byte, ifMatch string) (string, error) {
	h, err := c.spec.Parse(pk, body)
	if err != nil {
		return "", err
	}
	if h.ID != id {
		return "", docstore.ErrInvalid(fmt.Errorf("cosmos: document id %q does not match %q", h.ID, id))
	}
	resp, err := c.c.ReplaceItem(ctx, azcosmos.NewPartitionKeyString(pk), id, body, itemOptions(ifMatch))
	charge(ctx, resp.RequestCharge, err)
	if err != nil {
		return "", mapError(err)
	}
	return string(resp.ETag), nil
}

func (c *container) Upsert(ctx context.Context, pk string, body []byte, ifMatch string) (string, error) {
	if _, err := c.spec.Parse(pk, body); err != nil {
		return "", err
	}
	resp, err := c.c.UpsertItem(ctx, azcosmos.NewPartitionKeyString(pk), body, itemOptions(ifMatch))
	charge(ctx, resp.RequestCharge, err)
	if err != nil {
		if status(err) == http.StatusNotFound {
			// An upsert conditioned on a version of a missing document.
			return "", docstore.ErrStale(fmt.Errorf("cosmos: %w", err))
		}
		return "", mapError(err)
	}
	return string(resp.ETag), nil
}

func (c *container) Delete(ctx context.Context, pk, id, ifMatch string) error {
	if err := docstore.CheckKey(pk, id); err != nil {
		return err
	}
	resp, err := c.c.DeleteItem(ctx, azcosmos.NewPartitionKeyString(pk), id, itemOptions(ifMatch))
	charge(ctx, resp.RequestCharge, err)
	return mapError(err)
}

func (c *container) Batch(ctx context.Context, pk string, ops []docstore.Op) ([]docstore.Result, error) {
	if len(ops) > docstore.MaxBatchOps {
		return nil, docstore.ErrInvalid(fmt.Errorf("a batch of %d operations: at most %d", len(ops), docstore.MaxBatchOps))
	}
	if err := docstore.CheckKey(pk, "x"); err != nil {
		return nil, err
	}
	b := c.c.NewTransactionalBatch(azcosmos.NewPartitionKeyString(pk))
	for i, op := range ops {
		switch op.Kind {
		case docstore.OpCreate, docstore.OpUpsert, docstore.OpReplace:
			h, err := c.spec.Parse(pk, op.Body)
			if err != nil {
				return nil, docstore.BatchError(i, err)
			}
			switch op.Kind {
			case docstore.OpCreate:
				b.CreateItem(op.Body, nil)
			case docstore.OpUpsert:
				b.UpsertItem(op.Body, batchOptions(op.IfMatch))
			default:
				if h.ID != op.ID {
					return nil, docstore.BatchError(i, docstore.ErrInvalid(fmt.Errorf("cosmos: document id %q does not match %q", h.ID, op.ID)))
				}
				b.ReplaceItem(op.ID, op.Body, batchOptions(op.IfMatch))
			}
		case docstore.OpDelete:
			b.DeleteItem(op.ID, batchOptions(op.IfMatch))
		case docstore.OpRead:
			b.ReadItem(op.ID, nil)
		default:
			return nil, docstore.BatchError(i, docstore.ErrInvalid(fmt.Errorf("cosmos: unknown batch operation %d", op.Kind)))
		}
	}
	resp, err := c.c.ExecuteTransactionalBatch(ctx, b, nil)
	charge(ctx, resp.RequestCharge, err)
	if err != nil {
		return nil, mapError(err)
	}
	if !resp.Success {
		for i, r := range resp.OperationResults {
			if r.StatusCode != http.StatusFailedDependency {
				return nil, docstore.BatchError(i, statusError(r.StatusCode))
			}
		}
		return nil, fmt.Errorf("cosmos: batch failed without a cause")
	}
	out := make([]docstore.Result, len(resp.OperationResults))
	for i, r := range resp.OperationResults {
		out[i] = docstore.Result{ETag: string(r.ETag), Body: r.ResourceBody}
	}
	return out, nil
}

func batchOptions(ifMatch string) *azcosmos.TransactionalBatchItemOptions {
	if ifMatch == "" {
		return nil
	}
	e := azcore.ETag(ifMatch)
	return &azcosmos.TransactionalBatchItemOptions{IfMatchETag: &e}
}

// statusError maps the status of one failed batch operation.
func statusError(code int32) error {
	switch code {
	case http.StatusNotFound:
		return docstore.ErrNotFound(errors.New("cosmos: batch operation: no such document"))
	case http.StatusConflict:
		return docstore.ErrConflict(errors.New("cosmos: batch operation: the document exists"))
	case http.StatusPreconditionFailed:
		return docstore.ErrStale(errors.New("cosmos: batch operation: the ETag does not match"))
	case http.StatusBadRequest:
		return docstore.ErrInvalid(errors.New("cosmos: batch operation refused"))
	}
	return fmt.Errorf("cosmos: batch operation failed with status %d", code)
}

// header is what the query path reads of each returned document.
type header struct {
	ID       string `json:"id"`
	TenantID string `json:"tenantId"`
	ETag     string `json:"_etag"`
}

func toItem(body []byte) (docstore.Item, error) {
	var h header
	if err := json.Unmarshal(body, &h); err != nil {
		return docstore.Item{}, fmt.Errorf("cosmos: decode query result: %w", err)
	}
	return docstore.Item{ID: h.ID, PartitionKey: h.TenantID, ETag: h.ETag, Body: body}, nil
}
