package events_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kanri/kanri/internal/events"
	"github.com/kanri/kanri/internal/events/eventstest"
)

func TestLocalContract(t *testing.T) {
	eventstest.Run(t, func(t *testing.T) events.Bus { return events.NewLocal() })
}

// TestLocalGaps checks what the in-process bus says when it no longer has
// the events after a position: those older than it keeps, and any
// position of before a restart (another bus).
func TestLocalGaps(t *testing.T) {
	ctx := context.Background()
	b := events.NewLocal()
	b.Keep = 3
	s, err := b.Subscribe(ctx, "t1", "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for range 5 {
		if _, err := b.Publish(ctx, events.Event{TenantID: "t1", Kind: "e"}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, (<-s.C).Pos)
	}
	restarted := events.NewLocal()
	if _, err := restarted.Publish(ctx, events.Event{TenantID: "t1", Kind: "e"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		bus   *events.Local
		after string
		want  error
	}{
		{b, ids[0], events.ErrGap}, // 4 missed, 3 kept
		{b, ids[1], nil},           // 3 missed, 3 kept
		{b, ids[4], nil},
		{restarted, ids[0], events.ErrGap},
	}
	for _, tt := range tests {
		s, err := tt.bus.Subscribe(ctx, "t1", tt.after)
		if !errors.Is(err, tt.want) {
			t.Errorf("Subscribe after %s: %v, want %v", tt.after, err, tt.want)
		}
		if s != nil {
			s.Close()
		}
	}
}
