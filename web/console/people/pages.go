// Package people serves the console's pages of sign-in, one's account
// and two-factor sign-in, and a tenant's users and roles.
package people

import "github.com/kanri/kanri/web/console"

// Pages serve the feature's pages, with what every page of the console
// shares.
type Pages struct {
	*console.Console
}

// New returns the pages of the console c.
func New(c *console.Console) *Pages { return &Pages{Console: c} }
