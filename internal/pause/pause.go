// Package pause waits without outliving a context.
package pause

import (
	"context"
	"time"
)

// For waits d, or until ctx ends, whose error it then returns.
func For(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
