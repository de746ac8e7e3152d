package web

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// healthz answers while the process is alive.
func (s *Server) healthz(c echo.Context) error {
	return c.String(http.StatusOK, "ok")
}

// readyz answers 200 when the document store is reachable, 503 otherwise.
func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 5*time.Second)
	defer cancel()
	if err := s.Store.Ping(ctx); err != nil {
		s.Logger.Warn("readiness check failed", "err", err)
		return c.String(http.StatusServiceUnavailable, "store unreachable")
	}
	msg := "ready"
	if lost := s.Audit.Lost(); lost > 0 {
		msg += fmt.Sprintf("; %d audit records lost since the start (see the log)", lost)
	}
	if s.Usage != nil && s.Usage.Lost() > 0 {
		msg += fmt.Sprintf("; %d API calls not logged since the start (see the log)", s.Usage.Lost())
	}
	return c.String(http.StatusOK, msg)
}
