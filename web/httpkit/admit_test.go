package httpkit_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/web/httpkit"
)

// TestAdmissionQueuesInOrder checks that an Admission of one place runs
// one handler at a time, in the order the requests came, lets the next in
// when a handler releases its place early, and lets a waiting request go
// when its client does.
func TestAdmissionQueuesInOrder(t *testing.T) {
	e := echo.New()
	a := httpkit.NewAdmission(1)
	var (
		mu      sync.Mutex
		ran     []string
		active  int
		most    int
		proceed = map[string]chan struct{}{}
	)
	for _, name := range []string{"first", "second", "third", "streamer"} {
		proceed[name] = make(chan struct{})
	}
	h := a.Middleware(func(c echo.Context) error {
		name := c.QueryParam("n")
		mu.Lock()
		ran = append(ran, name)
		active++
		most = max(most, active)
		mu.Unlock()
		if name == "streamer" {
			httpkit.Release(c) // from now on it waits on the network
			mu.Lock()
			active--
			mu.Unlock()
			<-proceed[name]
			return nil
		}
		<-proceed[name]
		mu.Lock()
		active--
		mu.Unlock()
		return nil
	})
	serve := func(ctx context.Context, name string) <-chan error {
		done := make(chan error, 1)
		go func() {
			req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/?n="+name, nil)
			done <- h(e.NewContext(req, httptest.NewRecorder()))
		}()
		return done
	}
	started := func(n int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			got := len(ran)
			mu.Unlock()
			if got >= n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d handlers started, want %d", got, n)
			}
			time.Sleep(time.Millisecond)
		}
	}
	streamer := serve(context.Background(), "streamer")
	started(1)
	first := serve(context.Background(), "first")
	started(2) // the streamer gave its place up
	cancelled, cancel := context.WithCancel(context.Background())
	gone := serve(cancelled, "gone")
	second := serve(context.Background(), "second")
	cancel()
	if err := <-gone; !errors.Is(err, context.Canceled) {
		t.Errorf("a request whose client went while it waited: %v, want context.Canceled", err)
	}
	close(proceed["first"])
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	started(3)
	third := serve(context.Background(), "third")
	close(proceed["second"])
	<-second
	started(4)
	close(proceed["third"])
	<-third
	close(proceed["streamer"])
	<-streamer
	if got, want := ran, []string{"streamer", "first", "second", "third"}; !slices.Equal(got, want) {
		t.Errorf("ran %v, want %v", got, want)
	}
	if most != 1 {
		t.Errorf("%d handlers used the CPUs at once, want 1", most)
	}
}
