package events

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Local is the in-process Bus: the events of one instance, for the
// embedded store (which has one instance). Each tenant's last Keep events
// are kept for subscribers that continue after a position; positions
// carry the instance's start, so a position from before a restart is a
// gap, never a wrong place.
type Local struct {
	// Keep is how many of a tenant's last events are kept for resumes;
	// Buffer is how many events a subscriber may fall behind before it is
	// cut off (ErrTooSlow). Set them before the first use.
	Keep, Buffer int
	// Now is the clock.
	Now func() time.Time

	mu      sync.Mutex
	epoch   string
	tenants map[string]*stream
	closed  bool
}

// stream is one tenant's events and subscribers.
type stream struct {
	seq  uint64   // the last event's number
	kept []*Event // the last events, oldest first: at least the last Keep, fewer than 2×Keep
	subs map[*subscriber]struct{}
}

type subscriber struct {
	c     chan *Event
	end   func(error)
	after func() bool // stops the context's watch
}

// NewLocal returns an in-process bus keeping 1,024 events per tenant,
// with subscribers cut off 256 events behind.
func NewLocal() *Local {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return &Local{Keep: 1024, Buffer: 256, Now: time.Now, epoch: hex.EncodeToString(b), tenants: map[string]*stream{}}
}

var _ Bus = (*Local)(nil)

func (l *Local) stream(tenantID string) *stream {
	st := l.tenants[tenantID]
	if st == nil {
		st = &stream{subs: map[*subscriber]struct{}{}}
		l.tenants[tenantID] = st
	}
	return st
}

// NewID returns a new event id.
func NewID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "event_" + hex.EncodeToString(b)
}

func (l *Local) position(seq uint64) string { return l.epoch + "." + strconv.FormatUint(seq, 10) }

// Publish implements Bus. It never waits for a subscriber: one that
// cannot take the event now is cut off.
func (l *Local) Publish(ctx context.Context, e Event) (string, error) {
	if e.TenantID == "" {
		return "", fmt.Errorf("events: an event without a tenant")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return "", ErrClosed
	}
	st := l.stream(e.TenantID)
	st.seq++
	e.Pos = l.position(st.seq)
	if e.ID == "" {
		e.ID = NewID()
	}
	if e.At.IsZero() {
		e.At = l.Now()
	}
	ev := &e
	st.kept = append(st.kept, ev)
	if len(st.kept) >= 2*l.Keep {
		// Trimmed now and then, not at every event: the copy costs O(1)
		// per event.
		st.kept = append(st.kept[:0:0], st.kept[len(st.kept)-l.Keep:]...)
	}
	for s := range st.subs {
		select {
		case s.c <- ev:
		default:
			l.drop(st, s, ErrTooSlow)
		}
	}
	return e.ID, nil
}

// drop ends a subscription; l.mu is held.
func (l *Local) drop(st *stream, s *subscriber, err error) {
	if _, ok := st.subs[s]; !ok {
		return
	}
	delete(st.subs, s)
	s.after()
	s.end(err)
	close(s.c)
}

// Subscribe implements Bus. The kept events after the position are queued
// first, under the same lock as publishing, so none is missed or repeated
// between them and the live ones.
func (l *Local) Subscribe(ctx context.Context, tenantID, after string) (*Subscription, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, ErrClosed
	}
	st := l.stream(tenantID)
	var replay []*Event
	if after != "" {
		epoch, n, ok := strings.Cut(after, ".")
		seq, err := strconv.ParseUint(n, 10, 64)
		switch {
		case !ok || err != nil || len(epoch) != len(l.epoch):
			return nil, ErrPosition
		case epoch != l.epoch:
			return nil, ErrGap // a position of before a restart
		case seq > st.seq:
			return nil, ErrPosition
		}
		missed := int(st.seq - seq)
		if missed > min(len(st.kept), l.Keep) {
			return nil, ErrGap
		}
		replay = st.kept[len(st.kept)-missed:]
	}
	c := make(chan *Event, l.Buffer+len(replay))
	for _, e := range replay {
		c <- e
	}
	s := &subscriber{c: c}
	stop := func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.drop(st, s, nil)
	}
	sub, end := NewSubscription(c, stop)
	s.end = end
	s.after = context.AfterFunc(ctx, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.drop(st, s, ctx.Err())
	})
	st.subs[s] = struct{}{}
	return sub, nil
}

// Close implements Bus.
func (l *Local) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	for _, st := range l.tenants {
		for s := range st.subs {
			l.drop(st, s, ErrClosed)
		}
	}
	return nil
}
