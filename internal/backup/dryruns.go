package backup

import (
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// dryRunTTL is how long a dry run's result serves the pages of its changes
// and the restore form shown again, before it is found anew.
const dryRunTTL = 10 * time.Minute

// dryRunsKept bounds the results an instance keeps at once.
const dryRunsKept = 16

// dryRuns keeps the whole result of recent dry runs, per instance, so that
// paging through the changes, or showing the restore form again after a
// wrong confirmation, costs a page rather than reading the archive and the
// tenant again. Two requests for the same dry run at once share one
// computation. A restore of the tenant forgets its results.
type dryRuns struct {
	mu    sync.Mutex
	kept  map[string]*DryRun // by dryRunKey, with every change
	group singleflight.Group
}

// dryRunKey names a dry run: the restorer matters, since a restore keeps
// the restorer's own user and roles.
func dryRunKey(tenantID, historyID, userID string, parts []string) string {
	return strings.Join([]string{tenantID, historyID, userID, strings.Join(parts, ",")}, "\x00")
}

// get returns the kept result of key while it is fresh at now.
func (d *dryRuns) get(key string, now time.Time) *DryRun {
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.kept[key]
	if r == nil || now.Sub(r.ComputedAt) >= dryRunTTL || now.Before(r.ComputedAt) {
		return nil
	}
	return r
}

// put keeps r as key's result, first dropping the stale results and, when
// still full, the oldest.
func (d *dryRuns) put(key string, r *DryRun, now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.kept == nil {
		d.kept = map[string]*DryRun{}
	}
	for k, old := range d.kept {
		if now.Sub(old.ComputedAt) >= dryRunTTL {
			delete(d.kept, k)
		}
	}
	for len(d.kept) >= dryRunsKept {
		oldest := ""
		for k, old := range d.kept {
			if oldest == "" || old.ComputedAt.Before(d.kept[oldest].ComputedAt) {
				oldest = k
			}
		}
		delete(d.kept, oldest)
	}
	d.kept[key] = r
}

// forget drops the tenant's results: after a restore they are out of date.
func (d *dryRuns) forget(tenantID string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for k := range d.kept {
		if strings.HasPrefix(k, tenantID+"\x00") {
			delete(d.kept, k)
		}
	}
}
