package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/httpkit"
)

// listFrom runs listPage over a list of 7 numbered pages ("p1".."p7",
// the token of page n being "tn"), at the given URL.
func listFrom(t *testing.T, target string) ([]string, views.Paging, []string) {
	t.Helper()
	c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, target, nil), httptest.NewRecorder())
	var calls []string
	items, pg, err := ListPage(c, "/x", 20, func(token string, limit int) ([]string, string, error) {
		calls = append(calls, fmt.Sprintf("%s/%d", token, limit))
		n := 1
		if token != "" {
			if _, err := fmt.Sscanf(token, "t%d", &n); err != nil {
				return nil, "", kanri.E(kanri.EINVALID, "validation.continuation")
			}
		}
		next := ""
		if n < 7 {
			next = fmt.Sprintf("t%d", n+1)
		}
		return []string{fmt.Sprintf("p%d", n)}, next, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return items, pg, calls
}

func TestListPagesWalkBothWays(t *testing.T) {
	t.Parallel()
	// Walk forward from the first page to the last, then back.
	var urls []string
	target := "/x?q=a"
	for range 7 {
		items, pg, _ := listFrom(t, target)
		urls = append(urls, target)
		if got, want := items[0], fmt.Sprintf("p%d", len(urls)); got != want {
			t.Fatalf("forward: got %s at %s, want %s", got, target, want)
		}
		if pg.NextURL == "" {
			break
		}
		target = pg.NextURL
	}
	if len(urls) != 7 {
		t.Fatalf("walked %d pages, want 7", len(urls))
	}
	for n := 7; n > 1; n-- {
		items, pg, _ := listFrom(t, target)
		if got, want := items[0], fmt.Sprintf("p%d", n); got != want {
			t.Fatalf("back: got %s at %s, want %s", got, target, want)
		}
		if pg.PrevURL == "" {
			t.Fatalf("page %d has no Previous", n)
		}
		target = pg.PrevURL
	}
	items, pg, _ := listFrom(t, target)
	if items[0] != "p1" || !pg.OnFirst || pg.PrevURL != "" || target != "/x?q=a" {
		t.Errorf("back at the first page: got %s at %s (prev %q)", items[0], target, pg.PrevURL)
	}
}

func TestListPageSizesAndBadTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, target string
		wantCalls    []string
		wantNotice   string
		wantSize     int
	}{
		{"default size", "/x", []string{"/20"}, "", 20},
		{"a size offered", "/x?size=50", []string{"/50"}, "", 50},
		{"a size not offered", "/x?size=5000", []string{"/20"}, "", 20},
		{"a bad token starts over", "/x?cursor=old&trail=t2", []string{"old/20", "/20"}, "validation.continuation", 20},
	}
	for _, tt := range tests {
		_, pg, calls := listFrom(t, tt.target)
		if fmt.Sprint(calls) != fmt.Sprint(tt.wantCalls) || pg.Notice != tt.wantNotice || pg.Size != tt.wantSize {
			t.Errorf("%s: got calls %q notice %q size %d, want %q %q %d", tt.name, calls, pg.Notice, pg.Size, tt.wantCalls, tt.wantNotice, tt.wantSize)
		}
		if tt.wantNotice != "" && (!pg.OnFirst || pg.PrevURL != "") {
			t.Errorf("%s: after starting over, the page is not the first", tt.name)
		}
		if len(pg.Sizes) != len(pageSizes) || pg.Sizes[1].URL != "/x?size=50" && !strings.Contains(pg.Sizes[1].URL, "size=50") {
			t.Errorf("%s: size links %v", tt.name, pg.Sizes)
		}
	}
}

func TestListPageReportsOtherErrors(t *testing.T) {
	t.Parallel()
	c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/x", nil), httptest.NewRecorder())
	boom := errors.New("boom")
	if _, _, err := ListPage(c, "/x", 20, func(string, int) ([]int, string, error) { return nil, "", boom }); !errors.Is(err, boom) {
		t.Errorf("got %v, want %v", err, boom)
	}
}

func TestPageURL(t *testing.T) {
	t.Parallel()
	q := url.Values{"q": {"a b"}, "cursor": {"old"}, "trail": {"x"}, "empty": {""}}
	tests := []struct {
		cursor string
		trail  []string
		want   string
	}{
		{"", nil, "/t/x/users?q=a+b"},
		{"n/1", nil, "/t/x/users?cursor=n%2F1&q=a+b"},
		{"n3", []string{"n1", "n2"}, "/t/x/users?cursor=n3&q=a+b&trail=n1&trail=n2"},
	}
	for _, tt := range tests {
		if got := PageURL("/t/x/users", q, tt.cursor, tt.trail); got != tt.want {
			t.Errorf("cursor %q: got %q, want %q", tt.cursor, got, tt.want)
		}
	}
}

func TestSortLinks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query, field  string
		wantURL, aria string
	}{
		{"q=a", "username", "/x?q=a&sort=username&desc=1", "ascending"},
		{"q=a", "email", "/x?q=a&sort=email", "none"},
		{"sort=email", "email", "/x?desc=1&sort=email", "ascending"},
		{"sort=email&desc=1&cursor=t2", "email", "/x?sort=email", "descending"},
	}
	for _, tt := range tests {
		q, _ := url.ParseQuery(tt.query)
		pg := views.Paging{Path: "/x", Query: q}
		got, _ := url.Parse(pg.SortURL(tt.field, "username"))
		want, _ := url.Parse(tt.wantURL)
		if got.Path != want.Path || got.Query().Get("sort") != want.Query().Get("sort") || got.Query().Get("desc") != want.Query().Get("desc") || got.Query().Has("cursor") {
			t.Errorf("%s, sort by %s: got %s, want %s", tt.query, tt.field, got, want)
		}
		if a := pg.AriaSort(tt.field, "username"); a != tt.aria {
			t.Errorf("%s, %s: aria-sort %q, want %q", tt.query, tt.field, a, tt.aria)
		}
	}
}

func TestEditFailed(t *testing.T) {
	t.Parallel()
	stored := &kanri.User{Doc: kanri.Doc{ID: "user_1", ETag: `"2"`}, Email: "now@x.test", DisplayName: "Now"}
	inputOf := func(u *kanri.User) kanri.UserInput {
		return kanri.UserInput{Email: u.Email, DisplayName: u.DisplayName}
	}
	reload := func() (*kanri.User, error) { return stored, nil }
	tests := []struct {
		name       string
		err        error
		wantStatus int
		wantErr    bool
	}{
		{"stale", kanri.Stale(), http.StatusConflict, false},
		{"invalid", kanri.Invalid(kanri.Fields{"email": "validation.email"}), http.StatusUnprocessableEntity, false},
		{"other", kanri.E(kanri.EFORBIDDEN, "error.forbidden_body"), 0, true},
	}
	for _, tt := range tests {
		f := views.Edit[kanri.UserInput, *kanri.User]{ETag: `"1"`, Input: kanri.UserInput{Email: "mine@x.test"}}
		got, err := EditFailed(&f, tt.err, reload, inputOf)
		if got != tt.wantStatus || (err != nil) != tt.wantErr {
			t.Errorf("%s: got %d, %v; want %d, error %v", tt.name, got, err, tt.wantStatus, tt.wantErr)
		}
		if f.Input.Email != "mine@x.test" {
			t.Errorf("%s: the input was not kept: %+v", tt.name, f.Input)
		}
		switch tt.name {
		case "stale":
			if f.Current != stored || f.ETag != `"2"` || f.Base.Email != "now@x.test" {
				t.Errorf("stale: got current %v etag %s base %+v, want the stored version", f.Current, f.ETag, f.Base)
			}
		case "invalid":
			if f.Errors["email"] != "validation.email" || f.ETag != `"1"` {
				t.Errorf("invalid: got errors %v etag %s", f.Errors, f.ETag)
			}
		}
	}
}

func TestUnreadableShowsEveryError(t *testing.T) {
	t.Parallel()
	validate := func() error { return kanri.Invalid(kanri.Fields{"displayName": "validation.required"}) }
	if err := Unreadable(nil, validate); err != nil {
		t.Errorf("nothing unreadable: got %v, want nil (validation is the service's)", err)
	}
	err := Unreadable(kanri.Fields{"maxUsers": "validation.max_users"}, validate)
	got, want := kanri.ErrorFields(err), kanri.Fields{"maxUsers": "validation.max_users", "displayName": "validation.required"}
	if !kanri.IsCode(err, kanri.EINVALID) || len(got) != len(want) || got["maxUsers"] != want["maxUsers"] || got["displayName"] != want["displayName"] {
		t.Errorf("got %v, want invalid with %v", err, want)
	}
}

// TestRenderSendsWholePages checks that a page goes out whole, with its
// length, and that a component that fails sends an error page instead of
// the part rendered before the failure.
func TestRenderSendsWholePages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		comp       templ.Component
		wantStatus int
		wantBody   string
	}{
		{"whole", templ.Raw("<p>hello</p>"), http.StatusOK, "<p>hello</p>"},
		{"failed", templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
			io.WriteString(w, "<p>half")
			return errors.New("broken")
		}), http.StatusInternalServerError, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := echo.New()
			rec := httptest.NewRecorder()
			c := e.NewContext(httptest.NewRequest(http.MethodGet, "/", nil), rec)
			if err := httpkit.Render(c, http.StatusOK, tc.comp); err != nil {
				e.HTTPErrorHandler(err, c)
			}
			if got := rec.Code; got != tc.wantStatus {
				t.Errorf("status: got %d, want %d", got, tc.wantStatus)
			}
			if tc.wantBody != "" {
				if got := rec.Body.String(); got != tc.wantBody {
					t.Errorf("body: got %q, want %q", got, tc.wantBody)
				}
				if got, want := rec.Header().Get("Content-Length"), fmt.Sprint(len(tc.wantBody)); got != want {
					t.Errorf("Content-Length: got %q, want %q", got, want)
				}
			}
			if strings.Contains(rec.Body.String(), "half") {
				t.Errorf("the part before the failure was sent: %q", rec.Body.String())
			}
		})
	}
}
