package web_test

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/user"
	"github.com/kanri/kanri/web"
)

// rawCall sends a request over its own TCP connection: its head says the
// body is announced bytes long, and sent is all the body there is. With
// stall the connection then stays open, as a client that stopped sending;
// without, the client closes its side, as one whose body ended early.
func rawCall(t *testing.T, base, method, path string, announced int, sent string, stall bool, headers ...string) (*http.Request, *http.Response, []byte) {
	t.Helper()
	u, _ := url.Parse(base)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(2 * time.Minute)) // only a guard against a hang
	var head strings.Builder
	fmt.Fprintf(&head, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", method, path, u.Host, announced)
	for i := 0; i+1 < len(headers); i += 2 {
		fmt.Fprintf(&head, "%s: %s\r\n", headers[i], headers[i+1])
	}
	head.WriteString("\r\n")
	if _, err := io.WriteString(conn, head.String()+sent); err != nil {
		t.Fatal(err)
	}
	if !stall {
		conn.(*net.TCPConn).CloseWrite()
	}
	req, _ := http.NewRequest(method, base+path, nil)
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return req, resp, b
}

// TestBodiesThatStallOrEndEarly checks that a body slower or shorter than
// its Content-Length is answered at once, 408 or 400, by the API and the
// console alike, and changes nothing. The stalled bodies go to a server
// whose body timeout is short, so that nobody waits for the real one.
func TestBodiesThatStallOrEndEarly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, secret := e.apiKey(t, e.acme.ID, kanri.ScopeRead, kanri.ScopeWrite)
	cfg := e.config
	cfg.BodyTimeout = 50 * time.Millisecond
	impatient := httptest.NewServer(web.New(cfg))
	t.Cleanup(impatient.Close)
	bob := "/api/v1/users/" + e.acmeBob.ID
	api := []string{"Authorization", "Bearer " + secret, "Content-Type", "application/json"}
	form := []string{"Content-Type", "application/x-www-form-urlencoded"}
	for _, tc := range []struct {
		what          string
		base          string
		method, path  string
		stall         bool
		headers       []string
		status        int
		problem, text string
	}{
		{"API body stalled", impatient.URL, http.MethodPatch, bob, true, api, http.StatusRequestTimeout, "/api/v1/docs#problem-timeout", "did not arrive in time"},
		{"API body ended early", e.srv.URL, http.MethodPatch, bob, false, api, http.StatusBadRequest, "/api/v1/docs#problem-bad-request", "ended before"},
		{"console form stalled", impatient.URL, http.MethodPost, "/login", true, form, http.StatusRequestTimeout, "", ""},
		{"console form ended early", e.srv.URL, http.MethodPost, "/login", false, form, http.StatusBadRequest, "", "ended before"},
	} {
		body := `{"displayName":"Changed"`
		if tc.path == "/login" {
			body = "tenant=acme&username=admin"
		}
		req, resp, b := rawCall(t, tc.base, tc.method, tc.path, 1000, body, tc.stall, tc.headers...)
		if got, want := resp.StatusCode, tc.status; got != want {
			t.Errorf("%s: got %d, want %d: %.300s", tc.what, got, want, b)
			continue
		}
		if !strings.Contains(string(b), tc.text) {
			t.Errorf("%s: the answer does not say %q: %.300s", tc.what, tc.text, b)
		}
		if tc.problem != "" {
			if !strings.Contains(string(b), tc.problem) {
				t.Errorf("%s: got %.300s, want the problem %s", tc.what, b, tc.problem)
			}
			servedDocument.check(t, tc.base, req, []byte(body), resp, b)
		}
	}
	if u, _ := e.users.Get(t.Context(), e.acme.ID, e.acmeBob.ID); u.ETag != e.acmeBob.ETag {
		t.Errorf("bob changed: ETag %s, want %s", u.ETag, e.acmeBob.ETag)
	}
}

// TestBodyLimitIsExact checks that the API reads bodies of 65,536 bytes
// and refuses one more, whether the length is announced or not.
func TestBodyLimitIsExact(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, secret := e.apiKey(t, e.acme.ID, kanri.ScopeRead, kanri.ScopeWrite)
	body := func(n int) string {
		s := `{"displayName":"Bob"}`
		return s + strings.Repeat(" ", n-len(s))
	}
	for _, tc := range []struct {
		size, want int
	}{
		{64000, http.StatusOK}, {64001, http.StatusOK}, {65536, http.StatusOK}, {65537, http.StatusRequestEntityTooLarge},
	} {
		a := e.api(t, http.MethodPatch, "/api/v1/users/"+e.acmeBob.ID, secret, body(tc.size))
		if got := a.status; got != tc.want {
			t.Errorf("%d bytes announced: got %d, want %d: %.300s", tc.size, got, tc.want, a.body)
		}
		// Chunked: the length is known only once read.
		req, _ := http.NewRequest(http.MethodPatch, e.srv.URL+"/api/v1/users/"+e.acmeBob.ID, io.MultiReader(strings.NewReader(body(tc.size))))
		req.Header.Set("Authorization", "Bearer "+secret)
		req.Header.Set("Content-Type", "application/json")
		resp, err := e.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := resp.StatusCode; got != tc.want {
			t.Errorf("%d bytes chunked: got %d, want %d: %.300s", tc.size, got, tc.want, b)
		}
	}
}

// TestAPIRefusesLooseInput checks that what the API cannot read for sure
// is refused with the problem named: a second Authorization header, JSON
// bodies that are not one object of the documented fields spelt exactly,
// each once; and that a 422 says what is wrong.
func TestAPIRefusesLooseInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, secret := e.apiKey(t, e.acme.ID, kanri.ScopeRead, kanri.ScopeWrite)
	a := e.api(t, http.MethodGet, "/api/v1/users", secret, nil, "Authorization", "Bearer ak_live_other")
	if p := wantProblem(t, "two Authorization headers", a, http.StatusBadRequest, "bad-request"); p != nil && !strings.Contains(p["detail"].(string), "Authorization") {
		t.Errorf("two Authorization headers: the detail does not name it: %v", p)
	}
	bob := "/api/v1/users/" + e.acmeBob.ID
	for _, tc := range []struct{ what, body, says string }{
		{"an array", `[]`, "array"},
		{"a string", `"x"`, "string"},
		{"null", `null`, "null"},
		{"a key in another case", `{"DISPLAYNAME":"Mallory"}`, `"DISPLAYNAME"`},
		{"a key twice", `{"displayName":"Bob","displayName":"Mallory"}`, `"displayName" is given twice`},
		{"a number for a string", `{"displayName":5}`, "displayName must be a string"},
		{"two objects", `{} {}`, "more than one"},
		{"an unknown field", `{"role":"admin"}`, `"role"`},
		{"truncated", `{"displayName":`, "ends too soon"},
		{"invalid UTF-8", "{\"displayName\":\"Bob \xff\xfe\"}", "UTF-8"},
		{"invalid UTF-8 in a key", "{\"display\xc3Name\":\"Bob\"}", "UTF-8"},
	} {
		a := e.api(t, http.MethodPatch, bob, secret, tc.body)
		p := wantProblem(t, tc.what, a, http.StatusBadRequest, "bad-request")
		if p == nil {
			continue
		}
		detail, _ := p["detail"].(string)
		if !strings.Contains(detail, tc.says) || strings.Contains(detail, "web.") || strings.Contains(detail, "kanri.") {
			t.Errorf("%s: detail %q, want it to say %q and no Go type", tc.what, detail, tc.says)
		}
	}
	// JSON has one charset, UTF-8 (RFC 8259 §8.1): a body declared in
	// another is not read as if it were UTF-8.
	for _, ct := range []string{"application/json; charset=utf-16", "application/json; charset=iso-8859-1", "text/json"} {
		a := e.api(t, http.MethodPatch, bob, secret, `{"displayName":"Mallory"}`, "Content-Type", ct)
		wantProblem(t, ct, a, http.StatusUnsupportedMediaType, "unsupported-media-type")
	}
	if u, _ := e.users.Get(t.Context(), e.acme.ID, e.acmeBob.ID); u.ETag != e.acmeBob.ETag {
		t.Errorf("bob changed: ETag %s, want %s", u.ETag, e.acmeBob.ETag)
	}
	if a := e.api(t, http.MethodPatch, bob, secret, `{"displayName":"Bob"}`, "Content-Type", "application/json; charset=UTF-8"); a.status != http.StatusOK {
		t.Errorf("charset=UTF-8: got %d, want 200: %s", a.status, a.body)
	}
	a = e.api(t, http.MethodPost, "/api/v1/users", secret, map[string]string{
		"username": "bob", "email": "bob2@acme.test", "displayName": "Bob 2", "password": "Correct-horse-9",
	})
	if p := wantProblem(t, "a username taken", a, http.StatusUnprocessableEntity, "invalid"); p != nil {
		if detail, _ := p["detail"].(string); detail == "Error" || !strings.Contains(detail, "username") {
			t.Errorf("a username taken: detail %q, want what is wrong", detail)
		}
	}
}

// TestAPIRefusesNullWhereTheDocumentDoes sends null for fields, at the
// top and nested: a field the document says may be null (a folder's id,
// for the top level) takes it; any other is invalid (422, naming it),
// never read as "left out", and nothing changes.
func TestAPIRefusesNullWhereTheDocumentDoes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.assignFiles(t, e.acme.ID)
	_, secret := e.apiKey(t, e.acme.ID, kanri.ScopeRead, kanri.ScopeWrite)
	ctx := audit.WithActor(t.Context(), audit.Actor{UserID: "system", TenantID: e.acme.ID})
	folder, err := e.files.CreateFolder(ctx, e.acme.ID, "", "Inbox")
	if err != nil {
		t.Fatal(err)
	}
	sub, err := e.files.CreateFolder(ctx, e.acme.ID, folder.ID, "Sub")
	if err != nil {
		t.Fatal(err)
	}
	file := e.uploadFile(t, e.acme.ID, folder.ID, "a.txt", []byte("a"))
	bob := "/api/v1/users/" + e.acmeBob.ID
	newUser := `"username":"nul","email":"nul@acme.test","displayName":"Nul","password":"Correct-horse-42"`
	for _, tc := range []struct {
		what, method, path, body string
		want                     int
		fields                   []string // of errors, for 422
	}{
		{"a string", http.MethodPatch, bob, `{"displayName":null}`, http.StatusUnprocessableEntity, []string{"displayName"}},
		{"two fields", http.MethodPatch, bob, `{"displayName":null,"email":null}`, http.StatusUnprocessableEntity, []string{"displayName", "email"}},
		{"an object", http.MethodPatch, bob, `{"profile":null}`, http.StatusUnprocessableEntity, []string{"profile"}},
		{"a field of an object", http.MethodPatch, bob, `{"profile":{"jobTitle":"Boss","firstName":null}}`, http.StatusUnprocessableEntity, []string{"profile.firstName"}},
		{"a field of a new user's profile", http.MethodPost, "/api/v1/users", `{` + newUser + `,"profile":{"lastName":null}}`, http.StatusUnprocessableEntity, []string{"profile.lastName"}},
		{"an array", http.MethodPatch, "/api/v1/files/" + file.ID, `{"tags":null}`, http.StatusUnprocessableEntity, []string{"tags"}},
		{"an item of an array", http.MethodPatch, "/api/v1/files/" + file.ID, `{"tags":["a",null]}`, http.StatusUnprocessableEntity, []string{"tags"}},
		{"a parent that is no folder's id", http.MethodPost, "/api/v1/folders", `{"name":"New","parentId":null}`, http.StatusUnprocessableEntity, []string{"parentId"}},
		{"a file's folder: the top level", http.MethodPatch, "/api/v1/files/" + file.ID, `{"folderId":null}`, http.StatusOK, nil},
		{"a folder's parent: the top level", http.MethodPatch, "/api/v1/folders/" + sub.ID, `{"parentId":null}`, http.StatusOK, nil},
	} {
		a := e.api(t, tc.method, tc.path, secret, tc.body)
		if tc.want != http.StatusUnprocessableEntity {
			if a.status != tc.want {
				t.Errorf("%s: got %d, want %d: %s", tc.what, a.status, tc.want, a.body)
			}
			continue
		}
		p := wantProblem(t, tc.what, a, tc.want, "invalid")
		if p == nil {
			continue
		}
		errs, _ := p["errors"].(map[string]any)
		if got := slices.Sorted(maps.Keys(errs)); !slices.Equal(got, tc.fields) {
			t.Errorf("%s: errors %v, want the fields %v", tc.what, p["errors"], tc.fields)
		}
	}
	if u, _ := e.users.Get(t.Context(), e.acme.ID, e.acmeBob.ID); u.ETag != e.acmeBob.ETag {
		t.Errorf("bob changed: %+v", u)
	}
	if list, _, _ := e.users.List(t.Context(), e.acme.ID, user.ListFilter{Search: "nul"}); len(list) != 0 {
		t.Errorf("a user was created: %+v", list)
	}
}

// TestAPINoOpWritesKeepTheVersion checks that writes that change nothing
// answer the user at the version it had.
func TestAPINoOpWritesKeepTheVersion(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, secret := e.apiKey(t, e.acme.ID, kanri.ScopeRead, kanri.ScopeWrite)
	bob := "/api/v1/users/" + e.acmeBob.ID
	tag := e.api(t, http.MethodGet, bob, secret, nil).resp.Header.Get("ETag")
	for _, tc := range []struct{ what, method, path, body string }{
		{"PATCH {}", http.MethodPatch, bob, `{}`},
		{"PATCH the same values", http.MethodPatch, bob, `{"displayName":"Bob","email":"bob@acme.test"}`},
		{"reactivate an active user", http.MethodPost, bob + "/reactivate", ""},
	} {
		var body any
		if tc.body != "" {
			body = tc.body
		}
		a := e.api(t, tc.method, tc.path, secret, body, "If-Match", tag)
		if a.status != http.StatusOK {
			t.Errorf("%s: got %d: %s", tc.what, a.status, a.body)
			continue
		}
		if got := a.resp.Header.Get("ETag"); got != tag {
			t.Errorf("%s: ETag %s, want %s unchanged", tc.what, got, tag)
		}
	}
}

// TestAPIConcurrentPatchesAllSucceed has 10 clients PATCH one user 20
// times each without If-Match, at once: each change is made (contention is
// retried, never answered 409 or 503).
func TestAPIConcurrentPatchesAllSucceed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, secret := e.apiKey(t, e.acme.ID, kanri.ScopeRead, kanri.ScopeWrite)
	const clients, rounds = 10, 20
	statuses := make(chan int, clients*rounds)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for r := range rounds {
				a := e.api(t, http.MethodPatch, "/api/v1/users/"+e.acmeBob.ID, secret, map[string]string{"displayName": fmt.Sprintf("client %d round %d", c, r)})
				statuses <- a.status
			}
		})
	}
	wg.Wait()
	close(statuses)
	got := map[int]int{}
	for s := range statuses {
		got[s]++
	}
	t.Logf("statuses: %v", got)
	if got[http.StatusOK] != clients*rounds {
		t.Errorf("statuses %v, want %d × 200", got, clients*rounds)
	}
}

// TestAPIRefusesQueryParametersItCannotTake checks that a query parameter
// with a value the operation does not take, or given twice, is refused
// with the parameter named, instead of being passed over.
func TestAPIRefusesQueryParametersItCannotTake(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, secret := e.apiKey(t, e.acme.ID, kanri.ScopeRead)
	for _, tc := range []struct{ query, names string }{
		{"sort=colour", "sort"},
		{"status=sleeping", "status"},
		{"desc=yes", "desc"},
		{"limit=%2B5", "limit"},
		{"limit=abc", "limit"},
		{"limit=0", "limit"},
		{"limit=101", "limit"},
		{"limit=%205", "limit"},
		{"limit=99999999999999999999", "limit"},
		{"sort=email&sort=username", "sort"},
		{"q=a&q=b", "q"},
		{"status=", "status"},
		{"limt=5", "limt"},
		{"limit=5&colour=red", "colour"},
	} {
		a := e.api(t, http.MethodGet, "/api/v1/users?"+tc.query, secret, nil)
		if p := wantProblem(t, tc.query, a, http.StatusBadRequest, "bad-request"); p != nil && !strings.Contains(p["detail"].(string), tc.names) {
			t.Errorf("%s: the detail does not name %s: %v", tc.query, tc.names, p)
		}
	}
	for _, q := range []string{"sort=email&desc=false&limit=5&status=active", "desc=true&limit=100", "q="} {
		if a := e.api(t, http.MethodGet, "/api/v1/users?"+q, secret, nil); a.status != http.StatusOK {
			t.Errorf("%s: got %d, want 200: %s", q, a.status, a.body)
		}
	}
	a := e.api(t, http.MethodGet, "/api/v1/audit?limit=5&limit=6", secret, nil)
	wantProblem(t, "the audit's limit twice", a, http.StatusBadRequest, "bad-request")
	// An operation that takes no parameter takes none.
	for _, path := range []string{"/api/v1/users/" + e.acmeBob.ID + "?fields=id", "/api/v1/me?verbose=true", "/api/v1/roles?limit=5"} {
		a := e.api(t, http.MethodGet, path, secret, nil)
		name := path[strings.Index(path, "?")+1 : strings.Index(path, "=")]
		if p := wantProblem(t, path, a, http.StatusBadRequest, "bad-request"); p != nil && !strings.Contains(p["detail"].(string), name) {
			t.Errorf("%s: the detail does not name %s: %v", path, name, p)
		}
	}
}

// TestHEADAnswersAsGET checks that HEAD on a GET route of the API and the
// console answers GET's status and headers, without a body.
func TestHEADAnswersAsGET(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, secret := e.apiKey(t, e.acme.ID, kanri.ScopeRead)
	for _, path := range []string{"/api/v1/users", "/api/v1/users/" + e.acmeBob.ID, "/login", "/api/v1/openapi.json"} {
		var got [2]*http.Response
		var bodies [2][]byte
		for i, method := range []string{http.MethodGet, http.MethodHead} {
			req, _ := http.NewRequest(method, e.srv.URL+path, nil)
			req.Header.Set("Authorization", "Bearer "+secret)
			resp, err := e.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			bodies[i], _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			got[i] = resp
		}
		if got[1].StatusCode != got[0].StatusCode || got[0].StatusCode != http.StatusOK {
			t.Errorf("HEAD %s: got %d, want %d as GET", path, got[1].StatusCode, got[0].StatusCode)
		}
		for _, h := range []string{"Content-Type", "ETag"} {
			if g, w := got[1].Header.Get(h), got[0].Header.Get(h); g != w {
				t.Errorf("HEAD %s: %s %q, want %q as GET", path, h, g, w)
			}
		}
		if len(bodies[1]) != 0 || len(bodies[0]) == 0 {
			t.Errorf("HEAD %s: a body of %d bytes (GET's %d), want none", path, len(bodies[1]), len(bodies[0]))
		}
	}
}
