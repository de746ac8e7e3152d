package files

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/kanri"
)

// meter records the file service's usage (storageUsed and bandwidth of
// file-service: docs/data-model.md, "Services") off the request path:
// downloads add their bytes to a per-tenant sum and changes of storage mark
// the tenant, and every flushEvery the sums go to the usage recorder in one
// write per tenant. Nothing is lost under concurrency: sums are taken under
// a lock and a failed write puts them back.
type meter struct {
	catalog Catalog
	log     *slog.Logger
	store   func(ctx context.Context, tenantID string) (*kanri.FileStorage, error)

	mu        sync.Mutex
	bandwidth map[string]int64
	stored    map[string]bool
	kick      chan struct{}
}

// flushEvery is how long usage waits before it is written.
const flushEvery = time.Second

func newMeter(c Catalog, log *slog.Logger) *meter {
	return &meter{catalog: c, log: log, bandwidth: map[string]int64{}, stored: map[string]bool{}, kick: make(chan struct{}, 1)}
}

// download adds n bytes sent to the tenant's bandwidth.
func (m *meter) download(tenantID string, n int64) {
	if n <= 0 {
		return
	}
	m.mu.Lock()
	m.bandwidth[tenantID] += n
	m.mu.Unlock()
}

// storage marks the tenant's storage as changed.
func (m *meter) storage(tenantID string) {
	m.mu.Lock()
	m.stored[tenantID] = true
	m.mu.Unlock()
}

// run flushes until ctx ends, and once more then.
func (m *meter) run(ctx context.Context) {
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.flush(ctx)
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			m.flush(fctx)
			cancel()
			return
		}
	}
}

// flush writes what was measured since the last flush.
func (m *meter) flush(ctx context.Context) {
	m.mu.Lock()
	bw, stored := m.bandwidth, m.stored
	m.bandwidth, m.stored = map[string]int64{}, map[string]bool{}
	m.mu.Unlock()
	for tenantID, n := range bw {
		if err := m.catalog.AddUsage(ctx, tenantID, kanri.FileServiceID, map[string]int64{kanri.MetricBandwidth: n}); err != nil {
			m.log.Warn("file bandwidth not recorded; kept for the next flush", "tenant", tenantID, "err", err)
			m.download(tenantID, n)
		}
	}
	for tenantID := range stored {
		st, err := m.store(ctx, tenantID)
		if err == nil {
			err = m.catalog.SetUsage(ctx, tenantID, kanri.FileServiceID, map[string]int64{kanri.MetricStorageUsed: st.Used + st.Trash})
		}
		if err != nil {
			m.log.Warn("storage used not recorded; kept for the next flush", "tenant", tenantID, "err", err)
			m.storage(tenantID)
		}
	}
}

// toucher writes files' lastAccessedAt off the request path, at most once
// a minute per file: reads only note the access.
type toucher struct {
	deps    app.Deps
	mu      sync.Mutex
	pending map[[2]string]time.Time // (tenant, file) → when last read
	written map[[2]string]time.Time // (tenant, file) → when last written
}

// touchEvery is how often a file's lastAccessedAt is written at most.
const touchEvery = time.Minute

// maxTouched is how many files' last writes the toucher remembers.
const maxTouched = 10_000

func newToucher(d app.Deps) *toucher {
	return &toucher{deps: d, pending: map[[2]string]time.Time{}, written: map[[2]string]time.Time{}}
}

// note records that a file was read at now.
func (t *toucher) note(tenantID, fileID string, now time.Time) {
	k := [2]string{tenantID, fileID}
	t.mu.Lock()
	defer t.mu.Unlock()
	if w, ok := t.written[k]; ok && now.Sub(w) < touchEvery {
		return
	}
	t.pending[k] = now
}

func (t *toucher) run(ctx context.Context) {
	tick := time.NewTicker(flushEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			t.flush(ctx)
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			t.flush(fctx)
			cancel()
			return
		}
	}
}

func (t *toucher) flush(ctx context.Context) {
	t.mu.Lock()
	pending := t.pending
	t.pending = map[[2]string]time.Time{}
	if len(t.written) > maxTouched {
		t.written = map[[2]string]time.Time{}
	}
	for k, at := range pending {
		t.written[k] = at
	}
	t.mu.Unlock()
	for k, at := range pending {
		_, err := t.deps.Store.Tenant(k[0]).Files().Modify(ctx, k[1], nil, func(f *kanri.File) error {
			if !f.LastAccessedAt.Before(at) {
				return errUnchanged
			}
			f.LastAccessedAt = kanri.NewTime(at)
			return nil
		})
		if err != nil && err != errUnchanged && !kanri.IsCode(err, kanri.ENOTFOUND) {
			t.deps.Logger.Warn("lastAccessedAt not written", "tenant", k[0], "file", k[1], "err", err)
		}
	}
}

// errUnchanged stops a Modify that has nothing to write.
var errUnchanged = errors.New("files: nothing to write")
