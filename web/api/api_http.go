package api

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/web/httpkit"
)

// What the API's answers say of themselves over HTTP: their version
// (ETag) for conditional requests, and the next page of a list (Link).

// apiList is one page of a list. Next, when set, gets the next page, and
// HasMore says whether there is one.
type apiList[T any] struct {
	Items   []T    `json:"items"`
	Next    string `json:"next,omitempty"`
	HasMore bool   `json:"hasMore"`
}

// SendDoc answers with a document and its ETag. A GET whose If-None-Match
// names that ETag is answered 304 Not Modified, without a body.
func SendDoc(c echo.Context, status int, tag string, v any) error {
	tag = etag(tag)
	c.Response().Header().Set(HdrETag, tag)
	if notModified(c, status, tag) {
		return c.NoContent(http.StatusNotModified)
	}
	return c.JSON(status, v)
}

// SendList answers with one page of a list: its items, the token of the
// next page and whether there is one, a Link to the next page (an
// absolute URL), and a strong ETag over the body, so that a GET whose
// If-None-Match names it is answered 304 Not Modified.
func SendList[T any](c echo.Context, items []T, next string) error {
	if items == nil {
		items = []T{}
	}
	if next != "" {
		c.Response().Header().Set(hdrLink, "<"+nextPageURL(c, next)+`>; rel="next"`)
	}
	return SendTagged(c, apiList[T]{Items: items, Next: next, HasMore: next != ""})
}

// SendTagged answers 200 with v and a strong ETag over its JSON; a GET
// whose If-None-Match names that ETag is answered 304, without a body.
func SendTagged(c echo.Context, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(b)
	tag := `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
	c.Response().Header().Set(HdrETag, tag)
	if notModified(c, http.StatusOK, tag) {
		return c.NoContent(http.StatusNotModified)
	}
	return c.JSONBlob(http.StatusOK, b)
}

// nextPageURL returns the absolute URL of the next page of the request's
// list: the request's own at the server's address (baseURL), its next
// parameter set to the token.
func nextPageURL(c echo.Context, next string) string {
	q := url.Values{}
	for k, v := range c.QueryParams() {
		q[k] = v
	}
	q.Set(ParamNext.Name, next)
	u := url.URL{Path: c.Request().URL.Path, RawQuery: q.Encode()}
	return httpkit.BaseURL(c) + u.String()
}

// notModified reports whether a successful GET's If-None-Match names tag
// or is "*" (RFC 9110 §13.1.2: the weak comparison, W/ ignored).
func notModified(c echo.Context, status int, tag string) bool {
	h := c.Request().Header.Get("If-None-Match")
	if !httpkit.Reads(c) || status != http.StatusOK || h == "" {
		return false
	}
	for _, t := range strings.Split(h, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == tag {
			return true
		}
	}
	return false
}

// etag returns a document's ETag as an HTTP header value.
func etag(v string) string { return `"` + strings.Trim(v, `"`) + `"` }
