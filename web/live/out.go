package live

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
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
}

// Start answers with a stream of server-sent events: not stored, not
// buffered by proxies, with no write deadline but writeTimeout for each
// write. The request's CPU slot is released (a stream waits on events,
// not the CPUs).
func Start(c echo.Context) *Out {
	httpkit.Release(c)
	res := c.Response()
	h := res.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set(echo.HeaderCacheControl, "no-store")
	h.Set("X-Accel-Buffering", "no")
	rc := http.NewResponseController(res)
	if c.Request().ProtoMajor == 1 {
		if conn, _, err := rc.Hijack(); err == nil {
			// The body ends with the connection: no length, no chunks.
			h.Set("Connection", "close")
			var head bytes.Buffer
			head.WriteString("HTTP/1.1 200 OK\r\n")
			_ = h.Write(&head)
			head.WriteString("\r\n")
			res.Status = http.StatusOK // for the request's log line
			o := &Out{conn: conn}
			_ = o.Write(head.Bytes()) // a failure shows at the next write
			return o
		}
	}
	_ = rc.SetWriteDeadline(time.Time{})
	res.WriteHeader(http.StatusOK)
	return &Out{w: res, flush: rc.Flush}
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

// Run runs the rest of the stream. When the stream has its connection, run
// goes on a goroutine of its own, with ctx's values but not its end (the
// request is over): its context ends when the browser closes the
// connection, and the connection is closed when run returns. Otherwise run
// runs in the request, with ctx.
func (o *Out) Run(ctx context.Context, run func(ctx context.Context)) {
	if o.conn == nil {
		run(ctx)
		return
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		// The browser sends nothing more: a read ends when it goes (or
		// when run closes the connection).
		var b [1]byte
		_, _ = o.conn.Read(b[:])
		cancel()
	}()
	go func() {
		defer o.conn.Close()
		defer cancel()
		run(ctx)
	}()
}
