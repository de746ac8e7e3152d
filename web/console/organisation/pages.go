// Package organisation serves the console's pages of a tenant's
// settings, e-mail domains, API keys and audit log.
package organisation

import "github.com/kanri/kanri/web/console"

// Pages serve the feature's pages, with what every page of the console
// shares.
type Pages struct {
	*console.Console
}

// New returns the pages of the console c.
func New(c *console.Console) *Pages { return &Pages{Console: c} }
