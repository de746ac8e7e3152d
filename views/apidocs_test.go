package views

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/i18n"
)

func TestDocSpans(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []docSpan
	}{
		{"", nil},
		{"plain", []docSpan{{text: "plain"}}},
		{"Needs the scope `read` on the key.", []docSpan{{text: "Needs the scope "}, {text: "read", code: true}, {text: " on the key."}}},
		{"`a` and `b`", []docSpan{{text: "a", code: true}, {text: " and "}, {text: "b", code: true}}},
		{"a lone ` backtick", []docSpan{{text: "a lone ` backtick"}}},
		{"`a` then a lone `", []docSpan{{text: "a", code: true}, {text: " then a lone `"}}},
	} {
		if got := docSpans(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("docSpans(%q): got %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestDocParagraphs(t *testing.T) {
	got := docParagraphs("One.\n\nTwo,\nstill two.\n\n\n")
	if want := []string{"One.", "Two,\nstill two."}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestAPIDocsTagPage renders a tag's page of the reference: its
// operations only, the statuses leading to the problem types on the
// overview, the overview's address, and the tags before and after it
// where there are some.
func TestAPIDocsTagPage(t *testing.T) {
	ctx := i18n.WithLang(context.Background(), "en")
	users := APITag{Name: "Users", Slug: "users", Ops: []APIOperation{
		{ID: "listUsers", Method: "GET", Path: "/api/v1/users", Summary: "List", Statuses: []APIStatus{{Code: "404", Description: "None", Problem: "problem-not-found"}}},
		{ID: "getUser", Method: "GET", Path: "/api/v1/users/{id}", Summary: "Get"},
	}}
	roles := APITag{Name: "Roles", Slug: "roles"}
	audit := APITag{Name: "Audit log", Slug: "audit-log"}
	for _, tc := range []struct {
		name   string
		d      APITagDocs
		want   []string
		absent []string
	}{
		{"middle", APITagDocs{Tag: users, Prev: audit, Next: roles}, []string{
			`<h1>Users</h1>`, `<article id="op-listUsers"`, `<article id="op-getUser"`,
			`href="/api/v1/docs#problem-not-found"`, `href="/api/v1/docs#contents" data-testid="apidocs-overview"`,
			`<a href="/api/v1/docs/audit-log" rel="prev" data-testid="apidocs-prev">← Audit log</a>`,
			`<a href="/api/v1/docs/roles" rel="next" data-testid="apidocs-next">Roles →</a>`,
		}, nil},
		{"first", APITagDocs{Tag: users, Next: roles}, []string{`rel="next"`}, []string{`rel="prev"`}},
		{"last", APITagDocs{Tag: users, Prev: audit}, []string{`rel="prev"`}, []string{`rel="next"`}},
	} {
		var b bytes.Buffer
		if err := APIDocsTagPage(Page{Title: "Users · Kanri API"}, tc.d).Render(ctx, &b); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		for _, want := range tc.want {
			if !strings.Contains(page, want) {
				t.Errorf("%s: the page lacks %s", tc.name, want)
			}
		}
		for _, unwanted := range tc.absent {
			if strings.Contains(page, unwanted) {
				t.Errorf("%s: the page has %s", tc.name, unwanted)
			}
		}
		if n := strings.Count(page, `class="panel docs-op"`); n != len(users.Ops) {
			t.Errorf("%s: %d operations, want %d", tc.name, n, len(users.Ops))
		}
	}
}

// TestAPIDocsPageLeadsToTagPages renders the overview: no operation of
// its own, and contents that lead to each tag's page and to each
// operation on it, keeping the anchors of the single page it replaced.
func TestAPIDocsPageLeadsToTagPages(t *testing.T) {
	ctx := i18n.WithLang(context.Background(), "en")
	d := APIDocs{Tags: []APITag{
		{Name: "Users", Slug: "users", Ops: []APIOperation{{ID: "listUsers", Method: "GET", Path: "/api/v1/users"}}},
		{Name: "Roles", Slug: "roles", Ops: []APIOperation{{ID: "listRoles", Method: "GET", Path: "/api/v1/roles"}}},
	}}
	var b bytes.Buffer
	if err := APIDocsPage(Page{Title: "Kanri API"}, d).Render(ctx, &b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<li id="tag-users"><a href="/api/v1/docs/users" data-testid="apidocs-toc-users">Users</a>`,
		`<li id="op-listUsers"><a href="/api/v1/docs/users#op-listUsers">`,
		`<a href="/api/v1/docs/roles" data-testid="apidocs-toc-roles">Roles</a>`,
		`<li id="op-listRoles"><a href="/api/v1/docs/roles#op-listRoles">`,
		`<title>Kanri API · Kanri</title>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the overview lacks %s", want)
		}
	}
	if strings.Contains(page, `class="panel docs-op"`) {
		t.Error("the overview shows operations")
	}
}
