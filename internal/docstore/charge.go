package docstore

import (
	"context"
	"sync"
)

// Charge adds up what a store's calls cost in the units the store bills
// them in: request units on Cosmos DB. A backend that bills adds each
// call's cost to the Charge of its context (AddCharge); the embedded
// store bills nothing.
type Charge struct {
	mu    sync.Mutex
	units float64
}

type chargeKey struct{}

// WithCharge returns a context whose store calls add their cost to the
// returned Charge.
func WithCharge(ctx context.Context) (context.Context, *Charge) {
	c := &Charge{}
	return context.WithValue(ctx, chargeKey{}, c), c
}

// AddCharge adds units to the Charge of ctx, if it has one.
func AddCharge(ctx context.Context, units float64) {
	if c, ok := ctx.Value(chargeKey{}).(*Charge); ok {
		c.mu.Lock()
		c.units += units
		c.mu.Unlock()
	}
}

// Units returns the units added so far.
func (c *Charge) Units() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.units
}
