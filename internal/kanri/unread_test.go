package kanri_test

import (
	"testing"
	"time"

	"github.com/kanri/kanri/internal/kanri"
)

func TestUnreadCounts(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	at := func(ago time.Duration) kanri.Time { return kanri.NewTime(now.Add(-ago)) }
	year := 365 * 24 * time.Hour

	var c kanri.ChannelSeq
	c.Post(at(2*year), true)      // 1: expired
	c.Post(at(time.Hour), true)   // 2
	c.Post(at(time.Hour), false)  // 3: a system message
	c.Post(at(time.Minute), true) // 4
	c.Post(at(time.Minute), true) // 5: deleted below
	c.Post(at(0), true)           // 6
	if !c.Uncount(5) || c.Uncount(5) || c.Uncount(99) {
		t.Fatal("Uncount: want true once for 5, false again and for an unknown message")
	}
	tests := []struct {
		readSeq     int64
		want        int
		wantAtLeast bool
	}{
		{0, 3, false}, // 2, 4, 6: the expired 1, the system 3 and the deleted 5 do not count
		{1, 3, false},
		{2, 2, false},
		{4, 1, false},
		{6, 0, false}, // read to the end
		{9, 0, false}, // ahead (a stale read mark): nothing
	}
	for _, tt := range tests {
		n, atLeast := c.Unread(tt.readSeq, now)
		if n != tt.want || atLeast != tt.wantAtLeast {
			t.Errorf("Unread(%d) = %d, %v; want %d, %v", tt.readSeq, n, atLeast, tt.want, tt.wantAtLeast)
		}
	}

	// A busy channel: the window keeps the latest ChannelWindow messages,
	// and a member who read none of them has at least that many unread.
	var busy kanri.ChannelSeq
	for range kanri.ChannelWindow + 50 {
		busy.Post(at(time.Second), true)
	}
	if got := len(busy.Recent); got != kanri.ChannelWindow || busy.Recent[0].Seq != 51 {
		t.Fatalf("window: %d entries from %d, want %d from 51", got, busy.Recent[0].Seq, kanri.ChannelWindow)
	}
	if n, atLeast := busy.Unread(0, now); n != kanri.ChannelWindow || !atLeast {
		t.Errorf("Unread(0) of a busy channel = %d, %v; want %d and at least", n, atLeast, kanri.ChannelWindow)
	}
	if n, atLeast := busy.Unread(50, now); n != kanri.ChannelWindow || atLeast {
		t.Errorf("Unread(50) = %d, %v; want exactly %d", n, atLeast, kanri.ChannelWindow)
	}
	if n, atLeast := busy.Unread(busy.LastSeq-3, now); n != 3 || atLeast {
		t.Errorf("Unread(last-3) = %d, %v; want 3", n, atLeast)
	}
}
