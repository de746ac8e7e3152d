package api

import (
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/web/httpkit"
)

// apiMeKey is the request's API key as GET /me shows it: never its
// secret or hash.
type apiMeKey struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Prefix    string     `json:"prefix"`
	Scopes    []string   `json:"scopes"`
	CreatedAt kanri.Time `json:"createdAt"`
	ExpiresAt kanri.Time `json:"expiresAt"`
}

// apiMe is the answer of GET /me.
type apiMe struct {
	Key    apiMeKey `json:"key"`
	Tenant struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		DisplayName string `json:"displayName"`
	} `json:"tenant"`
	RateLimit struct {
		Limit         int    `json:"limit"`
		Window        string `json:"window"`
		WindowSeconds int    `json:"windowSeconds"`
	} `json:"rateLimit"`
}

// apiMe answers with the request's key, its tenant and its rate limit.
func (s *Server) apiMe(c echo.Context) error {
	k, t := KeyOf(c), httpkit.Tenant(c)
	var me apiMe
	me.Key = apiMeKey{ID: k.ID, Name: k.Name, Prefix: k.KeyPrefix, Scopes: k.Scopes, CreatedAt: k.CreatedAt, ExpiresAt: k.ExpiresAt}
	if me.Key.Scopes == nil {
		me.Key.Scopes = []string{}
	}
	me.Tenant.ID, me.Tenant.Name, me.Tenant.DisplayName = t.ID, t.Name, t.DisplayName
	me.RateLimit.Limit, me.RateLimit.Window = k.RateLimit, k.RateLimitWindow
	me.RateLimit.WindowSeconds = int(k.Window() / time.Second)
	return SendTagged(c, me)
}
