package web

import (
	"github.com/kanri/kanri/web/api"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/live"
)

// Feature is what one feature serves over HTTP: its console pages, made
// over the console and its live streams, and its API operations (either
// may be nil). The composition root passes the features' in Config; their
// routes reach the permission matrix, the CSRF walk and the OpenAPI
// document through them.
type Feature struct {
	Pages func(*console.Console, *live.Streams) console.Pages
	API   func(*api.Server) api.Feature
}
