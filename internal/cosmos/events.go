package cosmos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/kanri/kanri/internal/events"
	"github.com/kanri/kanri/internal/kanri"
)

// eventTTL is how long an event document lives in the messaging container:
// long enough for every instance to read it from the change feed.
const eventTTL = 3600

// typeEvent is the type of event documents.
const typeEvent = "event"

// eventDoc is an event as a document of the messaging container, in its
// tenant's partition.
type eventDoc struct {
	ID       string          `json:"id"`
	TenantID string          `json:"tenantId"`
	Type     string          `json:"type"`
	Topic    string          `json:"topic"`
	Kind     string          `json:"kind"`
	Data     json.RawMessage `json:"data,omitempty"`
	At       time.Time       `json:"at"`
	TTL      int             `json:"ttl"`
}

// Events is the events bus of instances sharing a Cosmos DB store. Publish
// writes the event as a document of the messaging container; each instance
// reads that container's change feed (one reader per instance, whatever
// the number of tenants or subscribers: its cost grows with the writes)
// and hands the events to its own subscribers through an in-process bus.
// Positions are those of the instance's in-process bus: a page that
// reconnects to another instance is told it has a gap and reloads.
type Events struct {
	c     *azcosmos.ContainerClient
	local *events.Local
	log   *slog.Logger
	poll  time.Duration

	stop context.CancelFunc
	done chan struct{}

	// feed serialises the reads of the change feed and holds their
	// position.
	feed  sync.Mutex
	token string
}

var _ events.Bus = (*Events)(nil)

// Events returns the store's events bus, reading the change feed from now
// every poll. Close stops it.
func (s *Store) Events(ctx context.Context, log *slog.Logger, poll time.Duration) (*Events, error) {
	c, ok := s.containers[kanri.ContainerMessaging]
	if !ok {
		return nil, errors.New("cosmos: no messaging container")
	}
	if log == nil {
		log = slog.Default()
	}
	// From now: whole seconds, so a few events of the last second may be
	// read again; subscribers take them as new.
	start := time.Now().Add(-time.Second)
	resp, err := c.ReadChangeFeed(ctx, &azcosmos.ChangeFeedOptions{FeedRange: &azcosmos.FeedRange{MinInclusive: "", MaxExclusive: "FF"}, StartFrom: &start, MaxItemCount: 1})
	if err != nil {
		return nil, fmt.Errorf("cosmos: change feed: %w", err)
	}
	e := &Events{c: c, local: events.NewLocal(), log: log, poll: poll, done: make(chan struct{}), token: resp.ContinuationToken}
	e.deliver(resp.Items)
	rctx, cancel := context.WithCancel(context.Background())
	e.stop = cancel
	go e.read(rctx)
	return e, nil
}

// read follows the change feed until ctx ends.
func (e *Events) read(ctx context.Context) {
	defer close(e.done)
	for {
		if err := e.catchUp(ctx); err != nil && ctx.Err() == nil {
			e.log.Warn("events: reading the change feed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(e.poll):
		}
	}
}

// catchUp reads the change feed to its end and delivers what it finds.
func (e *Events) catchUp(ctx context.Context) error {
	e.feed.Lock()
	defer e.feed.Unlock()
	for {
		resp, err := e.c.ReadChangeFeed(ctx, &azcosmos.ChangeFeedOptions{Continuation: &e.token, MaxItemCount: 500})
		if err != nil {
			return err
		}
		e.token = resp.ContinuationToken
		if len(resp.Items) == 0 {
			return nil
		}
		e.deliver(resp.Items)
	}
}

// deliver hands the event documents among items to the local subscribers.
func (e *Events) deliver(items [][]byte) {
	for _, raw := range items {
		var d eventDoc
		if err := json.Unmarshal(raw, &d); err != nil || d.Type != typeEvent {
			continue
		}
		if _, err := e.local.Publish(context.Background(), events.Event{
			ID: d.ID, TenantID: d.TenantID, Topic: d.Topic, Kind: d.Kind, Data: d.Data, At: d.At,
		}); err != nil {
			return // closed
		}
	}
}

// Publish implements events.Bus: the event is written, and reaches the
// subscribers of every instance (this one too) from the change feed.
func (e *Events) Publish(ctx context.Context, ev events.Event) (string, error) {
	if ev.TenantID == "" {
		return "", errors.New("events: an event without a tenant")
	}
	select {
	case <-e.done:
		return "", events.ErrClosed
	default:
	}
	if ev.ID == "" {
		ev.ID = events.NewID()
	}
	if ev.At.IsZero() {
		ev.At = time.Now().UTC()
	}
	b, err := json.Marshal(eventDoc{ID: ev.ID, TenantID: ev.TenantID, Type: typeEvent, Topic: ev.Topic, Kind: ev.Kind, Data: ev.Data, At: ev.At, TTL: eventTTL})
	if err != nil {
		return "", err
	}
	if _, err := e.c.CreateItem(ctx, azcosmos.NewPartitionKeyString(ev.TenantID), b, nil); err != nil {
		return "", fmt.Errorf("cosmos: publish event: %w", err)
	}
	return ev.ID, nil
}

// Subscribe implements events.Bus. The change feed is read to its end
// first, so that "from now" means after every event published before the
// call (a page that loaded its state and then subscribes misses nothing and
// gets nothing twice), and a resume finds every event published before it.
func (e *Events) Subscribe(ctx context.Context, tenantID, after string) (*events.Subscription, error) {
	if err := e.catchUp(ctx); err != nil {
		return nil, fmt.Errorf("cosmos: change feed: %w", err)
	}
	return e.local.Subscribe(ctx, tenantID, after)
}

// Close implements events.Bus: the reader stops and every subscription
// ends.
func (e *Events) Close() error {
	e.stop()
	<-e.done
	return e.local.Close()
}
