package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/docstore/docstoretest"
	"github.com/kanri/kanri/internal/kanri"
)

// dense are the filters that hold for nearly every document of their
// type, so that an index walk checking them reads about a page to fill
// one: a user or tenant that is not deleted. Any other filter that no
// index range serves makes a page cost what the filter skips.
var dense = []string{
	`(deletedAt = "<nil>" or undefined(deletedAt))`,
	`status != "deleted"`,
}

// TestEveryListQueryIsServedByAnIndex sends every list page and API list
// the console has, with each filter and sort combination, records the
// queries the handlers make, and asks the embedded store how it runs each:
// none may read a whole partition, or walk a whole index while checking a
// filter that may reject most of it.
func TestEveryListQueryIsServedByAnIndex(t *testing.T) {
	t.Parallel()
	var rec *docstoretest.Recorder
	e := newEnvOver(t, func(ds docstore.Store) docstore.Store { rec = docstoretest.NewRecorder(ds); return rec })
	staff := e.client(t).signIn("privileged", adminEmail)
	acme := "/t/" + e.acme.ID
	key, secret := e.apiKey(t, e.acme.ID, "read", "write")

	var pages []string
	combos := func(path string, params map[string][]string) {
		names := make([]string, 0, len(params))
		for n := range params {
			names = append(names, n)
		}
		slices.Sort(names)
		var walk func(i int, q url.Values)
		walk = func(i int, q url.Values) {
			if i == len(names) {
				pages = append(pages, path+"?"+q.Encode())
				return
			}
			for _, v := range params[names[i]] {
				next := url.Values{}
				for k, vs := range q {
					next[k] = vs
				}
				if v != "" {
					next.Set(names[i], v)
				}
				walk(i+1, next)
			}
		}
		walk(0, url.Values{})
	}
	combos("/tenants", map[string][]string{"q": {"", "acme"}, "status": {"", "all", "active", "suspended", "deleted"},
		"sort": {"", "name", "createdAt", "userCount", "status", "plan"}, "desc": {"", "1"}})
	combos(acme+"/users", map[string][]string{"q": {"", "bo", "bob acme", "!!"}, "status": {"", "active", "inactive", "locked", "deleted"},
		"sort": {"", "username", "displayName", "email", "createdAt", "lastLogin"}, "desc": {"", "1"}})
	combos(acme+"/audit", map[string][]string{"action": {"", "user.", "user.create"}, "user": {"", "bob", e.acmeBob.ID},
		"resource": {"", "User"}, "from": {"", "2026-01-01"}, "to": {"", "2027-01-01"}})
	// The operator's log: what its staff did in every tenant, by tenant.
	combos("/t/"+kanri.PrivilegedTenantID+"/audit", map[string][]string{"tenant": {"", "acme", e.globex.ID}, "action": {"", "user.", "tenant.suspend"},
		"user": {"", "admin"}, "from": {"", "2026-01-01"}})
	combos(acme+"/api-keys/usage", map[string][]string{"status": {"", "2xx", "4xx", "5xx"}})
	combos(acme+"/api-keys/"+key.ID, map[string][]string{"status": {"", "2xx", "4xx"}})
	c := e.chat(t)
	e.say(t, c.admin, c.public, "hello world")
	combos(acme+"/channels", map[string][]string{"q": {"", "gen"}, "archived": {"", "1"}})
	combos(acme+"/channels/"+c.public.ID, map[string][]string{"q": {"", "hello", "hello wor"}})
	pages = append(pages, acme+"/channels/"+c.public.ID+"/members")
	for _, p := range []string{acme + "/api-keys", acme + "/roles", acme + "/services", acme + "/domains", "/services", "/services/usage",
		acme + "/roles/auth-service/admin", acme + "/users/" + e.acmeBob.ID + "/roles"} {
		pages = append(pages, p)
	}
	for _, p := range pages {
		if resp, _ := staff.get(p); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: status %d", p, resp.StatusCode)
		}
	}
	// The operator's log without what its staff did in the tenants, for
	// its staff who are no global administrators.
	viewer := e.operatorViewer(t, "pat")
	combos("/t/"+kanri.PrivilegedTenantID+"/audit", map[string][]string{"action": {"", "user."}, "user": {"", "admin"}})
	for _, p := range pages[len(pages)-4:] {
		if resp, _ := viewer.get(p); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s as a viewer of the operator's: status %d", p, resp.StatusCode)
		}
	}
	var api []string
	combosAPI := func(path string, params map[string][]string) {
		before := len(pages)
		combos(path, params)
		api, pages = append(api, pages[before:]...), pages[:before]
	}
	combosAPI("/api/v1/users", map[string][]string{"q": {"", "bo"}, "status": {"", "active", "inactive", "locked"},
		"sort": {"", "username", "email", "createdAt"}, "desc": {"", "true"}})
	combosAPI("/api/v1/audit", map[string][]string{"action": {"", "user.", "user.create"}, "user": {"", "bob"}, "from": {"", "2026-01-01"}})
	combosAPI("/api/v1/channels", map[string][]string{"limit": {"", "10"}})
	combosAPI("/api/v1/channels", map[string][]string{"browse": {"true"}, "q": {"", "gen", "general chat"}, "archived": {"", "true", "false"}})
	combosAPI("/api/v1/channels/"+c.public.ID+"/members", map[string][]string{"limit": {"", "10"}})
	combosAPI("/api/v1/channels/"+c.public.ID+"/messages", map[string][]string{"q": {"", "hel", "hello world"}, "limit": {"", "10"}})
	for _, p := range api {
		if r := e.api(t, http.MethodGet, p, secret, nil); r.status != http.StatusOK {
			t.Errorf("GET %s: status %d", p, r.status)
		}
	}

	explained := map[string]bool{}
	for _, r := range rec.Queries() {
		if r.PartitionKey == "" {
			continue // the operator's named cross-partition paths, not pages
		}
		c, ok := rec.Store.Container(r.Container).(docstore.Explainer)
		if !ok {
			t.Fatalf("container %s cannot explain", r.Container)
		}
		plan, err := c.Explain(r.PartitionKey, r.Query)
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("%s %s %v order %s", r.Container, r.Query.Type, plan.Checked, r.Query.OrderBy)
		if explained[what] {
			continue
		}
		explained[what] = true
		var undense []string
		for _, c := range plan.Checked {
			if !slices.Contains(dense, c) {
				undense = append(undense, c)
			}
		}
		switch {
		case plan.Access == docstore.AccessPartition:
			t.Errorf("%s: reads the whole partition", what)
		case !plan.Narrowed && len(undense) > 0:
			t.Errorf("%s: walks %s whole, checking %s", what, strings.Join(plan.Ranges, ", "), strings.Join(undense, ", "))
		}
	}
	if len(explained) < 50 {
		t.Errorf("only %d distinct queries recorded: the pages did not run", len(explained))
	}
	t.Logf("%d pages, %d API calls, %d distinct queries explained", len(pages), len(api), len(explained))
}
