package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// headAsGet answers HEAD as GET (RFC 9110 §9.3.2): before routing, the
// request becomes a GET (Echo routes the request the server holds, so it
// is changed in place), and its answer's status and headers are sent
// without its body.
func headAsGet(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if req := c.Request(); req.Method == http.MethodHead {
			req.Method = http.MethodGet
			c.Response().Writer = headWriter{c.Response().Writer}
		}
		return next(c)
	}
}

// headWriter is the writer of a HEAD request's answer: it sends no body.
type headWriter struct{ http.ResponseWriter }

func (w headWriter) Write(b []byte) (int, error) { return len(b), nil }

// Unwrap returns the writer underneath, for http.ResponseController.
func (w headWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
