package main

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The garbage collector's target follows how often it runs, unless GOGC
// is set. Kanri's live heap is small (about 3 MB idle, 10 MB serving 200
// clients), so its cost is how often it collects. Under load requests
// allocate fast and GOGC=100 collects many times a second: 400 serves a
// sixth more (BenchmarkHTTPLoad/Mixed, one run each: 1,345 req/s at 400,
// 1,231 at 200, 1,149 at 100). But at 400 a quiet server lets its heap
// grow to the runtime's smallest target, 4 MiB times GOGC/100 (16 MiB),
// before the first collection: most of what a server receiving an upload
// holds (BenchmarkFileTransfer, 256 MB in 64 MB PATCHes: peak RSS 29.7
// MiB at 100, 33.8 at 400). So the collector starts at 100, goes to 400
// once it runs more than fastGCs times a second, and back to 100 when it
// runs fewer than slowGCs times.
const (
	quietGCPercent = 100
	busyGCPercent  = 400
	fastGCs        = 10
	slowGCs        = 2
)

// gcPercentFor returns the GOGC to use after a second in which the
// collector ran cycles times at percent.
func gcPercentFor(percent int, cycles uint64) int {
	switch {
	case cycles > fastGCs:
		return busyGCPercent
	case cycles < slowGCs:
		return quietGCPercent
	}
	return percent
}

// tuneGC sets GOGC each second from the collector's cycles in the second
// before (gcPercentFor), until ctx is done.
func tuneGC(ctx context.Context) {
	percent := quietGCPercent
	debug.SetGCPercent(percent)
	sample := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(sample)
	last := sample[0].Value.Uint64()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		metrics.Read(sample)
		n := sample[0].Value.Uint64()
		if p := gcPercentFor(percent, n-last); p != percent {
			percent = p
			debug.SetGCPercent(p)
		}
		last = n
	}
}
