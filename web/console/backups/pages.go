// Package backups serves the console's pages of a tenant's backups:
// the jobs, their runs and archives, restores, and a run's progress live.
package backups

import (
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/live"
)

// Pages serve the feature's pages, with what every page of the console
// shares.
type Pages struct {
	*console.Console
	live *live.Streams // a running backup's progress
}

// New returns the pages of the console c, whose progress streams run on
// streams.
func New(c *console.Console, streams *live.Streams) *Pages { return &Pages{Console: c, live: streams} }
