package pause_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/pause"
)

func TestFor(t *testing.T) {
	if err := pause.For(t.Context(), time.Millisecond); err != nil {
		t.Errorf("a pause that ran its course: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := pause.For(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("a pause of an ended context: got %v, want context.Canceled", err)
	}
}
