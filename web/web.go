// Package web is Kanri's HTTP layer: Echo routes that render templ views.
// It depends on the domain, the services and the tenant-scoped store, never
// on a store backend.
package web

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/internal/user"
)

// Session lifetimes.
const (
	IdleTimeout     = 30 * time.Minute
	AbsoluteTimeout = 12 * time.Hour
)

// Config holds the web layer's dependencies.
type Config struct {
	Store   *store.Store
	Tenants *tenant.Service
	Users   *user.Service
	Auth    *auth.Service
	Roles   *role.Service
	Audit   *audit.Log
	Logger  *slog.Logger
	// SessionKeys are the keys of the session cookie: a 32- or 64-byte
	// authentication key, then optionally a 32-byte encryption key.
	SessionKeys [][]byte
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Server holds what the handlers share.
type Server struct {
	store    *store.Store
	tenants  *tenant.Service
	users    *user.Service
	auth     *auth.Service
	roles    *role.Service
	audit    *audit.Log
	log      *slog.Logger
	sessions *sessions.CookieStore
	now      func() time.Time
}

// New returns the console's HTTP handler.
func New(cfg Config) http.Handler {
	s := &Server{
		store: cfg.Store, tenants: cfg.Tenants, users: cfg.Users, auth: cfg.Auth, roles: cfg.Roles, audit: cfg.Audit,
		log: cfg.Logger, now: cfg.Now,
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.sessions = sessions.NewCookieStore(cfg.SessionKeys...)
	s.sessions.Options = &sessions.Options{
		Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode, MaxAge: int(AbsoluteTimeout / time.Second),
	}
	s.sessions.MaxAge(int(AbsoluteTimeout / time.Second))
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	s.routes(e)
	return e
}
