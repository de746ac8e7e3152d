package live

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/events"
)

// streamServer serves GET and HEAD /events with a stream that writes
// "event: hello" and then runs run, through s.
func streamServer(t *testing.T, s *Streams, run func(ctx context.Context, out *Out)) (*httptest.Server, <-chan struct{}) {
	t.Helper()
	returned := make(chan struct{}, 1)
	e := echo.New()
	e.Match([]string{http.MethodGet, http.MethodHead}, "/events", func(c echo.Context) error {
		c.Response().Header().Set("X-Request-Id", "r1") // set by middleware before
		out := Start(c)
		if err := out.WriteString("event: hello\ndata: 1\n\n"); err != nil {
			t.Errorf("first write: %v", err)
		}
		s.Run(c.Request().Context(), out, func(ctx context.Context) { run(ctx, out) })
		returned <- struct{}{}
		return nil
	})
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return srv, returned
}

// readEvent reads one event from r and checks it is want.
func readEvent(t *testing.T, r *bufio.Reader, want string) {
	t.Helper()
	var got strings.Builder
	for !strings.HasSuffix(got.String(), "\n\n") {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading %q: %v (so far %q)", want, err, got.String())
		}
		got.WriteString(line)
	}
	if got.String() != want {
		t.Fatalf("got %q, want %q", got.String(), want)
	}
}

// client is an HTTP client that gives up, so that a stream that never
// ends fails its test rather than hangs it.
var client = &http.Client{Timeout: 30 * time.Second}

// TestAStreamOutlivesItsRequest checks that over HTTP/1.1 a stream takes
// its connection: the request's handler returns while the stream goes on
// writing, the stream's context ends when the browser goes, and the
// shutdown's wait (Running) waits for it.
func TestAStreamOutlivesItsRequest(t *testing.T) {
	s := &Streams{Running: &Running{}}
	next, ended := make(chan string), make(chan struct{})
	srv, returned := streamServer(t, s, func(ctx context.Context, out *Out) {
		for {
			select {
			case m := <-next:
				if err := out.WriteString(m); err != nil {
					t.Errorf("write after the request: %v", err)
				}
			case <-ctx.Done():
				close(ended)
				return
			}
		}
	})
	resp, err := client.Get(srv.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []struct{ name, want string }{
		{"Content-Type", "text/event-stream"},
		{"Cache-Control", "no-store"},
		{"X-Accel-Buffering", "no"},
		{"X-Request-Id", "r1"},
	} {
		if got := resp.Header.Get(h.name); got != h.want {
			t.Errorf("%s: got %q, want %q", h.name, got, h.want)
		}
	}
	if resp.StatusCode != http.StatusOK || !resp.Close || resp.Header.Get("Date") == "" {
		t.Errorf("status %d, close %v, date %q: want 200, a body that ends with the connection, and a date", resp.StatusCode, resp.Close, resp.Header.Get("Date"))
	}
	r := bufio.NewReader(resp.Body)
	readEvent(t, r, "event: hello\ndata: 1\n\n")
	<-returned
	next <- "event: later\ndata: 2\n\n"
	readEvent(t, r, "event: later\ndata: 2\n\n")
	if s.Running.Wait(10 * time.Millisecond) {
		t.Error("Running.Wait returned while the stream runs")
	}

	resp.Body.Close()
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("the stream's context did not end when the browser went")
	}
	if !s.Running.Wait(30 * time.Second) {
		t.Error("Running.Wait did not return once the stream ended")
	}
}

// TestAStreamThatEndsClosesItsConnection checks that the browser sees the
// end of a stream that the server ends, and that a stream's panic is
// logged rather than the server's end.
func TestAStreamThatEndsClosesItsConnection(t *testing.T) {
	for _, panics := range []bool{false, true} {
		var logged bytes.Buffer
		var mu sync.Mutex
		s := &Streams{Logger: slog.New(slog.NewTextHandler(lockedWriter{&mu, &logged}, nil))}
		srv, _ := streamServer(t, s, func(ctx context.Context, out *Out) {
			_ = out.WriteString("event: bye\ndata: 2\n\n")
			if panics {
				panic("a bug in a stream")
			}
		})
		resp, err := client.Get(srv.URL + "/events")
		if err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(resp.Body)
		readEvent(t, r, "event: hello\ndata: 1\n\n")
		readEvent(t, r, "event: bye\ndata: 2\n\n")
		if rest, err := io.ReadAll(r); err != nil || len(rest) > 0 {
			t.Errorf("panics %v: after the last event: %q, %v; want the end of the body", panics, rest, err)
		}
		resp.Body.Close()
		mu.Lock()
		got := strings.Contains(logged.String(), "a bug in a stream")
		mu.Unlock()
		if got != panics {
			t.Errorf("panics %v: the log says the panic: %v\n%s", panics, got, logged.String())
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// TestAHeadOfAStreamHasNoBody checks that a HEAD request is answered with
// the stream's headers and no body, at once, on the wire (a Go client
// would not read a body a HEAD's answer wrongly has).
func TestAHeadOfAStreamHasNoBody(t *testing.T) {
	ran := make(chan bool, 1)
	srv, _ := streamServer(t, &Streams{}, func(ctx context.Context, out *Out) {
		<-ctx.Done() // a HEAD's stream context has ended
		ran <- true
	})
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, "HEAD /events HTTP/1.1\r\nHost: kanri\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(conn) // to the server's close
	head, body, _ := strings.Cut(string(raw), "\r\n\r\n")
	if err != nil || !strings.HasPrefix(head, "HTTP/1.1 200 OK") || !strings.Contains(head, "Content-Type: text/event-stream") || body != "" {
		t.Errorf("HEAD answered (%v):\n%s", err, raw)
	}
	conn.Close()
	select {
	case <-ran:
	case <-time.After(30 * time.Second):
		t.Error("the stream did not run, or not with its context ended")
	}
}

// TestAStreamRunsInItsRequestWithoutTheConnection checks the stream of a
// response that cannot give its connection (HTTP/2, a recorder): it runs
// in the request, with the request's context, through the response.
func TestAStreamRunsInItsRequestWithoutTheConnection(t *testing.T) {
	e := echo.New()
	rec := httptest.NewRecorder()
	c := e.NewContext(httptest.NewRequest(http.MethodGet, "/events", nil), rec)
	out := Start(c)
	ran := false
	(&Streams{}).Run(c.Request().Context(), out, func(ctx context.Context) {
		ran = ctx == c.Request().Context()
		if err := out.WriteString("event: hello\ndata: 1\n\n"); err != nil {
			t.Errorf("write: %v", err)
		}
	})
	if !ran {
		t.Error("Run did not run in the request, with its context")
	}
	if got, want := rec.Body.String(), "event: hello\ndata: 1\n\n"; got != want {
		t.Errorf("body %q, want %q", got, want)
	}
	if got, want := rec.Header().Get("Content-Type"), "text/event-stream"; got != want {
		t.Errorf("Content-Type %q, want %q", got, want)
	}
	if !rec.Flushed {
		t.Error("the write was not flushed")
	}
}

// TestASubscriptionOutlivesTheRequestThatMadeIt checks that a stream's
// subscription lasts past its request's end, and that one made by a
// request that had ended is refused.
func TestASubscriptionOutlivesTheRequestThatMadeIt(t *testing.T) {
	bus := events.NewLocal()
	defer bus.Close()
	s := &Streams{Events: bus}
	ctx, cancel := context.WithCancel(context.Background())
	sub, err := s.Subscribe(ctx, "tenant_a", "")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	cancel() // the request ends
	if _, err := bus.Publish(context.Background(), events.Event{TenantID: "tenant_a", Topic: "t", Kind: "k"}); err != nil {
		t.Fatal(err)
	}
	select {
	case e, ok := <-sub.C:
		if !ok || e.Kind != "k" {
			t.Errorf("got %+v, %v; want the event published after the request ended", e, ok)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no event after the request ended")
	}
	if _, err := s.Subscribe(ctx, "tenant_a", ""); err == nil {
		t.Error("a subscription by a request that had ended was made")
	}
}
