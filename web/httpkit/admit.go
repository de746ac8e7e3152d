package httpkit

import (
	"sync"

	"github.com/labstack/echo/v4"
)

// Admission lets a bounded number of requests run their handlers at once;
// the others wait their turn, first come first served (the order in which
// Go serves a channel's waiting senders), for as long as their client
// waits. With more requests than the CPUs keep up with, each then waits
// about as long as any other, plus its own work: rather than hundreds of
// requests sharing the CPUs, the slowest pages taking many times longer
// than the rest and some clients giving up. A request that streams (a
// live stream, a download, an upload) gives its place up once it starts
// (Release), since it waits on the network, not the CPUs.
type Admission struct {
	slots chan struct{}
}

// NewAdmission returns an Admission of n places; n < 1 admits everyone at
// once.
func NewAdmission(n int) *Admission {
	if n < 1 {
		return &Admission{}
	}
	return &Admission{slots: make(chan struct{}, n)}
}

// keyRelease is the context key of the function that gives a request's
// place up.
const keyRelease = "admission.release"

// Middleware admits each request in its turn.
func (a *Admission) Middleware(next echo.HandlerFunc) echo.HandlerFunc {
	if a.slots == nil {
		return next
	}
	return func(c echo.Context) error {
		select {
		case a.slots <- struct{}{}:
		case <-c.Request().Context().Done():
			return c.Request().Context().Err() // the client went while waiting (logged as such)
		}
		release := sync.OnceFunc(func() { <-a.slots })
		defer release()
		c.Set(keyRelease, release)
		return next(c)
	}
}

// Release gives up the request's place, for a handler that goes on to
// stream; it does nothing when the request has none.
func Release(c echo.Context) {
	if f, ok := c.Get(keyRelease).(func()); ok {
		f()
	}
}
