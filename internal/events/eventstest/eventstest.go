// Package eventstest is the contract suite of the events port: every Bus
// passes it (the in-process one in package events; the one that carries
// events between instances on Cosmos DB, when it comes).
package eventstest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/events"
)

// Open returns a new, empty bus for one test; the suite closes it.
type Open func(t *testing.T) events.Bus

// wait bounds every wait for an event: a hang guard, never a timing
// assertion.
const wait = time.Minute

// Run runs every case of the contract, each on a new bus from open.
func Run(t *testing.T, open Open) {
	cases := []struct {
		name string
		run  func(t *testing.T, ctx context.Context, b events.Bus)
	}{
		{"InOrderToEverySubscriber", testInOrderToEverySubscriber},
		{"TenantsAreApart", testTenantsAreApart},
		{"FromNowMeansFromNow", testFromNowMeansFromNow},
		{"ResumeAfterAPosition", testResumeAfterAPosition},
		{"ConcurrentPublishers", testConcurrentPublishers},
		{"BadPositions", testBadPositions},
		{"ASlowSubscriberNeverHoldsUpOthers", testASlowSubscriberNeverHoldsUpOthers},
		{"EndingSubscriptions", testEndingSubscriptions},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := open(t)
			t.Cleanup(func() { _ = b.Close() })
			ctx, cancel := context.WithTimeout(context.Background(), 2*wait)
			defer cancel()
			c.run(t, ctx, b)
		})
	}
}

func publish(t *testing.T, ctx context.Context, b events.Bus, tenant, kind string, n int) string {
	t.Helper()
	id, err := b.Publish(ctx, events.Event{TenantID: tenant, Topic: "channel:c1", Kind: kind, Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, n))})
	if err != nil {
		t.Fatalf("Publish: %v", err)
	}
	if id == "" {
		t.Fatal("Publish returned no id")
	}
	return id
}

func subscribe(t *testing.T, ctx context.Context, b events.Bus, tenant, after string) *events.Subscription {
	t.Helper()
	s, err := b.Subscribe(ctx, tenant, after)
	if err != nil {
		t.Fatalf("Subscribe(%s, %q): %v", tenant, after, err)
	}
	t.Cleanup(s.Close)
	return s
}

// next returns the subscription's next event.
func next(t *testing.T, s *events.Subscription) events.Event {
	t.Helper()
	select {
	case e, ok := <-s.C:
		if !ok {
			t.Fatalf("the subscription ended: %v", s.Err())
		}
		return *e
	case <-time.After(wait):
		t.Fatal("no event arrived")
	}
	return events.Event{}
}

// kinds reads n events and returns their kinds.
func kinds(t *testing.T, s *events.Subscription, n int) []string {
	t.Helper()
	var out []string
	for range n {
		out = append(out, next(t, s).Kind)
	}
	return out
}

func seq(prefix string, from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

func testInOrderToEverySubscriber(t *testing.T, ctx context.Context, b events.Bus) {
	s1 := subscribe(t, ctx, b, "t1", "")
	s2 := subscribe(t, ctx, b, "t1", "")
	var ids []string
	for i := 1; i <= 100; i++ {
		ids = append(ids, publish(t, ctx, b, "t1", fmt.Sprintf("e%d", i), i))
	}
	for _, s := range []*events.Subscription{s1, s2} {
		for i := 1; i <= 100; i++ {
			e := next(t, s)
			if got, want := e.Kind, fmt.Sprintf("e%d", i); got != want || e.ID != ids[i-1] || e.Pos == "" || e.TenantID != "t1" || e.Topic != "channel:c1" || e.At.IsZero() {
				t.Fatalf("event %d: %+v, want kind %s and id %s", i, e, want, ids[i-1])
			}
			var data struct{ N int }
			if err := json.Unmarshal(e.Data, &data); err != nil || data.N != i {
				t.Fatalf("event %d: data %s", i, e.Data)
			}
		}
	}
}

func testTenantsAreApart(t *testing.T, ctx context.Context, b events.Bus) {
	other := subscribe(t, ctx, b, "t2", "")
	mine := subscribe(t, ctx, b, "t1", "")
	publish(t, ctx, b, "t1", "secret", 1)
	publish(t, ctx, b, "t2", "marker", 1)
	if got := next(t, other); got.Kind != "marker" || got.TenantID != "t2" {
		t.Errorf("t2's subscriber received %+v first, want its own marker", got)
	}
	if got := next(t, mine); got.Kind != "secret" {
		t.Errorf("t1's subscriber received %+v", got)
	}
}

func testFromNowMeansFromNow(t *testing.T, ctx context.Context, b events.Bus) {
	publish(t, ctx, b, "t1", "before", 1)
	s := subscribe(t, ctx, b, "t1", "")
	publish(t, ctx, b, "t1", "after", 2)
	if got := next(t, s); got.Kind != "after" {
		t.Errorf("first event %q, want after", got.Kind)
	}
}

func testResumeAfterAPosition(t *testing.T, ctx context.Context, b events.Bus) {
	first := subscribe(t, ctx, b, "t1", "")
	for i := 1; i <= 10; i++ {
		publish(t, ctx, b, "t1", fmt.Sprintf("e%d", i), i)
	}
	var pos []string
	for range 10 {
		e := next(t, first)
		if e.Pos == "" {
			t.Fatalf("%s has no position", e.Kind)
		}
		pos = append(pos, e.Pos)
	}
	s := subscribe(t, ctx, b, "t1", pos[4]) // after e5
	// Live events published while the missed ones are delivered follow
	// them, none lost or repeated.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 11; i <= 15; i++ {
			if _, err := b.Publish(ctx, events.Event{TenantID: "t1", Kind: fmt.Sprintf("e%d", i)}); err != nil {
				t.Errorf("Publish: %v", err)
			}
		}
	}()
	if got, want := kinds(t, s, 10), seq("e", 6, 15); !slices.Equal(got, want) {
		t.Errorf("after e5: %v, want %v", got, want)
	}
	<-done
	// After the last position: only what comes next.
	last := subscribe(t, ctx, b, "t1", pos[9])
	if got, want := kinds(t, last, 5), seq("e", 11, 15); !slices.Equal(got, want) {
		t.Errorf("after e10: %v, want %v", got, want)
	}
}

func testConcurrentPublishers(t *testing.T, ctx context.Context, b events.Bus) {
	s := subscribe(t, ctx, b, "t1", "")
	const publishers, each = 4, 50
	var wg sync.WaitGroup
	for p := range publishers {
		wg.Go(func() {
			for i := range each {
				if _, err := b.Publish(ctx, events.Event{TenantID: "t1", Kind: fmt.Sprintf("p%d-%d", p, i)}); err != nil {
					t.Errorf("Publish: %v", err)
				}
			}
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	lastOf := map[int]int{}
	for range publishers * each {
		e := next(t, s)
		if seen[e.Kind] {
			t.Fatalf("%s received twice", e.Kind)
		}
		seen[e.Kind] = true
		var p, i int
		fmt.Sscanf(e.Kind, "p%d-%d", &p, &i)
		if prev, ok := lastOf[p]; ok && i <= prev {
			t.Fatalf("publisher %d's event %d after its event %d", p, i, prev)
		}
		lastOf[p] = i
	}
}

func testBadPositions(t *testing.T, ctx context.Context, b events.Bus) {
	s := subscribe(t, ctx, b, "t1", "")
	publish(t, ctx, b, "t1", "e1", 1)
	pos := next(t, s).Pos
	for _, bad := range []string{"garbage", "..", pos + "x", "-1"} {
		if s, err := b.Subscribe(ctx, "t1", bad); err == nil {
			s.Close()
			t.Errorf("Subscribe after %q succeeded", bad)
		} else if !errors.Is(err, events.ErrPosition) && !errors.Is(err, events.ErrGap) {
			t.Errorf("Subscribe after %q: %v, want ErrPosition or ErrGap", bad, err)
		}
	}
}

func testASlowSubscriberNeverHoldsUpOthers(t *testing.T, ctx context.Context, b events.Bus) {
	// Nobody reads this subscription: publishing goes on regardless (the
	// loop ends), and the subscription is cut off with its reason. (A bus
	// lets a subscriber fall fewer than n events behind.)
	slow := subscribe(t, ctx, b, "t1", "")
	const n = 2_000
	for i := range n {
		if _, err := b.Publish(ctx, events.Event{TenantID: "t1", Kind: "e"}); err != nil {
			t.Fatalf("Publish %d: %v", i, err)
		}
	}
	held := 0
	for range slow.C {
		held++
	}
	if !errors.Is(slow.Err(), events.ErrTooSlow) || held >= n {
		t.Errorf("the slow subscriber held %d events and ended with %v, want fewer than %d and ErrTooSlow", held, slow.Err(), n)
	}
	// Others go on receiving.
	fresh := subscribe(t, ctx, b, "t1", "")
	publish(t, ctx, b, "t1", "after", 1)
	if got := next(t, fresh); got.Kind != "after" {
		t.Errorf("a new subscriber received %q, want after", got.Kind)
	}
}

func testEndingSubscriptions(t *testing.T, ctx context.Context, b events.Bus) {
	closed := subscribe(t, ctx, b, "t1", "")
	closed.Close()
	closed.Close() // harmless
	for range closed.C {
	}
	if err := closed.Err(); err != nil {
		t.Errorf("after Close: %v, want nil", err)
	}

	cctx, cancel := context.WithCancel(ctx)
	canceled := subscribe(t, cctx, b, "t1", "")
	cancel()
	for range canceled.C {
	}
	if err := canceled.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("after the context ended: %v, want context.Canceled", err)
	}

	open := subscribe(t, ctx, b, "t1", "")
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	for range open.C {
	}
	if err := open.Err(); !errors.Is(err, events.ErrClosed) {
		t.Errorf("after the bus closed: %v, want ErrClosed", err)
	}
	if _, err := b.Publish(ctx, events.Event{TenantID: "t1", Kind: "late"}); !errors.Is(err, events.ErrClosed) {
		t.Errorf("Publish after Close: %v, want ErrClosed", err)
	}
}
