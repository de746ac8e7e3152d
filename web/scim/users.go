package scim

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/scim"
)

// user writes a user's resource with its ETag.
func user(c echo.Context, status int, u *scim.User) error {
	c.Response().Header().Set(echo.HeaderLocation, u.Meta.Location)
	c.Response().Header().Set("ETag", u.Meta.Version)
	return write(c, status, u)
}

func (s *Server) list(c echo.Context) error {
	q := c.QueryParams()
	start, count := 1, scim.MaxCount
	if v := q.Get("startIndex"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return &scim.Error{Status: http.StatusBadRequest, SCIMType: "invalidValue", Detail: "startIndex is a number"}
		}
		start = n
	}
	if v := q.Get("count"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return &scim.Error{Status: http.StatusBadRequest, SCIMType: "invalidValue", Detail: "count is a number"}
		}
		count = n
	}
	total, users, err := s.SCIM.List(c.Request().Context(), c.Param("tenant"), q.Get("filter"), start, count, s.base(c))
	if err != nil {
		return err
	}
	if users == nil {
		users = []*scim.User{}
	}
	return write(c, http.StatusOK, map[string]any{
		"schemas": []string{scim.SchemaListResponse}, "totalResults": total, "startIndex": max(start, 1), "itemsPerPage": len(users), "Resources": users,
	})
}

func (s *Server) get(c echo.Context) error {
	u, err := s.SCIM.Get(c.Request().Context(), c.Param("tenant"), c.Param("id"), s.base(c))
	if err != nil {
		return err
	}
	if m := c.Request().Header.Get("If-None-Match"); m != "" && scim.ETagOf(m) == scim.ETagOf(u.Meta.Version) {
		return c.NoContent(http.StatusNotModified)
	}
	return user(c, http.StatusOK, u)
}

func (s *Server) create(c echo.Context) error {
	var r scim.User
	if err := read(c, &r); err != nil {
		return err
	}
	u, err := s.SCIM.Create(c.Request().Context(), c.Param("tenant"), &r, s.base(c))
	if err != nil {
		return err
	}
	return user(c, http.StatusCreated, u)
}

func ifMatch(c echo.Context) string { return scim.ETagOf(c.Request().Header.Get("If-Match")) }

func (s *Server) replace(c echo.Context) error {
	var r scim.User
	if err := read(c, &r); err != nil {
		return err
	}
	u, err := s.SCIM.Replace(c.Request().Context(), c.Param("tenant"), c.Param("id"), ifMatch(c), &r, s.base(c))
	if err != nil {
		return err
	}
	return user(c, http.StatusOK, u)
}

func (s *Server) patch(c echo.Context) error {
	var r struct {
		Schemas    []string         `json:"schemas"`
		Operations []scim.Operation `json:"Operations"`
	}
	if err := read(c, &r); err != nil {
		return err
	}
	u, err := s.SCIM.Patch(c.Request().Context(), c.Param("tenant"), c.Param("id"), ifMatch(c), r.Operations, s.base(c))
	if err != nil {
		return err
	}
	return user(c, http.StatusOK, u)
}

func (s *Server) delete(c echo.Context) error {
	if err := s.SCIM.Delete(c.Request().Context(), c.Param("tenant"), c.Param("id"), ifMatch(c)); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
