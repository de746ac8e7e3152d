package web

import (
	"github.com/kanri/kanri/web/api"
	"github.com/kanri/kanri/web/api/accountapi"
	"github.com/kanri/kanri/web/api/chatapi"
	"github.com/kanri/kanri/web/api/fileapi"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/console/backups"
	"github.com/kanri/kanri/web/console/chat"
	"github.com/kanri/kanri/web/console/filepages"
	"github.com/kanri/kanri/web/console/operator"
	"github.com/kanri/kanri/web/console/organisation"
	"github.com/kanri/kanri/web/console/people"
)

// feature is what one feature serves over HTTP: its console pages and its
// API operations (either may be nil).
type feature struct {
	pages console.Pages
	api   func(*api.Server) api.Feature
}

// features are the features the server serves, one line each: a new
// feature adds its line here, and its routes reach the permission matrix,
// the CSRF walk and the OpenAPI document through it.
func (s *Server) features() []feature {
	return []feature{
		{pages: people.New(s.Console), api: accountapi.New},
		{pages: operator.New(s.Console)},
		{pages: organisation.New(s.Console)},
		{pages: filepages.New(s.Console), api: fileapi.New},
		{pages: chat.New(s.Console), api: chatapi.New},
		{pages: backups.New(s.Console, s.live)},
	}
}
