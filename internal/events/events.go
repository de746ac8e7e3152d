// Package events is the port of live updates: what happens in a tenant (a
// message posted, a reaction, later a backup's progress) reaches the open
// pages of that tenant, on every instance. The web layer decides what each
// person may see; this port only carries a tenant's events, in order, and
// lets a page that lost its connection continue after the last event it
// saw, or learn that it must reload what it shows.
//
// Bus is the port. Package events has the in-process implementation (one
// instance, the embedded store); package eventstest is the contract suite
// every implementation passes.
package events

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Event is one thing that happened in a tenant.
type Event struct {
	// ID names the event, the same on every instance; Publish sets it when
	// empty.
	ID string
	// Pos is the event's position in the stream of the subscription that
	// delivered it: opaque, and what a page sends back (as Last-Event-ID)
	// to continue after it.
	Pos string
	// TenantID is the tenant the event belongs to; a subscriber of another
	// tenant never receives it.
	TenantID string
	// Topic says what the event is about, for filtering by what a person
	// may see: "channel:<id>", say.
	Topic string
	// Kind names what happened: "message.created", "reaction.added"…
	Kind string
	// Data is the event's payload as JSON.
	Data json.RawMessage
	// At is when it was published.
	At time.Time
}

// ErrGap says that events after the position a subscriber asked for are
// no longer kept: it must reload what it shows (a snapshot) and continue
// from now.
var ErrGap = errors.New("events: events after that position are no longer kept")

// ErrTooSlow ends a subscription whose reader fell too far behind; the
// reader continues with a new subscription after the last event it read.
var ErrTooSlow = errors.New("events: the subscriber fell behind")

// Bus carries tenants' events from publishers to subscribers.
// Implementations are safe for concurrent use.
type Bus interface {
	// Publish sends e to the subscribers of its tenant, on every instance,
	// and returns its ID (set when empty; At is set too). Events of one
	// publisher reach every subscriber in the order they were published.
	Publish(ctx context.Context, e Event) (string, error)
	// Subscribe returns the tenant's events published after the position
	// after, or from now when after is "". It fails with ErrGap when the
	// events after that position are no longer kept (or were published
	// before a restart), and with ErrPosition for a position that is not
	// one (malformed, or ahead of the tenant's stream).
	Subscribe(ctx context.Context, tenantID, after string) (*Subscription, error)
	// Close ends every subscription.
	Close() error
}

// Subscription is one subscriber's stream of a tenant's events.
type Subscription struct {
	// C delivers the events in order; it is closed when the subscription
	// ends (Close, the context's end, the Bus's Close, or the reader
	// falling behind), and Err then says why. Every subscriber of an event
	// receives the same one: read it, never change it (pointers keep a
	// subscriber's buffer of 256 events at 2 KiB rather than 32).
	C <-chan *Event

	stop func()
	err  error // set before C is closed
}

// NewSubscription returns a subscription reading c, for implementations:
// stop ends it (from Close), and the function returned records why it
// ended, to be called before c is closed.
func NewSubscription(c <-chan *Event, stop func()) (*Subscription, func(error)) {
	s := &Subscription{C: c, stop: stop}
	return s, func(err error) { s.err = err }
}

// Close ends the subscription; C is closed soon after. Closing twice is
// harmless.
func (s *Subscription) Close() { s.stop() }

// Err says why the subscription ended, once C is closed: nil after Close,
// the context's error, ErrClosed or ErrTooSlow.
func (s *Subscription) Err() error { return s.err }

// ErrClosed ends the subscriptions of a Bus that was closed.
var ErrClosed = errors.New("events: the bus was closed")

// ErrPosition is the error of a position that is not one.
var ErrPosition = errors.New("events: not a position in this stream")
