package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/kanri"
)

// behind rewrites bob's user document as user schema 1.1 wrote it (no
// profile block), as a document an older release left would be.
func (e *env) behind(t *testing.T) {
	t.Helper()
	c := e.st.Port().Container(kanri.ContainerAuth)
	it, err := c.Read(context.Background(), e.acme.ID, e.acmeBob.ID)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(it.Body, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "profile")
	doc["schemaVersion"] = "1.1"
	body, _ := json.Marshal(doc)
	if _, err := c.Replace(context.Background(), e.acme.ID, e.acmeBob.ID, body, it.ETag); err != nil {
		t.Fatal(err)
	}
}

// bobsVersion is the schema version bob's document is stored at.
func (e *env) bobsVersion(t *testing.T) string {
	t.Helper()
	it, err := e.st.Port().Container(kanri.ContainerAuth).Read(context.Background(), e.acme.ID, e.acmeBob.ID)
	if err != nil {
		t.Fatal(err)
	}
	var hd struct{ SchemaVersion string }
	json.Unmarshal(it.Body, &hd)
	return hd.SchemaVersion
}

var migrationState = regexp.MustCompile(`data-testid="migration-state" data-state="([a-z-]+)"`)

// waitMigration reloads the page until the last run is in state want.
func waitMigration(t *testing.T, c *client, want string) string {
	t.Helper()
	for {
		_, body := c.get("/migrations")
		m := migrationState.FindStringSubmatch(body)
		if m != nil && m[1] == want && !strings.Contains(body, `data-testid="migration-busy"`) {
			return body
		}
		if m != nil && m[1] == "stopped" {
			t.Fatalf("the run stopped; want %s", want)
		}
		select {
		case <-t.Context().Done():
			t.Fatalf("the migration is %v; want %s", m, want)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestMigrationsPage: operator staff dry-run, run and roll back a batch
// migration from the page: the dry run counts bob's document behind and
// masks his data in its sample, the run brings it to 1.2 and the rollback
// back to 1.1; a tenant's administrator reaches none of it.
func TestMigrationsPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.runWork(t, "migrations")
	staff := e.client(t).signIn("privileged", adminEmail)
	admin := e.client(t).signIn("acme", "admin")

	_, body := staff.get("/migrations")
	for _, want := range []string{`data-testid="migration-none"`, `data-testid="migration-dry-run"`, `data-testid="migration-run"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the first page lacks %s", want)
		}
	}
	if strings.Contains(body, `data-testid="migration-rollback"`) {
		t.Errorf("a rollback is offered before any run")
	}
	for _, path := range []string{"/migrations", "/migrations/plan"} {
		resp, _ := admin.get(path)
		if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusForbidden {
			t.Errorf("GET %s by a tenant's administrator: %d", path, resp.StatusCode)
		}
	}
	admin.get("/t/" + e.acme.ID + "/users")
	for _, path := range []string{"/migrations/run", "/migrations/rollback"} {
		resp, _ := admin.post(path, nil)
		if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s by a tenant's administrator: %d", path, resp.StatusCode)
		}
	}
	if _, body := staff.get("/migrations"); !strings.Contains(body, `data-testid="migration-none"`) {
		t.Errorf("a tenant's administrator started something")
	}

	e.behind(t)
	_, body = staff.get("/migrations/plan")
	for _, want := range []string{`data-documents="1"`, `data-tenant="` + e.acme.ID + `"`, `auth/user`, `data-testid="migration-sample"`, `•••`} {
		if !strings.Contains(body, want) {
			t.Errorf("the dry run lacks %s", want)
		}
	}
	if strings.Contains(body, "bob@acme.test") {
		t.Errorf("the dry run's sample shows bob's e-mail")
	}
	if got := e.bobsVersion(t); got != "1.1" {
		t.Fatalf("after the dry run bob is at %s: it wrote", got)
	}

	resp, _ := staff.post("/migrations/run", nil)
	wantStatus(t, "POST /migrations/run", resp, http.StatusSeeOther)
	body = waitMigration(t, staff, "done")
	if !strings.Contains(body, `data-behind="0"`) || !strings.Contains(body, `data-testid="migration-rollback"`) {
		t.Errorf("the finished run's page lacks its verification or its rollback")
	}
	if got := e.bobsVersion(t); got != "1.2" {
		t.Errorf("after the run bob is at %s; want 1.2", got)
	}

	resp, _ = staff.post("/migrations/rollback", nil)
	wantStatus(t, "POST /migrations/rollback", resp, http.StatusSeeOther)
	body = waitMigration(t, staff, "rolled-back")
	if !strings.Contains(body, `data-testid="migration-rolled-back"`) || strings.Contains(body, `data-testid="migration-rollback"`) {
		t.Errorf("the rolled back run's page: want how many tenants, and no second rollback")
	}
	if got := e.bobsVersion(t); got != "1.1" {
		t.Errorf("after the rollback bob is at %s; want 1.1 again", got)
	}
	resp, _ = staff.post("/migrations/rollback", nil)
	if page := staff.landing(resp); !strings.Contains(page, "no migration to roll back") {
		t.Errorf("a second rollback: %d; want it refused on the page", resp.StatusCode)
	}
}
