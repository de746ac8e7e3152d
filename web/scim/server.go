// Package scim serves provisioning by SCIM 2.0 (RFC 7644) at
// /scim/v2/{tenant}: it reads the tenant's bearer token and the requests'
// JSON, calls the scim service, and writes its answers and errors in
// SCIM's format. It reads no cookie: a signed-in browser is nobody here.
package scim

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/scim"
)

// RouteName names SCIM's routes: a token, not a session, admits them.
const RouteName = "scim"

// Server serves SCIM.
type Server struct {
	SCIM   *scim.Service
	Logger *slog.Logger
	// BaseURL returns the server's address as the client reached it.
	BaseURL func(echo.Context) string
}

// authenticate admits a request with the tenant's bearer token.
func (s *Server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		scheme, token, ok := strings.Cut(c.Request().Header.Get(echo.HeaderAuthorization), " ")
		ok = ok && strings.EqualFold(scheme, "Bearer") // schemes are case-insensitive (RFC 9110, 11.1)
		ctx, err := s.SCIM.Authenticate(c.Request().Context(), c.Param("tenant"), strings.TrimSpace(token))
		if !ok || err != nil {
			if err != nil && !kanri.IsCode(err, kanri.EUNAUTHENTICATED) {
				return err
			}
			c.Response().Header().Set("WWW-Authenticate", `Bearer realm="scim"`)
			return &scim.Error{Status: http.StatusUnauthorized, Detail: "a valid bearer token of this organisation is required"}
		}
		c.SetRequest(c.Request().WithContext(ctx))
		return next(c)
	}
}

// HandleError answers a SCIM request's error in SCIM's format.
func (s *Server) HandleError(err error, c echo.Context) {
	var se *scim.Error
	var he *echo.HTTPError
	switch {
	case errors.As(err, &se):
	case errors.As(err, &he):
		se = &scim.Error{Status: he.Code, Detail: http.StatusText(he.Code)}
		if he.Code == http.StatusNotFound {
			se.Detail = "no such endpoint: Kanri provisions Users (no Groups, no Bulk)"
		}
	case kanri.IsCode(err, kanri.EBUSY):
		se = &scim.Error{Status: http.StatusServiceUnavailable, Detail: "busy: try again"}
	default:
		s.Logger.ErrorContext(c.Request().Context(), "scim: request failed", "path", c.Path(), "request_id", c.Response().Header().Get(echo.HeaderXRequestID), "err", err)
		se = &scim.Error{Status: http.StatusInternalServerError, Detail: "internal error"}
	}
	body := map[string]any{"schemas": []string{scim.SchemaError}, "status": strconv.Itoa(se.Status), "detail": se.Detail}
	if se.SCIMType != "" {
		body["scimType"] = se.SCIMType
	}
	_ = write(c, se.Status, body)
}

// base is the Users endpoint's URL.
func (s *Server) base(c echo.Context) string {
	return s.BaseURL(c) + "/scim/v2/" + c.Param("tenant") + "/Users"
}
