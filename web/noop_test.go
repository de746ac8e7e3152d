package web_test

import (
	"context"
	"testing"

	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/catalog"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/tenant"
)

// TestAWriteThatChangesNothingChangesNothing saves tenants, service
// assignments, catalog services and API keys as they are: no new version
// (the ETag other clients hold stays good) and no audit record.
func TestAWriteThatChangesNothingChangesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID, GlobalAdmin: true})
	e.assignFiles(t, e.acme.ID)
	key, _, err := e.keys.Create(ctx, e.acme.ID, apikey.Input{Name: "sync", Scopes: []string{kanri.ScopeRead}})
	if err != nil {
		t.Fatal(err)
	}
	if key, err = e.keys.SetActive(ctx, e.acme.ID, key.ID, kanri.Seen{}, false); err != nil {
		t.Fatal(err)
	}
	records := func() int {
		n := 0
		for _, tid := range []string{e.acme.ID, kanri.PrivilegedTenantID} {
			all, err := e.st.Tenant(tid).AuditLogs().All(ctx, docstore.Query{})
			if err != nil {
				t.Fatal(err)
			}
			n += len(all)
		}
		return n
	}
	cases := []struct {
		name string
		save func() (before, after string, err error) // the ETags before and after the save
	}{
		{"tenant", func() (string, string, error) {
			ten, err := e.tenants.Get(ctx, e.acme.ID)
			if err != nil {
				return "", "", err
			}
			in := tenant.InputOf(ten)
			saved, err := e.tenants.Update(ctx, ten.ID, ten.ETag, &in, in)
			if err != nil {
				return "", "", err
			}
			return ten.ETag, saved.ETag, nil
		}},
		{"service assignment", func() (string, string, error) {
			a, err := e.catalog.Assignment(ctx, e.acme.ID, kanri.FileServiceID)
			if err != nil {
				return "", "", err
			}
			saved, err := e.catalog.UpdateAssignment(ctx, e.acme.ID, kanri.FileServiceID, a.ETag, kanri.AssignmentInput{Config: map[string]string{}})
			if err != nil {
				return "", "", err
			}
			return a.ETag, saved.ETag, nil
		}},
		{"catalog service", func() (string, string, error) {
			svc, err := e.catalog.Get(ctx, kanri.FileServiceID)
			if err != nil {
				return "", "", err
			}
			saved, err := e.catalog.Update(ctx, svc.ID, svc.ETag, catalog.InputOf(svc))
			if err != nil {
				return "", "", err
			}
			return svc.ETag, saved.ETag, nil
		}},
		{"API key deactivated again", func() (string, string, error) {
			saved, err := e.keys.SetActive(ctx, e.acme.ID, key.ID, kanri.Seen{}, false)
			if err != nil {
				return "", "", err
			}
			return key.ETag, saved.ETag, nil
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := records()
			before, after, err := c.save()
			if err != nil {
				t.Fatal(err)
			}
			if after != before {
				t.Errorf("ETag %s after saving nothing, want %s still", after, before)
			}
			if got := records(); got != n {
				t.Errorf("%d audit records written for a save that changed nothing", got-n)
			}
		})
	}
}
