package api

import (
	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
)

// Context keys of API requests: the request's API key, what it may do,
// and a mark that the call is not to be logged.
const (
	KeyAPIKey   = "apikey"
	ctxGrant    = "apigrant"
	ctxUnlogged = "unlogged"
)

// KeyOf returns the request's API key.
func KeyOf(c echo.Context) *kanri.APIKey { return c.Get(KeyAPIKey).(*kanri.APIKey) }

// GrantOf returns what the request's key may do.
func GrantOf(c echo.Context) *Grant { return c.Get(ctxGrant).(*Grant) }
