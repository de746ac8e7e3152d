package blob

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
)

// BatchDriver is implemented by a driver whose Put makes each blob durable
// on its own, at a cost per blob (the local directory syncs each file and
// its directory): its batches write many blobs and make them durable
// together.
type BatchDriver interface {
	NewBatch() DriverBatch
}

// DriverBatch is a driver's batch of blobs: Put writes one, not visible
// under its name until Commit; Commit makes every one put since the last
// Commit durable and visible, each whole; Discard forgets those not
// committed. A crash before Commit leaves none of them.
type DriverBatch interface {
	Put(ctx context.Context, name string, r io.Reader) (int64, error)
	Commit(ctx context.Context) error
	Discard()
}

// Batch writes many blobs at the cost of fewer syncs. A blob put in a
// batch is complete under its name once Commit returns; on a store whose
// driver has no batches it is stored by Put at once. Either way, no blob
// is ever partial under its name. A Batch is for one goroutine.
type Batch struct {
	b *Bucket
	d DriverBatch // nil: each Put is the bucket's
}

// NewBatch returns an empty batch of b.
func (b *Bucket) NewBatch() *Batch {
	bt := &Batch{b: b}
	if bd, ok := b.d.(BatchDriver); ok {
		bt.d = bd.NewBatch()
	}
	return bt
}

// Put writes r's bytes as the blob name, computing their SHA-256 on the
// way; the blob is durable and visible once Commit returns.
func (bt *Batch) Put(ctx context.Context, name string, r io.Reader) (Result, error) {
	if bt.d == nil {
		return bt.b.Put(ctx, name, r)
	}
	if err := CheckName(name); err != nil {
		return Result{}, err
	}
	h := sha256.New()
	n, err := bt.d.Put(ctx, name, io.TeeReader(r, h))
	if err != nil {
		return Result{}, bt.b.wrap(err, name)
	}
	return Result{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// Commit makes the blobs put since the last Commit durable and visible.
func (bt *Batch) Commit(ctx context.Context) error {
	if bt.d == nil {
		return nil
	}
	return bt.b.wrap(bt.d.Commit(ctx), "")
}

// Discard forgets the blobs put since the last Commit (on a store without
// batches they are stored already).
func (bt *Batch) Discard() {
	if bt.d != nil {
		bt.d.Discard()
	}
}
