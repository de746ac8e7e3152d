package scim

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// Register adds SCIM's routes to e.
func (s *Server) Register(e *echo.Echo) {
	g := e.Group("/scim/v2/:tenant", s.authenticate)
	for _, r := range []struct {
		method, path string
		h            echo.HandlerFunc
	}{
		{http.MethodGet, "/ServiceProviderConfig", s.serviceProviderConfig},
		{http.MethodGet, "/ResourceTypes", s.resourceTypes},
		{http.MethodGet, "/ResourceTypes/User", s.resourceType},
		{http.MethodGet, "/ResourceTypes/Group", s.groupResourceType},
		{http.MethodGet, "/Schemas", s.schemas},
		{http.MethodGet, "/Schemas/:id", s.schema},
		{http.MethodGet, "/Users", s.list},
		{http.MethodPost, "/Users", s.create},
		{http.MethodGet, "/Users/:id", s.get},
		{http.MethodPut, "/Users/:id", s.replace},
		{http.MethodPatch, "/Users/:id", s.patch},
		{http.MethodDelete, "/Users/:id", s.delete},
		{http.MethodGet, "/Groups", s.listGroups},
		{http.MethodPost, "/Groups", s.createGroup},
		{http.MethodGet, "/Groups/:id", s.getGroup},
		{http.MethodPut, "/Groups/:id", s.replaceGroup},
		{http.MethodPatch, "/Groups/:id", s.patchGroup},
		{http.MethodDelete, "/Groups/:id", s.deleteGroup},
	} {
		g.Add(r.method, r.path, r.h).Name = RouteName
	}
}
