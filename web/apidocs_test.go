package web_test

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// getDocsPage fetches the docs page with the given request headers
// (name, value, …).
func getDocsPage(t *testing.T, e *env, headers ...string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.srv.URL+"/api/v1/docs", nil)
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
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("docs page: %d", resp.StatusCode)
	}
	return string(b)
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

// TestAPIDocsPage checks the API's reference page against the OpenAPI
// document: every operation with its parameters, body fields, an example
// request against the server's absolute address (as the request reached
// it), its example answer and statuses linked to the problem types, whose
// anchors are the problems' type addresses; labels in both languages.
func TestAPIDocsPage(t *testing.T) {
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
	page := getDocsPage(t, e)
	ops := 0
	for path, methods := range doc.Paths {
		for method, op := range methods {
			ops++
			if !strings.Contains(page, `id="op-`+op.OperationID+`"`) {
				t.Errorf("%s %s (%s) is not on the page", method, path, op.OperationID)
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
		{"apidocs-problem-not-found", "404 Not Found " + e.srv.URL + "/api/v1/docs#problem-not-found"},
		{"apidocs-server", e.srv.URL + "/api/v1"},
	} {
		id := strings.TrimPrefix(tc.id, "apidocs-problem-")
		if id != tc.id {
			id = "problem-" + id
		}
		got := strings.Join(strings.Fields(byTestID(page, id)), " ")
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: got %q, want it to hold %q", tc.id, got, tc.want)
		}
	}
	for _, kind := range []string{"bad-request", "unauthenticated", "forbidden", "not-found", "method-not-allowed", "conflict", "stale",
		"precondition-required", "too-large", "unsupported-media-type", "invalid", "rate-limited", "internal", "unavailable"} {
		if !strings.Contains(page, `id="problem-`+kind+`"`) {
			t.Errorf("problem type %s has no anchor on the page", kind)
		}
	}
	if !strings.Contains(page, `href="#problem-not-found"`) {
		t.Error("the statuses do not link to their problem types")
	}
	if !strings.Contains(page, `class="docs-page"`) {
		t.Error("the page is not laid out as the reference (body.docs-page)")
	}

	// The address is the one the client used (its Host; a forwarded
	// header from no trusted proxy is not believed: TestServerAddress).
	page = getDocsPage(t, e, "Host", "kanri.example.jp", "X-Forwarded-Proto", "https", "Accept-Language", "ja")
	if got := byTestID(page, "apidocs-curl-listUsers"); !strings.Contains(got, "'http://kanri.example.jp/api/v1/users'") {
		t.Errorf("another host: example request %q, want http://kanri.example.jp/api/v1/users", got)
	}
	for _, want := range []string{"パラメーター", "リクエスト例", "レスポンス例", "problem の種類", "http://kanri.example.jp/api/v1/docs#problem-not-found",
		"コンソールに戻る", "テナントのユーザーを一覧"} {
		if !strings.Contains(page, want) {
			t.Errorf("the Japanese page lacks %q", want)
		}
	}
	if strings.Contains(page, "List the tenant's users") {
		t.Error("the Japanese page gives an operation's summary in English")
	}
}

// TestAPIDocsPageReads checks what makes the reference readable: a way
// back to the console, a way back to the contents from each section,
// examples folded away, the document's English marked as English on the
// Japanese page, code spans as code rather than backticks, and a count of
// one in the singular.
func TestAPIDocsPageReads(t *testing.T) {
	e := newEnv(t)
	for _, lang := range []string{"en", "ja"} {
		page := getDocsPage(t, e, "Accept-Language", lang)
		for _, want := range []string{
			`<a href="/" data-testid="apidocs-console">`,
			`<nav id="contents" class="docs-toc"`,
			`<a class="docs-top" href="#contents">`,
			`<details class="docs-more"><summary>`,
			`<p class="docs-desc" lang="en">Needs the scope <code class="mono">read</code> on the key, and its creator the console permission <code class="mono">users.read</code>.</p>`,
		} {
			if !strings.Contains(page, want) {
				t.Errorf("%s: the page lacks %s", lang, want)
			}
		}
		for _, unwanted := range []string{"`", "1 characters"} {
			if strings.Contains(page, unwanted) {
				t.Errorf("%s: the page shows %s", lang, unwanted)
			}
		}
		if n, m := strings.Count(page, `class="panel docs-op"`), strings.Count(page, `<details class="docs-more">`); n == 0 || n != m {
			t.Errorf("%s: %d operations, %d of them with their examples folded", lang, n, m)
		}
	}
}
