package live

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

// TestAStreamOutlivesItsRequest checks that over HTTP/1.1 a stream takes
// its connection: the request's handler returns while the stream goes on
// writing, and the stream's context ends when the browser goes.
func TestAStreamOutlivesItsRequest(t *testing.T) {
	returned, ended := make(chan struct{}), make(chan struct{})
	next := make(chan string)
	e := echo.New()
	e.GET("/events", func(c echo.Context) error {
		c.Response().Header().Set("X-Request-Id", "r1") // set by middleware before
		out := Start(c)
		if err := out.WriteString("event: hello\ndata: 1\n\n"); err != nil {
			t.Errorf("first write: %v", err)
		}
		out.Run(c.Request().Context(), func(ctx context.Context) {
			<-returned
			for {
				select {
				case s := <-next:
					if err := out.WriteString(s); err != nil {
						t.Errorf("write after the request: %v", err)
					}
				case <-ctx.Done():
					close(ended)
					return
				}
			}
		})
		close(returned)
		return nil
	})
	srv := httptest.NewServer(e)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/events")
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
	if resp.StatusCode != http.StatusOK || !resp.Close {
		t.Errorf("status %d, close %v: want 200 and a body that ends with the connection", resp.StatusCode, resp.Close)
	}
	lines := bufio.NewReader(resp.Body)
	read := func(want string) {
		t.Helper()
		var got strings.Builder
		for !strings.HasSuffix(got.String(), "\n\n") {
			line, err := lines.ReadString('\n')
			if err != nil {
				t.Fatalf("reading %q: %v (so far %q)", want, err, got.String())
			}
			got.WriteString(line)
		}
		if got.String() != want {
			t.Fatalf("got %q, want %q", got.String(), want)
		}
	}
	read("event: hello\ndata: 1\n\n")
	<-returned
	next <- "event: later\ndata: 2\n\n"
	read("event: later\ndata: 2\n\n")

	resp.Body.Close()
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("the stream's context did not end when the browser went")
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
	out.Run(c.Request().Context(), func(ctx context.Context) {
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
