package scim

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/scim"
)

// groupsBase is the Groups endpoint's URL.
func (s *Server) groupsBase(c echo.Context) string {
	return s.BaseURL(c) + "/scim/v2/" + c.Param("tenant") + "/Groups"
}

// group writes a group's resource with its ETag.
func group(c echo.Context, status int, g *scim.Group) error {
	c.Response().Header().Set(echo.HeaderLocation, g.Meta.Location)
	c.Response().Header().Set("ETag", g.Meta.Version)
	return write(c, status, g)
}

func (s *Server) listGroups(c echo.Context) error {
	start, count, err := paging(c)
	if err != nil {
		return err
	}
	total, gs, err := s.SCIM.ListGroups(c.Request().Context(), c.Param("tenant"), c.QueryParam("filter"), start, count, s.groupsBase(c), s.base(c))
	if err != nil {
		return err
	}
	if gs == nil {
		gs = []*scim.Group{}
	}
	return write(c, http.StatusOK, map[string]any{
		"schemas": []string{scim.SchemaListResponse}, "totalResults": total, "startIndex": max(start, 1), "itemsPerPage": len(gs), "Resources": gs,
	})
}

func (s *Server) getGroup(c echo.Context) error {
	g, err := s.SCIM.GetGroup(c.Request().Context(), c.Param("tenant"), c.Param("id"), s.groupsBase(c), s.base(c))
	if err != nil {
		return err
	}
	if m := c.Request().Header.Get("If-None-Match"); m != "" && scim.ETagOf(m) == scim.ETagOf(g.Meta.Version) {
		return c.NoContent(http.StatusNotModified)
	}
	return group(c, http.StatusOK, g)
}

func (s *Server) createGroup(c echo.Context) error {
	var r scim.Group
	if err := read(c, &r); err != nil {
		return err
	}
	g, err := s.SCIM.CreateGroup(c.Request().Context(), c.Param("tenant"), &r, s.groupsBase(c), s.base(c))
	if err != nil {
		return err
	}
	return group(c, http.StatusCreated, g)
}

func (s *Server) replaceGroup(c echo.Context) error {
	var r scim.Group
	if err := read(c, &r); err != nil {
		return err
	}
	g, err := s.SCIM.ReplaceGroup(c.Request().Context(), c.Param("tenant"), c.Param("id"), ifMatch(c), &r, s.groupsBase(c), s.base(c))
	if err != nil {
		return err
	}
	return group(c, http.StatusOK, g)
}

func (s *Server) patchGroup(c echo.Context) error {
	var r patchRequest
	if err := read(c, &r); err != nil {
		return err
	}
	g, err := s.SCIM.PatchGroup(c.Request().Context(), c.Param("tenant"), c.Param("id"), ifMatch(c), r.Operations, s.groupsBase(c), s.base(c))
	if err != nil {
		return err
	}
	return group(c, http.StatusOK, g)
}

func (s *Server) deleteGroup(c echo.Context) error {
	if err := s.SCIM.DeleteGroup(c.Request().Context(), c.Param("tenant"), c.Param("id"), ifMatch(c)); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
