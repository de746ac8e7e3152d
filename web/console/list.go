package console

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/httpkit"
)

// pageSizes are the page sizes a list offers.
var pageSizes = []int{20, 50, 100}

// maxTrail is how many earlier pages a list remembers for Previous; past
// it, Previous leads back as far as it remembers.
const maxTrail = 30

// ListPage runs a list page's query from the page at path, with the
// request's page size (def unless one of pageSizes) and continuation
// token, and returns one page of items with its paging links. Previous
// works by the trail of earlier tokens that the links carry. A token that
// is not valid (an old link, a tampered URL) starts over at the first page,
// with a notice.
func ListPage[T any](c echo.Context, path string, def int, list func(continuation string, limit int) ([]T, string, error)) ([]T, views.Paging, error) {
	q := c.QueryParams()
	size := def
	if n, err := strconv.Atoi(q.Get("size")); err == nil && slices.Contains(pageSizes, n) {
		size = n
	}
	token, trail := q.Get("cursor"), q["trail"]
	items, next, err := list(token, size)
	pg := views.Paging{Size: size, Total: -1, Path: path, Query: q}
	if token != "" && kanri.IsCode(err, kanri.EINVALID) {
		items, next, err = list("", size)
		token, trail, pg.Notice = "", nil, "validation.continuation"
	}
	pg.OnFirst = token == ""
	pg.FirstURL = PageURL(path, q, "", nil)
	if !pg.OnFirst {
		if len(trail) > 0 {
			pg.PrevURL = PageURL(path, q, trail[len(trail)-1], trail[:len(trail)-1])
		} else {
			pg.PrevURL = pg.FirstURL
		}
	}
	if next != "" {
		nextTrail := trail
		if token != "" {
			nextTrail = append(slices.Clone(trail), token)
		}
		if len(nextTrail) > maxTrail {
			nextTrail = nextTrail[len(nextTrail)-maxTrail:]
		}
		pg.NextURL = PageURL(path, q, next, nextTrail)
	}
	for _, n := range pageSizes {
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		v.Set("size", strconv.Itoa(n))
		pg.Sizes = append(pg.Sizes, views.SizeLink{Size: n, URL: PageURL(path, v, "", nil)})
	}
	return items, pg, err
}

// PageURL returns path with the list's query (one value per parameter),
// the given continuation token and the trail of earlier tokens.
func PageURL(path string, q url.Values, cursor string, trail []string) string {
	v := url.Values{}
	for k, vs := range q {
		if k != "cursor" && k != "trail" && len(vs) > 0 && vs[0] != "" {
			v.Set(k, vs[0])
		}
	}
	if cursor != "" {
		v.Set("cursor", cursor)
		for _, t := range trail {
			v.Add("trail", t)
		}
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// ShowList renders a list page: the whole page, or for an htmx request
// (a live search, a filter) only the results it replaces.
func ShowList(c echo.Context, page, results templ.Component) error {
	c.Response().Header().Add(echo.HeaderVary, "HX-Request")
	if httpkit.IsHTMX(c) {
		return httpkit.Render(c, http.StatusOK, results)
	}
	return httpkit.Render(c, http.StatusOK, page)
}
