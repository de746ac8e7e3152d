// Package operator serves the console's pages of the operator's tenants
// and services, and of a tenant's assignments of services.
package operator

import "github.com/kanri/kanri/web/console"

// Pages serve the feature's pages, with what every page of the console
// shares.
type Pages struct {
	*console.Console
}

// New returns the pages of the console c.
func New(c *console.Console) *Pages { return &Pages{Console: c} }
