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
	start, count, err := paging(c)
	if err != nil {
		return err
	}
	total, users, err := s.SCIM.List(c.Request().Context(), c.Param("tenant"), c.QueryParam("filter"), start, count, s.base(c))
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
		c.Response().Header().Set("ETag", u.Meta.Version)
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

// patchRequest is a PATCH's body (RFC 7644, 3.5.2).
type patchRequest struct {
	Schemas    []string         `json:"schemas"`
	Operations []scim.Operation `json:"Operations"`
}

func (s *Server) patch(c echo.Context) error {
	var r patchRequest
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

// paging reads a list's startIndex and count (1 and MaxCount unless
// given).
func paging(c echo.Context) (start, count int, err error) {
	start, count = 1, scim.MaxCount
	for name, v := range map[string]*int{"startIndex": &start, "count": &count} {
		if q := c.QueryParam(name); q != "" {
			n, err := strconv.Atoi(q)
			if err != nil {
				return 0, 0, &scim.Error{Status: http.StatusBadRequest, SCIMType: "invalidValue", Detail: name + " is a number"}
			}
			*v = n
		}
	}
	return start, count, nil
}
