package web

import (
	"net/http"
	"net/url"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/views"
)

// listPage runs a list page's query from the page at path, with the
// request's continuation token, and returns one page of items with its
// paging links. A token that is not valid (an old link, a tampered URL)
// starts over at the first page, with a notice.
func listPage[T any](c echo.Context, path string, list func(continuation string) ([]T, string, error)) ([]T, views.Paging, error) {
	q := c.QueryParams()
	token := q.Get("cursor")
	items, next, err := list(token)
	pg := views.Paging{FirstURL: pageURL(path, q, ""), OnFirst: token == ""}
	if token != "" && kanri.IsCode(err, kanri.EINVALID) {
		items, next, err = list("")
		pg.OnFirst, pg.Notice = true, "validation.continuation"
	}
	if next != "" {
		pg.NextURL = pageURL(path, q, next)
	}
	return items, pg, err
}

// pageURL returns path with the list's query and the given cursor.
func pageURL(path string, q url.Values, cursor string) string {
	v := url.Values{}
	for k, vs := range q {
		if k != "cursor" && len(vs) > 0 && vs[0] != "" {
			v.Set(k, vs[0])
		}
	}
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// showList renders a list page: the whole page, or for an htmx request
// (a live search, a filter) only the results it replaces.
func showList(c echo.Context, page, results templ.Component) error {
	c.Response().Header().Add(echo.HeaderVary, "HX-Request")
	if isHTMX(c) {
		return render(c, http.StatusOK, results)
	}
	return render(c, http.StatusOK, page)
}
