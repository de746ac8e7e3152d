//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
	"golang.org/x/crypto/bcrypt"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/cosmos"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/wiring"
)

// legacyUsers is how many users of tenant "legacy" an older release left
// at user schema 1.1 (without the profile block); legacyAudit how many of
// its audit records are 88 days old, within a week of their expiry.
const (
	legacyUsers = 3
	legacyAudit = 12
)

// migrationSteps: on a server of its own, whose store holds users an older
// release wrote, the operator dry-runs the batch migration (it counts
// them), runs it (the page follows it to done, nothing left behind) and
// rolls it back (the dry run counts them again).
func (s *suite) migrationSteps(t *testing.T) {
	var op *session
	s.step(t, "migration_dry_run_run_and_rollback", []string{"admin_signs_in"}, s.pagesOf(&op), func(t *testing.T) {
		var phone func() *session
		op, phone = s.legacyOperator(t, "migrator")
		s.click(t, op, "nav-migrations")
		s.atPath(t, op, "/migrations")
		s.visible(t, op, "migration-none")

		s.click(t, op, "migration-dry-run")
		s.atPath(t, op, "/migrations/plan")
		s.hasAttr(t, op, op.tid("migration-plan"), "migration-plan", "data-documents", "3")
		sample := op.tid("migration-sample").First()
		if err := sample.Locator("summary").Click(); err != nil {
			t.Fatal(err)
		}
		if err := s.expect.Locator(sample).ToContainText("•••"); err != nil {
			t.Errorf("the sample's personal data is not masked: %v", err)
		}
		if err := s.expect.Locator(sample).Not().ToContainText("@legacy.test"); err != nil {
			t.Errorf("the sample shows an e-mail address: %v", err)
		}

		s.submitStatus(t, op, op.tid("migration-run"), "/migrations/run", 303)
		s.atPath(t, op, "/migrations")
		s.containsText(t, op, "flash", "has started")
		s.waitState(t, op, "done")
		s.hasAttr(t, op, op.tid("migration-verified"), "migration-verified", "data-behind", "0")
		s.containsText(t, op, "migration-progress", "3 documents migrated")

		s.submitStatus(t, op, op.tid("migration-rollback"), "/migrations/rollback", 303)
		s.waitState(t, op, "rolled-back")
		s.containsText(t, op, "migration-rolled-back", "Tenants restored: 1")
		s.absent(t, op, "migration-rollback")

		s.click(t, op, "migration-dry-run")
		s.atPath(t, op, "/migrations/plan")
		s.hasAttr(t, op, op.tid("migration-plan"), "migration-plan", "data-documents", "3")

		// The page's lists fit a phone.
		s.listsFit(t, phone(), "/migrations/plan", false)
	})
}

// legacyOperator starts a server of the step's own whose store an older
// release left behind (seedLegacy), and signs its operator in; phone
// signs them in on a phone-sized screen too.
func (s *suite) legacyOperator(t *testing.T, label string) (op *session, phone func() *session) {
	t.Helper()
	env := s.srv.freshEnv(t)
	seedLegacy(t, s.srv.Store, env)
	m := launch(t, s.srv.Store, env)
	m.DNS, m.env = s.srv.DNS, env
	signIn := func(label string, size *playwright.Size) *session {
		p := s.newSessionAt(t, label, size, m.URL)
		s.signInOK(t, p, "privileged", adminEmail, adminPass, "/tenants")
		return p
	}
	return signIn(label, nil), func() *session { return signIn(label+"-390", &playwright.Size{Width: 390, Height: 844}) }
}

// waitState waits until the migration page, refreshing itself, shows the
// last run in state want.
func (s *suite) waitState(t *testing.T, p *session, want string) {
	t.Helper()
	if err := s.expect.Locator(p.tid("migration-state")).ToHaveAttribute("data-state", want, playwright.LocatorAssertionsToHaveAttributeOptions{Timeout: playwright.Float(60_000)}); err != nil {
		t.Fatalf("the migration did not reach %s: %v", want, err)
	}
	if err := s.expect.Locator(p.tid("migration-busy")).ToHaveCount(0, playwright.LocatorAssertionsToHaveCountOptions{Timeout: playwright.Float(60_000)}); err != nil {
		t.Fatalf("the migration's lease is still held: %v", err)
	}
}

// seedLegacy writes, in the store of a server not started yet (its
// environment env), the operator and its administrator as the server's
// first start would, and a tenant "legacy" with legacyUsers users, whose
// documents it rewrites as user schema 1.1 wrote them, and legacyAudit
// audit records near their expiry.
func seedLegacy(t *testing.T, storeName string, env []string) {
	t.Helper()
	ctx := context.Background()
	var ds docstore.Store
	var err error
	if storeName == "cosmos" {
		ds, err = cosmos.Open(ctx, cosmos.Config{
			Endpoint: setting(env, "KANRI_COSMOS_ENDPOINT"), Key: setting(env, "KANRI_COSMOS_KEY"),
			Database: setting(env, "KANRI_COSMOS_DATABASE"), InsecureSkipVerify: true,
		}, features.Specs())
	} else {
		ds, err = bolt.Open(setting(env, "KANRI_DATA_DIR"), features.Specs(), bolt.Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	svcs := wiring.New(store.New(ds, nil, features.Schema()), slog.New(slog.DiscardHandler), nil, wiring.Options{Roles: features.Roles(), Hasher: auth.Hasher{Cost: bcrypt.MinCost}})
	if _, err := svcs.Roles.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := auth.Bootstrap(ctx, svcs.Tenants, svcs.Users, svcs.Roles, adminEmail, adminPass); err != nil {
		t.Fatal(err)
	}
	ctx = audit.WithActor(ctx, audit.Actor{UserID: "system", GlobalAdmin: true})
	ten, err := svcs.Tenants.Create(ctx, kanri.TenantInput{Name: "legacy", DisplayName: "Legacy Ltd", Plan: kanri.PlanStandard, MaxUsers: 10})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, name := range []string{"ada", "ben", "cy"}[:legacyUsers] {
		u, err := svcs.Users.Create(ctx, ten.ID, kanri.UserInput{Username: name, Email: name + "@legacy.test", DisplayName: name, Password: "Legacy-pass-123"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, u.ID)
	}
	if _, _, err := svcs.Catalog.Assign(ctx, ten.ID, kanri.AssignmentInput{ServiceID: kanri.BackupServiceID}); err != nil {
		t.Fatal(err)
	}
	old := kanri.FormatTime(time.Now().Add(-88 * 24 * time.Hour))
	for i := range legacyAudit {
		body := fmt.Sprintf(`{"id":"audit_legacy_%02d","tenantId":%q,"type":"audit_log","schemaVersion":"1.0","timestamp":%q,"userId":%q,"userName":"ada","action":"file.update","resource":{"type":"File","id":"file_%d","name":"ledger %d.xlsx"},"status":"success"}`, i, ten.ID, old, ids[0], i, i)
		if _, err := ds.Container(kanri.ContainerAudit).Create(ctx, ten.ID, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	c := ds.Container(kanri.ContainerAuth)
	for _, id := range ids {
		it, err := c.Read(ctx, ten.ID, id)
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
		if _, err := c.Replace(ctx, ten.ID, id, body, it.ETag); err != nil {
			t.Fatal(err)
		}
	}
}

// archiveSteps: on the lifecycle steps' server, the operator turns on the
// archive of legacy's records, archives now (the audit records within a
// week of their expiry), finds the archive offline, rehydrates it, and
// reads and downloads its records.
func (s *suite) archiveSteps(t *testing.T) {
	var op *session
	s.step(t, "archive_then_rehydrate", []string{"admin_signs_in"}, s.pagesOf(&op), func(t *testing.T) {
		var phone func() *session
		op, phone = s.legacyOperator(t, "archivist")
		path := "/t/tenant_legacy/archives"
		s.open(t, op, path, 200)
		s.visible(t, op, "archives-none")
		if err := op.tid("archive-enabled").Check(); err != nil {
			t.Fatal(err)
		}
		if err := op.tid("archive-optional-message").Check(); err != nil {
			t.Fatal(err)
		}
		s.fill(t, op, "archive-days", "31")
		s.submitStatus(t, op, op.tid("archive-save"), path+"/settings", 422)
		s.visible(t, op, "field-error-days")
		s.fill(t, op, "archive-days", "7")
		s.submitStatus(t, op, op.tid("archive-save"), path+"/settings", 303)
		s.containsText(t, op, "flash", "saved")

		s.submitStatus(t, op, op.tid("archive-run"), path+"/run", 303)
		s.containsText(t, op, "flash", fmt.Sprintf("%d records archived", legacyAudit))
		row := op.tid("archive-row")
		s.hasAttr(t, op, row, "archive-row", "data-state", "archived")
		s.containsText(t, op, "archive-records", fmt.Sprint(legacyAudit))

		s.click(t, op, "archive-link")
		s.visible(t, op, "archive-offline")
		u, err := url.Parse(op.page.URL())
		if err != nil {
			t.Fatal(err)
		}
		archivePage := u.Path
		s.absent(t, op, "archive-download")
		s.click(t, op, "archive-rehydrate")
		s.hasAttr(t, op, op.tid("archive-state"), "archive-state", "data-state", "available")
		if err := s.expect.Locator(op.tid("archive-record")).ToHaveCount(legacyAudit); err != nil {
			t.Errorf("the available archive's page: %v", err)
		}
		s.containsText(t, op, "archive-record-table", "ledger 3.xlsx")

		dl, err := op.page.ExpectDownload(func() error { return op.tid("archive-download").Click() })
		if err != nil {
			t.Fatal(err)
		}
		file, err := dl.Path()
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n != legacyAudit || !strings.HasSuffix(dl.SuggestedFilename(), ".ndjson") {
			t.Errorf("the download %s holds %d lines; want %d", dl.SuggestedFilename(), n, legacyAudit)
		}

		// The pages' lists fit a phone.
		small := phone()
		for _, p := range []string{path, archivePage} {
			s.listsFit(t, small, p, false)
		}
	})
}
