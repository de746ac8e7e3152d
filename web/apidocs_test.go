package web_test

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// getDocs fetches a page of the API's reference (/api/v1/docs, or a tag's
// page under it) with the given request headers (name, value, …), and
// returns its status and body.
func getDocs(t *testing.T, e *env, path string, headers ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// docsPages fetches the reference as a reader would: its overview, then
// every tag's page the overview's contents link to, in their order.
func docsPages(t *testing.T, e *env, headers ...string) (overview string, slugs []string, tagPages map[string]string) {
	t.Helper()
	status, overview := getDocs(t, e, "/api/v1/docs", headers...)
	if status != http.StatusOK {
		t.Fatalf("docs overview: %d", status)
	}
	tagPages = map[string]string{}
	for _, m := range regexp.MustCompile(`<a href="/api/v1/docs/([^"#]+)" data-testid="apidocs-toc-`).FindAllStringSubmatch(overview, -1) {
		slug := m[1]
		if _, ok := tagPages[slug]; ok {
			t.Errorf("the contents link twice to the page of %s", slug)
			continue
		}
		status, page := getDocs(t, e, "/api/v1/docs/"+slug, headers...)
		if status != http.StatusOK {
			t.Fatalf("docs page of %s: %d", slug, status)
		}
		slugs = append(slugs, slug)
		tagPages[slug] = page
	}
	if len(slugs) == 0 {
		t.Fatal("the overview links to no tag's page")
	}
	return overview, slugs, tagPages
}

// apiDocOps reads the served OpenAPI document: each operation's tag, by
// operationId, and the tags in the document's order.
func apiDocOps(t *testing.T, e *env) (tagOf map[string]string, tags []string) {
	t.Helper()
	var doc struct {
		Tags  []struct{ Name string }
		Paths map[string]map[string]struct {
			OperationID string
			Tags        []string
		}
	}
	_, body := e.client(t).get("/api/v1/openapi.json")
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	tagOf = map[string]string{}
	used := map[string]bool{}
	for _, methods := range doc.Paths {
		for _, op := range methods {
			if len(op.Tags) != 1 {
				t.Fatalf("%s has tags %v, want one", op.OperationID, op.Tags)
			}
			tagOf[op.OperationID] = op.Tags[0]
			used[op.Tags[0]] = true
		}
	}
	for _, tag := range doc.Tags {
		if used[tag.Name] {
			tags = append(tags, tag.Name)
		}
	}
	return tagOf, tags
}

// byTestID returns the text of the element with a data-testid, unescaped,
// tags removed ("" when there is none).
func byTestID(page, id string) string {
	at := strings.Index(page, `data-testid="`+id+`"`)
	if at < 0 {
		return ""
	}
	open := strings.LastIndex(page[:at], "<")
	name := regexp.MustCompile(`^<(\w+)`).FindStringSubmatch(page[open:])[1]
	start := at + strings.Index(page[at:], ">") + 1
	end := strings.Index(page[start:], "</"+name+">")
	if end < 0 {
		return ""
	}
	return html.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(page[start:start+end], " "))
}

// TestAPIDocsPage checks the API's reference against the OpenAPI
// document: every operation, on its tag's page, with its parameters, body
// fields, an example request against the server's absolute address (as
// the request reached it), its example answer and statuses linked to the
// problem types on the overview, whose anchors are the problems' type
// addresses; labels in both languages.
func TestAPIDocsPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string
			Parameters  []struct{ Name string }
		}
	}
	resp, body := e.client(t).get("/api/v1/openapi.json")
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("Cache-Control") != "no-cache" || !strings.Contains(resp.Header.Get("Vary"), "Host") {
		t.Errorf("the document's caching: Cache-Control %q, Vary %q; it names its host", resp.Header.Get("Cache-Control"), resp.Header.Get("Vary"))
	}
	overview, slugs, tagPages := docsPages(t, e)
	var all strings.Builder // every page: each testid is on one of them
	all.WriteString(overview)
	for _, slug := range slugs {
		all.WriteString(tagPages[slug])
	}
	page := all.String()
	ops := 0
	for path, methods := range doc.Paths {
		for method, op := range methods {
			ops++
			if !strings.Contains(page, `<article id="op-`+op.OperationID+`"`) {
				t.Errorf("%s %s (%s) is on no page", method, path, op.OperationID)
			}
			curl := byTestID(page, "apidocs-curl-"+op.OperationID)
			if !strings.Contains(curl, "'"+e.srv.URL+"/api/v1/") || !strings.Contains(curl, `Authorization: Bearer $KANRI_API_KEY`) {
				t.Errorf("%s: example request %q, want an absolute URL under %s/api/v1/ and the key's placeholder", op.OperationID, curl, e.srv.URL)
			}
			if strings.Contains(curl, "{") && method != "post" && method != "patch" {
				t.Errorf("%s: example request %q keeps a path parameter", op.OperationID, curl)
			}
			params := byTestID(page, "apidocs-params-"+op.OperationID)
			for _, p := range op.Parameters {
				if !strings.Contains(params, " "+p.Name+" ") {
					t.Errorf("%s: parameter %s is not in its table %q", op.OperationID, p.Name, params)
				}
			}
		}
	}
	if ops < 10 {
		t.Errorf("the document has %d operations", ops)
	}
	for _, tc := range []struct{ id, want string }{
		{"apidocs-params-listUsers", "limit query integer (int32) no 1 to 100; default 50"},
		{"apidocs-params-listUsers", "status query string no one of active, inactive, locked, deleted"},
		{"apidocs-params-getUser", "id path string yes"},
		{"apidocs-body-createUser", "username string yes at least 1 character; at most 254 characters"},
		{"apidocs-body-createUser", "email string (idn-email) yes at most 254 characters"},
		{"apidocs-body-updateUser", "displayName string no at least 1 character; at most 200 characters"},
		{"apidocs-curl-createUser", `curl -X POST '` + e.srv.URL + `/api/v1/users'`},
		{"apidocs-curl-createUser", `-d '{"displayName":"Hanako Yamada"`},
		{"apidocs-curl-removeUserRole", `curl -X DELETE '` + e.srv.URL + `/api/v1/users/user_`},
		{"apidocs-response-getUser", `"username": "hanako"`},
		{"apidocs-statuses-getUser", "404 No such resource"},
	} {
		if got := strings.Join(strings.Fields(byTestID(page, tc.id)), " "); !strings.Contains(got, tc.want) {
			t.Errorf("%s: got %q, want it to hold %q", tc.id, got, tc.want)
		}
	}
	for _, tc := range []struct{ id, want string }{
		{"problem-not-found", "404 Not Found " + e.srv.URL + "/api/v1/docs#problem-not-found"},
		{"apidocs-server", e.srv.URL + "/api/v1"},
	} {
		if got := strings.Join(strings.Fields(byTestID(overview, tc.id)), " "); !strings.Contains(got, tc.want) {
			t.Errorf("%s on the overview: got %q, want it to hold %q", tc.id, got, tc.want)
		}
	}
	for _, kind := range []string{"bad-request", "unauthenticated", "forbidden", "not-found", "method-not-allowed", "timeout", "conflict", "stale",
		"precondition-required", "too-large", "unsupported-media-type", "invalid", "rate-limited", "internal", "unavailable"} {
		if !strings.Contains(overview, `id="problem-`+kind+`"`) {
			t.Errorf("problem type %s has no anchor on the overview", kind)
		}
		if desc := byTestID(overview, "problem-"+kind); strings.Contains(desc, "apidocs.problem.") {
			t.Errorf("problem type %s is described by its message key: %q", kind, desc)
		}
	}
	// The problem types are on the overview, where the statuses of every
	// tag's page lead.
	if !strings.Contains(tagPages["users"], `href="/api/v1/docs#problem-not-found"`) {
		t.Error("the statuses do not link to their problem types on the overview")
	}
	if !strings.Contains(overview, `class="docs-page"`) || !strings.Contains(tagPages["users"], `class="docs-page"`) {
		t.Error("the pages are not laid out as the reference (body.docs-page)")
	}

	// The address is the one the client used (its Host; a forwarded
	// header from no trusted proxy is not believed: TestServerAddress).
	headers := []string{"Host", "kanri.example.jp", "X-Forwarded-Proto", "https", "Accept-Language", "ja"}
	_, users := getDocs(t, e, "/api/v1/docs/users", headers...)
	if got := byTestID(users, "apidocs-curl-listUsers"); !strings.Contains(got, "'http://kanri.example.jp/api/v1/users'") {
		t.Errorf("another host: example request %q, want http://kanri.example.jp/api/v1/users", got)
	}
	_, overview = getDocs(t, e, "/api/v1/docs", headers...)
	for _, c := range []struct{ name, page string }{{"overview", overview}, {"users", users}} {
		for _, want := range map[string][]string{
			"overview": {"problem の種類", "http://kanri.example.jp/api/v1/docs#problem-not-found", "認証", "レート制限", "コンソールに戻る", "テナントのユーザーを一覧"},
			"users":    {"パラメーター", "リクエスト例", "レスポンス例", "コンソールに戻る", "API の概要", "テナントのユーザーを一覧"},
		}[c.name] {
			if !strings.Contains(c.page, want) {
				t.Errorf("the Japanese %s lacks %q", c.name, want)
			}
		}
		if strings.Contains(c.page, "List the tenant's users") {
			t.Errorf("the Japanese %s gives an operation's summary in English", c.name)
		}
	}
}

// TestAPIDocsPagesPerTag checks how the reference is split: an overview
// without operations whose contents link to a page for every tag of the
// document, in its order; each tag's page holds its tag's operations and
// no other, so that no page is more than a part of the whole, and links
// back to the overview and on to the tags before and after it; a tag the
// document does not have is the site's page not found.
func TestAPIDocsPagesPerTag(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tagOf, tags := apiDocOps(t, e)
	overview, slugs, tagPages := docsPages(t, e)
	if n := strings.Count(overview, `class="panel docs-op"`); n != 0 {
		t.Errorf("the overview shows %d operations, want none (they are on their tags' pages)", n)
	}
	if len(slugs) != len(tags) {
		t.Fatalf("the overview links to the pages %v, want one for each tag of the document %v", slugs, tags)
	}
	opOnPage := regexp.MustCompile(`<article id="op-([A-Za-z]+)" class="panel docs-op"`)
	most := 0
	for i, slug := range slugs {
		page := tagPages[slug]
		if !strings.Contains(page, "<h1>"+tags[i]+"</h1>") {
			t.Errorf("page %d of the contents (%s) is not the page of %s, the document's tag %d", i+1, slug, tags[i], i+1)
		}
		var want, got []string
		for id, tag := range tagOf {
			if tag == tags[i] {
				want = append(want, id)
			}
		}
		for _, m := range opOnPage.FindAllStringSubmatch(page, -1) {
			got = append(got, m[1])
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("the page of %s holds the operations %v, want those of its tag: %v", tags[i], got, want)
		}
		if n := strings.Count(page, `class="panel docs-op"`); n != len(want) {
			t.Errorf("the page of %s shows %d operations, want %d", tags[i], n, len(want))
		}
		most = max(most, len(got))
		for _, id := range want {
			if !strings.Contains(overview, `href="/api/v1/docs/`+slug+`#op-`+id+`"`) {
				t.Errorf("the overview's contents do not link to %s on the page of %s", id, tags[i])
			}
		}
		for _, link := range []string{`<a href="/" data-testid="apidocs-console">`, `<a href="/api/v1/docs#contents" data-testid="apidocs-overview">`} {
			if !strings.Contains(page, link) {
				t.Errorf("the page of %s lacks the link %s", tags[i], link)
			}
		}
		prev, next := byTestID(page, "apidocs-prev"), byTestID(page, "apidocs-next")
		switch {
		case i == 0 && prev != "":
			t.Errorf("the first tag's page links to a previous one: %q", prev)
		case i > 0 && (!strings.Contains(prev, tags[i-1]) || !strings.Contains(page, `<a href="/api/v1/docs/`+slugs[i-1]+`" rel="prev"`)):
			t.Errorf("the page of %s: previous %q, want %s", tags[i], prev, tags[i-1])
		}
		switch {
		case i == len(slugs)-1 && next != "":
			t.Errorf("the last tag's page links to a next one: %q", next)
		case i < len(slugs)-1 && (!strings.Contains(next, tags[i+1]) || !strings.Contains(page, `<a href="/api/v1/docs/`+slugs[i+1]+`" rel="next"`)):
			t.Errorf("the page of %s: next %q, want %s", tags[i], next, tags[i+1])
		}
	}
	// The single page showed every operation; the longest page now shows
	// one tag's, which is at most half of them.
	if most == 0 || most > len(tagOf)/2 {
		t.Errorf("the longest page shows %d of the %d operations, want at most half", most, len(tagOf))
	}

	for _, path := range []string{"/api/v1/docs/nope", "/api/v1/docs/Users", "/api/v1/docs/users%2Froles", "/api/v1/docs/users/roles"} {
		resp, body := e.client(t).get(path)
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, `data-testid="error-page"`) || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%s: %d %s, want the 404 page", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	req, _ := http.NewRequest(http.MethodHead, e.srv.URL+"/api/v1/docs/"+slugs[0], nil)
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	wantStatus(t, "HEAD on a tag's page", resp, http.StatusOK)
}

// TestAPIDocsPageReads checks what makes the reference readable: a way
// back to the console from every page, contents on the overview and a way
// back to them, examples folded away, the document's English marked as
// English on the Japanese pages, code spans as code rather than
// backticks, and a count of one in the singular.
func TestAPIDocsPageReads(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, lang := range []string{"en", "ja"} {
		overview, slugs, tagPages := docsPages(t, e, "Accept-Language", lang)
		for _, want := range []string{
			`<a href="/" data-testid="apidocs-console">`,
			`<nav id="contents" class="docs-toc docs-tag"`,
			`<a class="docs-top" href="#contents">`,
			`<section id="authentication"`,
			`<section id="rate-limits"`,
		} {
			if !strings.Contains(overview, want) {
				t.Errorf("%s: the overview lacks %s", lang, want)
			}
		}
		if want := `<p class="docs-desc" lang="en">Needs the scope <code class="mono">read</code> on the key, and its creator the console permission <code class="mono">users.read</code>.</p>`; !strings.Contains(tagPages["users"], want) {
			t.Errorf("%s: the page of users lacks %s", lang, want)
		}
		pages := map[string]string{"overview": overview}
		for _, slug := range slugs {
			pages[slug] = tagPages[slug]
		}
		for name, page := range pages {
			for _, unwanted := range []string{"`", "1 characters"} {
				if strings.Contains(page, unwanted) {
					t.Errorf("%s, %s: the page shows %s", lang, name, unwanted)
				}
			}
			if name == "overview" {
				continue
			}
			if n, m := strings.Count(page, `class="panel docs-op"`), strings.Count(page, `<details class="docs-more">`); n == 0 || n != m {
				t.Errorf("%s, %s: %d operations, %d of them with their examples folded", lang, name, n, m)
			}
		}
	}
}
