package web

import "github.com/labstack/echo/v4"

// routes declares every route of the console, in one place.
func (s *Server) routes(e *echo.Echo) {
	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
}
