// Package transfer serves the console's pages of importing a tenant's
// users from a CSV file, and the exports of its users, role assignments
// and files' metadata as CSV and JSON (docs/import-export.md).
package transfer

import "github.com/kanri/kanri/web/console"

// Pages serve the feature's pages, with what every page of the console
// shares.
type Pages struct{ *console.Console }

// New returns the pages of the console c.
func New(c *console.Console) *Pages { return &Pages{Console: c} }
