// Package people serves the console's pages of sign-in, one's account
// and two-factor sign-in, and a tenant's users and roles.
package people

import (
	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// Pages serve the feature's pages, with what every page of the console
// shares.
type Pages struct {
	*console.Console
}

// New returns the pages of the console c.
func New(c *console.Console) *Pages { return &Pages{Console: c} }

// relyingParty is where the browser sees the server, for passkeys.
func relyingParty(c echo.Context) auth.RelyingParty {
	return auth.RelyingParty(httpkit.BaseURL(c))
}
