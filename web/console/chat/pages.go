// Package chat serves the console's pages of a tenant's channels and
// messages.
package chat

import "github.com/kanri/kanri/web/console"

// Pages serve the feature's pages, with what every page of the console
// shares.
type Pages struct {
	*console.Console
}

// New returns the pages of the console c.
func New(c *console.Console) *Pages { return &Pages{Console: c} }
