package live

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/web/httpkit"
)

// writeTimeout is how long one write to a stream that has its connection
// may take (two of its heartbeats): a browser that reads nothing for that
// long is gone.
const writeTimeout = 30 * time.Second

// Out is where a stream writes. A stream outlives the request that opened
// it: over HTTP/1.1 it takes the connection over (http.Hijacker) and the
// request ends, so that the server's goroutine for the request, the one
// that reads the connection behind it, and their buffers go (they were
// most of an open stream's memory: BenchmarkMessagingFanout). Where the
// connection cannot be taken (HTTP/2, tests' recorders) the stream runs
// in its request.
type Out struct {
	conn  net.Conn // nil: writes go to the response
	w     io.Writer
	flush func() error
	// head says the request was a HEAD: the answer has no body, and the
	// stream does not run.
	head bool
}

// Start answers with a stream of server-sent events: not stored, not
// buffered by proxies. A stream that has its connection gives each write
// writeTimeout; one in its request has no write deadline. The request's
// CPU slot is released (a stream waits on events, not the CPUs).
func Start(c echo.Context) *Out {
	httpkit.Release(c)
	res := c.Response()
	h := res.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set(echo.HeaderCacheControl, "no-store")
	h.Set("X-Accel-Buffering", "no")
	rc := http.NewResponseController(res)
	head := c.Request().Method == http.MethodHead // served as a GET without its body (httpkit.HeadAsGet)
	if c.Request().ProtoMajor == 1 && !head {
		if conn, _, err := rc.Hijack(); err == nil {
			// The body ends with the connection: no length, no chunks.
			h.Set("Connection", "close")
			h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
			var b bytes.Buffer
			b.WriteString("HTTP/1.1 200 OK\r\n")
			_ = h.Write(&b)
			b.WriteString("\r\n")
			// Answered: nothing after the handler writes an error page
			// over the stream, and the request's log line says 200.
			res.Status, res.Committed = http.StatusOK, true
			o := &Out{conn: conn}
			_ = o.Write(b.Bytes()) // a failure shows at the next write
			return o
		}
	}
	_ = rc.SetWriteDeadline(time.Time{})
	res.WriteHeader(http.StatusOK)
	return &Out{w: res, flush: rc.Flush, head: head}
}

// Write sends b at once.
func (o *Out) Write(b []byte) error {
	if o.conn != nil {
		_ = o.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
		_, err := o.conn.Write(b)
		return err
	}
	if _, err := o.w.Write(b); err != nil {
		return err
	}
	return o.flush()
}

// WriteString sends s at once.
func (o *Out) WriteString(s string) error { return o.Write([]byte(s)) }

// Running counts the streams that run past their requests, so that a
// server shutting down waits for them (they end when the events bus
// closes) before it closes the store they read.
type Running struct {
	wg sync.WaitGroup
}

// Wait waits up to timeout for the streams running to end, and reports
// whether they did.
func (r *Running) Wait(timeout time.Duration) bool {
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(timeout):
		return false
	}
}
